// createLocalAdapter's engine options are checked at once: a misspelt engine is the programmer's
// mistake, thrown as a TypeError that names it, not an adapter that reads as a device able to run nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalAdapter } from '../../src/adapters/index.js';
import type { LocalAdapterOptions } from '../../src/adapters/local/types.js';

const model = { id: 'tiny', label: 'Tiny', brief: 'A tiny model.', url: '/tiny.gguf', bytes: 10 };
const wasm = { wasmUrl: '/wllama.wasm' };

describe('createLocalAdapter: engine options', () => {
  it('an engine that is not auto, prompt-api, wasm, webgpu or a LocalEngine throws a TypeError naming it', () => {
    for (const engine of ['wllama', 'web-llm', 'WASM', 'languageModel', null, 42]) {
      assert.throws(
        () => createLocalAdapter({ models: [model], wasm, engine } as unknown as LocalAdapterOptions),
        (e: unknown) => e instanceof TypeError && e.message.includes(JSON.stringify(engine)),
        String(engine),
      );
    }
  });

  it("a model's engine that is not wasm or webgpu throws a TypeError naming the model", () => {
    assert.throws(
      () => createLocalAdapter({ models: [{ ...model, engine: 'wllama' }], wasm } as unknown as LocalAdapterOptions),
      (e: unknown) => e instanceof TypeError && /"tiny"/.test(e.message) && /"wllama"/.test(e.message),
    );
  });

  it('the documented engines are taken as before', () => {
    for (const engine of [undefined, 'auto', 'prompt-api', 'wasm', 'webgpu'] as const) createLocalAdapter({ models: [model], wasm, engine });
    createLocalAdapter({ models: [model], engine: { check: async () => ({ state: 'cached' }), load: async () => ({ generate: async () => '', dispose() {} }) } });
    createLocalAdapter({ models: [{ ...model, engine: 'wasm' }, { id: 'gpu', label: 'GPU', brief: '', engine: 'webgpu' }], wasm });
  });
});
