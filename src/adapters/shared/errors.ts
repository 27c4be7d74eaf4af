/**
 * Failures of a model request as the seed's `error` codes. Everything a provider or a network can
 * do wrong ends as an `AdapterError` with a `code` the widget can explain and words a person can
 * read; nothing here rethrows a raw provider body.
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

/** A network failure (the code of everything that is not the request's own fault). */
export const networkError = (message: string) => new AdapterError('network', message);

/** Untrusted text (a server's words) as one short line. */
export const line = (text: string) => {
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** `who` inside a sentence. */
const the = (who: string) => who.replace(/^The /, 'the ');

/**
 * An HTTP error response as an AdapterError, with the server's own message when it gave one (its
 * body is untrusted and may be HTML or huge). `quiet` leaves that message out: the chat server
 * uses it so a provider's words, which may quote a key, never reach the browser.
 */
export async function httpError(res: Response, who: string, quiet?: boolean): Promise<AdapterError> {
  const status = res.status;
  // `retry-after` is a number of seconds or an HTTP date.
  const after = res.headers.get('retry-after') ?? '';
  const s = /^\d/.test(after) ? +after : (Date.parse(after) - Date.now()) / 1000;
  const wait = s > 0 ? Math.ceil(s) : s <= 0 ? 0 : undefined;
  const body = quiet ? '' : await res.text().catch(() => '');
  let said: unknown = body;
  try {
    // `{ error: { message } }`, `{ error: "…" }`, `{ detail: "…" }` or a JSON string.
    said = JSON.parse(body);
    said = (said as { error?: unknown }).error ?? said;
    said = (said as { message?: unknown }).message ?? (said as { detail?: unknown }).detail ?? said;
  } catch {
    // Not JSON: the text itself, unless it looks like an HTML error page.
    if (/^\s*</.test(body)) said = '';
  }
  said = typeof said === 'string' && line(said);
  const [code, what, then = ''] =
    status === 429
      ? ['rate_limited', 'is rate limiting requests', wait === undefined ? '' : `; try again in ${wait} s`]
      : status > 499 || status === 408
        ? ['network', 'failed']
        : status === 401 || status === 403
          ? ['bad_request', 'refused the credentials', '; check the API key']
          : ['bad_request', 'rejected the request'];
  return new AdapterError(code as AgentErrorCode, `${who} ${what} (HTTP ${status})${then}${said ? `: ${said}` : '.'}`, wait);
}

/** Whatever was thrown, as an AdapterError (a fetch `TypeError` is a network failure). */
export function toAdapterError(e: unknown, who: string): AdapterError {
  if (e instanceof AdapterError) return e;
  // Node's fetch TypeError says only "fetch failed"; its cause names the socket error (ECONNREFUSED).
  const cause = (e as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const detail = cause?.code ?? cause?.message;
  const why = e instanceof Error && e.message ? `: ${e.message}${typeof detail === 'string' ? ` (${detail})` : ''}` : '';
  return networkError(`Could not reach ${the(who)}${why}`);
}

/** A stream that ended without its end-of-reply event. */
export const cutOff = (who: string) => networkError(`The connection to ${the(who)} closed before the reply finished`);

/** An error event inside a stream (`{ error: { type, message } }`), by the kind it names. */
export function streamError(error: unknown, who: string): AdapterError {
  const e = (error ?? {}) as { type?: unknown; code?: unknown; message?: unknown };
  const kind = `${e.type} ${e.code}`;
  return new AdapterError(
    /rate_limit/.test(kind) ? 'rate_limited' : /invalid|auth|permission|not_found|context|exceed/.test(kind) ? 'bad_request' : 'network',
    `${who} reported an error: ${typeof e.message === 'string' ? line(e.message) : 'no details'}`,
  );
}
