// Generated from custom-elements.json by scripts/jsx-types.mjs (`npm run jsx`). Do not edit:
// `npm run check` fails when this file is not what the script writes.
import type { AgentChatElement } from '../chat/index.js';
import type { AgentCapabilityElement, AgentCapabilityRefusedEvent, AgentConfirmElement, AgentConfirmationEvent, AgentInvocationEvent, AgentInvokeEvent, AgentSurfaceChangedEvent, AgentSurfaceElement, AgentViewElement, AgentWebMcpConflictEvent, AgentWebMcpElement, AgentWebMcpExposedToRefusedEvent } from '../elements/index.js';

/** `<agent-capability>`: what a framework may set on it and listen to. */
export interface AgentCapabilityTag {
  element: AgentCapabilityElement;
  /** Public, writable properties (a framework sets them as properties). */
  properties: Partial<Pick<AgentCapabilityElement, 'name' | 'view' | 'plane' | 'kind' | 'effect' | 'confirmation' | 'description' | 'title' | 'concurrency' | 'timeoutMs' | 'untrustedOutput' | 'token' | 'unavailable' | 'note' | 'contract' | 'handler' | 'read'>>;
  /** Attributes that no property of the same name covers. */
  attributes: {
    /** Call timeout in milliseconds (reflects `timeout-ms`). */
    'timeout-ms'?: number | string;
    /** The output may carry untrusted content (reflects `untrusted-output`). */
    'untrusted-output'?: boolean;
  };
  /** Event name → the event it dispatches. */
  events: {
    /** An agent called this capability and it has no `.handler` / `.read`: answer with `event.detail.respondWith(promise)` during dispatch. */
    'agent-invoke': AgentInvokeEvent;
    /** The declaration was refused (invalid markup or not authorized); nothing was registered. */
    'agent-capability-refused': AgentCapabilityRefusedEvent;
  };
}

/** `<agent-chat>`: what a framework may set on it and listen to. */
export interface AgentChatTag {
  element: AgentChatElement;
  /** Public, writable properties (a framework sets them as properties). */
  properties: Partial<Pick<AgentChatElement, 'activationDelay' | 'adapters' | 'agent' | 'source' | 'registry' | 'consumer' | 'placeholder' | 'persist' | 'highlight'>>;
  /** Attributes that no property of the same name covers. */
  attributes: {
    /** Milliseconds an approval must be on screen, in place, before its buttons respond. Default 500; markup cannot go below 300 (an invalid value means 500). */
    'activation-delay'?: number | string;
  };
  /** Event name → the event it dispatches. */
  events: {
    /** The conversation changed (`session` has the new state). */
    'agent-chat-change': Event;
  };
}

/** `<agent-confirm>`: what a framework may set on it and listen to. */
export interface AgentConfirmTag {
  element: AgentConfirmElement;
  /** Public, writable properties (a framework sets them as properties). */
  properties: Partial<Pick<AgentConfirmElement, 'registry' | 'activationDelay'>>;
  /** Attributes that no property of the same name covers. */
  attributes: {
    /** Milliseconds a request must be shown, in place, before Approve and Deny respond. Default 500; at least 300; an invalid value means the default. */
    'activation-delay'?: number | string;
  };
  /** Event name → the event it dispatches. */
  events: object;
}

/** `<agent-surface>`: what a framework may set on it and listen to. */
export interface AgentSurfaceTag {
  element: AgentSurfaceElement;
  /** Public, writable properties (a framework sets them as properties). */
  properties: Partial<Pick<AgentSurfaceElement, 'authority' | 'policies' | 'limits' | 'consumers' | 'registry'>>;
  /** Attributes that no property of the same name covers. */
  attributes: object;
  /** Event name → the event it dispatches. */
  events: {
    /** Something model-visible changed; `detail.surfaceVersion` is the new version. Coalesced per microtask. */
    'agent-surface-changed': AgentSurfaceChangedEvent;
    /** A call finished: `detail` is the audit record (consumer, capability, outcome, duration). */
    'agent-invocation': AgentInvocationEvent;
    /** A confirmation was created, approved, denied, expired or consumed. */
    'agent-confirmation': AgentConfirmationEvent;
  };
}

/** `<agent-view>`: what a framework may set on it and listen to. */
export interface AgentViewTag {
  element: AgentViewElement;
  /** Public, writable properties (a framework sets them as properties). */
  properties: Partial<Pick<AgentViewElement, 'name' | 'instance'>>;
  /** Attributes that no property of the same name covers. */
  attributes: object;
  /** Event name → the event it dispatches. */
  events: {
    /** The view was refused (no name, inside another view, an `instance` that is not a token); nothing inside it registers. */
    'agent-capability-refused': AgentCapabilityRefusedEvent;
  };
}

/** `<agent-webmcp>`: what a framework may set on it and listen to. */
export interface AgentWebmcpTag {
  element: AgentWebMcpElement;
  /** Public, writable properties (a framework sets them as properties). */
  properties: Partial<Pick<AgentWebMcpElement, 'scope' | 'toolPrefix' | 'consumer' | 'exposedTo' | 'confirmationTtl' | 'status' | 'registry' | 'modelContext' | 'exposeCapability' | 'confirm'>>;
  /** Attributes that no property of the same name covers. */
  attributes: {
    /** See `prefix`. */
    'prefix'?: string;
    /** Origins (comma- or space-separated, at most 32) whose frames may see the tools; only granted ones (reflects `exposed-to`). */
    'exposed-to'?: string;
    /** Milliseconds a call waits for a person's decision. Default 120000. */
    'confirmation-ttl'?: number | string;
  };
  /** Event name → the event it dispatches. */
  events: {
    /** The host refused a tool name; `detail` says which and why. */
    'agent-webmcp-conflict': AgentWebMcpConflictEvent;
    /** The host refused `exposed-to` (the @mcp-b polyfill, an older preview, an origin that is not potentially trustworthy): the tools are this document's only; `detail: { exposedTo, errorName, message }`. */
    'agent-webmcp-exposed-to-refused': AgentWebMcpExposedToRefusedEvent;
  };
}

/** Every element of the kit, by tag. */
export interface AgentElementTags {
  'agent-capability': AgentCapabilityTag;
  'agent-chat': AgentChatTag;
  'agent-confirm': AgentConfirmTag;
  'agent-surface': AgentSurfaceTag;
  'agent-view': AgentViewTag;
  'agent-webmcp': AgentWebmcpTag;
}
