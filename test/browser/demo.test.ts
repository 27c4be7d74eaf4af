// The demo, end to end in Chromium: the page as `npm start` serves it (through the dev server's
// TypeScript transform), loaded in an iframe; the agent panel drives it like a person playing the agent.
import { expect, waitUntil } from '@open-wc/testing';
import { sendMouse, setViewport } from '@web/test-runner-commands';

type Ctx = { timeout(ms: number): void };

async function openDemo(src: string): Promise<{ frame: HTMLIFrameElement; doc: Document; win: Window }> {
  // Big enough for the two-column layout, and for trusted clicks to land inside the viewport.
  await setViewport({ width: 1300, height: 900 });
  const frame = document.createElement('iframe');
  frame.style.cssText = 'position:fixed;left:0;top:0;width:1300px;height:900px;border:0';
  frame.src = src;
  document.body.append(frame);
  await waitUntil(
    () => frame.contentDocument?.documentElement?.dataset.ready === 'true',
    `${src} did not get ready`,
    {
      timeout: 20000,
    },
  );
  return { frame, doc: frame.contentDocument!, win: frame.contentWindow! };
}

const toolNames = (doc: Document) =>
  [...doc.querySelectorAll<HTMLElement>('.catalog li')].map((li) => li.dataset.name);

async function callTool(doc: Document, name: string, input: unknown): Promise<void> {
  const select = doc.querySelector<HTMLSelectElement>('#tool-select')!;
  select.value = name;
  select.dispatchEvent(new Event('change'));
  doc.querySelector<HTMLTextAreaElement>('#tool-input')!.value = JSON.stringify(input);
  doc.querySelector<HTMLFormElement>('form.play')!.requestSubmit();
}

const resultText = (doc: Document) => doc.querySelector('.result')!.textContent ?? '';
const statusText = (doc: Document) => doc.querySelector('.call-status')!.textContent ?? '';

