/**
 * The DOM events the elements fire. Each is a small `Event` subclass with a typed `detail`, declared
 * in `GlobalEventHandlersEventMap` so `addEventListener('agent-…', e => e.detail…)` is typed.
 */
import type {
  AgentConsumer,
  CapabilityKind,
  ConfirmationEvent,
  DefinitionErrorPayload,
  InvocationEvent,
  JsonObject,
} from '../core/types.js';

/** Fired by `<agent-surface>` whenever anything model-visible changed (coalesced per microtask). */
export class AgentSurfaceChangedEvent extends Event {
  static readonly eventName = 'agent-surface-changed';
  readonly detail: { readonly surfaceVersion: string };

  constructor(surfaceVersion: string) {
    super(AgentSurfaceChangedEvent.eventName, { bubbles: true, composed: true });
    this.detail = { surfaceVersion };
  }
}

/** Fired by `<agent-surface>` after every call through its registry: the audit record. */
export class AgentInvocationEvent extends Event {
  static readonly eventName = 'agent-invocation';
  readonly detail: InvocationEvent;

  constructor(detail: InvocationEvent) {
    super(AgentInvocationEvent.eventName, { bubbles: true, composed: true });
    this.detail = detail;
  }
}

/** Fired by `<agent-surface>` when a confirmation is created, approved, denied, expires or is used. */
export class AgentConfirmationEvent extends Event {
  static readonly eventName = 'agent-confirmation';
  readonly detail: ConfirmationEvent;

  constructor(detail: ConfirmationEvent) {
    super(AgentConfirmationEvent.eventName, { bubbles: true, composed: true });
    this.detail = detail;
  }
}

export interface AgentInvokeDetail {
  readonly capabilityId: string;
  readonly instanceId?: string;
  readonly kind: CapabilityKind;
  /** The validated input. */
  readonly input: JsonObject;
  readonly invocationId: string;
  readonly consumer: AgentConsumer;
  /** Aborts when the call times out, is cancelled or the capability goes away. */
  readonly signal: AbortSignal;
  /**
   * Answers the call with a value or a promise of one. Call it while the event is dispatched
   * (synchronously in a listener), once. Throw (or reject with) an `AgentSurfaceError` to fail with
   * a code of your choosing.
   */
  respondWith(response: unknown): void;
}

/**
 * Fired by an `<agent-capability>` that has no `.handler` (actions) or `.read` (observations) when
 * an agent calls it. Answer with `event.detail.respondWith(promise)` during dispatch; unanswered calls
 * fail with `EXECUTION_FAILED` and `details.reason: "no-handler"`. Bubbles, not composed: answer it
 * in the component that renders the capability.
 */
export class AgentInvokeEvent extends Event {
  static readonly eventName = 'agent-invoke';
  readonly detail: AgentInvokeDetail;

  constructor(detail: AgentInvokeDetail) {
    super(AgentInvokeEvent.eventName, { bubbles: true, composed: false });
    this.detail = detail;
  }
}

/**
 * Fired by an `<agent-capability>` (or `<agent-view>`) whose declaration was refused: by the markup
 * rules (`INVALID_CONTRACT`) or by the authority (`UNAUTHORIZED_CONTRACT`). Nothing was registered.
 */
export class AgentCapabilityRefusedEvent extends Event {
  static readonly eventName = 'agent-capability-refused';
  readonly detail: { readonly capabilityId?: string; readonly error: DefinitionErrorPayload };

  constructor(error: DefinitionErrorPayload, capabilityId?: string) {
    super(AgentCapabilityRefusedEvent.eventName, { bubbles: true, composed: true });
    this.detail = capabilityId === undefined ? { error } : { capabilityId, error };
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-surface-changed': AgentSurfaceChangedEvent;
    'agent-invocation': AgentInvocationEvent;
    'agent-confirmation': AgentConfirmationEvent;
    'agent-invoke': AgentInvokeEvent;
    'agent-capability-refused': AgentCapabilityRefusedEvent;
  }
}
