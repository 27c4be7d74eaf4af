// createLocalAdapter's default model, in Node with stand-ins for what a browser has (a Prompt API
// double, WebGPU, a worker, localStorage): the remembered choice, else the recommended model, else
// Chrome's built-in model, a GGUF, a WebGPU model, in that order, whatever order the page lists them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BUILT_IN_MODEL_ID, createLocalAdapter } from '../../src/adapters/local/index.js';
import type { LanguageModelLike, LocalAdapterOptions, LocalEngine, LocalModel } from '../../src/adapters/local/types.js';

const g = globalThis as Record<string, unknown>;
const saved = { navigator: Object.getOwnPropertyDescriptor(g, 'navigator'), Worker: g.Worker, localStorage: g.localStorage };
const stored = new Map<string, string>();
before(() => {
  Object.defineProperty(g, 'navigator', { value: { gpu: { requestAdapter: async () => ({}) }, hardwareConcurrency: 8 }, configurable: true, writable: true });
  g.Worker = class {};
  g.localStorage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) };
});
after(() => {
  if (saved.navigator) Object.defineProperty(g, 'navigator', saved.navigator);
  else delete g.navigator;
  g.Worker = saved.Worker;
  g.localStorage = saved.localStorage;
});

const webgpu: LocalEngine = { check: async () => ({ state: 'cached' }), load: async () => ({ generate: async () => '', dispose() {} }) };
const lm: LanguageModelLike = { availability: async () => 'available', create: async () => ({ prompt: async () => '', destroy() {} }) };
const gpuModel: LocalModel = { id: 'gpu', label: 'GPU', brief: '', engine: 'webgpu' };
const ggufModel: LocalModel = { id: 'gguf', label: 'GGUF', brief: '', url: '/m.gguf' };
let n = 0;

async function choice(models: LocalModel[], more: Partial<LocalAdapterOptions> = {}): Promise<[string | undefined, string[]]> {
  const adapter = createLocalAdapter({ models, webgpu, wasm: { wasmUrl: '/w.wasm' }, id: `choice-${n++}`, ...more });
  await adapter.selectModel('nothing').catch(() => {}); // waits for the checks
  const list = adapter.models();
  return [list.find((m) => m.selected)?.id, list.map((m) => m.id)];
}

describe('local adapter: the default model', () => {
  it('prefers the built-in model, then a GGUF, then WebGPU', async () => {
    assert.deepEqual(await choice([gpuModel, ggufModel], { languageModel: lm }), [BUILT_IN_MODEL_ID, [BUILT_IN_MODEL_ID, 'gpu', 'gguf']]);
    assert.deepEqual(await choice([gpuModel, ggufModel]), ['gguf', ['gpu', 'gguf']]);
    assert.deepEqual(await choice([gpuModel]), ['gpu', ['gpu']]);
  });

  it('takes the recommended model over that order, and the remembered choice over both', async () => {
    const recommended = { ...gpuModel, recommended: true };
    assert.deepEqual((await choice([ggufModel, recommended], { languageModel: lm }))[0], 'gpu');
    const adapter = createLocalAdapter({ models: [ggufModel, recommended], webgpu, wasm: { wasmUrl: '/w.wasm' }, id: 'remembered' });
    await adapter.selectModel('gguf');
    assert.equal([...stored.values()].at(-1), 'gguf');
    const again = createLocalAdapter({ models: [ggufModel, recommended], webgpu, wasm: { wasmUrl: '/w.wasm' }, id: 'remembered' });
    await again.selectModel('nothing').catch(() => {});
    assert.equal(again.models().find((m) => m.selected)?.id, 'gguf');
    assert.deepEqual(again.models().find((m) => m.id === 'gpu'), { id: 'gpu', label: 'GPU', brief: '', cached: true, recommended: true, selected: false });
  });

  it("marks the adapter's default, and only it, as recommended: one recommended and one selected in every list", async () => {
    const flagged = (m: LocalModel) => ({ ...m, recommended: true });
    const cases: Array<[LocalModel[], Partial<LocalAdapterOptions>, string]> = [
      [[gpuModel, ggufModel], { languageModel: lm }, BUILT_IN_MODEL_ID],
      [[gpuModel, ggufModel], {}, 'gguf'],
      [[gpuModel], {}, 'gpu'],
      [[ggufModel, flagged(gpuModel)], { languageModel: lm }, 'gpu'],
      // Two flagged: the adapter takes the first, so only the first is its recommendation.
      [[flagged(ggufModel), flagged(gpuModel)], {}, 'gguf'],
    ];
    for (const [models, more, id] of cases) {
      const adapter = createLocalAdapter({ models, webgpu, wasm: { wasmUrl: '/w.wasm' }, id: `recommended-${n++}`, ...more });
      await adapter.selectModel('nothing').catch(() => {});
      const list = adapter.models();
      assert.deepEqual(list.filter((m) => m.recommended).map((m) => m.id), [id], JSON.stringify(list));
      assert.deepEqual(list.filter((m) => m.selected).map((m) => m.id), [id]);
      // Picking another model moves `selected`, not `recommended`.
      const other = list.find((m) => m.id !== id);
      if (other) {
        await adapter.selectModel(other.id);
        assert.deepEqual(adapter.models().filter((m) => m.recommended).map((m) => m.id), [id]);
        assert.deepEqual(adapter.models().filter((m) => m.selected).map((m) => m.id), [other.id]);
      }
    }
  });

  it('keeps working where storage is blocked', async () => {
    const blocked = g.localStorage;
    g.localStorage = {
      getItem() {
        throw new Error('blocked');
      },
      setItem() {
        throw new Error('blocked');
      },
    };
    try {
      const adapter = createLocalAdapter({ models: [ggufModel, gpuModel], webgpu, wasm: { wasmUrl: '/w.wasm' } });
      await adapter.selectModel('gpu');
      assert.equal(adapter.models().find((m) => m.selected)?.id, 'gpu');
    } finally {
      g.localStorage = blocked;
    }
  });
});
