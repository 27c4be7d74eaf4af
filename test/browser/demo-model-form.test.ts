// The demo's "your own model" form, end to end in Chromium: the page as `npm start` serves it, in
// an iframe; the form points the chat at an OpenAI-compatible server (the test server's scripted
// one, same origin), the URL and model are remembered, the key only when the box is ticked, and
// the adapter it adds runs the devices task up to the person's approval.
import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys, sendMouse, setViewport } from '@web/test-runner-commands';
import type { AgentChatElement } from '../../src/chat/index.js';

type Ctx = { timeout(ms: number): void };
const STORAGE_KEY = 'agent-surface-demo:openai-compatible';

async function trustedClick(el: Element): Promise<void> {
  el.scrollIntoView({ block: 'center' });
  const box = el.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(box.left + box.width / 2), Math.round(box.top + box.height / 2)] });
}

describe('demo/index.html: the "your own model" form', () => {
  let frame: HTMLIFrameElement;

  async function open(): Promise<{ doc: Document; chat: AgentChatElement; form: HTMLFormElement }> {
    frame?.remove();
    frame = document.createElement('iframe');
    frame.style.cssText = 'position:fixed;left:0;top:0;width:1300px;height:900px;border:0';
    frame.src = '/demo/index.html';
    document.body.append(frame);
    await waitUntil(() => frame.contentDocument?.documentElement?.dataset.ready === 'true', 'demo ready', { timeout: 20000 });
    const doc = frame.contentDocument!;
    frame.contentWindow!.sessionStorage.clear();
    const chat = doc.querySelector('agent-chat')!;
    chat.clear();
    await chat.updateComplete;
    return { doc, chat, form: doc.querySelector<HTMLFormElement>('form.model-form')! };
  }

  before(async function (this: unknown) {
    (this as unknown as Ctx).timeout(30000);
    await setViewport({ width: 1300, height: 900 });
    localStorage.removeItem(STORAGE_KEY);
    await fetch('/__chat/reset');
  });
  after(() => {
    frame?.remove();
    localStorage.removeItem(STORAGE_KEY);
  });
  afterEach(async () => {
    await sendMouse({ type: 'move', position: [0, 0] });
  });

  async function fill(form: HTMLFormElement, values: { baseUrl: string; model: string; apiKey: string }, remember: boolean) {
    form.querySelector('details')!.open = true;
    for (const [name, value] of Object.entries(values)) {
      const input = form.querySelector<HTMLInputElement>(`[name="${name}"]`)!;
      await trustedClick(input);
      await sendKeys({ type: value });
    }
    const box = form.querySelector<HTMLInputElement>('[name="remember"]')!;
    if (box.checked !== remember) await trustedClick(box);
    await trustedClick(form.querySelector('button[type="submit"]')!);
  }

  it('adds the server to the switcher, remembers URL and model but not the key, and runs the task through it up to the approval', async function (this: unknown) {
    (this as unknown as Ctx).timeout(60000);
    const { doc, chat, form } = await open();
    const baseUrl = `${location.origin}/__chat/openai/v1`;
    await fill(form, { baseUrl, model: 'devices-script', apiKey: 'sk-demo-typed' }, false);
    await waitUntil(() => Array.isArray(chat.adapters) && chat.adapters.length === 2, 'adapter added');
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY)!)).to.deep.equal({ baseUrl, model: 'devices-script' });

    // Pick it in the switcher, then ask.
    const select = chat.shadowRoot!.querySelector<HTMLSelectElement>('[part~="adapter-select"]')!;
    await waitUntil(() => select && select.options.length === 2, 'switcher shows both');
    select.value = [...select.options].find((o) => o.textContent!.includes('your server'))!.value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    const ours = (chat.adapters as unknown as { id: string; status?: () => { state: string } }[])[1];
    await waitUntil(() => ours.status?.().state === 'ready', 'server checked');
    chat.send('disable the offline devices');
    const q = (s: string) => chat.shadowRoot!.querySelector<HTMLElement>(s);
    await waitUntil(() => q('[part~="approve"]') || chat.session.status !== 'running', 'approval card', { timeout: 15000 });
    expect(chat.session.status, JSON.stringify(chat.session).slice(0, 2000)).to.equal('running');
    // The destructive call waits for the person: nothing ran. (Approving by a real click is covered
    // by test/adapters/cloud-chat.browser.test.ts and test/browser/demo-chat.test.ts.)
    const status = () => doc.querySelector('#devices-table tr[data-id="therm-3f"] .status')?.textContent;
    expect(status()).to.equal('offline');
    const call = chat.session.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.state === 'awaiting-confirmation');
    expect(call && call.type === 'tool' && call.input).to.deep.equal({ ids: ['therm-3f'] });
    const asked = (await (await fetch('/__chat/requests')).json()) as { authorization?: string; body: { model: string } }[];
    expect(asked.length).to.equal(2);
    expect(asked[0].authorization).to.equal('Bearer sk-demo-typed');
    expect(asked[0].body.model).to.equal('devices-script');
    chat.stop();
    await waitUntil(() => chat.session.status !== 'running', 'stopped', { timeout: 15000 });
    expect(status()).to.equal('offline');
  });

  it('keeps the key only when the box is ticked; a reload brings the server back; Forget removes it', async function (this: unknown) {
    (this as unknown as Ctx).timeout(60000);
    let { form, chat } = await open();
    form.querySelector<HTMLButtonElement>('[name="forget"]')!.click();
    await fill(form, { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-keep-me' }, true);
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY)!)).to.deep.equal({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-keep-me' });
    ({ form, chat } = await open());
    expect((chat.adapters as unknown[]).length).to.equal(2);
    expect(form.querySelector<HTMLInputElement>('[name="apiKey"]')!.value).to.equal('sk-keep-me');
    // Unticked and saved again: the stored key goes.
    form.querySelector('details')!.open = true;
    await trustedClick(form.querySelector('[name="remember"]')!);
    await trustedClick(form.querySelector('button[type="submit"]')!);
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY)!)).to.deep.equal({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    await trustedClick(form.querySelector('[name="forget"]')!);
    expect(localStorage.getItem(STORAGE_KEY)).to.equal(null);
    expect((chat.adapters as unknown[]).length).to.equal(1);
  });
});
