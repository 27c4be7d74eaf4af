// The demo, end to end in Chromium: the page as `npm start` serves it (through the dev server's
// TypeScript transform), loaded in an iframe; the agent panel drives it like a person playing the agent.
import { expect } from '@open-wc/testing';
import { sendMouse } from '@web/test-runner-commands';
import type { AgentSurfaceElement } from '../../src/elements/index.js';
import { deepElementFromPoint } from '../../src/elements/approval-guard.js';
import { type Ctx, frames, inViewport, openDemo, trustedClick, until } from './demo-helpers.js';

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

describe('demo/index.html', function (this: unknown) {
  // A loaded machine: each step waits on a condition, with room for slow ones.
  (this as unknown as Ctx).timeout(120000);
  let demo: Awaited<ReturnType<typeof openDemo>>;

  before(async () => {
    demo = await openDemo('/demo/index.html');
  });
  after(() => demo?.frame.remove());
  afterEach(async () => {
    await sendMouse({ type: 'move', position: [0, 0] });
  });

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
    expect(doc.querySelector('.state')!.textContent).to.contain('view_devices__selectRows: note: "0 of 5 selected"');
  });

  it('runs a call from the panel: the table and the live state follow', async () => {
    const { doc } = demo;
    await callTool(doc, 'view_devices__selectRows', { ids: ['cam-lobby', 'cam-dock'] });
    await until(() => statusText(doc).includes('succeeded'), 'selectRows did not finish');
    expect(JSON.parse(resultText(doc))).to.deep.equal({ selected: ['cam-lobby', 'cam-dock'] });
    expect([...doc.querySelectorAll<HTMLElement>('tr.selected')].map((tr) => tr.dataset.id)).to.deep.equal([
      'cam-lobby',
      'cam-dock',
    ]);
    await until(
      () => doc.querySelector('.state')!.textContent!.includes('2 of 5 selected'),
      'live state not updated',
    );

    await callTool(doc, 'view_devices__rename', { id: 'cam-dock', name: 'Dock camera' });
    await until(
      () => statusText(doc).includes('rename succeeded'),
      'rename (agent-invoke path) did not finish',
    );
    expect(doc.querySelector('tr[data-id="cam-dock"] td:nth-child(2)')!.textContent).to.equal('Dock camera');
  });

  it('reports invalid input as data, without running the handler', async () => {
    const { doc } = demo;
    await callTool(doc, 'view_devices__selectRows', { ids: 'cam-lobby' });
    await until(() => statusText(doc).includes('failed'), 'the bad call did not fail');
    expect(JSON.parse(resultText(doc)).code).to.equal('INVALID_INPUT');
    expect(doc.querySelectorAll('tr.selected').length).to.equal(2);
  });

  it('a destructive call waits for the person: a script click does nothing, a trusted click approves', async function () {
    const { doc, frame } = demo;
    await callTool(doc, 'domain_devices__disable', { ids: ['lock-main'] });
    const confirm = doc.querySelector('agent-confirm')!;
    const approveButton = () =>
      [...(confirm.shadowRoot?.querySelectorAll<HTMLButtonElement>('button') ?? [])].find((b) =>
        /approve/i.test(b.textContent ?? ''),
      );
    await until(
      () => approveButton() && approveButton()!.getBoundingClientRect().width > 0,
      'no confirm dialog',
    );
    expect(statusText(doc)).to.contain('Waiting for the person to approve domain:devices.disable');
    expect(confirm.shadowRoot!.textContent).to.contain('lock-main');
    // The pipeline's CONFIRMATION_REQUIRED is the request reaching the person, not a failure: the
    // status and the log entry say "waiting for the person", in the pending colour, not the error one.
    const status = doc.querySelector('.call-status')!;
    expect(status.classList.contains('waiting')).to.equal(true);
    await until(() => doc.querySelector('.log li.waiting'), 'no waiting entry in the log');
    const entry = doc.querySelector('.log li.waiting')!;
    expect(entry.textContent).to.contain('demo-agent → domain:devices.disable').and.contain('waiting for the person');
    expect(entry.classList.contains('failed')).to.equal(false);
    const failedColour = (() => {
      const probe = doc.createElement('li');
      probe.className = 'failed';
      probe.append(doc.createElement('strong'));
      doc.querySelector('.log')!.append(probe);
      const colour = getComputedStyle(probe.firstElementChild!).color;
      probe.remove();
      return colour;
    })();
    expect(getComputedStyle(entry.querySelector('strong')!).color).not.to.equal(failedColour);
    expect(doc.querySelector('.log')!.textContent).not.to.contain('CONFIRMATION_REQUIRED');

    // Past the activation delay, with the dialog in place.
    await until(() => approveButton()!.getAttribute('aria-disabled') === 'false', 'Approve never responds', {
      timeout: 5000,
    });
    const surface = doc.querySelector<AgentSurfaceElement>('agent-surface')!;
    approveButton()!.click(); // untrusted: ignored (the click handler runs synchronously, so it would have decided by now)
    expect(surface.registry!.confirmations.list().map((p) => p.status)).to.deep.equal(['pending']);
    expect(doc.querySelector('tr[data-id="lock-main"] .status')!.textContent).to.equal('online');

    await trustedClick(frame, approveButton()!);
    await until(() => statusText(doc).includes('disable succeeded'), 'the approved call did not run');
    expect(JSON.parse(resultText(doc))).to.deep.equal({ disabled: ['lock-main'] });
    expect(doc.querySelector('tr[data-id="lock-main"] .status')!.textContent).to.equal('disabled');
    const log = doc.querySelector('.log')!.textContent!;
    expect(log).to.contain('domain:devices.disable');
    expect(log).to.contain('confirmation approved');
  });

  it('denied by a real click in the dialog: nothing runs, and the panel says the person denied it', async () => {
    const { doc, frame } = demo;
    await callTool(doc, 'domain_devices__disable', { ids: ['cam-lobby'] });
    const confirm = doc.querySelector('agent-confirm')!;
    const deny = () => confirm.shadowRoot?.querySelector<HTMLButtonElement>('[part~="deny"]');
    await until(() => deny()?.getAttribute('aria-disabled') === 'false', 'Deny never responds');
    await trustedClick(frame, deny()!);
    await until(() => statusText(doc).includes('did not run'), 'the denied call did not come back');
    expect(statusText(doc)).to.equal('domain_devices__disable did not run: the person denied it (CONFIRMATION_INVALID)');
    expect(doc.querySelector('.result')!.classList.contains('error')).to.equal(false);
    expect(JSON.parse(resultText(doc))).to.include({ code: 'CONFIRMATION_INVALID' });
    expect(doc.querySelector('tr[data-id="cam-lobby"] .status')!.textContent).to.equal('online');
    expect(doc.querySelector('.log')!.textContent).to.contain('confirmation denied');
  });

  it('injected capabilities with a forged or copied token never reach the catalog', async () => {
    const { doc } = demo;
    const before = toolNames(doc);
    doc.querySelector<HTMLButtonElement>('#inject')!.click();
    await until(
      () => (doc.querySelector('.log')!.textContent ?? '').includes('refused domain:devices.exportAll'),
      'no refusal logged',
    );
    await until(
      () => (doc.querySelector('.log')!.textContent ?? '').includes('refused domain:devices.disable'),
      'copied token not refused',
    );
    expect(toolNames(doc)).to.deep.equal(before);
    const disable = doc.querySelector('.catalog li[data-name="domain_devices__disable"] .description')!;
    expect(disable.textContent).to.contain('confirmation: required');
  });
});

