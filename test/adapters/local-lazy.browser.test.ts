// Engines load lazily: a page that creates a local adapter and shows its status, its models and
// its download card fetches none of the download, the engines' glue, the run loop or
// @wllama/wllama; the first prepare() fetches them. Read from the page's own resource timing, in
// a test page that imports the adapter module alone.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter } from '../../src/adapters/local/adapter.js';

const LATER = /\/src\/adapters\/local\/(later|download|steps|tool-format|grammar|engines\/wllama|engines\/prompt-api[a-z-]*)\.(js|ts)|\/src\/adapters\/shared\/|@wllama\/wllama/;
const fetched = () => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => LATER.test(n));

describe('createLocalAdapter: engines load lazily', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);

  it('status, models and the download card fetch no engine code; the first prepare() does', async () => {
    performance.setResourceTimingBufferSize(10000);
    const bytes = ((await (await fetch('/__models/info')).json()) as Record<string, number>)['tiny.gguf'];
    const cacheName = `lazy-${Date.now()}`;
    const adapter = createLocalAdapter({
      models: [{ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes }],
      wasm: { wasmUrl: '/node_modules/@wllama/wllama/esm/wasm/wllama.wasm' },
      cacheName,
      id: cacheName,
    });
    adapter.subscribe(() => {});
    await waitUntil(() => adapter.status().state === 'needs-download', 'never needs-download', { timeout: 20000 });
    expect(adapter.models().map((m) => m.id)).to.deep.equal(['tiny']);
    expect(fetched()).to.deep.equal([]);

    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    const names = fetched().join('\n');
    expect(names).to.match(/\/local\/later\./);
    expect(names).to.match(/@wllama\/wllama/);
    await adapter.unload();
    await caches.delete(cacheName);
    await caches.delete(`${cacheName}:parts`);
  });
});
