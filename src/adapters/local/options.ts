/**
 * What `createLocalAdapter` makes of its options, checked at once: the models it offers, each with
 * the engine kind that runs it. A module of its own so the chat's CDN file (../lazy.ts) throws the
 * same errors, at the same moment, before the adapter's code has loaded.
 */
import type { EngineCheck, LocalAdapterOptions, LocalModel } from './types.js';

export type Kind = 'prompt-api' | 'wasm' | 'webgpu' | 'custom';

export interface Entry {
  model: LocalModel;
  kind: Kind;
  check?: EngineCheck;
}

/** The id of Chrome's built-in model in `models()`. */
export const BUILT_IN_MODEL_ID = 'built-in';

/** The page's models the engine option lets run (Chrome's built-in one is added by the adapter); throws a TypeError on bad options. */
export function modelEntries(options: LocalAdapterOptions): Entry[] {
  if (!options || !Array.isArray(options.models)) throw new TypeError('createLocalAdapter({ models }): models must be an array.');
  // A misspelt engine (`'wllama'`, `'WASM'`) kept no model and read as a device that can run none.
  const engine: unknown = options.engine;
  if (engine === null || (typeof engine != 'object' && engine !== undefined && !/^(auto|prompt-api|wasm|webgpu)$/.test(engine as string)))
    throw new TypeError(`createLocalAdapter: unknown engine ${JSON.stringify(engine)}.`);
  const custom = typeof options.engine === 'object';
  // The one engine kind kept, when the option names one.
  const only = custom || options.engine === 'auto' ? undefined : options.engine;
  const entries: Entry[] = [];
  const ids = new Set<string>();
  for (const model of options.models) {
    if (!model || typeof model.id !== 'string' || !model.id) throw new TypeError('createLocalAdapter: every model needs an id.');
    if (ids.has(model.id) || model.id === BUILT_IN_MODEL_ID) throw new TypeError(`createLocalAdapter: model id "${model.id}" is used twice or reserved.`);
    ids.add(model.id);
    if (model.engine !== undefined && !/^(wasm|webgpu)$/.test(model.engine)) throw new TypeError(`createLocalAdapter: model "${model.id}" has unknown engine ${JSON.stringify(model.engine)}.`);
    const kind: Kind = custom ? 'custom' : (model.engine ?? (model.url ? 'wasm' : 'webgpu'));
    if (kind === 'wasm' && !model.url) throw new TypeError(`createLocalAdapter: model "${model.id}" needs a url (a GGUF file).`);
    if (only && only !== kind) continue;
    if (kind === 'wasm' && !options.wasm?.wasmUrl) {
      throw new TypeError('createLocalAdapter: GGUF models need wasm: { wasmUrl } (where @wllama/wllama/esm/wasm/wllama.wasm is served).');
    }
    entries.push({ model, kind });
  }
  return entries;
}
