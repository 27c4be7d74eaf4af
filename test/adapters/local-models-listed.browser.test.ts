// After a reload, the first status past the device check comes with every GGUF model in models(),
// each saying whether it is on this device: a page (or the chat's picker) that reads models() then
// sees the whole list, not only the model chosen. Here the second model's Cache Storage read is held
// until the first model's check has had every chance to end the device check on its own.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter, type LocalAdapter } from '../../src/adapters/local/index.js';
import { freshCacheName, WASM_URL } from './helpers-local.js';

/** One turn of the event loop: every microtask queued before it has run. */
const nextTask = () => new Promise<void>((r) => {
  const c = new MessageChannel();
  c.port1.onmessage = () => r();
  c.port2.postMessage(0);
});

describe('createLocalAdapter: models() once the device check ends (wllama engine, Cache Storage)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);

  it('lists both stored GGUF models, cached, with the first status past the check', async () => {
    const cacheName = await freshCacheName();
    const models = [
      { id: 'a', label: 'A', brief: 'First.', url: '/__models/tiny.gguf' },
      { id: 'b', label: 'B', brief: 'Second.', url: '/__models/tiny-b.gguf' },
    ];
    const make = () => createLocalAdapter({ models, engine: 'wasm', wasm: { wasmUrl: WASM_URL }, cacheName, id: cacheName });
    const first: LocalAdapter = make();
    await first.prepare();
    await first.selectModel('b');
    await first.prepare();
    await first.selectModel('a');
    await first.unload();

    // The reload: the second model's stored record is read only once the first one's check is over.
    const match = Cache.prototype.match;
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let aRead = false;
    Cache.prototype.match = async function (this: Cache, request: RequestInfo | URL, options?: CacheQueryOptions) {
      const url = String(request instanceof Request ? request.url : request);
      if (url.includes('tiny-b.gguf')) await gate;
      const found = await match.call(this, request, options);
      if (url.includes('/tiny.gguf?agent-surface-part=')) aRead = true;
      return found;
    };
    try {
      const again = make();
      const listed: string[][] = [];
      again.subscribe(() => void (again.status().state !== 'loading' && listed.push(again.models().map((m) => m.id))));
      await waitUntil(() => aRead, "the first model's check never read its parts");
      await nextTask();
      release();
      await waitUntil(() => again.status().state !== 'loading', 'the device check never ended');
      expect(listed.length).to.be.greaterThan(0);
      for (const ids of listed) expect(ids).to.deep.equal(['a', 'b']);
      expect(again.status()).to.deep.equal({ state: 'ready' });
      expect(again.models().map((m) => [m.id, m.cached, m.selected])).to.deep.equal([['a', true, true], ['b', true, false]]);
    } finally {
      Cache.prototype.match = match;
    }
  });
});
