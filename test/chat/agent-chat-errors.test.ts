// What the person reads when an adapter fails without words: a rejection whose message is empty, a
// thrown string, or a hostile object whose every read throws. The chat says what failed, in words.
import { expect, fixture, html } from '@open-wc/testing';
import { sendMouse } from '@web/test-runner-commands';
import { waitUntil } from '../until.js';
import type { AgentChatElement } from '../../src/chat/index.js';
import type { AgentAdapter, ModelChoice } from '../../src/chat/types.js';
import { activeButton, chatPage, q, trustedClick } from './fixtures.js';

afterEach(async () => {
  await sendMouse({ type: 'move', position: [0, 0] });
});

/** A rejection reason whose every read throws (`instanceof` included). */
const hostile = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error('read');
      },
      getPrototypeOf() {
        throw new Error('read');
      },
    },
  );

const notice = (chat: AgentChatElement) => chat.shadowRoot!.querySelector('[part~="notice"]')?.textContent?.trim() ?? '';

describe('<agent-chat>: failures without words', () => {
  it('a download that fails with an empty message, then one that fails with a hostile object, each says the setup failed', async () => {
    const reasons: unknown[] = [new Error(''), hostile()];
    const adapter: AgentAdapter = {
      id: 'local',
      label: 'Local',
      status: () => ({ state: 'needs-download', bytes: 1e6 }),
      prepare: () => Promise.reject(reasons.shift()),
      async *run() {},
    };
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    const download = () => chat.shadowRoot!.querySelector<HTMLButtonElement>('[part~="prepare"]')!;
    await trustedClick(download());
    await waitUntil(() => notice(chat) !== '', 'the failed download said nothing');
    expect(notice(chat)).to.equal('The setup failed.');
    await trustedClick(download());
    await waitUntil(() => reasons.length === 0 && chat.shadowRoot!.querySelector('[part~="prepare"]')!.textContent!.includes('Download'));
    await chat.updateComplete;
    expect(notice(chat)).to.equal('The setup failed.');
  });

  it('a model refused with an empty message or a thrown string is refused in words', async () => {
    const reasons: unknown[] = [new Error(''), 'Wait for the reply to finish.'];
    const models: ModelChoice[] = [
      { id: 'a', label: 'A', brief: 'First.', selected: true },
      { id: 'b', label: 'B', brief: 'Second.' },
    ];
    const adapter: AgentAdapter = {
      id: 'picky',
      label: 'Picky',
      models: () => models,
      selectModel: () => Promise.reject(reasons.shift()),
      async *run() {},
    };
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    const radio = () => chat.shadowRoot!.querySelectorAll<HTMLInputElement>('[part~="models"] input')[1]!;
    await trustedClick(radio());
    await waitUntil(() => notice(chat) !== '', 'the refusal said nothing');
    expect(notice(chat)).to.equal('That model cannot be selected now.');
    await trustedClick(radio());
    await waitUntil(() => notice(chat) === 'Wait for the reply to finish.', 'the refusal did not say its words');
  });

  it('a status() that throws an empty error still says the agent cannot start, and why in words', async () => {
    const adapter: AgentAdapter = {
      id: 'broken',
      label: 'Broken',
      status: () => {
        throw new Error('');
      },
      async *run() {},
    };
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    const card = chat.shadowRoot!.querySelector('[part~="status"]')!;
    expect(card.textContent!.replace(/\s+/g, ' ').trim()).to.equal('The agent could not start: The agent cannot say whether it is ready.');
  });
});

describe('<agent-chat>: a failed call\'s card', () => {
  it('says the registry\'s message, not its JSON: a call the person denied reads "The person denied this call."', async () => {
    const { chat } = await chatPage();
    chat.send('disable the offline devices');
    await trustedClick(await activeButton(chat, 'deny'));
    await waitUntil(() => chat.session.status === 'done', 'run done');
    await chat.updateComplete;
    const card = q(chat, '[part~="tool"][data-state="error"]')!;
    expect(card.querySelector('[part~="tool-state"]')!.textContent).to.equal('Denied by you');
    expect(card.querySelector('[part~="tool-error"]')!.textContent).to.equal('The person denied this call.');
    // The model still reads the whole error, code and retry advice included.
    const part = chat.session.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.state === 'error');
    expect(JSON.parse((part as { error: string }).error)).to.include({ code: 'CONFIRMATION_INVALID' });
  });

  it('shows any other error text as it came, JSON that is not the registry\'s included', async () => {
    const errors = ['Error: the printer is offline.', '{"code":"X","message":42}', '["not", "an", "object"]'];
    const adapter: AgentAdapter = {
      id: 'failing',
      label: 'Failing',
      async *run() {
        yield { type: 'message-start', messageId: 'm' };
        for (const [i, error] of errors.entries()) {
          yield { type: 'tool-call', messageId: 'm', id: `c${i}`, name: 'print', input: {} };
          yield { type: 'tool-error', id: `c${i}`, error };
        }
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    chat.send('print');
    await waitUntil(() => chat.session.status === 'done', 'run done');
    await chat.updateComplete;
    expect([...chat.shadowRoot!.querySelectorAll('[part~="tool-error"]')].map((e) => e.textContent)).to.deep.equal(errors);
  });
});
