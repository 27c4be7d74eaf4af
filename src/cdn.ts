/** The CDN entry: everything browser-side (core, elements, WebMCP), lit bundled. */
export * from './index.js';
// The elements, their events and contexts; the CDN build leaves out the input-formatting helpers
// (see elements/format-exports.ts).
export * from './elements/index.js';
// Everything `agent-surface-kit/webmcp` exports, but the adapter and the tool source load on first
// use (lazy chunks beside this file, shared with <agent-webmcp>'s own import of the adapter).
export { createWebMcpAdapter, createWebMcpSource } from './webmcp/lazy.js';
export { annotationsFor } from './webmcp/annotations.js';
export { DEFAULT_CONFIRMATION_TTL_MS, DEFAULT_WEBMCP_CONSUMER } from './webmcp/adapter-options.js';
export { ToolSourceError } from './webmcp/source-error.js';
export { detectModelContext, modelContextShape } from './webmcp/detect.js';
export { AgentWebMcpConflictEvent } from './webmcp/events.js';
export type * from './webmcp/types.js';
