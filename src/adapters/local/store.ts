/**
 * Model files in Cache Storage, kept in parts so a download that stops (a cancel, a dropped
 * connection, a closed tab) keeps what arrived and later continues from there.
 *
 * - `<cacheName>:parts` holds the bytes, one entry per part, and, while a download is unfinished,
 *   a record of the parts and the server's validator (ETag or Last-Modified) for `If-Range`.
 * - `<cacheName>` holds a model's record only once every byte arrived and the size (and hash, when
 *   the model gives one) checked out: "cached" always means a whole, verified file.
 *
 * The stored model is the parts joined as one Blob, read from disk as the engine needs it.
 */
import { StoreError } from './store-error.js';
import { keptBytes, keyOf, partKey, readRecord } from './store-file.js';
import type { LocalModel } from './types.js';

export { StoreError, keyOf };

export class ModelStore {
  constructor(
    private readonly cacheName: string,
    readonly fetcher: typeof fetch = (...a) => fetch(...a),
  ) {}

  /** The cache of whole models' records (`parts: false`) or of the bytes and unfinished downloads. */
  open(parts = false): Promise<Cache> {
    if (typeof caches === 'undefined') throw new StoreError('This page cannot store models (Cache Storage needs a secure context).');
    return caches.open(parts ? `${this.cacheName}:parts` : this.cacheName);
  }

  /** The stored parts of a whole model, or undefined when it is not (or no longer all) on disk. */
  private async parts(model: LocalModel): Promise<Response[] | undefined> {
    if (!model.url || typeof caches === 'undefined') return undefined;
    const key = keyOf(model.url);
    const file = await readRecord(await this.open(), key);
    if (!file) return undefined;
    const bytes = await this.open(true);
    const parts = await Promise.all(file.parts.map((_, i) => bytes.match(partKey(key, i))));
    return parts.every(Boolean) ? (parts as Response[]) : undefined;
  }

  async has(model: LocalModel): Promise<boolean> {
    try {
      return !!(await this.parts(model));
    } catch {
      return false;
    }
  }

  /** Bytes of an unfinished download kept on disk (the next download continues after them). */
  async kept(model: LocalModel): Promise<number> {
    try {
      return model.url ? keptBytes(await readRecord(await this.open(true), keyOf(model.url))) : 0;
    } catch {
      return 0;
    }
  }

  /** The stored file, read from disk lazily (Blobs backed by the cache, not a copy in memory). */
  async blob(model: LocalModel): Promise<Blob | undefined> {
    const parts = await this.parts(model);
    return parts && new Blob(await Promise.all(parts.map((p) => p.blob())));
  }

  async remove(model: LocalModel): Promise<void> {
    if (!model.url) return;
    const key = keyOf(model.url);
    await (await this.open()).delete(key);
    const { clear } = await import('./download.js');
    await clear(await this.open(true), key);
  }

  /** Downloads (or continues downloading) and stores the file with byte progress (0 to 1). Rejects with words on any failure. */
  async download(model: LocalModel, signal: AbortSignal, progress: (p: number) => void): Promise<void> {
    // The download code is needed once per model: it loads with the first download.
    const { download } = await import('./download.js');
    if (!model.url) throw new StoreError(`Model "${model.id}" has no URL to download.`);
    return download(await this.open(), await this.open(true), keyOf(model.url), model, this.fetcher, signal, progress);
  }
}
