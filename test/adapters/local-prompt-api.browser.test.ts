// The Prompt API path in the prompt format: against this Chromium's own `LanguageModel` (whatever
// this build offers), and against a double written from the API's published Web IDL
// (./prompt-api-double.ts) for the states this build cannot reach (downloadable, downloading,
// available, create() failures). The browser's native tool loop: local-prompt-api-tools.browser.test.ts.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { BUILT_IN_MODEL_ID, createLocalAdapter, type LanguageModelLike } from '../../src/adapters/local/index.js';
import type { AgentStreamPart, ToolDescriptor, ToolOutput } from '../../src/chat/types.js';
import { button, collect, freshCacheName, modelInfo, recordStatuses, settled, startDownload, trustedClick, WASM_URL } from './helpers-local.js';
import { LanguageModelDouble } from './prompt-api-double.js';

const run = (adapter: ReturnType<typeof createLocalAdapter>, callTool: (c: { id: string; name: string; input: unknown }) => Promise<ToolOutput>, tools: ToolDescriptor[] = []) =>
  collect(adapter.run({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hello' }] }], tools, signal: new AbortController().signal, callTool }));

describe('createLocalAdapter: Chrome Prompt API', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);
  afterEach(() => document.querySelectorAll('button').forEach((b) => b.remove()));

  it("this Chromium's own LanguageModel: the status follows what availability() says", async () => {
    const lm = (globalThis as { LanguageModel?: LanguageModelLike }).LanguageModel;
    const adapter = createLocalAdapter({ models: [], engine: 'prompt-api' });
    const status = await settled(adapter);
    if (!lm) {
      // This build has no Prompt API: nothing is offered, and the status says why in words.
      expect(status.state).to.equal('unavailable');
      expect((status as { reason: string }).reason).to.match(/\w+ \w+/);
      expect(adapter.models()).to.deep.equal([]);
      return;
    }
    const availability = await lm.availability({ expectedInputs: [{ type: 'text', languages: ['en'] }], expectedOutputs: [{ type: 'text', languages: ['en'] }] });
    const expected = { available: 'ready', downloadable: 'needs-download', downloading: 'downloading' }[availability as string] ?? 'unavailable';
    expect(status.state).to.equal(expected);
    // This build (Chromium 156, headless, no GPU) says "unavailable": the reason is in words.
    if (expected === 'unavailable') expect((status as { reason: string }).reason).to.match(/not available on this device/);
    expect(adapter.models().map((m) => m.id)).to.deep.equal(expected === 'unavailable' ? [] : [BUILT_IN_MODEL_ID]);
  });

  it('downloadable → needs-download → a click → downloading with the monitor\'s progress → ready', async () => {
    const lm = new LanguageModelDouble('downloadable');
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    expect((await settled(adapter)).state).to.equal('needs-download');
    expect(adapter.models()).to.deep.equal([
      { id: BUILT_IN_MODEL_ID, label: "Chrome's built-in model", brief: 'Runs inside Chrome: nothing to download from this site.', cached: false, recommended: true, selected: true },
    ]);
    expect(lm.createCalls).to.have.length(0); // nothing starts before the click
    const seen = recordStatuses(adapter);
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Download', () => (prepared = adapter.prepare(new AbortController().signal))));
    await waitUntil(() => lm.downloadStarted, 'create() was not called');
    lm.step(0.25);
    lm.step(0.75);
    lm.step(1);
    await prepared;
    expect(seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress)).to.deep.equal([0, 0.25, 0.75, 1]);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(adapter.models()[0]!.cached).to.equal(true);

    const parts = await run(adapter, async () => ({ content: [] }));
    const text = parts.filter((p): p is Extract<AgentStreamPart, { type: 'text-delta' }> => p.type === 'text-delta').map((p) => p.delta).join('');
    expect(text).to.equal('Hello from the built-in model.');
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
    // Each step is its own session over the conversation so far; it is destroyed after.
    expect(lm.createCalls.at(-1)!.initialPrompts).to.deep.equal([]);
    expect(lm.destroyed).to.equal(1);
  });

  it("Chrome removed its model after the page checked (it does when the disk fills): a run does not start the download unasked; the card is back", async () => {
    const lm = new LanguageModelDouble('available');
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    expect(await settled(adapter)).to.deep.equal({ state: 'ready' });
    lm.availabilityValue = 'downloadable';
    let parts: AgentStreamPart[] | undefined;
    void run(adapter, async () => ({ content: [] })).then((p) => (parts = p));
    // Either the run ends, or the browser's download starts for it (and then waits on this test).
    await waitUntil(() => parts || lm.createCalls.length, 'the run neither ended nor called create()');
    expect(lm.createCalls).to.have.length(0);
    expect(parts).to.deep.equal([{ type: 'error', error: 'The model is not on this device yet: download it first.' }]);
    expect(adapter.status()).to.deep.equal({ state: 'needs-download' });
    expect(adapter.models()[0]).to.deep.include({ cached: false });
  });

  it('a second click cancels the browser download: back to needs-download', async () => {
    const lm = new LanguageModelDouble('downloadable');
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    await settled(adapter);
    const download = await startDownload(adapter);
    await waitUntil(() => lm.downloadStarted);
    lm.step(0.5);
    await waitUntil(() => adapter.status().state === 'downloading' && (adapter.status() as { progress: number }).progress === 0.5);
    expect(((await download.cancel()) as DOMException).name).to.equal('AbortError');
    expect(adapter.status().state).to.equal('needs-download');
  });

  it('available → ready and cached; downloading (elsewhere) → downloading; unavailable → not offered', async () => {
    const available = createLocalAdapter({ models: [], languageModel: new LanguageModelDouble('available') });
    expect(await settled(available)).to.deep.equal({ state: 'ready' });
    expect(available.models()[0]).to.deep.include({ id: BUILT_IN_MODEL_ID, cached: true, selected: true });
    const busy = createLocalAdapter({ models: [], languageModel: new LanguageModelDouble('downloading') });
    expect(await settled(busy)).to.deep.equal({ state: 'downloading', progress: 0 });
    const none = createLocalAdapter({ models: [], languageModel: new LanguageModelDouble('unavailable') });
    expect((await settled(none)).state).to.equal('unavailable');
    expect(none.models()).to.deep.equal([]);
  });

  it('unavailable at first (a full disk, the browser\'s model service still starting): asked again, and offered once availability() says more', async () => {
    const lm = new LanguageModelDouble('unavailable');
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    expect((await settled(adapter)).state).to.equal('unavailable');
    expect(adapter.models()).to.deep.equal([]);
    const asked = lm.availabilityCalls.length;
    lm.availabilityValue = 'downloadable';
    await waitUntil(() => adapter.status().state === 'needs-download', 'the built-in model never came back', { timeout: 15000 });
    expect(lm.availabilityCalls.length).to.be.greaterThan(asked);
    expect(adapter.models()).to.have.length(1);
    expect(adapter.models()[0]).to.deep.include({ id: BUILT_IN_MODEL_ID, cached: false, recommended: true, selected: true });
  });

  it('unavailable at first, while a GGUF model is loaded and ready: offered beside it once availability() says more, the loaded one still selected and ready', async () => {
    const sizes = await modelInfo();
    const lm = new LanguageModelDouble('unavailable');
    const tiny = { id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes: sizes['tiny.gguf'] };
    const adapter = createLocalAdapter({ models: [tiny], wasm: { wasmUrl: WASM_URL }, cacheName: await freshCacheName(), languageModel: lm });
    expect((await settled(adapter)).state).to.equal('needs-download');
    await adapter.prepare();
    try {
      expect(adapter.status()).to.deep.equal({ state: 'ready' });
      expect(adapter.models().map((m) => m.id)).to.deep.equal(['tiny']);
      lm.availabilityValue = 'available';
      await waitUntil(() => adapter.models().length === 2, 'the built-in model never came back', { timeout: 40000 });
      expect(adapter.models().map((m) => [m.id, m.selected])).to.deep.equal([
        [BUILT_IN_MODEL_ID, false],
        ['tiny', true],
      ]);
      expect(adapter.status()).to.deep.equal({ state: 'ready' });
    } finally {
      await adapter.unload();
    }
  });

  it('downloading elsewhere (another page started it, or this one before a reload): ready once the browser has it, with no click; a click meanwhile follows its progress', async () => {
    // No event says when the browser's own download ends: the adapter asks again.
    const lm = new LanguageModelDouble('downloading');
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    expect(await settled(adapter)).to.deep.equal({ state: 'downloading', progress: 0 });
    lm.availabilityValue = 'available';
    await waitUntil(() => adapter.status().state === 'ready', 'still downloading after the browser finished', { timeout: 15000 });
    expect(adapter.models()[0]).to.deep.include({ cached: true, selected: true });
    expect(lm.createCalls).to.have.length(0);

    const followed = new LanguageModelDouble('downloading');
    const other = createLocalAdapter({ models: [], languageModel: followed });
    await settled(other);
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Show progress', () => (prepared = other.prepare(new AbortController().signal))));
    await waitUntil(() => followed.downloadStarted, 'create() was not called');
    followed.step(0.5);
    await waitUntil(() => (other.status() as { progress?: number }).progress === 0.5, 'the monitor\'s progress never showed');
    followed.step(1);
    await prepared;
    expect(other.status()).to.deep.equal({ state: 'ready' });
  });

  it('create() failures are errors in words', async () => {
    for (const [name, words] of [
      ['QuotaExceededError', /Not enough disk space/],
      ['NotAllowedError', /needs a click/],
      ['OperationError', /could not start/],
    ] as const) {
      const lm = new LanguageModelDouble('downloadable');
      lm.failCreate = new DOMException('no', name);
      const adapter = createLocalAdapter({ models: [], languageModel: lm });
      await settled(adapter);
      await adapter.prepare().catch(() => {});
      const s = adapter.status() as { state: string; error: string };
      expect(s.state).to.equal('error');
      expect(s.error).to.match(words);
    }
  });

  it('tool calls: the reply is constrained by a JSON Schema of the live tools, and the result goes back', async () => {
    const lm = new LanguageModelDouble('available');
    let step = 0;
    lm.reply = ({ options }) => {
      step += 1;
      if (step === 1) {
        expect(JSON.stringify(options.responseConstraint)).to.include('"const":"set_volume"').and.include('"maximum":10');
        return JSON.stringify({ tool_call: { name: 'set_volume', arguments: { level: 7 } } });
      }
      return JSON.stringify({ reply: 'Volume is 7 now.' });
    };
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    const calls: unknown[] = [];
    const parts = await run(
      adapter,
      async (call) => {
        calls.push(call.input);
        return { content: [{ type: 'text', text: '{"level":7}' }] };
      },
      [{ name: 'set_volume', description: 'Sets the volume.', inputSchema: { type: 'object', properties: { level: { type: 'integer', minimum: 0, maximum: 10 } }, required: ['level'] } }],
    );
    expect(calls).to.deep.equal([{ level: 7 }]);
    const types = parts.map((p) => p.type);
    expect(types).to.deep.equal(['message-start', 'tool-call', 'tool-result', 'step-finish', 'text-delta', 'step-finish', 'finish']);
    expect(parts.find((p) => p.type === 'text-delta')).to.deep.include({ delta: 'Volume is 7 now.' });
    // The second step saw the first call and its result.
    const second = lm.createCalls.at(-1)!.initialPrompts as Array<{ role: string; content: string }>;
    expect(second.map((t) => t.role)).to.deep.equal(['system', 'user', 'assistant']);
    expect(second[2]!.content).to.equal('<tool_call>\n{"name":"set_volume","arguments":{"level":7}}\n</tool_call>');
    expect(lm.prompts.at(-1)!.input).to.equal('<tool_response>\n{"level":7}\n</tool_response>');
  });

  it('malformed model output becomes a tool error the model sees, never a throw', async () => {
    const lm = new LanguageModelDouble('available');
    let step = 0;
    lm.reply = () => (++step === 1 ? '{"tool_call": {"name": "set_volume", "arguments": ' : JSON.stringify({ reply: 'Sorry.' }));
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    const parts = await run(adapter, async () => assert.fail('no call should run'), [{ name: 'set_volume', description: '', inputSchema: { type: 'object' } }]);
    const error = parts.find((p) => p.type === 'tool-error') as { error: string };
    expect(error.error).to.match(/could not be read/);
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
    expect(String(lm.prompts.at(-1)!.input)).to.match(/^<tool_response>\nError: The tool call could not be read/);
  });
});

const assert = { fail: (m: string): never => { throw new Error(m); } };
