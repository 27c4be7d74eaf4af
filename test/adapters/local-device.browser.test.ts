// What the download card says about this device, and which models it offers, found the way the
// browser itself answers: WebGPU is there only when `navigator.gpu.requestAdapter()` gives an
// adapter (Chromium on Linux and headless Chromium have `navigator.gpu` and no adapter), and a
// WebGPU model is offered only then. Stand-ins (own properties on `navigator`) play the other devices.
import { expect } from '@open-wc/testing';
import { createLocalAdapter, type LocalEngine, type LocalModel } from '../../src/adapters/local/index.js';
import { freshCacheName, settled, WASM_URL } from './helpers-local.js';

const gguf: LocalModel = { id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes: 1000 };
const gpuModel: LocalModel = { id: 'gpu', label: 'GPU', brief: 'On the GPU.', engine: 'webgpu' };
const webgpu: LocalEngine = { check: async () => ({ state: 'needs-download', bytes: 5 }), load: async () => ({ generate: async () => '', dispose() {} }) };

/** `navigator`'s members shadowed by own properties for the test; returns the undo. */
function device(members: Record<string, unknown>): () => void {
  for (const [k, value] of Object.entries(members)) Object.defineProperty(navigator, k, { configurable: true, value });
  return () => Object.keys(members).forEach((k) => delete (navigator as unknown as Record<string, unknown>)[k]);
}

async function noteAndModels(): Promise<[string | undefined, string[]]> {
  const cacheName = await freshCacheName();
  const adapter = createLocalAdapter({ models: [gguf, gpuModel], engine: 'auto', languageModel: undefined, webgpu, wasm: { wasmUrl: WASM_URL }, cacheName, id: cacheName });
  const s = await settled(adapter);
  expect(s.state).to.equal('needs-download');
  return [(s as { note?: string }).note, adapter.models().map((m) => m.id)];
}

describe('createLocalAdapter: the device, as the download card tells it', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(60000);
  let undo: (() => void) | undefined;
  afterEach(() => undo?.());

  it("this browser: the note says no WebGPU unless requestAdapter() gives an adapter, and a WebGPU model is offered only with one", async () => {
    const gpu = (navigator as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
    const adapterHere = !!(await gpu?.requestAdapter().catch(() => null));
    const [note, ids] = await noteAndModels();
    if (adapterHere) {
      expect(note ?? '').to.not.match(/WebGPU/);
      expect(ids).to.deep.equal(['tiny', 'gpu']);
    } else {
      expect(note).to.match(/No WebGPU here/);
      expect(ids).to.deep.equal(['tiny']);
    }
  });

  it('navigator.gpu with no adapter (Chromium on Linux): no WebGPU, the model runs slowly on the CPU', async () => {
    undo = device({ gpu: { requestAdapter: async () => null }, hardwareConcurrency: 16 });
    const [note, ids] = await noteAndModels();
    expect(note).to.match(/^No WebGPU here: the model runs on the CPU, slowly\./);
    expect(ids).to.deep.equal(['tiny']);
  });

  it('an adapter and many cores: no WebGPU caveat, the WebGPU model offered', async () => {
    undo = device({ gpu: { requestAdapter: async () => ({ features: new Set() }) }, hardwareConcurrency: 16 });
    const [note, ids] = await noteAndModels();
    expect(note ?? '').to.not.match(/WebGPU|cores/);
    expect(ids).to.deep.equal(['tiny', 'gpu']);
  });

  it('no navigator.gpu at all, or a requestAdapter() that throws, and few cores: both caveats', async () => {
    for (const gpu of [undefined, { requestAdapter: async () => Promise.reject(new Error('GPU process crashed')) }]) {
      undo = device({ gpu, hardwareConcurrency: 2 });
      const [note, ids] = await noteAndModels();
      expect(note).to.equal('No WebGPU here: the model runs on the CPU, slowly. This device has 2 cores: replies will come slowly.');
      expect(ids).to.deep.equal(['tiny']);
      undo();
    }
    undo = undefined;
  });

  it("a WebGPU model's card says nothing about cores or threads: the GPU computes, and the CPU caveats are the GGUF model's", async () => {
    undo = device({ gpu: { requestAdapter: async () => ({ features: new Set() }) }, hardwareConcurrency: 2 });
    const cacheName = await freshCacheName();
    const adapter = createLocalAdapter({ models: [gguf, gpuModel], languageModel: undefined, webgpu, wasm: { wasmUrl: WASM_URL }, cacheName, id: cacheName });
    expect(await settled(adapter)).to.deep.equal({ state: 'needs-download', bytes: 1000, note: 'This device has 2 cores: replies will come slowly.' });
    await adapter.selectModel('gpu');
    expect(adapter.status()).to.deep.equal({ state: 'needs-download', bytes: 5 });
  });
});
