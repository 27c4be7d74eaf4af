/** Public types of `createLocalAdapter` (DESIGN section 8). */
import type { AgentRunRequest, AgentStreamPart, ToolDescriptor } from '../../chat/types.js';
import type { ChatTurn } from './tool-format.js';
import type { ToolChoice } from './grammar.js';

export type { ChatTurn, ToolChoice };

/** A model the person can pick. */
export interface LocalModel {
  /** The id `selectModel` takes. */
  id: string;
  /** Short name, for example "Qwen3 0.6B". */
  label: string;
  /** One sentence on when to pick it. */
  brief: string;
  /**
   * Where the GGUF file is (same origin, or served with CORS). Models without a URL run on the
   * page's WebGPU engine (`webgpu`), which knows where its weights are.
   */
  url?: string;
  /** Download size in bytes. Checked against the response: a shorter or longer file is an error. */
  bytes?: number;
  /** SHA-256 of the file (hex), as a model hub publishes it: a downloaded file that differs is not kept. */
  sha256?: string;
  /** `wasm` (default for a `url`): llama.cpp in WebAssembly. `webgpu`: the page's `webgpu` engine. */
  engine?: 'wasm' | 'webgpu';
  /** The adapter's default when several models can run here. */
  recommended?: boolean;
  /** Context window in tokens (default 2048). */
  contextSize?: number;
}

/** Progress of one engine step: a download (bytes) or a load from disk. */
export interface EngineProgress {
  phase: 'download' | 'load';
  /** 0 to 1. */
  progress: number;
}

/** What one model step gets. */
export interface GenerateRequest {
  turns: ChatTurn[];
  /** The live tools, for engines with native tool support. */
  tools: readonly ToolDescriptor[];
  /** GBNF grammar the output must follow (built from `tools` and `toolChoice`), for engines that take one. */
  grammar?: string;
  /** What this step may do; engines without GBNF build their own constraint from it and `tools`. */
  toolChoice: ToolChoice;
  maxTokens: number;
  temperature: number;
  signal: AbortSignal;
  /** More text of the reply as it is generated. */
  onText(delta: string): void;
}

/** A model in memory, ready to generate. */
export interface LocalSession {
  /** One model step; resolves with the whole reply text. */
  generate(req: GenerateRequest): Promise<string>;
  /** Frees the model's memory (and its worker). */
  dispose(): void | Promise<void>;
  /**
   * A whole run, for an engine with its own tool-call loop (Chrome's model where the browser offers
   * native tools). Without it the adapter runs `generate` steps in the prompt format.
   */
  run?(req: AgentRunRequest, options: LocalAdapterOptions, marker: string): AsyncIterable<AgentStreamPart>;
  /** Threads the engine computes on, where it says (wllama: more than one only in a cross-origin isolated page). */
  threads?: number;
}

export type EngineCheck =
  | { state: 'unavailable'; reason: string }
  /** `kept`: bytes of an unfinished download already on this device (the download continues after them). */
  | { state: 'needs-download'; bytes?: number; kept?: number }
  /** A download is under way elsewhere (the browser's own model). */
  | { state: 'downloading'; progress: number }
  /** On this device: loading needs no network. */
  | { state: 'cached' };

/**
 * A model engine. The built-in ones are Chrome's Prompt API and llama.cpp in WebAssembly; a page
 * plugs a WebGPU engine (for example one built on @mlc-ai/web-llm) in as `webgpu`.
 */
export interface LocalEngine {
  /** Where the model stands on this device. Never downloads. */
  check(model: LocalModel, signal?: AbortSignal): Promise<EngineCheck>;
  /**
   * Downloads what is missing and loads the model; `progress` reports both. Aborting cancels.
   * `onDisk`: the check said `cached`, so the load fetches nothing: a model gone since rejects with a
   * `NotFoundError` (a DOMException), and the adapter offers the download again.
   */
  load(model: LocalModel, options: { signal: AbortSignal; progress(p: EngineProgress): void; onDisk?: boolean }): Promise<LocalSession>;
}