describe('demo/index.html: the first visit', function (this: unknown) {
  // A loaded machine: each step waits on a condition, with room for slow ones.
  (this as unknown as Ctx).timeout(120000);
  afterEach(async () => {
    await sendMouse({ type: 'move', position: [0, 0] });
    for (const f of document.querySelectorAll('iframe')) f.remove();
  });

  const callButton = (doc: Document) => doc.querySelector<HTMLButtonElement>('form.play button[type="submit"]')!;

  it('at 1400 × 1000, the form to play the agent is on screen without scrolling', async () => {
    const { doc, win } = await openDemo('/demo/index.html', { width: 1400, height: 1000 });
    expect(win.scrollY).to.equal(0);
    expect(doc.querySelector('#agent-panel')!.scrollTop).to.equal(0);
    for (const el of [doc.querySelector('#tool-select')!, doc.querySelector('#tool-input')!, callButton(doc)]) {
      expect(inViewport(el), `${el.id || el.textContent} is above the fold`).to.equal(true);
      // Not merely inside the viewport: nothing covers it (the sticky panel clips what overflows).
      const r = el.getBoundingClientRect();
      expect(el.contains(deepElementFromPoint(doc, r.left + r.width / 2, r.top + r.height / 2)), `${el.id || el.textContent} is uncovered`).to.equal(true);
    }
  });

  it('the tool selected first only reads, and its prefilled input runs as it is, by a real click on Call', async () => {
    const { doc, frame } = await openDemo('/demo/index.html', { width: 1400, height: 1000 });
    const name = doc.querySelector<HTMLSelectElement>('#tool-select')!.value;
    const capabilityId = doc.querySelector(`.catalog li[data-name="${name}"] .capability-id`)!.textContent!;
    const surface = doc.querySelector<AgentSurfaceElement>('agent-surface')!;
    const descriptor = surface.registry!.snapshot({ consumer: { id: 'demo-agent', kind: 'embedded' } }).capabilities.find(
      (c) => c.capabilityId === capabilityId,
    )!;
    expect({ kind: descriptor.kind, effect: descriptor.effect }).to.deep.equal({ kind: 'observation', effect: 'read' });
    expect(doc.querySelector(`.catalog li[data-name="${name}"]`)!.classList.contains('chosen')).to.equal(true);
    const input = doc.querySelector<HTMLTextAreaElement>('#tool-input')!.value;
    expect(() => JSON.parse(input), 'the prefilled input is JSON').not.to.throw();

    const statuses = () => [...doc.querySelectorAll('#devices-table .status')].map((td) => td.textContent);
    const before = statuses();
    await trustedClick(frame, callButton(doc));
    await until(() => statusText(doc).includes('succeeded') || statusText(doc).includes('failed'), 'the first call did not finish');
    expect(statusText(doc)).to.equal(`${name} succeeded`);
    expect(doc.querySelector('.result')!.classList.contains('error')).to.equal(false);
    expect(JSON.parse(resultText(doc))).to.have.length(5);
    // Harmless: nothing selected, nothing disabled, no one asked to approve anything.
    expect(statuses()).to.deep.equal(before);
    expect(doc.querySelectorAll('tr.selected').length).to.equal(0);
    expect(surface.registry!.confirmations.list()).to.deep.equal([]);
  });

  it('at 390 px wide, nothing is wider than the screen, even with a long name typed in', async () => {
    const { doc, win } = await openDemo('/demo/index.html', { width: 390, height: 844 });
    const overflow = () => {
      const width = doc.documentElement.clientWidth;
      const wide = [...doc.body.querySelectorAll('*')]
        .filter((el) => !el.closest('.table-scroll') && el.getBoundingClientRect().right > width + 0.5)
        .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).split(' ')[0]}` : ''}`);
      return { scrollWidth: doc.documentElement.scrollWidth, width, wide: wide.slice(0, 5) };
    };
    expect(win.innerWidth).to.equal(390);
    expect(overflow()).to.deep.equal({ scrollWidth: 390, width: 390, wide: [] });
    // The "your own model" form opened, and a 60-character name without a space in the table.
    doc.querySelector<HTMLDetailsElement>('form.model-form details')!.open = true;
    await callTool(doc, 'view_devices__rename', { id: 'cam-lobby', name: 'W'.repeat(60) });
    await until(() => statusText(doc).includes('rename succeeded'), 'rename did not finish');
    await frames(win);
    expect(overflow()).to.deep.equal({ scrollWidth: 390, width: 390, wide: [] });
  });
});

