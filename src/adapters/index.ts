/**
 * agent-surface-kit/adapters: model adapters for `<agent-chat>` (DESIGN section 8). Each adapter
 * tree-shakes alone; engines load lazily. Runs in the browser and in Node.
 */
export { createOpenAICompatibleAdapter } from './openai/index.js';
export type { OpenAICompatibleAdapter, OpenAICompatibleAdapterOptions } from './openai/index.js';
export { createAnthropicAdapter } from './anthropic/index.js';
export type { AnthropicAdapter, AnthropicAdapterOptions } from './anthropic/index.js';
export { createCloudAdapter } from './cloud.js';
export type { CloudAdapter, CloudAdapterOptions } from './cloud.js';
export {
  BUILT_IN_MODEL_ID,
  createLocalAdapter,
  parseOutput as parseLocalToolCalls,
  schemaGrammar,
  toolCallGrammar,
  toolsPrompt as localToolsPrompt,
  wasmEngine,
} from './local/index.js';
export type {
  EngineCheck,
  EngineProgress,
  GenerateRequest,
  LanguageModelLike,
  LanguageModelSessionLike,
  LocalAdapter,
  LocalAdapterOptions,
  LocalEngine,
  LocalModel,
  LocalSession,
  ToolChoice,
  WasmEngineOptions,
} from './local/index.js';