/** The subset of Chrome's `LanguageModel` (Prompt API) the adapter uses. */
export interface LanguageModelLike {
  availability(options?: Record<string, unknown>): Promise<'unavailable' | 'downloadable' | 'downloading' | 'available' | string>;
  create(options?: {
    signal?: AbortSignal;
    monitor?: (m: EventTarget) => void;
    initialPrompts?: Array<{ role: string; content: string | readonly LanguageModelContentLike[] }>;
    expectedInputs?: Array<{ type: string; languages?: string[] }>;
    expectedOutputs?: Array<{ type: string; languages?: string[] }>;
    [key: string]: unknown;
  }): Promise<LanguageModelSessionLike>;
}

/** One piece of a reply or a message: text, or (with native tools) a `tool-call` / `tool-response`. */
export interface LanguageModelContentLike {
  type: string;
  value: unknown;
}

export interface LanguageModelSessionLike {
  /** Text, or with native tools the reply's pieces (text and `tool-call`s). */
  prompt(input: unknown, options?: { signal?: AbortSignal; responseConstraint?: unknown }): Promise<string | readonly LanguageModelContentLike[]>;
  promptStreaming?(input: unknown, options?: { signal?: AbortSignal; responseConstraint?: unknown }): ReadableStream<string> | AsyncIterable<string>;
  destroy(): void;
}

export interface LocalAdapterOptions {
  /** The models the person can pick from (GGUF files for the WebAssembly engine, or WebGPU ones). */
  models: readonly LocalModel[];
  /**
   * `auto` (default): Chrome's built-in model where the Prompt API offers one, then the listed models
   * this device can run. `prompt-api`, `wasm` or `webgpu` keep to that engine alone; a `LocalEngine`
   * object runs every listed model.
   */
  engine?: 'auto' | 'prompt-api' | 'wasm' | 'webgpu' | LocalEngine;
  /** The page's WebGPU engine, for models with `engine: "webgpu"`. Used only where `navigator.gpu.requestAdapter()` gives an adapter. */
  webgpu?: LocalEngine;
  /** The WebAssembly engine's files. `wasmUrl`: where `@wllama/wllama/esm/wasm/wllama.wasm` is served. */
  wasm?: { wasmUrl: string | URL; threads?: number };
  /** Chrome's `LanguageModel` (default: the global one). */
  languageModel?: LanguageModelLike;
  /** Adapter id (default `"local"`) and label (default `"On this device"`). */
  id?: string;
  label?: string;
  /** First model step of a run: `auto` (text or a call), `required` (a call), `none`. Later steps are `auto`. */
  toolChoice?: ToolChoice;
  /** Tokens per model step (default 512). */
  maxTokens?: number;
  /** Sampling temperature (default 0.2). */
  temperature?: number;
  /** Tool outputs longer than this are cut before the model reads them (default 20 000 characters). */
  maxToolOutputChars?: number;
  /** Cache Storage name for downloaded models (default `"agent-surface-models"`). */
  cacheName?: string;
  fetch?: typeof fetch;
}

export interface WasmEngineOptions {
  /** Where `@wllama/wllama/esm/wasm/wllama.wasm` is served. */
  wasmUrl: string | URL;
  /** Threads when the page is cross-origin isolated (default: the cores, at most 4). Elsewhere one. */
  threads?: number;
  /** Cache Storage name (default `"agent-surface-models"`). */
  cacheName?: string;
  fetch?: typeof fetch;
}

/** The GGUF files the wasm engine keeps in Cache Storage (`wasmEngine(...).store`). */
export interface ModelStore {
  /** Whether the whole, checked file is on this device. */
  has(model: LocalModel): Promise<boolean>;
  /** Bytes of an unfinished download kept on disk (the next download continues after them). */
  kept(model: LocalModel): Promise<number>;
  /** The stored file, read from disk lazily (Blobs backed by the cache, not a copy in memory). */
  blob(model: LocalModel): Promise<Blob | undefined>;
}
