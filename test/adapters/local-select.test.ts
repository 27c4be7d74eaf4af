// createLocalAdapter's model choice as a person drives it: models() with the seed's ModelChoice
// fields, selectModel() refused while a download or a reply is in progress, and the status then
// describing the newly selected model. A custom LocalEngine stands in for the engines (Node).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createLocalAdapter } from '../../src/adapters/local/index.js';
import type { LocalEngine, LocalModel } from '../../src/adapters/local/types.js';
import type { AgentStreamPart } from '../../src/chat/types.js';

const models: LocalModel[] = [
  { id: 'small', label: 'Small', brief: 'Quick.', recommended: true },
  { id: 'big', label: 'Big', brief: 'Better.', bytes: 2_000_000 },
];

function engine() {
  let release: (() => void) | undefined;
  let answer: (() => void) | undefined;
  const e: LocalEngine = {
    check: async (m) => (m.id === 'small' ? { state: 'cached' } : { state: 'needs-download', bytes: 2_000_000 }),
    async load(_m, { signal, progress }) {
      progress({ phase: 'download', progress: 0.5 });
      await new Promise<void>((resolve, reject) => {
        release = resolve;
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      return { generate: async (req) => (await new Promise<void>((r) => (answer = r)), req.onText('Hi.'), 'Hi.'), dispose() {} };
    },
  };
  return { e, release: () => release?.(), answer: () => answer?.() };
}

const until = async (f: () => boolean) => {
  while (!f()) await new Promise((r) => setImmediate(r));
};

describe('local adapter: choosing a model', () => {
  it('models() has the ModelChoice fields; selectModel is refused during a download and a reply; the status follows the choice', async () => {
    const { e, release, answer } = engine();
    const adapter = createLocalAdapter({ models, engine: e, id: `select-${Date.now()}` });
    await adapter.selectModel('small'); // waits for the checks
    assert.deepEqual(adapter.models(), [
      { id: 'small', label: 'Small', brief: 'Quick.', cached: true, recommended: true, selected: true },
      { id: 'big', label: 'Big', brief: 'Better.', bytes: 2_000_000, cached: false, recommended: false, selected: false },
    ]);
    assert.deepEqual(adapter.status(), { state: 'ready' });

    // A load (from disk: the model is cached) in progress: switching is refused with words.
    const prepared = adapter.prepare(new AbortController().signal);
    await until(() => adapter.status().state === 'loading');
    await assert.rejects(adapter.selectModel('big'), /downloading or loading: cancel it/);
    release();
    await prepared;

    // A reply in progress: refused too; after it, allowed.
    const parts: AgentStreamPart[] = [];
    const run = (async () => {
      for await (const p of adapter.run({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], signal: new AbortController().signal, callTool: async () => ({ content: [] }) })) parts.push(p);
    })();
    await until(() => parts.some((p) => p.type === 'message-start'));
    await assert.rejects(adapter.selectModel('big'), /A reply is being written/);
    answer();
    await run;
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'stop' });

    await adapter.selectModel('big');
    assert.deepEqual(adapter.status(), { state: 'needs-download', bytes: 2_000_000, ...('note' in adapter.status() ? { note: (adapter.status() as { note: string }).note } : {}) });
    assert.deepEqual(adapter.models().map((m) => [m.id, m.selected]), [['small', false], ['big', true]]);
    await assert.rejects(adapter.selectModel('nothing'), /No model "nothing" can run here/);
    // A run before the download is refused in words, and does not block the next one.
    const refused: AgentStreamPart[] = [];
    for await (const p of adapter.run({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], signal: new AbortController().signal, callTool: async () => ({ content: [] }) })) refused.push(p);
    assert.match((refused.at(-1) as { error: string }).error, /download it first/);
  });

  it("a second caller's signal ends its own wait for a load under way, not the load: Stop during a run that waits for a warm-up ends the run", async () => {
    const { e, release, answer } = engine();
    const adapter = createLocalAdapter({ models, engine: e, id: `join-${Date.now()}` });
    await adapter.selectModel('small');
    // The page warms the model up (it is on the device: no click needed); the person sends meanwhile.
    const warm = adapter.prepare(new AbortController().signal);
    await until(() => adapter.status().state === 'loading');
    const stop = new AbortController();
    const parts: AgentStreamPart[] = [];
    const run = (async () => {
      for await (const p of adapter.run({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], signal: stop.signal, callTool: async () => ({ content: [] }) })) parts.push(p);
    })();
    await new Promise((r) => setImmediate(r));
    stop.abort();
    await run;
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'aborted' });
    // The warm-up goes on, and a prepare whose signal was aborted before it asked rejects at once.
    assert.equal(adapter.status().state, 'loading');
    await assert.rejects(adapter.prepare(stop.signal), { name: 'AbortError' });
    release();
    await warm;
    assert.deepEqual(adapter.status(), { state: 'ready' });
    answer();
  });
});


describe('local adapter: waiting for a prepare under way', () => {
  it("a caller's long-lived signal keeps no listener once its wait for another caller's load ends, however it ends", async () => {
    const { e, release } = engine();
    let fail: ((e: Error) => void) | undefined;
    // The second load fails: a wait that ends in the other caller's error lets its listener go too.
    const load = e.load;
    let loads = 0;
    e.load = (m, o) => (++loads === 2 ? new Promise((_, no) => (fail = no)) : load(m, o));
    const adapter = createLocalAdapter({ models, engine: e, id: `listeners-${Date.now()}` });
    await adapter.selectModel('small');
    // One signal for the page's life, passed to every prepare (a page's own "warm up" control).
    const page = new AbortController().signal;
    const listening = () => getEventListeners(page, 'abort').length;

    const first = adapter.prepare(new AbortController().signal);
    await until(() => adapter.status().state === 'loading');
    const waits = [adapter.prepare(page), adapter.prepare(page), adapter.prepare(page)];
    assert.equal(listening(), 3);
    release();
    await Promise.all([first, ...waits]);
    assert.equal(listening(), 0);

    await adapter.unload();
    const second = adapter.prepare(new AbortController().signal);
    await until(() => fail !== undefined);
    const failed = adapter.prepare(page);
    assert.equal(listening(), 1);
    fail!(new Error('The disk is gone.'));
    await assert.rejects(second, /The disk is gone/);
    await assert.rejects(failed, /The disk is gone/);
    assert.equal(listening(), 0);
  });

  it("a wait ended by its own signal rejects with that signal's reason and leaves the load going", async () => {
    const { e, release } = engine();
    const adapter = createLocalAdapter({ models, engine: e, id: `own-stop-${Date.now()}` });
    await adapter.selectModel('small');
    const first = adapter.prepare(new AbortController().signal);
    await until(() => adapter.status().state === 'loading');
    const stop = new AbortController();
    const waiting = adapter.prepare(stop.signal);
    const reason = new Error('Stopped by the person.');
    stop.abort(reason);
    await assert.rejects(waiting, (e) => e === reason);
    assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
    assert.equal(adapter.status().state, 'loading');
    release();
    await first;
    assert.deepEqual(adapter.status(), { state: 'ready' });
  });
});
