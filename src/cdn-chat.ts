/**
 * The chat's CDN entry (`dist/cdn/agent-chat.min.js`): `<agent-chat>`, the chat API and the browser
 * adapters, for no-build pages. It imports `./agent-surface.min.js` (the kit's CDN file): the CDN
 * build makes the two files one module graph, so lit and the core come from that file, never a second
 * copy, and loading this file alone brings the other with it.
 *
 * The adapters are the lazy factories of ./adapters/lazy.ts: each adapter's code is a chunk beside
 * this file, fetched when the adapter is first used. Left out, as sync helpers that would be
 * downloaded for nothing by every chat: `wasmEngine` (its `store` is there at once) and the local
 * model's prompt-format helpers (`parseLocalToolCalls`, `schemaGrammar`, `toolCallGrammar`,
 * `localToolsPrompt`); `createLocalAdapter({ wasm })` covers the engine. Types cost nothing.
 */
import './cdn.js';
export * from './chat/index.js';
export {
  BUILT_IN_MODEL_ID,
  createAnthropicAdapter,
  createCloudAdapter,
  createLocalAdapter,
  createOpenAICompatibleAdapter,
} from './adapters/lazy.js';
export type * from './adapters/index.js';
