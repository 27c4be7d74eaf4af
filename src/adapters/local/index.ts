/** createLocalAdapter: a model in the page, off the main thread (DESIGN section 8). */
export { createLocalAdapter, BUILT_IN_MODEL_ID } from './adapter.js';
export type { LocalAdapter } from './adapter.js';
export { wasmEngine, type WasmEngineOptions } from './engines/wasm.js';
export { toolCallGrammar, schemaGrammar } from './grammar.js';
export { toolsPrompt, parseOutput, toTurns } from './tool-format.js';
export type { ChatTurn, ParsedCall, ParsedOutput } from './tool-format.js';
export type {
  EngineCheck,
  EngineProgress,
  GenerateRequest,
  LanguageModelLike,
  LanguageModelSessionLike,
  LocalAdapterOptions,
  LocalEngine,
  LocalModel,
  LocalSession,
  ToolChoice,
} from './types.js';
