// <agent-chat> with createLocalAdapter, one message after another, as a person uses it. The chat
// stops reading a run at its last part (`finish` or `error`) without closing the adapter's
// iterator, so the adapter must count a run as over at that part, not when its generator ends.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter } from '../../src/adapters/local/index.js';
import { createSessionState, sessionReducer, type SessionState } from '../../src/chat/session.js';
import { runAdapter } from '../../src/chat/run.js';
import type { AgentMessage } from '../../src/chat/types.js';
import { chatPage, q } from '../chat/fixtures.js';
import { LanguageModelDouble } from './prompt-api-double.js';

const assistantText = (messages: readonly AgentMessage[]) =>
  messages.filter((m) => m.role === 'assistant').map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));

describe('<agent-chat> + createLocalAdapter: one message after another', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);

  it('answers the second and third messages too (the run before is over at its finish)', async () => {
    const lm = new LanguageModelDouble('available', 'none');
    let n = 0;
    // The page has tools, so the reply is constrained JSON (the prompt format's text branch).
    lm.reply = (c) => (c.options.responseConstraint ? JSON.stringify({ reply: `Reply ${++n}.` }) : `Reply ${++n}.`);
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    const { chat } = await chatPage({ adapters: adapter });
    await waitUntil(() => adapter.status().state === 'ready', 'the adapter never became ready', { timeout: 20000 });
    for (const text of ['Hello.', 'Again.', 'Once more.']) {
      chat.send(text);
      await waitUntil(() => chat.session.status !== 'running' && chat.session.messages.at(-1)?.role === 'assistant', `no answer to ${text}`, { timeout: 20000 });
    }
    expect(chat.session.error).to.equal(undefined);
    expect(assistantText(chat.session.messages)).to.deep.equal(['Reply 1.', 'Reply 2.', 'Reply 3.']);
    await chat.updateComplete;
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('Reply 3.');
  });

  it('a run refused with an error part (no model yet) does not block the run after the download', async () => {
    const lm = new LanguageModelDouble('downloadable', 'none');
    lm.reply = () => 'Downloaded and answering.';
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    let state: SessionState = createSessionState();
    const run = async (text: string) => {
      state = sessionReducer(state, { type: 'send', text, id: crypto.randomUUID() });
      await runAdapter({ adapter, tools: () => [], dispatch: (e) => (state = sessionReducer(state, e)), state: () => state, randomId: () => crypto.randomUUID() }, new AbortController().signal);
    };
    await waitUntil(() => adapter.status().state === 'needs-download', 'never needs-download', { timeout: 20000 });
    await run('Hello?');
    expect(state.status).to.equal('error');
    expect(state.error?.error).to.match(/download it first/);
    const prepared = adapter.prepare();
    await waitUntil(() => lm.downloadStarted, 'the download never started');
    lm.step(1);
    await prepared;
    await run('Hello again.');
    expect(state.error).to.equal(undefined);
    expect(assistantText(state.messages).at(-1)).to.equal('Downloaded and answering.');
  });
});
