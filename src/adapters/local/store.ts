/**
 * Model files in Cache Storage. A file is stored only once every byte has arrived and the count
 * matches what was expected: a cancelled, failed or truncated download leaves nothing behind, so
 * "cached" always means a whole file. A cancelled download restarts from zero.
 */
import type { LocalModel } from './types.js';

export class StoreError extends Error {
  override name = 'StoreError';
}

const MB = (n: number) => `${Math.max(1, Math.round(n / 1e6))} MB`;

/** The Cache Storage key of a model: its absolute URL. */
const keyOf = (url: string) => new URL(url, globalThis.location?.href).href;

export class ModelStore {
  constructor(
    private readonly cacheName: string,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
  ) {}

  private open(): Promise<Cache> {
    if (typeof caches === 'undefined') throw new StoreError('This page cannot store models (Cache Storage needs a secure context).');
    return caches.open(this.cacheName);
  }

  async has(model: LocalModel): Promise<boolean> {
    if (!model.url || typeof caches === 'undefined') return false;
    try {
      return !!(await (await this.open()).match(keyOf(model.url)));
    } catch {
      return false;
    }
  }

  /** The stored file, read from disk lazily (a Blob backed by the cache, not a copy in memory). */
  async blob(model: LocalModel): Promise<Blob | undefined> {
    const hit = model.url ? await (await this.open()).match(keyOf(model.url)) : undefined;
    return hit ? hit.blob() : undefined;
  }

  async remove(model: LocalModel): Promise<void> {
    if (model.url) await (await this.open()).delete(keyOf(model.url));
  }

  /** Downloads and stores the file with byte progress (0 to 1). Rejects with words on any failure. */
  async download(model: LocalModel, signal: AbortSignal, progress: (p: number) => void): Promise<void> {
    if (!model.url) throw new StoreError(`Model "${model.id}" has no URL to download.`);
    const cache = await this.open();
    await this.checkQuota(model.bytes);
    let response: Response;
    try {
      response = await this.fetcher(keyOf(model.url), { signal, cache: 'no-store' });
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      throw new StoreError(`The model could not be downloaded (${(e as Error)?.message || 'network error'}).`);
    }
    if (!response.ok || !response.body) {
      throw new StoreError(`The model could not be downloaded: the server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`);
    }
    const header = Number(response.headers.get('content-length'));
    const expected = model.bytes ?? (header > 0 && !response.headers.get('content-encoding') ? header : undefined);
    if (model.bytes && header > 0 && !response.headers.get('content-encoding') && header !== model.bytes) {
      await response.body.cancel().catch(() => {});
      throw new StoreError(`The model file on the server is ${header} bytes, not the ${model.bytes} expected.`);
    }
    await this.checkQuota(expected);
    let received = 0;
    progress(0);
    // The body streams into the cache through a counter; a short or long file errors the stream,
    // which makes cache.put reject without storing anything.
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          received += chunk.byteLength;
          if (expected && received > expected) {
            controller.error(new StoreError(`The model file is longer than the ${expected} bytes expected.`));
            return;
          }
          controller.enqueue(chunk);
          progress(expected ? received / expected : 0);
        },
        flush(controller) {
          if (expected && received !== expected) {
            controller.error(new StoreError(`The download stopped at ${received} of ${expected} bytes: the file is incomplete.`));
          }
        },
      }),
      { signal },
    );
    const headers = new Headers({ 'content-type': 'application/octet-stream', 'content-length': String(expected ?? '') });
    if (!expected) headers.delete('content-length');
    try {
      await cache.put(keyOf(model.url), new Response(counted, { headers }));
    } catch (e) {
      await cache.delete(keyOf(model.url)).catch(() => {});
      if (signal.aborted) throw signal.reason;
      if (e instanceof StoreError) throw e;
      if ((e as DOMException)?.name === 'QuotaExceededError') throw quotaError(expected);
      throw new StoreError(`The model could not be stored (${(e as Error)?.message || 'storage error'}).`);
    }
    progress(1);
  }

  private async checkQuota(bytes: number | undefined): Promise<void> {
    if (!bytes || !globalThis.navigator?.storage?.estimate) return;
    const { quota, usage } = await navigator.storage.estimate().catch(() => ({}) as StorageEstimate);
    if (quota !== undefined && usage !== undefined && quota - usage < bytes) throw quotaError(bytes, quota - usage);
  }
}

function quotaError(bytes?: number, free?: number): StoreError {
  const need = bytes ? ` The model needs ${MB(bytes)}` : ' The model does not fit';
  const room = free !== undefined ? `; this browser lets the page store ${MB(Math.max(0, free))} more.` : ' in the space this browser gives the page.';
  return new StoreError(`Not enough storage space.${need}${room} Free some disk space or pick a smaller model.`);
}
