/**
 * A model download into Cache Storage (layout in store-file.ts), loaded with the first download.
 *
 * The body is written in parts as it arrives. When the download stops (the signal, a dropped
 * connection), the bytes received so far are written out and recorded with the server's validator;
 * the next download asks for the rest (`Range: bytes=N-` with `If-Range`). A 206 continues the
 * file; a 200 (a server that ignores ranges, or a file that changed since) starts over with the
 * new body. The whole file is checked against the expected size, and against `sha256` when the
 * model gives one, before the model's record says it is on this device.
 */
import { keptBytes, keyOf, openCache, partKey, partsOf, resumable, type StoredFile } from './store-file.js';
import type { LocalModel, ModelStore } from './types.js';
import { NOT_HERE, why } from './words.js';

/** A model file could not be downloaded or stored; the message says why in words. */
class StoreError extends Error {}

/** Bytes held in memory before they are written out as a part: what a closed tab can lose. */
const PART = 8 << 20;
const MB = (n: number) => `${Math.max(1, Math.round(n / 1e6))} MB`;
const RANGE = /^bytes (\d+)-\d+\/(\d+|\*)$/;

/** Forgets an unfinished download: its record and every part. */
async function clear(bytes: Cache, key: string): Promise<void> {
  const prefix = partKey(key, '');
  await Promise.all((await bytes.keys()).filter((r) => r.url === key || r.url.startsWith(prefix)).map((r) => bytes.delete(r)));
}

