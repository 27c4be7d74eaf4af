/**
 * agent-surface-kit/chat: `<agent-chat>` and the AgentAdapter stream contract (DESIGN section 7).
 * The reducer and the types are DOM-free and run in Node too.
 */
export type * from './types.js';
export {
  createSessionState,
  isTerminal,
  outputText,
  sessionReducer,
  toolParts,
  type SessionEvent,
  type SessionState,
  type SessionStatus,
} from './session.js';
export {
  CANCELLED_TEXT,
  callModelContextTool,
  toToolOutput,
  type CallModelContextToolOptions,
  type CallableModelContextTool,
} from './call-tool.js';
export { AGENT_ID_PATTERN, defineWebAgent, type WebAgentOptions } from './define-agent.js';
export {
  createScriptedAdapter,
  findTool,
  type Script,
  type ScriptContext,
  type ScriptStep,
  type ScriptedAdapterOptions,
} from './scripted-adapter.js';
export { isStreamPart, runAdapter, type ActiveCall, type RunHost } from './run.js';
export {
  DELEGATE_PREFIX,
  delegateDescriptor,
  filterTools,
  registryProvider,
  sourceProvider,
  toolsetProvider,
  type ChatTool,
  type ChatToolCallContext,
  type ChatToolProvider,
} from './tools.js';
export { AgentChatElement, type ChatPersist } from './agent-chat.js';
export { defineAgentChat } from './define.js';
export { createMarkdownStream, renderMarkdown, safeHref, type MarkdownOptions, type MarkdownStream } from './markdown.js';
