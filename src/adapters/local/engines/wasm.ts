/**
 * The WebAssembly engine as a `LocalEngine`: GGUF files from Cache Storage (downloaded on first
 * load, an unfinished download continued), run by @wllama/wllama in its worker. This module is small and static; wllama itself is
 * imported only when a model loads.
 */
import { ModelStore } from '../store.js';
import type { EngineCheck, LocalEngine, LocalModel } from '../types.js';

export interface WasmEngineOptions {
  /** Where `@wllama/wllama/esm/wasm/wllama.wasm` is served. */
  wasmUrl: string | URL;
  /** Threads when the page is cross-origin isolated (default: the cores, at most 4). Elsewhere one. */
  threads?: number;
  /** Cache Storage name (default `"agent-surface-models"`). */
  cacheName?: string;
  fetch?: typeof fetch;
}

export function wasmEngine(options: WasmEngineOptions): LocalEngine & { store: ModelStore } {
  if (!options?.wasmUrl) throw new TypeError('wasmEngine({ wasmUrl }): say where @wllama/wllama/esm/wasm/wllama.wasm is served.');
  const store = new ModelStore(options.cacheName ?? 'agent-surface-models', options.fetch);
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
    async load(model, { signal, progress }) {
      if (!(await store.has(model))) {
        await store.download(model, signal, (p) => progress({ phase: 'download', progress: p }));
      }
      // From here on it is a load from disk, worded as such.
      progress({ phase: 'load', progress: 0.1 });
      const blob = await store.blob(model);
      if (!blob) throw new Error('The stored model is gone (the browser may have cleared it): download it again.');
      progress({ phase: 'load', progress: 0.3 });
      const { loadWllama } = await import('./wllama.js').catch((e: unknown) => {
        throw new Error(`The WebAssembly engine (@wllama/wllama) could not be loaded: ${(e as Error)?.message || e}`);
      });
      progress({ phase: 'load', progress: 0.5 });
      return loadWllama(model, blob, { wasmUrl: String(options.wasmUrl), threads: options.threads }, signal);
    },
  };
}
