import type {
  AgentErrorCode,
  AgentErrorPayload,
  AgentRetry,
  DefinitionErrorCode,
  DefinitionErrorPayload,
  JsonObject,
} from './types.js';

/** The retry advice that goes with each code unless a caller says otherwise. */
export const DEFAULT_RETRY: Readonly<Record<AgentErrorCode, AgentRetry>> = Object.freeze({
  CAPABILITY_NOT_FOUND: 'after-refresh',
  CAPABILITY_NOT_AVAILABLE: 'after-refresh',
  AMBIGUOUS_INSTANCE: 'with-changes',
  COMPONENT_UNMOUNTED: 'after-refresh',
  STALE_CAPABILITY: 'after-refresh',
  INVOCATION_CONFLICT: 'with-changes',
  INVALID_INPUT: 'with-changes',
  NOT_AUTHORIZED: 'no',
  PRECONDITION_FAILED: 'with-changes',
  CONFIRMATION_REQUIRED: 'with-confirmation',
  CONFIRMATION_INVALID: 'no',
  RATE_LIMITED: 'after-delay',
  TIMEOUT: 'yes',
  CANCELLED: 'no',
  EXECUTION_FAILED: 'no',
});

export function errorPayload(
  code: AgentErrorCode,
  message: string,
  details?: JsonObject,
  retry: AgentRetry = DEFAULT_RETRY[code],
): AgentErrorPayload {
  return details === undefined ? { code, message, retry } : { code, message, retry, details };
}

/**
 * An error a capability handler may throw on purpose: its payload reaches the agent unchanged.
 * Anything else a handler throws becomes a generic `EXECUTION_FAILED`.
 */
export class AgentSurfaceError extends Error {
  readonly code: AgentErrorCode;
  readonly retry: AgentRetry;
  readonly details?: JsonObject;

  constructor(code: AgentErrorCode, message: string, { retry, details }: { retry?: AgentRetry; details?: JsonObject } = {}) {
    super(message);
    this.name = 'AgentSurfaceError';
    this.code = code;
    this.retry = retry ?? DEFAULT_RETRY[code];
    if (details !== undefined) this.details = details;
  }

  toPayload(): AgentErrorPayload {
    return errorPayload(this.code, this.message, this.details, this.retry);
  }
}

/** Thrown for a programmer's mistake while defining or registering a capability. */
export class AgentSurfaceDefinitionError extends Error {
  readonly code: DefinitionErrorCode;
  readonly details?: JsonObject;

  constructor(code: DefinitionErrorCode, message: string, details?: JsonObject) {
    super(message);
    this.name = 'AgentSurfaceDefinitionError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  toPayload(): DefinitionErrorPayload {
    const { code, message, details } = this;
    return details === undefined ? { code, message } : { code, message, details };
  }
}

export function isAgentSurfaceError(value: unknown): value is AgentSurfaceError {
  return value instanceof AgentSurfaceError;
}
