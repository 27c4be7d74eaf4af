/** WebMCP both ways: `createWebMcpAdapter` (producer), `createWebMcpSource` (consumer), `detectModelContext`. */
export { createWebMcpAdapter, annotationsFor, DEFAULT_CONFIRMATION_TTL_MS, DEFAULT_WEBMCP_CONSUMER } from './adapter.js';
export { createWebMcpSource, ToolSourceError } from './source.js';
export { detectModelContext, modelContextShape } from './detect.js';
export { AgentWebMcpConflictEvent } from './events.js';
export type * from './types.js';
