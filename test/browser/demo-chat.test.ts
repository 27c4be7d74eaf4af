// The demo's chat panel, end to end in Chromium: the page as `npm start` serves it, in an iframe.
// The scripted agent answers "disable the offline devices" by reading the table, selecting rows and
// calling the destructive capability, which waits for the person's click in the chat card.
import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import type { AgentChatElement } from '../../src/chat/index.js';

type Ctx = { timeout(ms: number): void };

async function trustedClick(el: Element): Promise<void> {
  el.scrollIntoView({ block: 'center' });
  const box = el.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(box.left + box.width / 2), Math.round(box.top + box.height / 2)] });
}

describe('demo/index.html: the chat panel', () => {
  let frame: HTMLIFrameElement;
  let doc: Document;
  let chat: AgentChatElement;

  before(async function (this: unknown) {
    (this as unknown as Ctx).timeout(30000);
    await setViewport({ width: 1300, height: 900 });
    frame = document.createElement('iframe');
    frame.style.cssText = 'position:fixed;left:0;top:0;width:1300px;height:900px;border:0';
    frame.src = '/demo/index.html';
    document.body.append(frame);
    await waitUntil(() => frame.contentDocument?.documentElement?.dataset.ready === 'true', 'demo ready', { timeout: 20000 });
    doc = frame.contentDocument!;
    frame.contentWindow!.sessionStorage.clear();
    chat = doc.querySelector('agent-chat')!;
    chat.clear();
    await chat.updateComplete;
  });
  after(() => frame?.remove());
  afterEach(async () => {
    await sendMouse({ type: 'move', position: [0, 0] });
  });

  const statusOf = (id: string) => doc.querySelector(`#devices-table tr[data-id="${id}"] .status`)?.textContent;
  const q = (s: string) => chat.shadowRoot!.querySelector<HTMLElement>(s);

  it('disables the offline devices after the person approves in the chat card', async function (this: unknown) {
    (this as unknown as Ctx).timeout(30000);
    expect(statusOf('therm-3f')).to.equal('offline');
    const input = q('textarea[part~="input"]')!;
    await trustedClick(input);
    await sendKeys({ type: 'disable the offline devices' });
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => q('[part~="approve"]')?.getAttribute('aria-disabled') === 'false', 'approve active', { timeout: 15000 });
    // The card asks; the modal dialog stays closed (it is for the other agents on this page).
    expect(doc.querySelector('agent-confirm')!.shadowRoot!.querySelector('dialog')!.open).to.equal(false);
    expect(q('[part~="approval"]')!.textContent).to.contain('"therm-3f"');
    // Still offline: nothing runs before the click.
    expect(statusOf('therm-3f')).to.equal('offline');
    await trustedClick(q('[part~="approve"]')!);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 15000 });
    expect(statusOf('therm-3f')).to.equal('disabled');
    await chat.updateComplete;
    expect(q('[part~="log"]')!.textContent).to.contain('therm-3f').and.contain('disabled');
  });

  it('asked again, it finds nothing offline', async function (this: unknown) {
    (this as unknown as Ctx).timeout(30000);
    chat.send('which devices are offline?');
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 15000 });
    await chat.updateComplete;
    expect(q('[part~="log"]')!.textContent).to.contain('No device is offline right now.');
  });
});
