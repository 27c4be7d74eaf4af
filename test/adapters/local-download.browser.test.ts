// createLocalAdapter with the real WebAssembly engine (@wllama/wllama) and the generated tiny GGUF
// served by the test server: the download the person starts, its progress, the cache after a
// "reload" (a new adapter over the same Cache Storage), cancellation and broken files.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter, wasmEngine, type LocalAdapter } from '../../src/adapters/local/index.js';
import type { LocalModel } from '../../src/adapters/local/index.js';
import { button, collect, freshAdapter, freshCacheName, hits, modelInfo, recordStatuses, resetHits, serverRequests, settled, startDownload, trustedClick, WASM_URL } from './helpers-local.js';

let sizes: Record<string, number>;
const tiny = (): LocalModel => ({ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes: sizes['tiny.gguf'] });
const make = (cacheName: string, models: LocalModel[] = [tiny()]): LocalAdapter =>
  createLocalAdapter({ models, engine: 'wasm', wasm: { wasmUrl: WASM_URL }, cacheName, maxTokens: 96, id: cacheName, toolChoice: 'required' });

const adapters: LocalAdapter[] = [];
const track = (a: LocalAdapter) => (adapters.push(a), a);

describe('createLocalAdapter: downloads and the cache (wllama, generated model)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(300000);

  before(async () => {
    sizes = await modelInfo();
  });
  afterEach(async () => {
    for (const a of adapters.splice(0)) await a.unload();
    document.querySelectorAll('button').forEach((b) => b.remove());
    await fetch('/__models/release');
  });

  it('needs-download with its bytes → a click → downloading with rising progress → ready; after a reload: cached, loading → ready, no fetch', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const adapter = track(make(cacheName));
    const first = await settled(adapter);
    expect(first).to.deep.include({ state: 'needs-download', bytes: sizes['tiny.gguf'] });
    expect(adapter.models()).to.deep.equal([
      { id: 'tiny', label: 'Tiny', brief: 'The test model.', bytes: sizes['tiny.gguf'], cached: false, recommended: true, selected: true },
    ]);
    // Nothing is fetched before the person asks.
    expect((await hits())['tiny.gguf'] ?? 0).to.equal(0);

    const seen = recordStatuses(adapter);
    let prepared: Promise<void> | undefined;
    const b = button('Download', () => (prepared = adapter.prepare(new AbortController().signal)));
    await trustedClick(b);
    await waitUntil(() => prepared !== undefined, 'the click did not start prepare()');
    await prepared;
    expect(adapter.status()).to.deep.equal({ state: 'ready' });

    const downloading = seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress);
    expect(downloading.length).to.be.greaterThan(1);
    for (let i = 1; i < downloading.length; i++) expect(downloading[i]).to.be.at.least(downloading[i - 1]!);
    expect(downloading.at(-1)).to.equal(1);
    expect(seen.some((s) => s.state === 'loading' && typeof s.progress === 'number')).to.equal(true);
    expect(seen.at(-1)).to.deep.equal({ state: 'ready' });
    expect((await hits())['tiny.gguf']).to.equal(1);

    // It generates (a call the grammar forces: free text from a random byte-level model can be invalid UTF-8).
    const parts = await collect(
      adapter.run({
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Pick one' }] }],
        tools: [{ name: 'pick', description: 'Picks a number.', inputSchema: { type: 'object', properties: { n: { enum: [1, 2, 3] } }, required: ['n'], additionalProperties: false } }],
        signal: new AbortController().signal,
        callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
        agent: { id: 'picker', instructions: 'Pick.', maxSteps: 1 },
      }),
    );
    expect(parts.map((p) => p.type)).to.deep.equal(['message-start', 'tool-call', 'tool-result', 'step-finish', 'finish']);
    expect([1, 2, 3]).to.include((parts[1] as { input: { n: number } }).input.n);
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'max-steps' });
    await adapter.unload();

    // "Reload": a new adapter, same origin storage. The model is on this device: no download card.
    const again = track(make(cacheName));
    expect(await settled(again)).to.deep.equal({ state: 'ready' });
    expect(again.models()[0]).to.deep.include({ cached: true, selected: true });
    const later = recordStatuses(again);
    await again.prepare();
    const states = later.map((s) => s.state);
    expect(states).to.not.include('downloading');
    expect(later.some((s) => s.state === 'loading' && typeof s.progress === 'number')).to.equal(true);
    expect(later.at(-1)).to.deep.equal({ state: 'ready' });
    expect((await hits())['tiny.gguf']).to.equal(1);
  });

  it('a stored model the browser evicted after the page checked it: a run does not download it unasked (nor call that a load); the card is back', async () => {
    const { cacheName, adapter: first } = await freshAdapter((c) => track(make(c)));
    const download = await startDownload(first);
    await waitUntil(() => first.status().state === 'ready', `never ready: ${JSON.stringify(first.status())}`, { timeout: 60000 });
    download.button.remove();
    await first.unload();
    // After a reload the model is on this device: no card, and Send is enabled.
    const adapter = track(make(cacheName));
    expect(await settled(adapter)).to.deep.equal({ state: 'ready' });
    // Storage pressure: the browser evicts the origin's caches (best-effort storage) while the page is open.
    await caches.delete(cacheName);
    await caches.delete(`${cacheName}:parts`);
    const seen = recordStatuses(adapter);
    const parts = await collect(
      adapter.run({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], signal: new AbortController().signal, callTool: async () => ({ content: [] }) }),
    );
    expect(parts).to.deep.equal([{ type: 'error', error: 'The model is not on this device yet: download it first.' }]);
    expect(adapter.status()).to.deep.include({ state: 'needs-download', bytes: sizes['tiny.gguf'] });
    expect(adapter.models()[0]).to.deep.include({ cached: false });
    expect(seen.map((s) => s.state)).to.not.include('loading');
    expect((await hits())['tiny.gguf']).to.equal(1);
  });

  it("a stored model evicted between a run's check and the engine's load: the load fetches nothing, the run ends with the same words, the card is back", async () => {
    const { cacheName, adapter: first } = await freshAdapter((c) => track(make(c)));
    await first.prepare();
    await first.unload();
    const adapter = track(make(cacheName));
    expect(await settled(adapter)).to.deep.equal({ state: 'ready' });
    // The browser evicts the origin's caches just as the load begins, after the run's check found the
    // model: every cache opened from then on is opened after the eviction.
    let evicted: Promise<unknown> | undefined;
    adapter.subscribe(() => {
      if (adapter.status().state === 'loading') evicted ??= Promise.all([caches.delete(cacheName), caches.delete(`${cacheName}:parts`)]);
    });
    const open = caches.open;
    Object.defineProperty(caches, 'open', { configurable: true, value: async (name: string) => (await evicted, open.call(caches, name)) });
    let parts;
    try {
      parts = await collect(
        adapter.run({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], tools: [], signal: new AbortController().signal, callTool: async () => ({ content: [] }) }),
      );
    } finally {
      delete (caches as { open?: unknown }).open;
    }
    expect(evicted, 'the load never began').to.not.equal(undefined);
    expect(parts).to.deep.equal([{ type: 'error', error: 'The model is not on this device yet: download it first.' }]);
    expect(adapter.status()).to.deep.include({ state: 'needs-download', bytes: sizes['tiny.gguf'] });
    expect(adapter.models()[0]).to.deep.include({ cached: false });
    expect((await hits())['tiny.gguf']).to.equal(1);
    // The card's click downloads it, worded as a download.
    const seen = recordStatuses(adapter);
    await adapter.prepare();
    expect(seen.some((s) => s.state === 'downloading')).to.equal(true);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect((await hits())['tiny.gguf']).to.equal(2);
  });

  it('a model without `bytes` served compressed (no usable length): a one-byte range request gives its size, and the progress rises from 0 to 1', async () => {
    const m: LocalModel = { id: 'gzip', label: 'Gzip', brief: 'Compressed on the way.', url: '/__models/gzip.gguf' };
    const { cacheName, adapter, status } = await freshAdapter((c) => track(make(c, [m])));
    expect(status).to.not.have.property('bytes');
    const seen = recordStatuses(adapter);
    const prepared = adapter.prepare();
    // The server holds after a quarter of the compressed body: the progress counts what arrived.
    await waitUntil(() => adapter.status().state === 'downloading' && (adapter.status() as { progress: number }).progress > 0, 'no progress', { timeout: 20000 });
    expect((adapter.status() as { progress: number }).progress).to.be.below(1);
    await fetch('/__models/release');
    await prepared;
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    const progress = seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).to.be.at.least(progress[i - 1]!);
    expect(progress.at(-1)).to.equal(1);
    expect((await serverRequests()).map((r) => [r.path, r.range, r.status])).to.deep.equal([
      ['gzip.gguf', undefined, 200],
      ['gzip.gguf', 'bytes=0-0', 206],
    ]);
    const stored = await wasmEngine({ wasmUrl: WASM_URL, cacheName }).store.blob(m);
    expect(new Uint8Array(await stored!.arrayBuffer())).to.deep.equal(new Uint8Array(await (await fetch('/__models/tiny.gguf')).arrayBuffer()));
  });

  it('a model without `bytes` from a server that gives neither a length nor ranges: no progress is invented (0 until the file is whole), and it downloads', async () => {
    const m: LocalModel = { id: 'chunked', label: 'Chunked', brief: 'No length.', url: '/__models/chunked.gguf' };
    const { adapter } = await freshAdapter((c) => track(make(c, [m])));
    const seen = recordStatuses(adapter);
    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    const progress = seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress);
    expect(progress.slice(0, -1).every((p) => p === 0), progress.join(' ')).to.equal(true);
    expect(progress.at(-1)).to.equal(1);
    expect((await serverRequests()).map((r) => [r.range, r.status])).to.deep.equal([
      [undefined, 200],
      ['bytes=0-0', 200],
    ]);
    expect(adapter.models()[0]).to.deep.include({ cached: true });
  });

  it('a second click cancels mid-download: back to needs-download, nothing half-stored reported as cached', async () => {
    const model = { ...tiny(), id: 'held', url: '/__models/held.gguf' };
    const { cacheName, adapter, status } = await freshAdapter((c) => track(make(c, [model])));
    expect(status.state).to.equal('needs-download');
    // One button, as a download card has: the first click starts, the second cancels.
    const download = await startDownload(adapter);
    await waitUntil(() => adapter.status().state === 'downloading' && (adapter.status() as { progress: number }).progress > 0, 'no progress', { timeout: 20000 });
    expect(((await download.cancel()) as DOMException).name).to.equal('AbortError');
    await waitUntil(() => adapter.status().state === 'needs-download', 'not back to needs-download');
    expect(adapter.models()[0]!.cached).to.equal(false);
    const cache = await caches.open(cacheName);
    expect(await cache.keys()).to.have.length(0);

    // Restartable: a new adapter on the same storage still says it needs the download.
    const again = track(make(cacheName, [model]));
    expect((await settled(again)).state).to.equal('needs-download');
  });

  for (const [file, words] of [
    ['missing.gguf', /404/],
    ['short.gguf', /not the \d+ expected|incomplete/],
    ['cut.gguf', /could not|incomplete|stopped/],
    ['error.gguf', /the server answered 500 Internal Server Error/],
    ['long.gguf', /longer than the \d+ bytes expected/],
    ['lying.gguf', /The download stopped at 1 MB of 1 MB|incomplete/],
  ] as const) {
    it(`a broken file (${file}) is an error with words, and nothing is cached`, async () => {
      const cacheName = await freshCacheName();
      const adapter = track(make(cacheName, [{ ...tiny(), id: file, url: `/__models/${file}` }]));
      await settled(adapter);
      let failure: unknown;
      await adapter.prepare(new AbortController().signal).catch((e) => (failure = e));
      expect(failure).to.be.instanceOf(Error);
      const s = adapter.status();
      expect(s.state).to.equal('error');
      expect((s as { error: string }).error).to.match(words);
      expect(adapter.models()[0]!.cached).to.equal(false);
      expect(await (await caches.open(cacheName)).keys()).to.have.length(0);
    });
  }

  for (const [when, refuse] of [
    ['as the bytes are written', (url: string) => url.includes('agent-surface-part=')],
    ['after a part was written, at its record', (url: string) => !url.includes('agent-surface-part=')],
  ] as const) {
    it(`storage refused ${when} (QuotaExceededError): an error that says so, nothing cached, nothing left taking the page's space`, async () => {
      const cacheName = await freshCacheName();
      const adapter = track(make(cacheName));
      await settled(adapter);
      // The browser's estimate says there is room, and then the disk fills up as the model is written.
      const put = Cache.prototype.put;
      Cache.prototype.put = function (request: RequestInfo | URL, response: Response) {
        return refuse(String((request as Request).url ?? request))
          ? Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'))
          : put.call(this, request, response);
      };
      try {
        await adapter.prepare().catch(() => {});
      } finally {
        Cache.prototype.put = put;
      }
      const s = adapter.status() as { state: string; error: string };
      expect(s.state).to.equal('error');
      expect(s.error).to.match(/^Not enough storage space\. The model needs 1 MB .*Free some disk space or pick a smaller model\.$/);
      expect(adapter.models()[0]!.cached).to.equal(false);
      expect(await (await caches.open(cacheName)).keys()).to.have.length(0);
      expect(await (await caches.open(`${cacheName}:parts`)).keys()).to.have.length(0);
      // A reload still offers the download.
      expect((await settled(track(make(cacheName)))).state).to.equal('needs-download');
    });
  }

  it('a file that is not a GGUF model (an app server answering a wrong path with its HTML page) is an error in words, and is not kept as the model', async () => {
    const cacheName = await freshCacheName();
    // No `bytes`, as in the README's first example: only the file itself can say it is wrong.
    const m: LocalModel = { id: 'spa', label: 'Spa', brief: 'A wrong path.', url: '/__models/spa.gguf' };
    const adapter = track(make(cacheName, [m]));
    expect((await settled(adapter)).state).to.equal('needs-download');
    await adapter.prepare().catch(() => {});
    const s = adapter.status() as { state: string; error: string };
    expect(s.state).to.equal('error');
    expect(s.error).to.match(/is not a GGUF model file .*"<!doctype html>/);
    expect(adapter.models()[0]!.cached).to.equal(false);
    expect(await (await caches.open(cacheName)).keys()).to.have.length(0);
    expect(await (await caches.open(`${cacheName}:parts`)).keys()).to.have.length(0);
    // After a reload it still needs its download: nothing wrong sits on the device as the model.
    expect((await settled(track(make(cacheName, [m])))).state).to.equal('needs-download');
  });

  it('a file cut short by a server that gives the cut length as the whole (no `bytes` to check it by): an error in words when the engine refuses it, not kept, and the next click downloads it again', async () => {
    const m: LocalModel = { id: 'short', label: 'Short', brief: 'Half a model.', url: '/__models/short.gguf' };
    const { cacheName, adapter } = await freshAdapter((c) => track(make(c, [m])));
    await adapter.prepare().catch(() => {});
    const s = adapter.status() as { state: string; error: string };
    expect(s.state).to.equal('error');
    expect(s.error).to.match(/^The model could not be loaded: .*damaged or incomplete.*Try again to download it again\.$/);
    expect(adapter.models()[0]!.cached).to.equal(false);
    // After a reload: the download card, not a model that can never run.
    expect((await settled(track(make(cacheName, [m])))).state).to.equal('needs-download');
    // Try again: a download (worded as one), not another load of the same file.
    const seen = recordStatuses(adapter);
    await adapter.prepare().catch(() => {});
    expect(seen.some((x) => x.state === 'downloading')).to.equal(true);
    expect((await hits())['short.gguf']).to.equal(2);
    expect(adapter.status().state).to.equal('error');
  });

  it('a whole file llama.cpp cannot load on this device (a context too large for its memory): an error in words, kept, and the next click loads it again without a download', async () => {
    // Its size checks out: the download brought every byte; only the load fails.
    const m: LocalModel = { ...tiny(), contextSize: 1 << 30 };
    const { cacheName, adapter } = await freshAdapter((c) => track(make(c, [m])));
    await adapter.prepare().catch(() => {});
    const s = adapter.status() as { state: string; error: string };
    expect(s.state).to.equal('error');
    expect(s.error).to.match(/^The model could not be loaded: .*memory of this device.*try a smaller model or context\.$/);
    expect(s.error).to.not.match(/download it again/);
    expect(adapter.models()[0]!.cached).to.equal(true);
    // After a reload: on the device, so a load, not a download card.
    expect((await settled(track(make(cacheName, [m])))).state).to.equal('ready');
    const seen = recordStatuses(adapter);
    await adapter.prepare().catch(() => {});
    expect(seen.some((x) => x.state === 'downloading')).to.equal(false);
    expect(seen.some((x) => x.state === 'loading')).to.equal(true);
    expect((await hits())['tiny.gguf']).to.equal(1);
    expect(adapter.status().state).to.equal('error');
  });

  it('a full disk is an error that says so', async () => {
    const cacheName = await freshCacheName();
    const adapter = track(make(cacheName));
    await settled(adapter);
    // The page's share of the disk is nearly used up (an own property shadows StorageManager's method).
    Object.defineProperty(navigator.storage, 'estimate', { configurable: true, value: async () => ({ quota: 1000, usage: 900 }) });
    try {
      await adapter.prepare().catch(() => {});
    } finally {
      delete (navigator.storage as { estimate?: unknown }).estimate;
    }
    const s = adapter.status() as { state: string; error: string };
    expect(s.state).to.equal('error');
    expect(s.error).to.match(/Not enough storage space\. The model needs 1 MB; this browser lets the page store 1 MB more/);
    // The person frees space and clicks again: it downloads.
    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
  });

  it('a download the quota check refuses once the headers give its size: the response is cancelled, and the server sees the request end', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    // The test keeps every response, so only a cancel ends one (not the response being collected).
    const responses: Response[] = [];
    const adapter = track(
      createLocalAdapter({
        // No `bytes`: the size is first known from the response (resume.gguf's first answer sends a quarter of it, then holds).
        models: [{ id: 'sized-late', label: 'Sized late', brief: 'The test model.', url: '/__models/resume.gguf' }],
        engine: 'wasm',
        wasm: { wasmUrl: WASM_URL },
        cacheName,
        id: cacheName,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          responses.push(response);
          return response;
        },
      }),
    );
    await settled(adapter);
    Object.defineProperty(navigator.storage, 'estimate', { configurable: true, value: async () => ({ quota: 1000, usage: 900 }) });
    try {
      await adapter.prepare().catch(() => {});
    } finally {
      delete (navigator.storage as { estimate?: unknown }).estimate;
    }
    expect((adapter.status() as { error?: string }).error).to.match(/^Not enough storage space\. The model needs 1 MB/);
    expect(responses).to.have.length(1);
    await waitUntil(async () => (await serverRequests())[0]?.cut, 'the server is still sending the refused download');
    expect(await serverRequests()).to.have.length(1);
  });
});
