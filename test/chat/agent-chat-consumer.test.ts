// Issue 13 item 4 for the chat: `<agent-chat consumer="…">` in markup cannot borrow another
// projection's identity. The chat's own id, `chat`, needs no grant; any other id is the page's
// script's to grant (surface.consumers = { chat: { consumer } }, or enable()).
import { expect, fixture, html } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { devAuthority } from '../../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceRegistry, InvocationEvent } from '../../src/core/types.js';
import '../../src/elements/index.js';
import '../../src/chat/index.js';
import { createScriptedAdapter } from '../../src/chat/index.js';
import type { AgentChatElement } from '../../src/chat/index.js';
import type { AgentSurfaceElement } from '../../src/elements/index.js';

const readScript = () => createScriptedAdapter([{ tool: 'domain:devices.count' }, { text: 'There are 3 devices.' }]);

async function page() {
  const registry: AgentSurfaceRegistry = createAgentSurfaceRegistry({ authority: devAuthority() });
  const calls: InvocationEvent[] = [];
  registry.on('invocation', (e) => calls.push(e));
  const surface = await fixture<AgentSurfaceElement>(html`<agent-surface .registry=${registry}>
    <agent-capability name="devices.count" kind="observation" effect="read" description="How many devices there are." .read=${() => 3}></agent-capability>
  </agent-surface>`);
  await waitUntil(() => registry.snapshot({ consumer: { id: 'chat', kind: 'chat' } }).capabilities.length === 1, 'registered');
  return { surface, registry, calls };
}

async function addChat(surface: AgentSurfaceElement, consumer?: string): Promise<AgentChatElement> {
  const chat = document.createElement('agent-chat');
  if (consumer !== undefined) chat.setAttribute('consumer', consumer);
  chat.adapters = readScript();
  surface.append(chat);
  await chat.updateComplete;
  return chat;
}

const composer = (chat: AgentChatElement) => chat.shadowRoot!.querySelector<HTMLTextAreaElement>('[part~="input"]')!;
const reasonText = (chat: AgentChatElement) => chat.shadowRoot!.querySelector('#reason')?.textContent ?? '';

async function runs(chat: AgentChatElement, calls: InvocationEvent[]): Promise<string[]> {
  const before = calls.length;
  chat.send('How many devices?');
  await waitUntil(() => chat.session.status !== 'running' && chat.session.messages.length > 0, 'run ended', { timeout: 5_000 });
  return calls.slice(before).map((c) => c.consumer.id);
}

describe('<agent-chat consumer> is granted by script (issue 13, item 4)', () => {
  let errors: string[];
  let original: typeof console.error;
  beforeEach(() => {
    errors = [];
    original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.map(String).join(' '));
  });
  afterEach(() => {
    console.error = original;
  });

  it('the default chat works with no grant and calls as "chat"', async () => {
    const { surface, calls } = await page();
    const chat = await addChat(surface);
    expect(composer(chat).disabled).to.equal(false);
    expect(await runs(chat, calls)).to.deep.equal(['chat']);
    expect(errors.filter((e) => e.includes('CHAT_NOT_GRANTED'))).to.deep.equal([]);
  });

  it('an injected <agent-chat consumer="panel"> on a page that granted none is refused: no tools, no calls, the reason shown', async () => {
    const { surface, calls } = await page();
    const chat = await addChat(surface, 'panel');
    await waitUntil(() => composer(chat).disabled, 'composer disabled');
    expect(reasonText(chat)).to.contain('may not act on this page');
    expect(reasonText(chat)).to.contain('"panel"');
    expect(errors.some((e) => e.includes('CHAT_NOT_GRANTED') && e.includes('"panel"'))).to.equal(true);
    chat.send('How many devices?');
    await chat.updateComplete;
    expect(chat.session.messages).to.deep.equal([], 'nothing was sent');
    expect(calls).to.deep.equal([]);
    await expect(chat).to.be.accessible();
  });

  it('a grant names the identity: markup may repeat it or leave it out, never name another; withdrawing it refuses again', async () => {
    const { surface, calls } = await page();
    surface.consumers = { chat: { consumer: 'panel' } };
    const repeated = await addChat(surface, 'panel');
    const implicit = await addChat(surface);
    const other = await addChat(surface, 'admin');
    const chatId = await addChat(surface, 'chat');
    await waitUntil(() => composer(other).disabled && composer(chatId).disabled, 'mismatches refused');
    expect(reasonText(other)).to.contain('"admin" is not the one granted');
    expect(await runs(repeated, calls)).to.deep.equal(['panel']);
    expect(await runs(implicit, calls)).to.deep.equal(['panel']);

    surface.consumers = undefined;
    await repeated.updateComplete;
    await waitUntil(() => composer(repeated).disabled, 'refused once the grant is gone');
    expect(composer(implicit).disabled).to.equal(false, 'the default identity needs no grant');
  });

  it('enable() (script) vouches for one element with its consumer as it is', async () => {
    const { surface, calls } = await page();
    const chat = await addChat(surface, 'panel');
    await waitUntil(() => composer(chat).disabled, 'refused first');
    chat.enable();
    await waitUntil(() => !composer(chat).disabled, 'enabled');
    expect(await runs(chat, calls)).to.deep.equal(['panel']);
  });
});
