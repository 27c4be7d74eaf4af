/**
 * llama.cpp in WebAssembly (@wllama/wllama) for GGUF models. wllama runs the model in its own Web
 * Worker; this page only posts messages to it. Multi-threaded only where the page is cross-origin
 * isolated (SharedArrayBuffer needs it); WebGPU offload only where `navigator.gpu` exists.
 * This module is imported on first use only: a page that never prepares a local model loads none of it.
 */
import { Wllama } from '@wllama/wllama';
import type { ChatCompletionChunk } from '@wllama/wllama/esm/types/oai-compat.js';
import type { LocalModel, LocalSession, GenerateRequest } from '../types.js';

const quiet = { debug() {}, log() {}, warn() {}, error: (...a: unknown[]) => console.error('[agent-surface-kit local]', ...a) };

export interface WllamaLoadOptions {
  wasmUrl: string;
  threads?: number;
}

/** Loads a GGUF Blob into a fresh worker. */
export async function loadWllama(model: LocalModel, blob: Blob, options: WllamaLoadOptions, signal: AbortSignal): Promise<LocalSession> {
  const wllama = new Wllama({ default: options.wasmUrl }, { logger: quiet, suppressNativeLog: true });
  const isolated = globalThis.crossOriginIsolated === true;
  const cores = navigator.hardwareConcurrency || 1;
  const threads = isolated ? Math.max(1, options.threads ?? Math.min(4, cores)) : 1;
  const onAbort = () => void wllama.exit().catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await wllama.loadModel([blob], {
      n_ctx: model.contextSize ?? 2048,
      n_threads: threads,
      n_gpu_layers: (navigator as { gpu?: unknown }).gpu ? undefined : 0,
      n_parallel: 1,
      warmup: false,
    });
  } catch (e) {
    void wllama.exit().catch(() => {});
    if (signal.aborted) throw signal.reason;
    throw new Error(`The model could not be loaded: ${(e as Error)?.message || e}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted) {
    void wllama.exit().catch(() => {});
    throw signal.reason;
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
