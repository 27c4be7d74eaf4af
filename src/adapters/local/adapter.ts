/**
 * `createLocalAdapter`: a model that runs in the page, off the main thread. Nothing is downloaded
 * until the person asks (`prepare(signal)`, from a click). What runs at once is only the device
 * check and the status; the download, the engines' code and the run loop load with the first
 * `prepare()` or run (./later.ts).
 */
import type { AdapterStatus, AgentAdapter, AgentRunRequest, AgentStreamPart, ModelChoice } from '../../chat/types.js';
import { globalLanguageModel, hasWebGPU, LANGUAGES, promptApiAvailability, slowDeviceNote } from './detect.js';
import { wasmEngine } from './engines/wasm.js';
import { BUILT_IN_MODEL_ID, modelEntries, type Entry } from './options.js';
import { DEVICE_CHECK, localIdentity } from '../identity.js';
import { NOT_HERE, why } from './words.js';
import type { EngineCheck, EngineProgress, LocalAdapterOptions, LocalEngine, LocalSession } from './types.js';

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

const later = () => import('./later.js');

export function createLocalAdapter(options: LocalAdapterOptions): LocalAdapter {
  const entries = modelEntries(options);
  const { engine, webgpu, wasm } = options;
  const lm = options.languageModel ?? globalLanguageModel();
  const selectionKey = `${options.cacheName ?? 'agent-surface-models'}:selected:${options.id ?? 'local'}`;

  if (lm && (!engine || engine === 'auto' || engine === 'prompt-api')) {
    entries.unshift({
      model: { id: BUILT_IN_MODEL_ID, label: "Chrome's built-in model", brief: 'Runs inside Chrome: nothing to download from this site.' },
      kind: 'prompt-api',
    });
  }
  // Chrome downloads its model only for a create() called while the click's activation lasts (a few
  // seconds): prepare() calls it before it awaits anything (the device check, the session code's
  // import() on a slow network), and the load takes it from there, with the progress so far.
  let early: ReturnType<typeof create> | undefined;
  const create = (signal: AbortSignal) => {
    let to: ((p: EngineProgress) => void) | undefined;
    let last: EngineProgress | undefined;
    const created = (async () =>
      lm!.create({
        ...LANGUAGES,
        signal,
        monitor: (m) =>
          m.addEventListener('downloadprogress', (e) => {
            // The current API reports 0..1; early builds reported bytes with a total.
            const { loaded = 0, total = 1 } = e as ProgressEvent;
            last = { phase: 'download', progress: total > 1 ? loaded / total : loaded };
            to?.(last);
          }),
      }))();
    created.catch(() => {});
    return { created, report: (fn: (p: EngineProgress) => void) => void ((to = fn), last && fn(last)) };
  };
  const dropEarly = () => {
    void early?.created.then((session) => session.destroy(), () => {});
    early = undefined;
  };
  const engines: Partial<Record<Entry['kind'], LocalEngine>> = {
    custom: typeof engine === 'object' ? engine : undefined,
    wasm: entries.some((e) => e.kind === 'wasm') ? wasmEngine({ ...wasm!, cacheName: options.cacheName, fetch: options.fetch }) : undefined,
    // The Prompt API's check is a call on `LanguageModel`; its session code loads on first use.
    'prompt-api': lm && {
      check: () => promptApiAvailability(lm),
      load(_, { signal, progress }) {
        const { created, report } = early ?? create(signal);
        early = undefined;
        report(progress);
        return later().then(
          (l) => l.loadPromptApi(lm, signal, created),
          (e: unknown) => {
            // No session code to hand it to: the session is let go.
            void created.then((s) => s.destroy(), () => {});
            throw e;
          },
        );
      },
    },
    webgpu,
  };

  // Untrusted tool output is handed to the model inside a block only this adapter knows the marker of.
  const marker = crypto.getRandomValues(new Uint32Array(2)).join('');
  const listeners = new Set<() => void>();
  let checked: Promise<void> | undefined;
  // Until the choice is known, which may be before every model is checked (the rest only add to models()).
  let checking = true;
  let chose!: () => void;
  const chosen = new Promise<void>((r) => (chose = r));
  // Asked only when a listed model runs outside Chrome's own: for the note, and for WebGPU models.
  let gpu: boolean | undefined;
  let selected: Entry | undefined;
  let fallback: Entry | undefined;
  let phase: 'idle' | 'downloading' | 'loading' | 'ready' | 'error' = 'idle';
  let progress = 0;
  let error = '';
  let session: LocalSession | undefined;
  let preparing: Promise<void> | undefined;
  // The signal of the prepare under way.
  let stopping: AbortSignal | undefined;
  let running = false;

  const set = (p: typeof phase, value = 0) => {
    phase = p;
    progress = Math.min(1, Math.max(0, value));
    for (const l of [...listeners]) {
      try {
        l();
      } catch (e) {
        console.error(e);
      }
    }
  };

  // The models checked and able to run here; or (`maybe`) those too that are not checked yet.
  const runnable = (maybe?: boolean) => entries.filter((e) => (e.check ? e.check.state !== 'unavailable' : maybe));

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
      const e = entry.kind != 'webgpu' || gpu ? engines[entry.kind] : undefined;
      return e ? await e.check(entry.model) : { state: 'unavailable', reason: webgpu ? 'No WebGPU in this browser.' : 'No WebGPU engine was given (options.webgpu).' };
    } catch (e) {
      return { state: 'unavailable', reason: why(e) };
    }
  }

  // The model with id `id`, else the adapter's default (what models() calls recommended): the first
  // the page recommends, else the built-in model (listed first), a custom engine's (all of them), a
  // GGUF, WebGPU. Among the checked models that can run, or (`maybe`) those that may: then one not
  // checked yet may be the pick, and the choice is not known yet.
  const pick = (id: unknown, maybe?: boolean) => {
    const ok = runnable(maybe);
    return ok.find((e) => e.model.id === id) ?? ok.find((e) => e.model.recommended) ?? ok.find((e) => e.kind != 'webgpu') ?? ok[0];
  };
  // Whether prepare() is for Chrome's model: known before the device check ends once no model that
  // would come before it (the remembered one, a recommended one) may still turn out runnable.
  const builtInChosen = () => (selected ?? pick(remember(), true))?.kind === 'prompt-api';

  const choose = () => {
    fallback = pick(null);
    selected ??= pick(remember());
  };

  // A check came in. A prepare waiting for the choice calls Chrome's create() as soon as it is the
  // pick (the click's activation lasts only seconds), and the status moves once the pick is checked
  // (and, for a model outside Chrome's, its note knows about WebGPU) or none can run, not after the
  // slowest check.
  const settle = () => {
    const c = pick(remember(), true);
    if (checking && preparing && !early && c?.kind === 'prompt-api') early = create(stopping!);
    // The GGUF checks are reads of Cache Storage, done in moments: the device check waits for them,
    // so models() lists every GGUF that can run here (and whether it is cached) once the check ends.
    const ggufs = entries.every((e) => e.check || e.kind != 'wasm');
    if (!checking || !c || (c.check && (c.kind === 'prompt-api' || gpu !== undefined) && ggufs)) {
      choose();
      checking = false;
      chose();
    }
    set(phase, progress);
  };

  // A download the browser runs on its own (Chrome's model, started by another page or before a
  // reload) ends with no event: its availability is asked again every 2 s while it lasts. Chrome's
  // model can also turn available after "unavailable" (disk space freed, the browser's model service
  // ready after its start-up): asked again at doubling intervals, up to a minute.
  const follow = (entry: Entry, wait = 2000) =>
    setTimeout(async () => {
      const state = entry.check!.state;
      const gone = state == 'unavailable' && entry.kind == 'prompt-api';
      if (state != 'downloading' && !gone) return;
      // A download the adapter follows itself (a prepare) reports its own progress; an unavailable
      // model is asked about while another one runs too.
      if (gone || phase == 'idle') {
        entry.check = await check(entry);
        settle();
      }
      follow(entry, gone ? Math.min(2 * wait, 6e4) : 2000);
    }, wait);

  // Every model checked. Only WebGPU models wait for the WebGPU answer.
  const ensureChecked = (): Promise<void> =>
    (checked ??= (async () => {
      const asked = entries.some((e) => e.kind != 'prompt-api') && hasWebGPU();
      await Promise.all([
        (async () => ((gpu = await asked), settle()))(),
        ...entries.map(async (e) => {
          if (e.kind == 'webgpu') gpu = await asked;
          e.check = await check(e);
          follow(e);
          settle();
        }),
      ]);
    })());
  const decided = () => (void ensureChecked(), chosen);

  function status(): AdapterStatus {
    void ensureChecked();
    if (checking) return { ...DEVICE_CHECK };
    if (!selected) {
      const reason = entries.map((e) => (e.check?.state === 'unavailable' ? e.check.reason : '')).find(Boolean);
      return { state: 'unavailable', reason: reason ?? 'No model is set up for this device.' };
    }
    if (phase === 'error') return { state: 'error', error };
    if (phase === 'downloading' || phase === 'loading') return { state: phase, progress };
    const c = selected.check!;
    // On this device (or loaded): it can run; the first run (or prepare) loads it from disk.
    if (session || c.state === 'cached') return { state: 'ready' };
    if (c.state !== 'needs-download') return { ...c };
    // The caveats are a CPU engine's: Chrome's model and a WebGPU one compute elsewhere.
    const note = selected.kind === 'prompt-api' || selected.kind === 'webgpu' ? undefined : slowDeviceNote(!!gpu);
    // What the download brings: an unfinished one continues after the bytes it kept.
    return { state: 'needs-download', ...(c.bytes !== undefined ? { bytes: c.bytes - (c.kept ?? 0) } : {}), ...(note ? { note } : {}) };
  }

  function prepare(signal = new AbortController().signal): Promise<void> {
    if (session) return Promise.resolve();
    // One cancelled a moment ago is still putting its bytes away: this one starts once it is done.
    // One under way: this caller's signal ends its own wait (a run's Stop), not the other's load.
    // Its listener goes when the wait ends, either way: a page may pass one signal to every prepare.
    if (preparing)
      return stopping!.aborted
        ? preparing.catch(() => {}).then(() => prepare(signal))
        : new Promise<void>((ok, no) => {
            const stop = () => no(signal.reason);
            signal.throwIfAborted();
            signal.addEventListener('abort', stop, { once: true });
            preparing!.then(ok, no).finally(() => signal.removeEventListener('abort', stop));
          });
    stopping = signal;
    if (builtInChosen()) early = create(signal);
    return (preparing = (async () => {
      await decided();
      // Chrome's model turned out unavailable (so its create() is refused): the one chosen instead is prepared.
      if (selected?.kind !== 'prompt-api') dropEarly();
      // No model (or the chosen one gone unavailable) is `unavailable`, with its reason.
      const s = status();
      if (s.state === 'unavailable') throw new Error(s.reason);
      const target = selected!;
      const c = target.check!;
      const onDisk = c.state === 'cached';
      try {
        signal.throwIfAborted();
        // A download that continues starts its progress at the bytes already on this device.
        set(onDisk ? 'loading' : 'downloading', c.state === 'needs-download' && c.kept && c.bytes ? c.kept / c.bytes : 0);
        const loaded = await engines[target.kind]!.load(target.model, {
          signal,
          onDisk,
          progress(p) {
            // A model already on the device downloads nothing: whatever the engine says, it is a load.
            if (!signal.aborted) set(p.phase === 'download' && !onDisk ? 'downloading' : 'loading', p.progress);
          },
        });
        target.check = { state: 'cached' };
        // Stopped while it loaded: the model is on the device, but not kept in memory.
        if (signal.aborted) void loaded.dispose();
        signal.throwIfAborted();
        session = loaded;
        set('ready', 1);
      } catch (e) {
        // Back to what is true on disk: a cancelled download stored nothing, a refused file is gone,
        // a model gone since its check (NotFoundError) needs its download card again.
        target.check = await check(target);
        if (signal.aborted || (e as Error)?.name === 'NotFoundError') set('idle');
        else {
          error = why(e);
          set('error');
        }
        throw e;
      }
    })().finally(() => {
      preparing = undefined;
      // A create() no load took (the model unavailable, the prepare stopped before its load).
      dropEarly();
    }));
  }

  async function selectModel(id: string): Promise<void> {
    await ensureChecked();
    if (running) throw new Error('A reply is being written: wait for it (or stop it) before switching models.');
    if (preparing) throw new Error('A model is downloading or loading: cancel it before switching models.');
    const next = runnable().find((e) => e.model.id === id);
    if (!next) throw new Error(`No model "${id}" can run here.`);
    if (next === selected) return;
    selected = next;
    remember(id);
    error = '';
    await unload();
  }

  async function unload(): Promise<void> {
    const old = session;
    session = undefined;
    set('idle');
    await old?.dispose();
  }

  function models(): readonly ModelChoice[] {
    void ensureChecked();
    return runnable().map((e) => {
      const { id, label, brief } = e.model;
      const c = e.check!;
      // Only a model that needs its download has a size in its check.
      const bytes = e.model.bytes ?? (c as { bytes?: number }).bytes;
      return { id, label, brief, ...(bytes !== undefined ? { bytes } : {}), cached: c.state === 'cached', recommended: e === fallback, selected: e === selected };
    });
  }

  async function* run(req: AgentRunRequest): AsyncGenerator<AgentStreamPart> {
    // A request built by hand (not by the chat): in words, not an engine's TypeError. The loop checks the tools.
    if (!Array.isArray(req?.messages) || typeof req.signal?.aborted != 'boolean' || typeof req.callTool != 'function')
      return yield { type: 'error', error: 'run(req): req.messages, req.signal and req.callTool must be given; <agent-chat> passes { messages, tools, signal, callTool }.', code: 'bad_request' };
    await decided();
    if (running) return yield { type: 'error', error: 'A reply is already being written.', code: 'bad_request' };
    running = true;
    try {
      if (!session) {
        // On this device when the page checked, maybe hours ago: the browser may have evicted it since,
        // and a run must not download it unasked (worded as a load). Asked again, unless a prepare is under way.
        const e = selected;
        if (!preparing && e?.check?.state === 'cached') {
          e.check = await check(e);
          set(phase, progress);
        }
        const s = status();
        if (s.state === 'needs-download') return yield { type: 'error', error: NOT_HERE };
        if (s.state === 'error') return yield { type: 'error', error: s.error };
        try {
          // On disk already (or being prepared): a load, no download; nothing to run here is prepare's error.
          await prepare(req.signal);
        } catch (e) {
          return yield req.signal.aborted ? { type: 'finish', reason: 'aborted' } : { type: 'error', error: why(e) };
        }
      }
      // An engine with its own tool loop (Chrome's native tools) runs the whole turn itself.
      const s = session!;
      try {
        yield* s.run ? s.run(req, options, marker) : (await later()).steps(req, s, options, marker);
      } catch (e) {
        // The run's code did not load (offline, a new deploy) or an engine's own loop threw: an error part, as every failure.
        yield req.signal.aborted ? { type: 'finish', reason: 'aborted' } : { type: 'error', error: why(e) };
      }
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
    unload,
  };
}