describe('demo/index.html', () => {
  let demo: Awaited<ReturnType<typeof openDemo>>;

  before(async function (this: unknown) {
    (this as unknown as Ctx).timeout(30000);
    demo = await openDemo('/demo/index.html');
  });
  after(() => demo?.frame.remove());

  it('shows the catalog an agent sees: wire names, descriptions, live state', () => {
    const { doc } = demo;
    expect(toolNames(doc)).to.deep.equal([
      'domain_devices__disable',
      'view_devices__rename',
      'view_devices__rows',
      'view_devices__selectRows',
      'view_devices__selection',
    ]);
    const disable = doc.querySelector('.catalog li[data-name="domain_devices__disable"]')!;
    expect(disable.querySelector('.description')!.textContent).to.contain('Disable devices by id.');
    expect(disable.querySelector('.capability-id')!.textContent).to.equal('domain:devices.disable');
    expect(doc.querySelector('.state')!.textContent).to.contain('view_devices__selectRows: 0 of 5 selected');
  });

  it('runs a call from the panel: the table and the live state follow', async () => {
    const { doc } = demo;
    await callTool(doc, 'view_devices__selectRows', { ids: ['cam-lobby', 'cam-dock'] });
    await waitUntil(() => statusText(doc).includes('succeeded'), 'selectRows did not finish');
    expect(JSON.parse(resultText(doc))).to.deep.equal({ selected: ['cam-lobby', 'cam-dock'] });
    expect([...doc.querySelectorAll<HTMLElement>('tr.selected')].map((tr) => tr.dataset.id)).to.deep.equal([
      'cam-lobby',
      'cam-dock',
    ]);
    await waitUntil(
      () => doc.querySelector('.state')!.textContent!.includes('2 of 5 selected'),
      'live state not updated',
    );

    await callTool(doc, 'view_devices__rename', { id: 'cam-dock', name: 'Dock camera' });
    await waitUntil(
      () => statusText(doc).includes('rename succeeded'),
      'rename (agent-invoke path) did not finish',
    );
    expect(doc.querySelector('tr[data-id="cam-dock"] td:nth-child(2)')!.textContent).to.equal('Dock camera');
  });

  it('reports invalid input as data, without running the handler', async () => {
    const { doc } = demo;
    await callTool(doc, 'view_devices__selectRows', { ids: 'cam-lobby' });
    await waitUntil(() => statusText(doc).includes('failed'), 'the bad call did not fail');
    expect(JSON.parse(resultText(doc)).code).to.equal('INVALID_INPUT');
    expect(doc.querySelectorAll('tr.selected').length).to.equal(2);
  });

  it('a destructive call waits for the person: a script click does nothing, a trusted click approves', async function () {
    (this as unknown as Ctx).timeout(20000);
    const { doc, frame } = demo;
    await callTool(doc, 'domain_devices__disable', { ids: ['lock-main'] });
    const confirm = doc.querySelector('agent-confirm')!;
    const approveButton = () =>
      [...(confirm.shadowRoot?.querySelectorAll<HTMLButtonElement>('button') ?? [])].find((b) =>
        /approve/i.test(b.textContent ?? ''),
      );
    await waitUntil(
      () => approveButton() && approveButton()!.getBoundingClientRect().width > 0,
      'no confirm dialog',
    );
    expect(statusText(doc)).to.contain('Waiting for the person to approve domain:devices.disable');
    expect(confirm.shadowRoot!.textContent).to.contain('lock-main');

    // Past the activation delay, with the dialog in place.
    await waitUntil(() => approveButton()!.getAttribute('aria-disabled') === 'false', 'Approve never responds', {
      timeout: 5000,
    });
    approveButton()!.click(); // untrusted: ignored
    await new Promise((r) => setTimeout(r, 200));
    expect(doc.querySelector('tr[data-id="lock-main"] .status')!.textContent).to.equal('online');

    const box = approveButton()!.getBoundingClientRect();
    const outer = frame.getBoundingClientRect();
    await sendMouse({
      type: 'click',
      position: [
        Math.round(outer.left + box.left + box.width / 2),
        Math.round(outer.top + box.top + box.height / 2),
      ],
    });
    await waitUntil(() => statusText(doc).includes('disable succeeded'), 'the approved call did not run');
    expect(JSON.parse(resultText(doc))).to.deep.equal({ disabled: ['lock-main'] });
    expect(doc.querySelector('tr[data-id="lock-main"] .status')!.textContent).to.equal('disabled');
    const log = doc.querySelector('.log')!.textContent!;
    expect(log).to.contain('domain:devices.disable');
    expect(log).to.contain('confirmation approved');
  });

  it('injected capabilities with a forged or copied token never reach the catalog', async () => {
    const { doc } = demo;
    const before = toolNames(doc);
    doc.querySelector<HTMLButtonElement>('#inject')!.click();
    await waitUntil(
      () => (doc.querySelector('.log')!.textContent ?? '').includes('refused domain:devices.exportAll'),
      'no refusal logged',
    );
    await waitUntil(
      () => (doc.querySelector('.log')!.textContent ?? '').includes('refused domain:devices.disable'),
      'copied token not refused',
    );
    expect(toolNames(doc)).to.deep.equal(before);
    const disable = doc.querySelector('.catalog li[data-name="domain_devices__disable"] .description')!;
    expect(disable.textContent).to.contain('confirmation: required');
  });
});

describe('demo/csp.html', () => {
  it("works under script-src 'self': eval and inline scripts blocked, calls validated", async function () {
    (this as unknown as Ctx).timeout(30000);
    const response = await fetch('/demo/csp.html');
    expect(response.headers.get('content-security-policy')).to.contain("script-src 'self'");
    expect(await response.text()).not.to.match(/<script(?![^>]*\b(src=|type="application\/schema\+json"))/);

    const { doc, frame } = await openDemo('/demo/csp.html');
    try {
      expect(doc.documentElement.dataset.cspEval).to.equal('blocked');
      expect(doc.documentElement.dataset.cspInline).to.equal('blocked');
      expect(toolNames(doc)).to.have.length(5);
      await callTool(doc, 'view_devices__rows', {});
      await waitUntil(() => statusText(doc).includes('succeeded'), 'rows did not run');
      expect(JSON.parse(resultText(doc))).to.have.length(5);
      await callTool(doc, 'view_devices__selectRows', { ids: [42] });
      await waitUntil(() => statusText(doc).includes('failed'), 'the bad call did not fail');
      expect(JSON.parse(resultText(doc)).code).to.equal('INVALID_INPUT');
    } finally {
      frame.remove();
    }
  });
});