/** `onDisk`: the adapter found the file whole here; none of it is fetched (gone since: a NotFoundError). */
export async function download(options: { cacheName: string; fetch?: typeof fetch; onDisk?: boolean }, model: LocalModel, store: ModelStore, signal: AbortSignal, progress: (p: number) => void): Promise<void> {
  if (typeof caches === 'undefined') throw new StoreError('This page cannot store models (Cache Storage needs a secure context).');
  const key = keyOf(model.url!);
  const fetcher = options.fetch ?? fetch;
  const get = async (headers: Record<string, string>): Promise<Response> => {
    try {
      return await fetcher(key, { signal, cache: 'no-store', headers });
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      throw new StoreError(`The model could not be downloaded (${why(e, 'network error')}).`);
    }
  };
  const locks = globalThis.navigator?.locks;
  // One download of a file at a time in this origin (two tabs, two adapters): another waits for it,
  // then finds the file whole. Both would write the same parts.
  return locks ? locks.request(`agent-surface-model ${key}`, { signal }, fill) : fill();

  async function fill(): Promise<void> {
    if (await store.has(model)) return progress(1);
    const main = await openCache(options.cacheName);
    const bytes = await openCache(options.cacheName, true);
    // Whatever the model's record said, it is being replaced: until this ends it is not on the device.
    await main.delete(key);
    let file = await resumable(bytes, key, model);
    let kept = keptBytes(file);
    // Every byte arrived last time and only the checks were left (a cancel while hashing): no fetch.
    if (!(file?.bytes && kept === file.bytes)) {
      if (options.onDisk) throw new DOMException(NOT_HERE, 'NotFoundError');
      await checkQuota(model.bytes && model.bytes - kept);
      let total: number | undefined;
      // A cross-origin server whose CORS refuses If-Range fails the request itself: then the whole
      // file is asked for (the kept bytes go only once that gets an answer).
      const first = kept
        ? await get({ range: `bytes=${kept}-`, 'if-range': file!.validator! }).catch((e: unknown) => {
            if (signal.aborted) throw e;
          })
        : undefined;
      const range = first?.status === 206 && RANGE.exec(first.headers.get('content-range') ?? '');
      let response = first as Response;
      if (range && Number(range[1]) === kept) {
        if (range[2] !== '*') total = Number(range[2]);
      } else {
        // Not the rest of the same file. A whole body (the server ignores ranges, or the file changed
        // since) is a new start; anything else (416, a part not asked for) is asked for again whole.
        kept = 0;
        file = undefined;
        if (first?.status !== 200) {
          await first?.body?.cancel().catch(() => {});
          response = await get({});
        }
        await clear(bytes, key);
      }
      // A refused response is not read: cancelled, so the connection stops bringing its body.
      const drop = () => response.body?.cancel().catch(() => {});
      if (!response.ok || !response.body) {
        await drop();
        throw new StoreError(`The model could not be downloaded: the server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`);
      }
      const h = response.headers;
      const length = Number(h.get('content-length'));
      if (!kept && length > 0 && !h.get('content-encoding')) total = length;
      // No size to count against (a compressed or chunked body): the 206 to a one-byte range names the
      // file's own size in Content-Range (unless it came compressed). A server without ranges cannot say.
      if (!model.bytes && !total) {
        const probe = await get({ range: 'bytes=0-0' }).catch(() => undefined);
        void probe?.body?.cancel().catch(() => {});
        const r = probe?.status === 206 && !probe.headers.get('content-encoding') && RANGE.exec(probe.headers.get('content-range') ?? '');
        if (r) total = Number(r[2]) || undefined;
      }
      if (model.bytes && total && total !== model.bytes) {
        await drop();
        await clear(bytes, key);
        throw new StoreError(`The model file on the server is ${total} bytes, not the ${model.bytes} expected.`);
      }
      const expected = model.bytes ?? total;
      await checkQuota(expected && expected - kept).catch(async (e: unknown) => {
        await drop();
        throw e;
      });
      // If-Range needs a strong validator: a weak ETag would make every continuation a restart.
      const etag = h.get('etag');
      const validator = (etag && !etag.startsWith('W/') ? etag : h.get('last-modified')) || file?.validator;
      const record: StoredFile = (file = { v: 1, bytes: expected || undefined, parts: file?.parts ?? [], validator: validator || undefined });
      let received = kept;
      // The file's first bytes, until they show it is a GGUF model (its magic) or not.
      let head: string | undefined = kept ? undefined : '';
      let chunks: Uint8Array[] = [];
      let buffered = 0;
      const save = () => bytes.put(key, new Response(JSON.stringify(record)));
      const flush = async () => {
        if (!buffered) return;
        await bytes.put(partKey(key, record.parts.length), new Response(new Blob(chunks as BlobPart[])));
        record.parts.push(buffered);
        chunks = [];
        buffered = 0;
        await save();
      };
      progress(expected ? received / expected : 0);
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (head !== undefined && !done) head += String.fromCharCode(...value.subarray(0, 16));
          if (head !== undefined && (done || head.length > 15)) {
            // An app server's fallback page, a login page or an error page with a 200.
            if (!head.startsWith('GGUF')) throw new StoreError(`The file at ${model.url} is not a GGUF model file (it starts with "${head.slice(0, 16).replace(/[^ -~]/g, '.')}"): check the model's url.`);
            head = undefined;
          }
          if (done) break;
          received += value.byteLength;
          if (expected && received > expected) throw new StoreError(`The model file is longer than the ${expected} bytes expected.`);
          chunks.push(value);
          buffered += value.byteLength;
          progress(expected ? received / expected : 0);
          if (buffered >= PART) await flush();
        }
        await flush();
      } catch (e) {
        void reader.cancel().catch(() => {});
        // Keep what arrived, so the next download continues after it (only a file the server can name
        // again). Not on a full disk: the bytes that fitted would keep the page's storage full.
        const full = (e as DOMException)?.name === 'QuotaExceededError';
        if (e instanceof StoreError || !validator || full) await clear(bytes, key);
        else await flush().catch(() => {});
        if (signal.aborted) throw signal.reason;
        if (e instanceof StoreError) throw e;
        if (full) throw quotaError(expected);
        const at = expected ? `${MB(received)} of ${MB(expected)}` : MB(received);
        throw new StoreError(
          `The download stopped at ${at} (${why(e, 'network error')}). ${validator ? 'Try again to continue from there.' : 'Try again.'}`,
        );
      }
      if (expected && received !== expected) {
        await clear(bytes, key);
        throw new StoreError(`The download stopped at ${received} of ${expected} bytes: the file is incomplete.`);
      }
      // The size, first known now, goes in the record too: a cancel during the checks below keeps a
      // file the next check finds whole.
      if (!expected) {
        record.bytes = received;
        await save();
      }
    }
    if (model.sha256) {
      // WebCrypto hashes off the main thread, from the file read into memory once.
      const parts = await Promise.all((await partsOf(bytes, key, file))!.map((p) => p.blob()));
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await new Blob(parts).arrayBuffer()));
      signal.throwIfAborted();
      if (Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') !== model.sha256.toLowerCase()) {
        await clear(bytes, key);
        throw new StoreError(`The downloaded file does not match the model's sha256 (${model.sha256.slice(0, 12)}…): it changed on the server or was damaged on the way. Try again.`);
      }
    }
    // The model's record is written last: only now is the model on this device. The parts stay, named by it.
    await main.put(key, new Response(JSON.stringify(file)));
    await bytes.delete(key);
    progress(1);
  }
}

async function checkQuota(bytes: number | undefined): Promise<void> {
  if (!bytes || !globalThis.navigator?.storage?.estimate) return;
  const { quota, usage } = await navigator.storage.estimate().catch(() => ({}) as StorageEstimate);
  // A browser that leaves either out says nothing: NaN is never less.
  const free = quota! - usage!;
  if (free < bytes) throw quotaError(bytes, free);
}

function quotaError(bytes?: number, free?: number): StoreError {
  const need = bytes ? ` The model needs ${MB(bytes)}` : ' The model does not fit';
  const room = free !== undefined ? `; this browser lets the page store ${MB(Math.max(0, free))} more.` : ' in the space this browser gives the page.';
  return new StoreError(`Not enough storage space.${need}${room} Free some disk space or pick a smaller model.`);
}
