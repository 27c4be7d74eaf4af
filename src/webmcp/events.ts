import type { WebMcpConflict, WebMcpExposedToRefusal } from './types.js';

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

/**
 * Fired once per start when the WebMCP host refused `exposedTo` (the @mcp-b polyfill, an older
 * preview, an origin that is not potentially trustworthy): the tools were registered for this
 * document only, not for the frames of the origins listed.
 */
export class AgentWebMcpExposedToRefusedEvent extends Event {
  static readonly eventName = 'agent-webmcp-exposed-to-refused';
  readonly detail: WebMcpExposedToRefusal;

  constructor(refusal: WebMcpExposedToRefusal) {
    super(AgentWebMcpExposedToRefusedEvent.eventName, { bubbles: true, composed: true });
    this.detail = refusal;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-webmcp-conflict': AgentWebMcpConflictEvent;
    'agent-webmcp-exposed-to-refused': AgentWebMcpExposedToRefusedEvent;
  }
  interface WindowEventMap {
    'agent-webmcp-conflict': AgentWebMcpConflictEvent;
    'agent-webmcp-exposed-to-refused': AgentWebMcpExposedToRefusedEvent;
  }
}
