// Downloads that stop keep their bytes and continue: createLocalAdapter with the real WebAssembly
// engine and the generated tiny GGUF, against a test server that answers (or ignores) Range and
// If-Range (scripts/wtr-models.mjs).
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter, wasmEngine, type LocalAdapter, type LocalModel } from '../../src/adapters/local/index.js';
import type { AdapterStatus } from '../../src/chat/types.js';
import { button, freshAdapter, freshCacheName, holdDigest, modelInfo, recordStatuses, resetHits, serverRequests, settled, startDownload, trustedClick, WASM_URL } from './helpers-local.js';

let sizes: Record<string, number>;
const model = (file: string, extra: Partial<LocalModel> = {}): LocalModel => ({ id: file, label: file, brief: 'The test model.', url: `/__models/${file}`, bytes: sizes['tiny.gguf'], ...extra });
const make = (cacheName: string, m: LocalModel): LocalAdapter => createLocalAdapter({ models: [m], engine: 'wasm', wasm: { wasmUrl: WASM_URL }, cacheName, id: cacheName });
const store = (cacheName: string) => wasmEngine({ wasmUrl: WASM_URL, cacheName }).store;
const bytesOf = async (blob: Blob | Response | undefined) => new Uint8Array(await blob!.arrayBuffer());
const hex = async (data: Uint8Array) => Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', data as BufferSource)), (b) => b.toString(16).padStart(2, '0')).join('');
const progressOf = (seen: AdapterStatus[]) => seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress);

const adapters: LocalAdapter[] = [];
const track = (a: LocalAdapter) => (adapters.push(a), a);

/** Starts a download with a real click and stops it with a second one once the held quarter has arrived. */
async function cancelMidway(adapter: LocalAdapter, total: number): Promise<void> {
  const download = await startDownload(adapter);
  const quarter = (total >> 2) / total;
  await waitUntil(() => adapter.status().state === 'downloading' && (adapter.status() as { progress: number }).progress >= quarter, 'the first quarter never arrived', { timeout: 60000 });
  expect(((await download.cancel()) as DOMException).name).to.equal('AbortError');
  download.button.remove();
}

/** Downloads with `prepare` and cancels it while the whole file is checked against its sha256 (WebCrypto's digest held till then); the error it ended with. */
async function cancelWhileHashing(adapter: LocalAdapter): Promise<unknown> {
  const digest = holdDigest();
  const controller = new AbortController();
  try {
    const prepared = adapter.prepare(controller.signal);
    await digest.hashing;
    controller.abort();
    digest.release();
    return await prepared.then(
      () => undefined,
      (e: unknown) => e,
    );
  } finally {
    digest.restore();
  }
}

/**
 * After a cancel while hashing, a "reload": a new adapter on the same storage has the model ready and
 * cached, its record not yet written; the first load runs the check it missed, worded as a load (its
 * progress rising), with no fetch, and then writes it.
 */
async function reloadRunsTheCheck(cacheName: string, m: LocalModel): Promise<void> {
  const requests = (await serverRequests()).length;
  const again = track(make(cacheName, m));
  expect(await settled(again)).to.deep.equal({ state: 'ready' });
  expect(again.models()[0]).to.deep.include({ cached: true });
  expect(await store(cacheName).has(m)).to.equal(false);
  const seen = recordStatuses(again);
  await again.prepare();
  expect(again.status()).to.deep.equal({ state: 'ready' });
  expect(seen.map((x) => x.state)).to.not.include('downloading');
  const loads = seen.filter((x) => x.state === 'loading').map((x) => (x as { progress: number }).progress);
  for (let i = 1; i < loads.length; i++) expect(loads[i]).to.be.at.least(loads[i - 1]!);
  expect(await serverRequests()).to.have.length(requests);
  expect(await store(cacheName).has(m)).to.equal(true);
}

