// Chrome downloads its built-in model only for a `LanguageModel.create()` called while the page has
// the person's transient activation, which lasts a few seconds after a click. The first prepare()
// also loads the adapter's lazy chunk: on a slow network its import() can outlast the activation,
// so create() must not wait for it. Here the chunk is held by the test server until the click's
// activation is gone, against the Prompt API double made to require activation as the spec does.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { BUILT_IN_MODEL_ID, createLocalAdapter } from '../../src/adapters/local/adapter.js';
import type { EngineCheck, LocalEngine } from '../../src/adapters/local/types.js';
import { button, recordStatuses, settled, trustedClick } from './helpers-local.js';
import { LanguageModelDouble } from './prompt-api-double.js';

const LATER = '/src/adapters/local/later.';
const fetchedLater = () => performance.getEntriesByType('resource').some((e) => new URL(e.name).pathname.startsWith(LATER));

describe('createLocalAdapter: Chrome Prompt API and the click that starts its download', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);
  afterEach(async () => {
    document.querySelectorAll('button').forEach((b) => b.remove());
    await fetch('/__modules');
  });

  it("create() runs within the click's activation while the lazy chunk is still on its way; the download then goes on to ready", async () => {
    const lm = new LanguageModelDouble('downloadable');
    lm.requireActivation = true;
    const adapter = createLocalAdapter({ models: [], engine: 'prompt-api', languageModel: lm });
    expect((await settled(adapter)).state).to.equal('needs-download');
    // The chunk has not loaded in this page: prepare()'s import() goes to the (held) network.
    expect(fetchedLater()).to.equal(false);
    await fetch(`/__modules?hold=${encodeURIComponent(LATER)}`);
    expect(navigator.userActivation.isActive).to.equal(false);
    const seen = recordStatuses(adapter);
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Download', () => void (prepared = adapter.prepare()).catch(() => {})));
    // The network is slow: the chunk arrives after the click's activation is gone.
    await waitUntil(() => !navigator.userActivation.isActive, 'the activation never expired');
    await fetch('/__modules');
    await waitUntil(() => lm.downloadStarted || adapter.status().state === 'error', 'create() was never called');
    expect(adapter.status()).to.deep.include({ state: 'downloading' });
    expect(lm.createCalls).to.have.length(1);
    lm.step(0.5);
    lm.step(1);
    await prepared;
    expect(fetchedLater()).to.equal(true);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress)).to.deep.equal([0, 0.5, 1]);
  });

  it('the double refuses a download without activation, as Chrome does: an error that asks for a click', async () => {
    const lm = new LanguageModelDouble('downloadable');
    lm.requireActivation = true;
    const adapter = createLocalAdapter({ models: [], engine: 'prompt-api', languageModel: lm });
    await settled(adapter);
    expect(navigator.userActivation.isActive).to.equal(false);
    await adapter.prepare().catch(() => {});
    expect(adapter.status()).to.deep.equal({ state: 'error', error: 'Chrome needs a click on the page before it downloads its built-in model.' });
    expect(lm.downloadStarted).to.equal(false);
  });

  // With a GGUF or WebGPU model listed too, the device check asks for a WebGPU adapter (and each
  // engine for its model) first; that can take seconds. Here the page's WebGPU engine holds its
  // check until the click's activation is gone.
  const heldCheck = () => {
    let release = () => {};
    const held = new Promise<EngineCheck>((r) => (release = () => r({ state: 'needs-download' })));
    const webgpu: LocalEngine = {
      check: () => held,
      load: () => Promise.reject(new Error('not this one')),
    };
    return { webgpu, release: () => release() };
  };
  let n = 0;
  const gpu = Object.getOwnPropertyDescriptor(navigator, 'gpu');
  // A WebGPU adapter at once, so the WebGPU model is checked (headless Chromium gives none).
  beforeEach(() => void Object.defineProperty(navigator, 'gpu', { configurable: true, value: { requestAdapter: async () => ({}) } }));
  afterEach(() => void (gpu ? Object.defineProperty(navigator, 'gpu', gpu) : delete (navigator as { gpu?: unknown }).gpu));

  it("create() runs within the click's activation while the device check is still under way, when Chrome's model is the one chosen", async () => {
    const lm = new LanguageModelDouble('downloadable');
    lm.requireActivation = true;
    const { webgpu, release } = heldCheck();
    const adapter = createLocalAdapter({ models: [{ id: 'gpu-model', label: 'GPU model', brief: '', engine: 'webgpu' }], webgpu, languageModel: lm, id: `held-${Date.now()}-${n++}` });
    expect(adapter.status()).to.deep.include({ state: 'loading' });
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Download', () => void (prepared = adapter.prepare()).catch(() => {})));
    await waitUntil(() => !navigator.userActivation.isActive, 'the activation never expired');
    // Still checking: the click's create() is the one that downloads.
    expect(adapter.status()).to.deep.include({ state: 'loading' });
    expect(lm.createCalls).to.have.length(1);
    expect(lm.downloadStarted).to.equal(true);
    release();
    await waitUntil(() => adapter.status().state === 'downloading', `never downloading: ${JSON.stringify(adapter.status())}`);
    lm.step(1);
    await prepared;
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(lm.createCalls).to.have.length(1);
    expect(adapter.models().find((m) => m.selected)?.id).to.equal(BUILT_IN_MODEL_ID);
  });

  it("no create() before the device check when another model may be the one chosen (a recommended one): Chrome's download is not started for it", async () => {
    const lm = new LanguageModelDouble('downloadable');
    const { webgpu, release } = heldCheck();
    const loads: string[] = [];
    webgpu.load = async (model) => (loads.push(model.id), { generate: async () => '', dispose() {} });
    const adapter = createLocalAdapter({ models: [{ id: 'gpu-model', label: 'GPU model', brief: '', engine: 'webgpu', recommended: true }], webgpu, languageModel: lm, id: `held-${Date.now()}-${n++}` });
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Download', () => void (prepared = adapter.prepare()).catch(() => {})));
    await new Promise((r) => setTimeout(r));
    expect(lm.createCalls).to.have.length(0);
    release();
    await prepared;
    expect(loads).to.deep.equal(['gpu-model']);
    expect(lm.createCalls).to.have.length(0);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
  });
});
