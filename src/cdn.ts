/** The CDN entry: everything browser-side (core, elements, WebMCP), lit bundled. */
export * from './index.js';
// The elements, their events and contexts: everything `agent-surface-kit/elements` exports but its
// input-formatting helpers (formatInput, describeEffect, formatRemaining), which only the lazy
// approval dialog uses, so they stay out of this entry.
export { defineAgentElements } from './elements/define.js';
export { AgentSurfaceElement } from './elements/agent-surface.js';
export { AgentViewElement } from './elements/agent-view.js';
export { AgentCapabilityElement } from './elements/agent-capability.js';
export { AgentConfirmElement } from './elements/agent-confirm.js';
export { AgentWebMcpElement, type AgentWebMcpStatus } from './elements/agent-webmcp.js';
export { registryContext, viewContext, type AgentViewContextValue } from './elements/context.js';
export {
  AgentCapabilityRefusedEvent,
  AgentConfirmationEvent,
  AgentInvocationEvent,
  AgentInvokeEvent,
  AgentSurfaceChangedEvent,
  type AgentInvokeDetail,
} from './elements/events.js';
// Everything `agent-surface-kit/webmcp` exports, but the adapter and the tool source load on first
// use (lazy chunks beside this file, shared with <agent-webmcp>'s own import of the adapter).
export { createWebMcpAdapter, createWebMcpSource } from './webmcp/lazy.js';
export { annotationsFor } from './webmcp/annotations.js';
export { DEFAULT_CONFIRMATION_TTL_MS, DEFAULT_WEBMCP_CONSUMER } from './webmcp/adapter-options.js';
export { ToolSourceError } from './webmcp/source-error.js';
export { detectModelContext, modelContextShape } from './webmcp/detect.js';
export { AgentWebMcpConflictEvent } from './webmcp/events.js';
export type * from './webmcp/types.js';
