// The demo's chat panel, end to end in Chromium: the page as `npm start` serves it, in an iframe.
// The scripted agent answers "disable the offline devices" by reading the table, selecting rows and
// calling the destructive capability, which waits for the person's click in the chat card: denied
// once (nothing changes), then approved (the device is disabled), each by a real mouse click.
import { expect } from '@open-wc/testing';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import type { AgentChatElement } from '../../src/chat/index.js';
import type { AgentSurfaceElement } from '../../src/elements/index.js';
import { type Ctx, decideInChat, type Demo, openDemo, trustedClick, until } from './demo-helpers.js';

describe('demo/index.html: the chat panel', function (this: unknown) {
  // A loaded machine: each step waits on a condition, with room for slow ones.
  (this as unknown as Ctx).timeout(120000);
  let demo: Demo;
  let doc: Document;
  let chat: AgentChatElement;

  before(async () => {
    demo = await openDemo('/demo/index.html');
    doc = demo.doc;
    demo.win.sessionStorage.clear();
    chat = doc.querySelector('agent-chat')!;
    chat.clear();
    await chat.updateComplete;
  });
  after(() => demo?.frame.remove());
  afterEach(async () => {
    await sendMouse({ type: 'move', position: [0, 0] });
  });

  const statusOf = (id: string) => doc.querySelector(`#devices-table tr[data-id="${id}"] .status`)?.textContent;
  const selectedRows = () => [...doc.querySelectorAll<HTMLElement>('#devices-table tr.selected')].map((tr) => tr.dataset.id);
  const q = (s: string) => chat.shadowRoot!.querySelector<HTMLElement>(s);
  const registry = () => doc.querySelector<AgentSurfaceElement>('agent-surface')!.registry!;
  /** The tool calls since the person's last message: wire name and state. */
  const lastRunCalls = () => {
    const messages = chat.session.messages;
    const lastAsk = messages.map((m) => m.role).lastIndexOf('user');
    return messages.slice(lastAsk + 1).flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool' ? [`${p.name}:${p.state}`] : [])));
  };

  async function ask(text: string): Promise<void> {
    await trustedClick(demo.frame, q('textarea[part~="input"]')!);
    await sendKeys({ type: text });
    await sendKeys({ press: 'Enter' });
    await until(() => chat.session.status === 'running', 'the run did not start', { timeout: 15000 });
  }

  /** Up to the card: the agent read the table and selected the offline rows; the disable call waits. */
  async function upToTheCard(): Promise<void> {
    await ask('disable the offline devices');
    await until(() => q('[part~="approve"]'), 'no approval card', { timeout: 15000 });
    expect(lastRunCalls()).to.deep.equal([
      'view_devices__rows:done',
      'view_devices__selectRows:done',
      'domain_devices__disable:awaiting-confirmation',
    ]);
    expect(selectedRows()).to.deep.equal(['therm-3f']);
    // The card asks; the modal dialog stays closed (it is for the other agents on this page).
    expect(doc.querySelector('agent-confirm')!.shadowRoot!.querySelector('dialog')!.open).to.equal(false);
    expect(q('[part~="approval"]')!.textContent).to.contain('"therm-3f"');
    expect(registry().confirmations.list().map((p) => `${p.capabilityId}:${p.status}`)).to.deep.equal(['domain:devices.disable:pending']);
    // Nothing runs before the click.
    expect(statusOf('therm-3f')).to.equal('offline');
  }

  it('denied by a real click in the chat card: nothing is disabled, and the agent says so', async () => {
    expect(statusOf('therm-3f')).to.equal('offline');
    await upToTheCard();
    await decideInChat(demo, chat, 'deny');
    await until(() => chat.session.status === 'done', 'run done', { timeout: 15000 });
    expect(statusOf('therm-3f')).to.equal('offline');
    expect(registry().confirmations.list()).to.deep.equal([]);
    expect(lastRunCalls().at(-1)).to.equal('domain_devices__disable:error');
    await chat.updateComplete;
    expect(q('[part~="log"]')!.textContent).to.contain('They were not disabled');
  });

  it('approved by a real click in the chat card: the offline device is disabled', async () => {
    await upToTheCard();
    // A script's click is not the person's: the request stays pending.
    q('[part~="approve"]')!.click();
    expect(registry().confirmations.list().map((p) => p.status)).to.deep.equal(['pending']);
    await decideInChat(demo, chat, 'approve');
    await until(() => chat.session.status === 'done', 'run done', { timeout: 15000 });
    expect(statusOf('therm-3f')).to.equal('disabled');
    expect(lastRunCalls().at(-1)).to.equal('domain_devices__disable:done');
    await chat.updateComplete;
    expect(q('[part~="log"]')!.textContent).to.contain('Done: therm-3f disabled.');
  });

  it('asked again, it finds nothing offline', async () => {
    const asked = chat.session.messages.length;
    chat.send('which devices are offline?');
    // The previous run is done too: wait for this one's answer, not for a status it already had.
    await until(() => chat.session.messages.length > asked + 1 && chat.session.status === 'done', 'run done', { timeout: 15000 });
    expect(lastRunCalls()).to.deep.equal(['view_devices__rows:done']);
    await chat.updateComplete;
    expect(q('[part~="log"]')!.textContent).to.contain('No device is offline right now.');
  });
});
