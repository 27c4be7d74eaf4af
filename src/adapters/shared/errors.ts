/**
 * Failures of a model run as the seed's `error` codes: an `AdapterError` carries a `code` the widget
 * can explain and words a person can read. Every adapter throws it, the local one too; what maps an
 * HTTP provider's failures onto it is in ./sse.ts, which only the HTTP adapters and the chat server
 * reach (the local adapter's lazily loaded code reaches this module, and esbuild without code
 * splitting wraps every module such code reaches in a lazy-init function, so this one stays small).
 */
import type { AgentErrorCode } from '../../chat/types.js';

export class AdapterError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    /** Seconds the server asked us to wait (429 `retry-after`). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AdapterError';
  }
}

/** What was thrown, in words. */
export const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));
