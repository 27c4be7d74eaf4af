/**
 * `createLocalAdapter`: a model that runs in the page, off the main thread. Nothing is downloaded
 * until the person asks (`prepare(signal)`, from a click); engines are imported on first use.
 */
import type { AdapterStatus, AgentAdapter, AgentRunRequest, AgentStreamPart, ModelChoice } from '../../chat/types.js';
import { globalLanguageModel, promptApiAvailability, slowDeviceNote } from './detect.js';
import { wasmEngine } from './engines/wasm.js';
import { messageOf, newId } from './ids.js';
import { BUILT_IN_MODEL_ID, modelEntries, type Entry } from './options.js';
import { localIdentity } from '../identity.js';
import type { EngineCheck, LanguageModelLike, LocalAdapterOptions, LocalEngine, LocalSession } from './types.js';

export { BUILT_IN_MODEL_ID };

export interface LocalAdapter extends AgentAdapter {
  status(): AdapterStatus;
  subscribe(listener: () => void): () => void;
  prepare(signal?: AbortSignal): Promise<void>;
  models(): readonly ModelChoice[];
  selectModel(id: string): Promise<void>;
  /** Frees the loaded model (its worker and memory). The adapter stays usable: the next run loads it again. */
  unload(): Promise<void>;
}

export function createLocalAdapter(options: LocalAdapterOptions): LocalAdapter {
  const entries = modelEntries(options);
  const mode = typeof options.engine === 'object' ? 'custom' : (options.engine ?? 'auto');
  const custom = typeof options.engine === 'object' ? options.engine : undefined;
  const lm: LanguageModelLike | undefined = options.languageModel ?? globalLanguageModel();
  const selectionKey = `${options.cacheName ?? 'agent-surface-models'}:selected:${options.id ?? 'local'}`;

  if (lm && (mode === 'auto' || mode === 'prompt-api')) {
    entries.unshift({
      model: { id: BUILT_IN_MODEL_ID, label: "Chrome's built-in model", brief: 'Runs inside Chrome: nothing to download from this site.' },
      kind: 'prompt-api',
    });
  }

  const wasm = entries.some((e) => e.kind === 'wasm')
    ? wasmEngine({ wasmUrl: options.wasm!.wasmUrl, threads: options.wasm!.threads, cacheName: options.cacheName, fetch: options.fetch })
    : undefined;
  // The Prompt API's checks are a call on `LanguageModel`; its session code loads on first use.
  const promptApi: LocalEngine | undefined = lm && {
    check: () => promptApiAvailability(lm),
    load: async (model, o) => (await import('./later.js')).promptApiEngine(lm).load(model, o),
  };

  // Untrusted tool output is handed to the model inside a block only this adapter knows the marker of.
  const marker = newId('data').slice(5, 17);
  const listeners = new Set<() => void>();
  let checked: Promise<void> | undefined;
  let checking = true;
  let selected: Entry | undefined;
  let phase: 'idle' | 'downloading' | 'loading' | 'ready' | 'error' = 'idle';
  let progress = 0;
  let error = '';
  let session: LocalSession | undefined;
  let preparing: Promise<void> | undefined;
  let running = false;

  const notify = () => {
    for (const l of [...listeners]) {
      try {
        l();
      } catch (e) {
        console.error(e);
      }
    }
  };

  const runnable = () => entries.filter((e) => e.check && e.check.state !== 'unavailable');

  const engineFor = (entry: Entry): LocalEngine | undefined =>
    ({ custom, wasm, 'prompt-api': promptApi, webgpu: (globalThis.navigator as { gpu?: unknown })?.gpu ? options.webgpu : undefined })[entry.kind];

  // The remembered choice; storage may be blocked, and then the choice lasts for this page only.
  const remember = (id?: string) => {
    try {
      return id ? localStorage.setItem(selectionKey, id) : localStorage.getItem(selectionKey);
    } catch {
      return null;
    }
  };

  async function check(entry: Entry): Promise<EngineCheck> {
    try {
      const engine = engineFor(entry);
      if (!engine) {
        return { state: 'unavailable', reason: entry.kind === 'webgpu' && options.webgpu ? 'No WebGPU in this browser.' : 'No WebGPU engine was given (options.webgpu).' };
      }
      return await engine.check(entry.model);
    } catch (e) {
      return { state: 'unavailable', reason: messageOf(e) };
    }
  }

  function ensureChecked(): Promise<void> {
    checked ??= (async () => {
      await Promise.all(entries.map(async (e) => (e.check = await check(e))));
      const ok = runnable();
      const remembered = remember();
      // Else the built-in model (listed first), a custom engine's (all of them), a GGUF, WebGPU.
      selected ??= ok.find((e) => e.model.id === remembered) ?? ok.find((e) => e.model.recommended) ?? ok.find((e) => e.kind != 'webgpu') ?? ok[0];
      checking = false;
      notify();
    })();
    return checked;
  }

  function status(): AdapterStatus {
    void ensureChecked();
    if (checking) return { state: 'loading' };
    if (!selected) {
      const reasons = entries.map((e) => (e.check?.state === 'unavailable' ? e.check.reason : '')).filter(Boolean);
      return { state: 'unavailable', reason: reasons[0] ?? 'No model is set up for this device.' };
    }
    if (phase === 'error') return { state: 'error', error };
    if (phase === 'downloading' || phase === 'loading') return { state: phase, progress };
    if (session) return { state: 'ready' };
    const c = selected.check!;
    if (c.state === 'needs-download') {
      const note = selected.kind === 'prompt-api' ? undefined : slowDeviceNote();
      return { state: 'needs-download', ...(c.bytes !== undefined ? { bytes: c.bytes } : {}), ...(note ? { note } : {}) };
    }
    if (c.state === 'downloading') return { state: 'downloading', progress: c.progress };
    if (c.state === 'unavailable') return { state: 'unavailable', reason: c.reason };
    // On this device: it can run; the first run (or prepare) loads it from disk.
    return { state: 'ready' };
  }

  const set = (p: typeof phase, value = 0) => {
    phase = p;
    progress = Math.min(1, Math.max(0, value));
    notify();
  };

  async function load(entry: Entry, signal: AbortSignal): Promise<LocalSession> {
    const engine = engineFor(entry);
    if (!engine) throw new Error('This model cannot run here.');
    const onDisk = entry.check?.state === 'cached';
    const c = entry.check;
    // A download that continues starts its progress at the bytes already on this device.
    set(onDisk ? 'loading' : 'downloading', c?.state === 'needs-download' && c.kept && c.bytes ? c.kept / c.bytes : 0);
    const s = await engine.load(entry.model, {
      signal,
      progress(p) {
        // A model already on the device downloads nothing: whatever the engine says, it is a load.
        if (!signal.aborted) set(p.phase === 'download' && !onDisk ? 'downloading' : 'loading', p.progress);
      },
    });
    entry.check = { state: 'cached' };
    return s;
  }

  function prepare(signal?: AbortSignal): Promise<void> {
    if (session) return Promise.resolve();
    if (preparing) return preparing;
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal?.reason ?? new DOMException('The download was cancelled.', 'AbortError'));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const entry = () => selected;
    preparing = (async () => {
      await ensureChecked();
      const target = entry();
      if (!target) throw new Error(status().state === 'unavailable' ? (status() as { reason: string }).reason : 'No model to prepare.');
      if (target.check?.state === 'unavailable') throw new Error(target.check.reason);
      try {
        if (ac.signal.aborted) throw ac.signal.reason;
        const s = await load(target, ac.signal);
        if (ac.signal.aborted || selected !== target) {
          void s.dispose();
          throw ac.signal.reason ?? new DOMException('Another model was selected.', 'AbortError');
        }
        session = s;
        set('ready', 1);
      } catch (e) {
        if (ac.signal.aborted) {
          // Back to what is true on disk: a cancelled download stored nothing.
          target.check = await check(target);
          set('idle');
        } else {
          error = messageOf(e);
          set('error');
        }
        throw e;
      }
    })().finally(() => {
      preparing = undefined;
      signal?.removeEventListener('abort', onAbort);
    });
    return preparing;
  }

  async function selectModel(id: string): Promise<void> {
    await ensureChecked();
    if (running) throw new Error('A reply is being written: wait for it (or stop it) before switching models.');
    if (preparing) throw new Error('A model is downloading or loading: cancel it before switching models.');
    const next = runnable().find((e) => e.model.id === id);
    if (!next) throw new Error(`No model "${id}" can run here.`);
    if (next === selected) return;
    const old = session;
    session = undefined;
    selected = next;
    remember(id);
    error = '';
    set('idle');
    if (old) await old.dispose();
  }

  function models(): readonly ModelChoice[] {
    void ensureChecked();
    return runnable().map((e) => {
      const { id, label, brief, recommended } = e.model;
      const c = e.check!;
      const bytes = e.model.bytes ?? (c.state === 'needs-download' ? c.bytes : undefined);
      return { id, label, brief, ...(bytes !== undefined ? { bytes } : {}), cached: c.state === 'cached', recommended: !!recommended, selected: e === selected };
    });
  }

  async function* run(req: AgentRunRequest): AsyncGenerator<AgentStreamPart> {
    await ensureChecked();
    if (running) {
      yield { type: 'error', error: 'A reply is already being written.', code: 'bad_request' };
      return;
    }
    running = true;
    try {
      if (!session) {
        const s = status();
        if (s.state === 'needs-download' || s.state === 'unavailable' || s.state === 'error') {
          const why = s.state === 'needs-download' ? 'The model is not on this device yet: download it first.' : s.state === 'error' ? s.error : s.reason;
          yield { type: 'error', error: why };
          return;
        }
        try {
          // On disk already (or being prepared): a load, no download.
          await prepare(req.signal);
        } catch (e) {
          if (req.signal.aborted) yield { type: 'finish', reason: 'aborted' };
          else yield { type: 'error', error: messageOf(e) };
          return;
        }
      }
      // The run loop (prompt format, grammar, parser) is loaded with the first run, like the engines;
      // an engine with its own tool loop (Chrome's native tools) runs the whole turn itself.
      const s = session!;
      yield* s.run ? s.run(req, options, marker) : (await import('./later.js')).steps(req, s, options, marker);
    } finally {
      running = false;
    }
  }

  return {
    ...localIdentity(options),
    status,
    subscribe(listener) {
      listeners.add(listener);
      void ensureChecked();
      return () => listeners.delete(listener);
    },
    prepare,
    models,
    selectModel,
    run,
    async unload() {
      const old = session;
      session = undefined;
      set('idle');
      if (old) await old.dispose();
    },
  };
}
