// <agent-chat> audited as a user and an attacker would meet it: the words it shows for each adapter
// status (a local model's device check is not a connection check), and the storage keys of
// `persist` (no element id can overwrite the adapter choice, or another id's conversation).
import { expect, fixture, html } from '@open-wc/testing';
import fc from 'fast-check';
import { waitUntil } from '../until.js';
import { createScriptedAdapter } from '../../src/chat/index.js';
import '../../src/chat/index.js';
import { conversationKey } from '../../src/chat/agent-chat.js';
import type { AgentAdapter, AgentChatElement } from '../../src/chat/index.js';
import { createLocalAdapter } from '../../src/adapters/local/index.js';
import { createMarkdownStream, MAX_ELEMENTS, renderMarkdown } from '../../src/chat/markdown.js';
import type { LocalEngine } from '../../src/adapters/local/types.js';

const ADAPTER_KEY = 'agent-chat:adapter';

describe('<agent-chat>: the local adapter\'s first device check', () => {
  it('is worded as a device check, never as a connection to the agent; then the chat is ready', async () => {
    let answer: (() => void) | undefined;
    const engine: LocalEngine = {
      // The device check waits for the test: the chat renders meanwhile.
      check: () => new Promise((resolve) => (answer = () => resolve({ state: 'cached' }))),
      load: async () => ({ generate: async (req) => (req.onText('Hi.'), 'Hi.'), dispose() {} }),
    };
    const adapter = createLocalAdapter({ models: [{ id: 'm', label: 'M', brief: 'Test.' }], engine, id: `audit-check-${Math.random()}` });
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    const status = () => chat.shadowRoot!.querySelector('[part~="status"]');
    const reason = () => chat.shadowRoot!.querySelector<HTMLElement>('#reason')!;
    await waitUntil(() => answer, 'the device check started');
    expect(status()!.getAttribute('data-state')).to.equal('loading');
    expect(status()!.textContent).to.contain('Checking what this device can run');
    expect(status()!.textContent).to.not.match(/connect/i);
    expect(reason().textContent).to.not.match(/connect/i);
    expect(chat.shadowRoot!.querySelector('textarea')!.disabled).to.equal(true);
    await expect(chat).to.be.accessible();
    answer!();
    await waitUntil(async () => (await chat.updateComplete, status() === null), 'ready');
    expect(chat.shadowRoot!.querySelector('textarea')!.disabled).to.equal(false);
  });

  it('an adapter\'s loading without progress and without a note is still the connection check', async () => {
    const adapter = { id: 'c', label: 'C', status: () => ({ state: 'loading' as const }), async *run() {} };
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    expect(chat.shadowRoot!.querySelector('[part~="status"]')!.textContent).to.contain('Checking the connection');
  });
});

