import type { WebMcpConflict } from './types.js';

/**
 * Fired when the WebMCP host refused one of the adapter's tool names (taken by another script,
 * invalid, blocked by permissions policy). The other tools are registered regardless.
 */
export class AgentWebMcpConflictEvent extends Event {
  static readonly eventName = 'agent-webmcp-conflict';
  readonly detail: WebMcpConflict;

  constructor(conflict: WebMcpConflict) {
    super(AgentWebMcpConflictEvent.eventName, { bubbles: true, composed: true });
    this.detail = conflict;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-webmcp-conflict': AgentWebMcpConflictEvent;
  }
  interface WindowEventMap {
    'agent-webmcp-conflict': AgentWebMcpConflictEvent;
  }
}
