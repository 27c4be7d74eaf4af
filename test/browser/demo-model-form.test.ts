// The demo's "your own model" form, end to end in Chromium: the page as `npm start` serves it, in
// an iframe; the form points the chat at an OpenAI-compatible server (the test server's scripted
// one, same origin), the URL and model are remembered, the key only when the box is ticked, and
// the adapter it adds runs the devices task through the person's approval, given by a real click.
import { expect } from '@open-wc/testing';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import type { AgentChatElement } from '../../src/chat/index.js';
import { type Ctx, decideInChat, type Demo, openDemo, trustedClick as clickIn, until } from './demo-helpers.js';

const STORAGE_KEY = 'agent-surface-demo:openai-compatible';

describe('demo/index.html: the "your own model" form', function (this: unknown) {
  // A loaded machine: each step waits on a condition, with room for slow ones.
  (this as unknown as Ctx).timeout(120000);
  let demo: Demo | undefined;
  const trustedClick = (el: Element) => clickIn(demo!.frame, el);

  async function open(): Promise<{ doc: Document; chat: AgentChatElement; form: HTMLFormElement }> {
    demo?.frame.remove();
    demo = await openDemo('/demo/index.html');
    const { doc } = demo;
    demo.win.sessionStorage.clear();
    const chat = doc.querySelector('agent-chat')!;
    chat.clear();
    await chat.updateComplete;
    return { doc, chat, form: doc.querySelector<HTMLFormElement>('form.model-form')! };
  }

  before(async () => {
    localStorage.removeItem(STORAGE_KEY);
    await fetch('/__chat/reset');
  });
  after(() => {
    demo?.frame.remove();
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

  it('adds the server to the switcher, remembers URL and model but not the key, and runs the task through it to a real-click approval', async () => {
    const { doc, chat, form } = await open();
    const baseUrl = `${location.origin}/__chat/openai/v1`;
    await fill(form, { baseUrl, model: 'devices-script', apiKey: 'sk-demo-typed' }, false);
    await until(() => Array.isArray(chat.adapters) && chat.adapters.length === 2, 'adapter added');
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY)!)).to.deep.equal({ baseUrl, model: 'devices-script' });

    // Pick it in the switcher, then ask.
    const select = chat.shadowRoot!.querySelector<HTMLSelectElement>('[part~="adapter-select"]')!;
    await until(() => select && select.options.length === 2, 'switcher shows both');
    select.value = [...select.options].find((o) => o.textContent!.includes('your server'))!.value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    const ours = (chat.adapters as unknown as { id: string; status?: () => { state: string } }[])[1];
    await until(() => ours.status?.().state === 'ready', 'server checked');
    chat.send('disable the offline devices');
    const q = (s: string) => chat.shadowRoot!.querySelector<HTMLElement>(s);
    await until(() => q('[part~="approve"]') || chat.session.status !== 'running', 'approval card', { timeout: 15000 });
    expect(chat.session.status, JSON.stringify(chat.session).slice(0, 2000)).to.equal('running');
    // The destructive call waits for the person: nothing ran yet.
    const status = () => doc.querySelector('#devices-table tr[data-id="therm-3f"] .status')?.textContent;
    expect(status()).to.equal('offline');
    const call = chat.session.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.state === 'awaiting-confirmation');
    expect(call && call.type === 'tool' && call.input).to.deep.equal({ ids: ['therm-3f'] });
    const asked = (await (await fetch('/__chat/requests')).json()) as { authorization?: string; body: { model: string } }[];
    expect(asked.length).to.equal(2);
    expect(asked[0].authorization).to.equal('Bearer sk-demo-typed');
    expect(asked[0].body.model).to.equal('devices-script');
    // The person scrolls up to the card (the page is scrolled down to the form) and approves.
    await decideInChat(demo!, chat, 'approve');
    await until(() => chat.session.status !== 'running', 'run finished', { timeout: 15000 });
    expect(chat.session.status, JSON.stringify(chat.session).slice(0, 2000)).to.equal('done');
    expect(status()).to.equal('disabled');
    // The server's model saw the tool's result and answered in a third request.
    const after = (await (await fetch('/__chat/requests')).json()) as { body: { messages: { role: string; content?: unknown }[] } }[];
    expect(after.length).to.equal(3);
    const answers = after[2].body.messages.filter((m) => m.role === 'tool');
    expect(String(answers.at(-1)!.content)).to.contain('"disabled"').and.contain('therm-3f');
    await chat.updateComplete;
    expect(q('[part~="log"]')!.textContent).to.contain('Disabled the offline devices.');
  });

  it('keeps the key only when the box is ticked; a reload brings the server back; Forget removes it', async () => {
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

  it('unticking "Remember the key" removes a stored key at once, without saving again; the server stays in use', async () => {
    let { form, chat } = await open();
    form.querySelector<HTMLButtonElement>('[name="forget"]')!.click();
    await fill(form, { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-untick-me' }, true);
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY)!)).to.deep.equal({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-untick-me' });
    // The person changes their mind: unticks the box and leaves the form (no "Use this server").
    await trustedClick(form.querySelector('[name="remember"]')!);
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY)!)).to.deep.equal({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    expect((chat.adapters as unknown[]).length).to.equal(2);
    // A reload finds no key to fill in, and the box stays unticked.
    ({ form, chat } = await open());
    expect(form.querySelector<HTMLInputElement>('[name="apiKey"]')!.value).to.equal('');
    expect(form.querySelector<HTMLInputElement>('[name="remember"]')!.checked).to.equal(false);
    expect((chat.adapters as unknown[]).length).to.equal(2);
    form.querySelector<HTMLButtonElement>('[name="forget"]')!.click();
  });
});
