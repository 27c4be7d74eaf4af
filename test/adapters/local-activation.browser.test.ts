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
    // The WebGPU model is still being checked: the click's create() is the one that downloads, and
    // the status says so, since Chrome's model is the pick whatever that check says.
    expect(lm.createCalls).to.have.length(1);
    expect(lm.downloadStarted).to.equal(true);
    expect(adapter.status()).to.deep.equal({ state: 'downloading', progress: 0 });
    lm.step(0.5);
    expect(adapter.status()).to.deep.equal({ state: 'downloading', progress: 0.5 });
    release();
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

  // A page that recommends a GGUF model, in a browser that cannot run it (WebAssembly in a worker
  // is off: a policy, Chrome's "JavaScript optimization" setting), with a WebGPU model listed too.
  // Chrome's model is the one chosen as soon as the GGUF's check says so; the WebGPU model's check
  // has no say in it, and the person's click must not wait for it.
  const noWorker = () => {
    const saved = Object.getOwnPropertyDescriptor(window, 'Worker')!;
    Object.defineProperty(window, 'Worker', { configurable: true, writable: true, value: undefined });
    return () => Object.defineProperty(window, 'Worker', saved);
  };
  const gguf = { id: 'gguf', label: 'GGUF', brief: '', url: '/__models/tiny.gguf', recommended: true };

  it("a recommended GGUF this browser cannot run: Chrome's model is offered, downloaded within the click and ready while another model's check is still under way", async () => {
    const restore = noWorker();
    try {
      const lm = new LanguageModelDouble('downloadable');
      lm.requireActivation = true;
      const { webgpu, release } = heldCheck();
      const adapter = createLocalAdapter({
        models: [gguf, { id: 'gpu-model', label: 'GPU model', brief: '', engine: 'webgpu' }],
        webgpu,
        wasm: { wasmUrl: '/w.wasm' },
        languageModel: lm,
        id: `gguf-gone-${Date.now()}-${n++}`,
      });
      // What the download card needs is known: it is shown at once, not after the WebGPU model's check.
      await waitUntil(() => adapter.status().state !== 'loading', `still ${JSON.stringify(adapter.status())}`);
      expect(adapter.status()).to.deep.equal({ state: 'needs-download' });
      const seen = recordStatuses(adapter);
      let prepared: Promise<void> | undefined;
      await trustedClick(button('Download', () => void (prepared = adapter.prepare()).catch(() => {})));
      await waitUntil(() => lm.downloadStarted || adapter.status().state === 'error', 'create() was never called');
      expect(lm.createCalls).to.have.length(1);
      lm.step(0.5);
      lm.step(1);
      await prepared;
      expect(adapter.status()).to.deep.equal({ state: 'ready' });
      expect(seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress)).to.deep.equal([0, 0.5, 1]);
      expect(adapter.models().map((m) => [m.id, m.selected, m.recommended])).to.deep.equal([[BUILT_IN_MODEL_ID, true, true]]);
      // The WebGPU model's check ends: it joins the list; the choice stays.
      release();
      await waitUntil(() => adapter.models().length === 2, 'the WebGPU model never joined the list');
      expect(adapter.models().map((m) => [m.id, m.selected, m.recommended])).to.deep.equal([[BUILT_IN_MODEL_ID, true, true], ['gpu-model', false, false]]);
      expect(adapter.status()).to.deep.equal({ state: 'ready' });
    } finally {
      restore();
    }
  });

  it("a recommended model found unavailable after the click: create() runs then, within the click's activation, not once every other check is done", async () => {
    const lm = new LanguageModelDouble('downloadable');
    lm.requireActivation = true;
    const answers: Record<string, (c: EngineCheck) => void> = {};
    const webgpu: LocalEngine = {
      check: (model) => new Promise<EngineCheck>((r) => (answers[model.id] = r)),
      load: () => Promise.reject(new Error('not this one')),
    };
    const adapter = createLocalAdapter({
      models: [
        { id: 'big', label: 'Big', brief: '', engine: 'webgpu', recommended: true },
        { id: 'other', label: 'Other', brief: '', engine: 'webgpu' },
      ],
      webgpu,
      languageModel: lm,
      id: `held-${Date.now()}-${n++}`,
    });
    expect(adapter.status()).to.deep.include({ state: 'loading' });
    await waitUntil(() => answers.big && answers.other, 'the checks never started');
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Download', () => void (prepared = adapter.prepare()).catch(() => {})));
    // The recommended model may be the one chosen: nothing of Chrome's starts for it yet.
    expect(lm.createCalls).to.have.length(0);
    expect(adapter.status()).to.deep.include({ state: 'loading' });
    expect(navigator.userActivation.isActive).to.equal(true);
    answers.big!({ state: 'unavailable', reason: 'Too big for this GPU.' });
    await waitUntil(() => lm.downloadStarted || adapter.status().state === 'error', `create() did not follow the answer: ${JSON.stringify(adapter.status())}`);
    expect(adapter.status()).to.deep.equal({ state: 'downloading', progress: 0 });
    lm.step(1);
    await prepared;
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    answers.other!({ state: 'needs-download' });
    await waitUntil(() => adapter.models().length === 2, 'the other model never joined the list');
    expect(adapter.models().find((m) => m.selected)?.id).to.equal(BUILT_IN_MODEL_ID);
    expect(lm.createCalls).to.have.length(1);
  });
});
