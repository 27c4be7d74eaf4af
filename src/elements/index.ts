/** Defines the agent-surface-kit custom elements (idempotent) and exports their classes and contexts. */
export { defineAgentElements } from './define.js';
export { AgentSurfaceElement } from './agent-surface.js';
export { AgentViewElement } from './agent-view.js';
export { AgentCapabilityElement } from './agent-capability.js';
export { AgentConfirmElement } from './agent-confirm.js';
export { allowFramedApprovals } from './approval-config.js';
export { AgentWebMcpElement, type AgentWebMcpStatus } from './agent-webmcp.js';
export { AgentWebMcpConflictEvent, AgentWebMcpExposedToRefusedEvent } from '../webmcp/events.js';
export { registryContext, viewContext, type AgentViewContextValue } from './context.js';
export {
  AgentCapabilityRefusedEvent,
  AgentConfirmationEvent,
  AgentInvocationEvent,
  AgentInvokeEvent,
  AgentSurfaceChangedEvent,
  type AgentInvokeDetail,
} from './events.js';
// For custom approval UIs.
export { describeEffect, formatInput, formatRemaining, type FormattedEntry, type FormattedInput } from './format-input.js';
