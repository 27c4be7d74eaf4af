/**
 * agent-surface-kit/server: `createChatHandler`, the server side of `createCloudAdapter`
 * (DESIGN section 8): a Web `Request → Response` function for Node ≥ 20, Deno, Bun and workers,
 * and `toNodeListener` to mount it on `node:http`.
 */
export { createChatHandler } from './handler.js';
export type { ChatAgentConfig, ChatHandler, ChatHandlerOptions, ChatLimits, ChatProvider, ChatRequestContext } from './handler.js';
export { toNodeListener } from './node.js';
