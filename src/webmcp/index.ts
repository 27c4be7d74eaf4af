/** WebMCP both ways: `createWebMcpAdapter` (producer), `createWebMcpSource` (consumer), `detectModelContext`. */
export { createWebMcpAdapter } from './adapter.js';
export { annotationsFor } from './annotations.js';
export { DEFAULT_CONFIRMATION_TTL_MS, DEFAULT_WEBMCP_CONSUMER } from './adapter-options.js';
export { createWebMcpSource } from './source.js';
export { ToolSourceError } from './source-error.js';
export { detectModelContext, modelContextShape } from './detect.js';
export { AgentWebMcpConflictEvent, AgentWebMcpExposedToRefusedEvent } from './events.js';
export type * from './types.js';
