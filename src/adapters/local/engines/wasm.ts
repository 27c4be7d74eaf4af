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
  const store: ModelStore = {
    has: async (model) => !!(await parts(model)),
    async kept(model) {
      try {
        // Only bytes the next download continues after: a record it would start over from counts none.
        return keptBytes(await resumable(await openCache(name, true), keyOf(model.url!), model));
      } catch {
        return 0;
      }
    },
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
      const kept = await store.kept(model);
      return { state: 'needs-download', ...(model.bytes ? { bytes: model.bytes } : {}), ...(kept ? { kept } : {}) };
    },
    load: async (model, o) => (await import('../later.js')).loadWasm(model, o, store, { ...options, cacheName: name }),
  };
}
