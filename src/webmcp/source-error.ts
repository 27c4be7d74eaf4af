/**
 * The ToolSource's errors as data: `ToolSourceError` and the `ok: false` result built from one,
 * shared by the source (source.ts) and the engine it loads (source-engine.ts).
 */
import { errorPayload } from '../core/errors.js';
import { toToolResult } from '../core/tool-result.js';
import type { AgentErrorCode, AgentRetry, InvocationFailure, JsonObject } from '../core/types.js';
import type { ToolSourceErrorCode, ToolSourceErrorPayload, ToolSourceResult, WebMcpSourceOptions } from './types.js';

// Every other code (UNSUPPORTED_WEBMCP, EXECUTION_FAILED, CANCELLED, DISPOSED) is retry "no".
const RETRY: Record<string, AgentRetry> = {
  STALE_TOOLS: 'after-refresh',
  TOOL_NOT_FOUND: 'after-refresh',
  INVALID_INPUT: 'with-changes',
};

export const DISPOSED_MESSAGE = 'This tool source was disposed.';
export const DISCOVERY_CANCELLED_MESSAGE = 'Discovery was cancelled.';

/** What `discover()` throws (and what `ok: false` results carry): an error as data. */
export class ToolSourceError extends Error {
  readonly code: ToolSourceErrorCode;
  readonly retry: AgentRetry;
  readonly details?: JsonObject;

  constructor(code: ToolSourceErrorCode, message: string, details?: JsonObject) {
    super(message);
    this.name = 'ToolSourceError';
    this.code = code;
    this.retry = RETRY[code] ?? 'no';
    if (details !== undefined) this.details = details;
  }

  toPayload(): ToolSourceErrorPayload {
    // The registry's payload shape: { code, message, retry, details? }.
    return errorPayload(this.code as AgentErrorCode, this.message, this.details, this.retry) as ToolSourceErrorPayload;
  }
}

/** An `ok: false` result whose MCP content carries the error payload. */
export function failed(code: ToolSourceErrorCode, message: string, details?: JsonObject): ToolSourceResult {
  const error = new ToolSourceError(code, message, details).toPayload();
  // The MCP shape a registry call's failure has (toToolResult copies the payload).
  return { ok: false, code, error, result: toToolResult({ ok: false, error } as unknown as InvocationFailure) };
}

/** Options that are not an object are a programmer mistake: say so at construction. */
export function checkSourceOptions(options: WebMcpSourceOptions): void {
  if (options === null || (typeof options !== 'object' && typeof options !== 'function')) {
    throw new TypeError('createWebMcpSource(options): options must be an object (or left out).');
  }
}
