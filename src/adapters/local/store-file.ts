/**
 * How model files are laid out in Cache Storage, shared by the wasm engine's check (at once) and
 * the download (loaded with the first download).
 *
 * - `<cacheName>:parts` holds the bytes, one entry per part, and, while a download is unfinished,
 *   a record of the parts and the server's validator (ETag or Last-Modified) for `If-Range`.
 * - `<cacheName>` holds a model's record only once every byte arrived and the size (and hash, when
 *   the model gives one) checked out: a record there always means a whole, verified file. (The
 *   engine's check also calls a whole file whose checks a cancel cut short cached: its load runs them.)
 *
 * The stored model is the parts joined as one Blob, read from disk as the engine needs it.
 */

/** The Cache Storage key of a model: its absolute URL. */
export const keyOf = (url: string) => new URL(url, globalThis.location?.href).href;
/** The key of one part of a model's bytes (in the parts cache only). */
export const partKey = (key: string, i: number | '') => `${key}${key.includes('?') ? '&' : '?'}agent-surface-part=${i}`;
/** The cache of whole models' records, or (`parts`) of the bytes and unfinished downloads. */
export const openCache = (name: string, parts?: boolean) => caches.open(parts ? `${name}:parts` : name);

/** What is stored of one model: its size, the byte count of each part, and the server's validator. */
export interface StoredFile {
  v: 1;
  bytes?: number;
  parts: number[];
  validator?: string;
}

export const keptBytes = (file: StoredFile | undefined) => (file ? file.parts.reduce((a, b) => a + b, 0) : 0);

export async function readRecord(cache: Cache, key: string): Promise<StoredFile | undefined> {
  try {
    // Only this code writes records, whole (a cut write is not JSON): the version and the list say it is one.
    const file = (await (await cache.match(key))?.json()) as StoredFile | undefined;
    return file?.v === 1 && Array.isArray(file.parts) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Every part `file` names, or undefined when one is gone (the browser may evict entries). */
export async function partsOf(bytes: Cache, key: string, file: StoredFile | undefined): Promise<Response[] | undefined> {
  const parts = await Promise.all(file?.parts.map((_, i) => bytes.match(partKey(key, i))) ?? []);
  return file && parts.every(Boolean) ? (parts as Response[]) : undefined;
}

/**
 * The unfinished download of `model` a new one can continue: its record, when every part it names
 * is still there, a validator names the server's file for `If-Range`, and its size is the model's.
 * What `kept` reports and where the next download starts, so the two never disagree.
 */
export async function resumable(bytes: Cache, key: string, model: { bytes?: number }): Promise<StoredFile | undefined> {
  const file = await readRecord(bytes, key);
  return file?.validator && !(model.bytes && file.bytes !== model.bytes) && (await partsOf(bytes, key, file)) ? file : undefined;
}
