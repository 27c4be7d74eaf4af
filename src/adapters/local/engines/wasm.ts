/**
 * The WebAssembly engine as a `LocalEngine`: GGUF files from Cache Storage (downloaded on first
 * load, an unfinished download continued), run by @wllama/wllama in its worker. Only the check
 * is here; the download and the engine's glue load with the first `load`, and wllama itself with
 * the first model.
 */
import { keptBytes, keyOf, openCache, partsOf, readRecord, resumable } from '../store-file.js';
import type { EngineCheck, LocalEngine, LocalModel, ModelStore, WasmEngineOptions } from '../types.js';

export type { ModelStore, WasmEngineOptions };

export function wasmEngine(options: WasmEngineOptions): LocalEngine & { store: ModelStore } {
  if (!options?.wasmUrl) throw new TypeError('wasmEngine({ wasmUrl }): say where @wllama/wllama/esm/wasm/wllama.wasm is served.');
  const name = options.cacheName ?? 'agent-surface-models';
  // A model's stored parts; none without a URL, Cache Storage (an insecure page) or a whole record.
  const parts = async (model: LocalModel) => {
    try {
      const key = keyOf(model.url!);
      return await partsOf(await openCache(name, true), key, await readRecord(await openCache(name), key));
    } catch {
      return undefined;
    }
  };
  // An unfinished download the next one continues after (a record it would start over from is none).
  const unfinished = async (model: LocalModel) => {
    try {
      return await resumable(await openCache(name, true), keyOf(model.url!), model);
    } catch {
      return undefined;
    }
  };
  const store: ModelStore = {
    has: async (model) => !!(await parts(model)),
    kept: async (model) => keptBytes(await unfinished(model)),
    async blob(model) {
      const p = await parts(model);
      return p && new Blob(await Promise.all(p.map((r) => r.blob())));
    },
  };
  return {
    store,
    async check(model: LocalModel): Promise<EngineCheck> {
      if (typeof WebAssembly === 'undefined' || typeof Worker === 'undefined') {
        return { state: 'unavailable', reason: 'This browser cannot run WebAssembly in a worker.' };
      }
      if (!model.url) return { state: 'unavailable', reason: `Model "${model.id}" has no GGUF url.` };
      if (await store.has(model)) return { state: 'cached' };
      const file = await unfinished(model);
      const kept = keptBytes(file);
      const bytes = model.bytes ?? file?.bytes;
      // Every byte is here and only the checks were left (a cancel while hashing): the load runs them, fetching nothing.
      if (kept && kept === bytes) return { state: 'cached' };
      return { state: 'needs-download', ...(bytes ? { bytes } : {}), ...(kept ? { kept } : {}) };
    },
    load: async (model, o) => (await import('../later.js')).loadWasm(model, o, store, { ...options, cacheName: name }),
  };
}