describe('demo/csp.html', function (this: unknown) {
  // A loaded machine: each step waits on a condition, with room for slow ones.
  (this as unknown as Ctx).timeout(120000);
  it("works under script-src 'self': eval and inline scripts blocked, calls validated", async function () {
    const response = await fetch('/demo/csp.html');
    expect(response.headers.get('content-security-policy')).to.contain("script-src 'self'");
    expect(await response.text()).not.to.match(/<script(?![^>]*\b(src=|type="application\/schema\+json"))/);

    const { doc, frame } = await openDemo('/demo/csp.html');
    try {
      expect(doc.documentElement.dataset.cspEval).to.equal('blocked');
      expect(doc.documentElement.dataset.cspInline).to.equal('blocked');
      expect(toolNames(doc)).to.have.length(5);
      await callTool(doc, 'view_devices__rows', {});
      await until(() => statusText(doc).includes('succeeded'), 'rows did not run');
      expect(JSON.parse(resultText(doc))).to.have.length(5);
      await callTool(doc, 'view_devices__selectRows', { ids: [42] });
      await until(() => statusText(doc).includes('failed'), 'the bad call did not fail');
      expect(JSON.parse(resultText(doc)).code).to.equal('INVALID_INPUT');
    } finally {
      frame.remove();
    }
  });
});
