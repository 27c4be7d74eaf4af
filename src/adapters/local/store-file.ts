/** How a model file is laid out in Cache Storage (see store.ts); shared by the store and the lazily loaded download code. */

/** The Cache Storage key of a model: its absolute URL. */
export const keyOf = (url: string) => new URL(url, globalThis.location?.href).href;
/** The key of one part of a model's bytes (in the parts cache only). */
export const partKey = (key: string, i: number | '') => `${key}${key.includes('?') ? '&' : '?'}agent-surface-part=${i}`;

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
    const file = (await (await cache.match(key))?.json()) as StoredFile | undefined;
    return file?.v === 1 && Array.isArray(file.parts) && file.parts.every((n) => Number.isSafeInteger(n) && n > 0) ? file : undefined;
  } catch {
    return undefined;
  }
}