describe('<agent-chat persist>: storage keys', () => {
  afterEach(() => {
    for (const key of Object.keys(localStorage)) if (key.startsWith('agent-chat')) localStorage.removeItem(key);
  });

  it('<agent-chat id="adapter" persist="local"> keeps both its conversation and the adapter choice', async () => {
    localStorage.removeItem(ADAPTER_KEY);
    const a = createScriptedAdapter([{ text: 'from A' }], { id: 'a', label: 'Agent A' });
    const b = createScriptedAdapter([{ text: 'from B' }], { id: 'b', label: 'Agent B' });
    const chat = await fixture<AgentChatElement>(html`<agent-chat id="adapter" persist="local" .adapters=${[a, b]}></agent-chat>`);
    const select = chat.shadowRoot!.querySelector<HTMLSelectElement>('[part~="adapter-select"]')!;
    select.value = 'b';
    select.dispatchEvent(new Event('change'));
    chat.send('hello');
    await waitUntil(() => chat.session.status === 'done', 'the run ended');
    await chat.updateComplete;
    expect(localStorage.getItem(ADAPTER_KEY)).to.equal('b');
    chat.remove();

    // A reload: the same markup again finds both.
    const again = await fixture<AgentChatElement>(html`<agent-chat id="adapter" persist="local" .adapters=${[a, b]}></agent-chat>`);
    expect(again.shadowRoot!.querySelector<HTMLSelectElement>('[part~="adapter-select"]')!.value).to.equal('b');
    expect(again.session.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    expect(again.shadowRoot!.textContent).to.contain('from B');
  });

  it('every id has a key of its own, never the adapter choice\'s; the documented key for all others', () => {
    const ids = fc.oneof(fc.string(), fc.constantFrom('adapter', 'adapter~', 'adapter~~', 'chat', '', 'Adapter', ' adapter'), fc.stringMatching(/^adapter~{0,4}$/));
    fc.assert(
      fc.property(ids, ids, (x, y) => {
        expect(conversationKey(x)).to.not.equal(ADAPTER_KEY);
        // No id and id "chat" are the documented default and share; any other two ids never do.
        if ((x || 'chat') !== (y || 'chat')) expect(conversationKey(x)).to.not.equal(conversationKey(y));
        if (!/^adapter~*$/.test(x)) expect(conversationKey(x)).to.equal(`agent-chat:${x || 'chat'}`);
      }),
      { numRuns: 500 },
    );
  });
});

describe('<agent-chat>: an adapter that reports garbage', () => {
  it('a NaN progress reads 0%; null entries in models() are left out of the picker', async () => {
    const adapter = {
      id: 'g',
      label: 'G',
      status: () => ({ state: 'loading', progress: NaN }),
      models: () => [null, { id: 'a', label: 'A', brief: 'First.' }, { id: 'b', label: 'B', brief: 'Second.' }],
      selectModel: async () => {},
      async *run() {},
    } as unknown as AgentAdapter;
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    expect(chat.shadowRoot!.querySelector('[part~="status"]')!.textContent).to.contain('0%');
    expect(chat.shadowRoot!.querySelector('progress')!.value).to.equal(0);
    expect(chat.shadowRoot!.querySelectorAll('[part~="models"] input[type="radio"]').length).to.equal(2);
  });

  it('fast-check: any status() and models() value renders (the render never throws, progress is never "NaN%"); the composer opens only when ready', async () => {
    let status: unknown = { state: 'ready' };
    let models: unknown = [];
    const listeners = new Set<() => void>();
    const adapter = {
      id: 'garbage',
      label: 'Garbage',
      status: () => status,
      models: () => models,
      selectModel: async () => {},
      prepare: async () => {},
      subscribe: (l: () => void) => (listeners.add(l), () => listeners.delete(l)),
      async *run() {},
    } as unknown as AgentAdapter;
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    const junk = fc.oneof(fc.constantFrom(NaN, Infinity, -1, 2, '0.5', null, undefined, {}, [], 'text', true), fc.double(), fc.string({ maxLength: 5 }));
    const statusArb = fc.oneof(
      fc.record(
        { state: fc.constantFrom('ready', 'unavailable', 'needs-download', 'downloading', 'loading', 'error', 'other'), progress: junk, bytes: junk, reason: junk, note: junk, error: junk },
        { requiredKeys: ['state'] },
      ),
      junk,
    );
    const choice = fc.oneof(
      fc.record({ id: junk, label: junk, brief: junk, bytes: junk, cached: junk, recommended: junk, selected: junk }, { requiredKeys: [] }),
      junk,
    );
    const modelsArb = fc.oneof(fc.array(choice, { maxLength: 3 }), junk);
    await fc.assert(
      fc.asyncProperty(statusArb, modelsArb, async (s, m) => {
        status = s;
        models = m;
        for (const l of listeners) l();
        await chat.updateComplete;
        // The status card's own words and figures (the adapter's texts are shown as they came).
        const card = chat.shadowRoot!.querySelector('[part~="status"]');
        expect(card?.querySelector('progress, p[id]')?.textContent ?? '').to.not.contain('NaN');
        // A status() that answers something the chat cannot read fails closed, saying so (only an
        // adapter without status() is always ready, as the seed says).
        const state = s && typeof s === 'object' ? (s as { state?: unknown }).state : undefined;
        if (state === 'other' || typeof state !== 'string') {
          expect(card?.getAttribute('data-state')).to.equal('unavailable');
          expect(card!.textContent).to.contain('a status this chat cannot read');
        }
        expect(chat.shadowRoot!.querySelector('textarea')!.disabled).to.equal(state !== 'ready');
      }),
      { numRuns: 300 },
    );
  });
});

describe('Markdown from the model: a huge reply', () => {
  // A megabyte of table rows rendered as elements froze the page for about 30 s in <agent-chat>
  // (18 s in the renderer alone); lists and inline markup for 10 to 16 s.
  for (const [name, unit] of [['table rows', '| a | b |\n'], ['list items', '- item\n'], ['inline markup', '*a* `b` [c](https://x.example) ']] as const) {
    it(`${name}: at most MAX_ELEMENTS elements, the rest as text; all of it is shown, streamed or whole`, () => {
      const text = unit.repeat(Math.ceil(300_000 / unit.length)) + 'THE END';
      for (const chunk of [text.length, 4096, 777]) {
        const root = document.createElement('div');
        const stream = createMarkdownStream(root);
        for (let at = 0; at < text.length; at += chunk) stream.write(text.slice(at, at + chunk));
        stream.end();
        // An element each, two for a code block or a table's first row.
        expect(root.querySelectorAll('*').length, `chunks of ${chunk}`).to.be.at.most(2 * MAX_ELEMENTS);
        const shown = root.textContent!;
        expect(shown.trimEnd().endsWith('THE END'), `chunks of ${chunk}`).to.equal(true);
        // Every unit's words are there, as elements or as text.
        const word = unit.includes('item') ? 'item' : unit.includes('| b') ? 'b' : 'c';
        expect(shown.split(word).length - 1, `chunks of ${chunk}`).to.be.at.least(Math.ceil(300_000 / unit.length));
      }
    });
  }

  it('a reply within the bound renders as it did: the first elements of a huge one are the same', () => {
    const small = document.createElement('div');
    renderMarkdown(small, '| a | b |\n|---|---|\n| 1 | 2 |\n\n- x\n- **y**');
    expect(small.querySelectorAll('table td').length).to.equal(2);
    expect(small.querySelector('li strong')?.textContent).to.equal('y');
  });
});
