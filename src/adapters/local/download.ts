/**
 * A model download into Cache Storage: streamed through a byte counter into `cache.put`, which
 * stores nothing unless every byte arrived. Loaded with the first download.
 */
import { StoreError } from './store-error.js';
import type { LocalModel } from './types.js';

const MB = (n: number) => `${Math.max(1, Math.round(n / 1e6))} MB`;

export async function download(cache: Cache, key: string, model: LocalModel, fetcher: typeof fetch, signal: AbortSignal, progress: (p: number) => void): Promise<void> {
  await checkQuota(model.bytes);
  let response: Response;
  try {
    response = await fetcher(key, { signal, cache: 'no-store' });
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
  await checkQuota(expected);
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
    await cache.put(key, new Response(counted, { headers }));
  } catch (e) {
    await cache.delete(key).catch(() => {});
    if (signal.aborted) throw signal.reason;
    if (e instanceof StoreError) throw e;
    if ((e as DOMException)?.name === 'QuotaExceededError') throw quotaError(expected);
    throw new StoreError(`The model could not be stored (${(e as Error)?.message || 'storage error'}).`);
  }
  progress(1);
}

async function checkQuota(bytes: number | undefined): Promise<void> {
  if (!bytes || !globalThis.navigator?.storage?.estimate) return;
  const { quota, usage } = await navigator.storage.estimate().catch(() => ({}) as StorageEstimate);
  if (quota !== undefined && usage !== undefined && quota - usage < bytes) throw quotaError(bytes, quota - usage);
}

function quotaError(bytes?: number, free?: number): StoreError {
  const need = bytes ? ` The model needs ${MB(bytes)}` : ' The model does not fit';
  const room = free !== undefined ? `; this browser lets the page store ${MB(Math.max(0, free))} more.` : ' in the space this browser gives the page.';
  return new StoreError(`Not enough storage space.${need}${room} Free some disk space or pick a smaller model.`);
}