describe('createLocalAdapter: a download that stops continues where it stopped (wllama, generated model)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);

  before(async () => {
    sizes = await modelInfo();
  });
  afterEach(async () => {
    for (const a of adapters.splice(0)) await a.unload();
    document.querySelectorAll('button').forEach((b) => b.remove());
    await fetch('/__models/release');
  });

  it('cancel mid-download → needs-download, not cached, bytes kept → prepare again: a Range request, progress from the kept bytes, the whole file', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('resume.gguf');
    const adapter = track(make(cacheName, m));
    expect((await settled(adapter)).state).to.equal('needs-download');
    await cancelMidway(adapter, total);
    await waitUntil(() => adapter.status().state === 'needs-download', 'not back to needs-download');
    expect(adapter.models()[0]!.cached).to.equal(false);
    expect(await (await caches.open(cacheName)).keys()).to.have.length(0);
    const kept = await store(cacheName).kept(m);
    expect(kept).to.be.within(total >> 2, total - 1);
    expect(await store(cacheName).has(m)).to.equal(false);
    // The download card says what remains to download; the picker keeps the model's size.
    expect(adapter.status()).to.deep.include({ state: 'needs-download', bytes: total - kept });
    expect(adapter.models()[0]!.bytes).to.equal(total);

    // "Reload": a new adapter on the same storage still offers the download, and it continues.
    const again = track(make(cacheName, m));
    expect(await settled(again)).to.deep.include({ state: 'needs-download', bytes: total - kept });
    expect(again.models()[0]!.cached).to.equal(false);
    const seen = recordStatuses(again);
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Continue', () => (prepared = again.prepare(new AbortController().signal))));
    await waitUntil(() => prepared !== undefined, 'the click did not start prepare()');
    await prepared;
    expect(again.status()).to.deep.equal({ state: 'ready' });

    const progress = progressOf(seen);
    expect(progress[0]).to.equal(kept / total);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).to.be.at.least(progress[i - 1]!);
    expect(progress.at(-1)).to.equal(1);
    const log = await serverRequests();
    expect(log.map((r) => [r.path, r.range, r.ifRange, r.status])).to.deep.equal([
      ['resume.gguf', undefined, undefined, 200],
      ['resume.gguf', `bytes=${kept}-`, '"tiny-1"', 206],
    ]);
    // What is stored is the server's file, byte for byte (joined from the two downloads).
    expect(await bytesOf(await store(cacheName).blob(m))).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
    expect(await store(cacheName).kept(m)).to.equal(0);
    expect(again.models()[0]!.cached).to.equal(true);
  });

  it('a Restart button (cancel and start again in one click) restarts the download: the new prepare() is not the cancelled one', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('resume.gguf');
    const adapter = track(make(cacheName, m));
    await settled(adapter);
    let controller = new AbortController();
    const first = adapter.prepare(controller.signal);
    first.catch(() => {});
    await waitUntil(() => adapter.status().state === 'downloading' && (adapter.status() as { progress: number }).progress >= (total >> 2) / total, 'the first quarter never arrived', { timeout: 60000 });
    let restarted: Promise<void> | undefined;
    await trustedClick(
      button('Restart', () => {
        controller.abort();
        controller = new AbortController();
        restarted = adapter.prepare(controller.signal);
        restarted.catch(() => {});
      }),
    );
    await waitUntil(() => restarted !== undefined, 'the click did not restart');
    let stopped: unknown;
    await first.catch((e) => (stopped = e));
    expect((stopped as DOMException).name).to.equal('AbortError');
    await restarted;
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(adapter.models()[0]!.cached).to.equal(true);
    expect((await serverRequests()).map((r) => r.status)).to.deep.equal([200, 206]);
    expect(await bytesOf(await store(cacheName).blob(m))).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
  });

  it('two tabs (two adapters on the same storage) download a model once: the second waits for the first and finds the model whole', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('resume.gguf');
    const first = track(make(cacheName, m));
    const second = track(make(cacheName, m));
    await settled(first);
    await settled(second);
    const one = first.prepare();
    await waitUntil(() => first.status().state === 'downloading' && (first.status() as { progress: number }).progress >= (total >> 2) / total, 'the first quarter never arrived', { timeout: 60000 });
    const two = second.prepare();
    // The second one waits (the first download is held mid-file by the test server).
    await waitUntil(() => second.status().state === 'downloading', 'the second never started');
    expect(await serverRequests()).to.have.length(1);
    // A third that waits can still be cancelled: back to its download card at once.
    const third = track(make(cacheName, m));
    await settled(third);
    const stop = new AbortController();
    const waiting = third.prepare(stop.signal);
    await waitUntil(() => third.status().state === 'downloading', 'the third never started');
    stop.abort();
    let stopped: unknown;
    await waiting.catch((e) => (stopped = e));
    expect((stopped as DOMException).name).to.equal('AbortError');
    expect(third.status().state).to.equal('needs-download');
    await fetch('/__models/release');
    await Promise.all([one, two]);
    expect(first.status()).to.deep.equal({ state: 'ready' });
    expect(second.status()).to.deep.equal({ state: 'ready' });
    expect(await serverRequests()).to.have.length(1);
    expect(await bytesOf(await store(cacheName).blob(m))).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
  });

  it('a dropped connection is an error that keeps the bytes; the next click continues', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('resume.gguf');
    const adapter = track(make(cacheName, m));
    await settled(adapter);
    const prepared = adapter.prepare(new AbortController().signal);
    prepared.catch(() => {});
    await waitUntil(() => adapter.status().state === 'downloading' && (adapter.status() as { progress: number }).progress >= (total >> 2) / total, 'no progress', { timeout: 60000 });
    await fetch('/__models/drop');
    let failure: unknown;
    await prepared.catch((e) => (failure = e));
    const s = adapter.status() as { state: string; error: string };
    expect(s.state).to.equal('error');
    expect(s.error).to.match(/The download stopped at 1 MB of 1 MB .*Try again to continue from there\./);
    expect((failure as Error).message).to.equal(s.error);
    const kept = await store(cacheName).kept(m);
    expect(kept).to.be.at.least(total >> 2);
    expect(adapter.models()[0]!.cached).to.equal(false);

    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect((await serverRequests()).at(-1)).to.deep.include({ range: `bytes=${kept}-`, status: 206 });
    expect(await bytesOf(await store(cacheName).blob(m))).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
  });

  it('a server that ignores Range answers 200: the download starts over cleanly', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('norange.gguf');
    const adapter = track(make(cacheName, m));
    await settled(adapter);
    await cancelMidway(adapter, total);
    const kept = await store(cacheName).kept(m);
    expect(kept).to.be.greaterThan(0);

    const seen = recordStatuses(adapter);
    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    const log = await serverRequests();
    expect(log.at(-1)).to.deep.include({ range: `bytes=${kept}-`, status: 200 });
    // Progress starts at the kept bytes, then counts the new body from zero: nothing was appended twice.
    const progress = progressOf(seen);
    expect(progress[0]).to.equal(kept / total);
    expect(progress[1]).to.equal(0);
    expect(progress.at(-1)).to.equal(1);
    expect(await bytesOf(await store(cacheName).blob(m))).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
  });

  it('a 206 of another range than the one asked for is not appended: the whole file is asked for again', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('badrange.gguf');
    const adapter = track(make(cacheName, m));
    await settled(adapter);
    await cancelMidway(adapter, total);
    const kept = await store(cacheName).kept(m);
    expect(kept).to.be.greaterThan(0);
    const seen = recordStatuses(adapter);
    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect((await serverRequests()).map((r) => [r.range, r.status])).to.deep.equal([
      [undefined, 200],
      [`bytes=${kept}-`, 206],
      [undefined, 200],
    ]);
    expect(Math.max(...progressOf(seen))).to.equal(1);
    expect(await bytesOf(await store(cacheName).blob(m))).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
  });

  it('a file that changed on the server (If-Range no longer matches) starts over with the new file', async () => {
    await resetHits();
    expect(sizes['tiny-b.gguf']).to.equal(sizes['tiny.gguf']);
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('changed.gguf');
    const adapter = track(make(cacheName, m));
    await settled(adapter);
    await cancelMidway(adapter, total);
    const kept = await store(cacheName).kept(m);
    expect(kept).to.be.greaterThan(0);

    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect((await serverRequests()).at(-1)).to.deep.include({ range: `bytes=${kept}-`, ifRange: '"tiny-1"', status: 200 });
    // Only the new file's bytes: none of the first version's were kept.
    const stored = await bytesOf(await store(cacheName).blob(m));
    expect(stored).to.deep.equal(await bytesOf(await fetch('/__models/tiny-b.gguf')));
    expect(stored).to.not.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
  });

  it('a model with a sha256 is kept only when the file matches it', async () => {
    const file = await bytesOf(await fetch('/__models/tiny.gguf'));
    const good = model('tiny.gguf', { sha256: (await hex(file)).toUpperCase() });
    const cacheName = await freshCacheName();
    const adapter = track(make(cacheName, good));
    await settled(adapter);
    await adapter.prepare();
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(adapter.models()[0]!.cached).to.equal(true);

    const otherCache = await freshCacheName();
    const bad = model('tiny.gguf', { sha256: await hex(await bytesOf(await fetch('/__models/tiny-b.gguf'))) });
    const wrong = track(make(otherCache, bad));
    await settled(wrong);
    await wrong.prepare().catch(() => {});
    const s = wrong.status() as { state: string; error: string };
    expect(s.state).to.equal('error');
    expect(s.error).to.match(/does not match the model's sha256 \([0-9a-f]{12}…\)/);
    expect(wrong.models()[0]!.cached).to.equal(false);
    expect(await store(otherCache).kept(bad)).to.equal(0);
    expect(await (await caches.open(`${otherCache}:parts`)).keys()).to.have.length(0);
  });

  it('a cancel while the downloaded file is checked against its sha256: every byte is here, so ready (not a download of 0 bytes); the next load checks it and fetches nothing', async () => {
    const total = sizes['tiny.gguf']!;
    const m = model('tiny.gguf', { sha256: await hex(await bytesOf(await fetch('/__models/tiny.gguf'))) });
    const { cacheName, adapter } = await freshAdapter((c) => track(make(c, m)));
    expect(((await cancelWhileHashing(adapter)) as DOMException).name).to.equal('AbortError');
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(adapter.models()[0]).to.deep.include({ cached: true, bytes: total });
    expect(await serverRequests()).to.have.length(1);
    await reloadRunsTheCheck(cacheName, m);
  });

  it('a model without `bytes` from a server with neither a length nor ranges, cancelled while checked against its sha256: the size it counted is recorded, so ready and cached, also after a reload, and the next load fetches nothing', async () => {
    const m = model('chunked-etag.gguf', { bytes: undefined, sha256: await hex(await bytesOf(await fetch('/__models/tiny.gguf'))) });
    const { cacheName, adapter, status } = await freshAdapter((c) => track(make(c, m)));
    expect(status).to.not.have.property('bytes');
    expect(((await cancelWhileHashing(adapter)) as DOMException).name).to.equal('AbortError');
    // The whole body and the one-byte range request the server answered with the whole file again.
    expect((await serverRequests()).map((r) => [r.range, r.status])).to.deep.equal([
      [undefined, 200],
      ['bytes=0-0', 200],
    ]);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(adapter.models()[0]).to.deep.include({ cached: true });
    await reloadRunsTheCheck(cacheName, m);
    expect(await bytesOf(await store(cacheName).blob(m))).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
  });

  it('a model without `bytes`: after a cancel the card says what remains and the picker the whole size, from the size the download recorded', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const total = sizes['tiny.gguf']!;
    const m = model('resume.gguf', { bytes: undefined });
    const adapter = track(make(cacheName, m));
    expect(await settled(adapter)).to.not.have.property('bytes');
    await cancelMidway(adapter, total);
    const kept = await store(cacheName).kept(m);
    expect(adapter.status()).to.deep.include({ state: 'needs-download', bytes: total - kept });
    expect(adapter.models()[0]!.bytes).to.equal(total);
    const seen = recordStatuses(adapter);
    await adapter.prepare();
    expect(progressOf(seen)[0]).to.equal(kept / total);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
  });

  it('bytes the next download would not continue after are never reported as kept: no validator, a part gone, another size', async () => {
    const total = sizes['tiny.gguf']!;
    const m = model('tiny.gguf');
    const key = new URL(m.url!, location.href).href;
    const part = (i: number) => `${key}?agent-surface-part=${i}`;
    const record = (r: object) => new Response(JSON.stringify({ v: 1, bytes: total, parts: [1000], ...r }));
    for (const [name, r, keepPart] of [
      ['no validator', {}, true],
      ['a part gone', { validator: '"tiny-1"' }, false],
      ['another size', { validator: '"tiny-1"', bytes: total + 1 }, true],
    ] as const) {
      const cacheName = await freshCacheName();
      const parts = await caches.open(`${cacheName}:parts`);
      await parts.put(key, record(r));
      if (keepPart) await parts.put(part(0), new Response(new Uint8Array(1000)));
      expect(await store(cacheName).kept(m), name).to.equal(0);
      const adapter = track(make(cacheName, m));
      expect(await settled(adapter), name).to.deep.include({ state: 'needs-download', bytes: total });
      const seen = recordStatuses(adapter);
      await adapter.prepare();
      expect(adapter.status(), name).to.deep.equal({ state: 'ready' });
      // The whole file from the start: progress never goes back.
      const progress = progressOf(seen);
      expect(progress[0], name).to.equal(0);
      for (let i = 1; i < progress.length; i++) expect(progress[i], name).to.be.at.least(progress[i - 1]!);
      expect(await bytesOf(await store(cacheName).blob(m)), name).to.deep.equal(await bytesOf(await fetch('/__models/tiny.gguf')));
      await adapter.unload();
    }
  });
});
