/**
 * Model files in Cache Storage. A file is stored only once every byte has arrived and the count
 * matches what was expected: a cancelled, failed or truncated download leaves nothing behind, so
 * "cached" always means a whole file. A cancelled download restarts from zero.
 */
import { StoreError } from './store-error.js';
import type { LocalModel } from './types.js';

export { StoreError };

/** The Cache Storage key of a model: its absolute URL. */
export const keyOf = (url: string) => new URL(url, globalThis.location?.href).href;

export class ModelStore {
  constructor(
    private readonly cacheName: string,
    readonly fetcher: typeof fetch = (...a) => fetch(...a),
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
    // The download code is needed once per model: it loads with the first download.
    const { download } = await import('./download.js');
    if (!model.url) throw new StoreError(`Model "${model.id}" has no URL to download.`);
    return download(await this.open(), keyOf(model.url), model, this.fetcher, signal, progress);
  }
}

