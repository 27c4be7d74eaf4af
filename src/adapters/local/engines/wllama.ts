/**
 * llama.cpp in WebAssembly (@wllama/wllama) for GGUF models. wllama runs the model in its own Web
 * Worker; this page only posts messages to it. Multi-threaded only where the page is cross-origin
 * isolated (SharedArrayBuffer needs it); WebGPU offload only where `navigator.gpu` exists.
 * This glue loads with the adapter's lazy code (../later.ts); wllama itself only when a model loads.
 */
import type { ChatCompletionChunk } from '@wllama/wllama/esm/types/oai-compat.js';
import { download } from '../download.js';
import { keyOf, openCache } from '../store-file.js';
import { NOT_HERE, why } from '../words.js';
import type { EngineProgress, GenerateRequest, LocalModel, LocalSession, ModelStore, WasmEngineOptions } from '../types.js';

const quiet = { debug() {}, log() {}, warn() {}, error: (...a: unknown[]) => console.error('[agent-surface-kit local]', ...a) };

/** The wasm engine's `load`: the file from Cache Storage (downloaded first when it is not whole there and not `onDisk`), into a fresh worker. */
export async function loadWasm(
  model: LocalModel,
  { signal, progress, onDisk }: { signal: AbortSignal; progress(p: EngineProgress): void; onDisk?: boolean },
  store: ModelStore,
  options: WasmEngineOptions & { cacheName: string },
): Promise<LocalSession> {
  // On disk, the download only finishes the checks a cancel cut short: no fetch, and no download progress.
  if (!(await store.has(model))) await download({ ...options, onDisk }, model, store, signal, (p) => onDisk || progress({ phase: 'download', progress: p }));
  // From here on it is a load from disk, worded as such.
  progress({ phase: 'load', progress: 0.1 });
  const blob = await store.blob(model);
  if (!blob) throw new DOMException(NOT_HERE, 'NotFoundError');
  progress({ phase: 'load', progress: 0.3 });
  const { Wllama } = await import('@wllama/wllama').catch((e: unknown) => {
    throw new Error(`The WebAssembly engine (@wllama/wllama) could not be loaded: ${why(e)}`);
  });
  progress({ phase: 'load', progress: 0.5 });
  const wllama = new Wllama({ default: String(options.wasmUrl) }, { logger: quiet, suppressNativeLog: true });
  const threads = globalThis.crossOriginIsolated === true ? Math.max(1, options.threads ?? Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
  // Stop ends the worker, which ends the load.
  const exit = () => void wllama.exit().catch(() => {});
  signal.addEventListener('abort', exit, { once: true });
  try {
    await wllama.loadModel([blob], {
      n_ctx: model.contextSize ?? 2048,
      n_threads: threads,
      n_gpu_layers: (navigator as { gpu?: unknown }).gpu ? undefined : 0,
      n_parallel: 1,
      warmup: false,
    });
    signal.throwIfAborted();
    // wllama resolves even when llama.cpp refused the model; its load result says so. A file whose
    // size or sha256 checked out is whole, and llama.cpp also refuses one it has no memory for (a
    // context too large for this device): it is kept, as a download would bring the same bytes.
    // Another is not kept, so the next click downloads it again instead of loading it again.
    if ((wllama.getLoadedContextInfo() as { success?: boolean }).success === false) {
      const whole = model.sha256 || blob.size === model.bytes;
      if (!whole) await (await openCache(options.cacheName)).delete(keyOf(model.url!));
      throw new Error(
        `llama.cpp refused the ${whole ? 'model (too large for the memory of this device, or a kind of model it cannot run): try a smaller model or context' : 'file (damaged or incomplete, or a kind of model it cannot run). Try again to download it again'}.`,
      );
    }
  } catch (e) {
    exit();
    if (signal.aborted) throw signal.reason;
    throw new Error(`The model could not be loaded: ${why(e)}`);
  } finally {
    signal.removeEventListener('abort', exit);
  }
  return {
    async generate(req: GenerateRequest): Promise<string> {
      let text = '';
      await wllama.createChatCompletion({
        messages: req.turns,
        stream: true,
        max_tokens: req.maxTokens,
        temperature: req.temperature,
        grammar: req.grammar,
        abortSignal: req.signal,
        onData(chunk: ChatCompletionChunk) {
          const delta = chunk.choices?.[0]?.delta?.content;
          if (typeof delta === 'string' && delta) {
            text += delta;
            req.onText(delta);
          }
        },
      });
      return text;
    },
    dispose: () => wllama.exit(),
    threads: wllama.getNumThreads(),
  };
}
