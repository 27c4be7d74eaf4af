/**
 * Failures of a model request as the seed's `error` codes. Everything a provider or a network can
 * do wrong ends as an `AdapterError` with a `code` the widget can explain and words a person can
 * read; nothing here rethrows a raw provider body.
 */
import type { AgentErrorCode } from '../../chat/types.js';

const CODES: unknown[] = ['chat_disabled', 'rate_limited', 'bad_request', 'network'];

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

/** A server's own message, as short plain text (bodies are untrusted and may be HTML or huge). */
export function serverMessage(body: string): string {
  let text = body;
  try {
    const json = JSON.parse(body);
    const e = json?.error ?? json;
    text = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : typeof json?.detail === 'string' ? json.detail : '';
  } catch {
    // Not JSON: keep the text unless it looks like an HTML error page.
    if (/^\s*</.test(body)) text = '';
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** A response's `retry-after` as seconds: a number of seconds or an HTTP date. */
function retryAfterSeconds(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (!value) return undefined;
  const n = Number(value);
  if (Number.isFinite(n) && n >= 0) return Math.ceil(n);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * An HTTP error response as an AdapterError. `quiet` leaves the server's own message out (the chat
 * server uses it so a provider's words, which may quote a key, never reach the browser).
 */
export async function httpError(res: Response, who: string, quiet = false): Promise<AdapterError> {
  const status = res.status;
  let detail = '';
  if (!quiet) {
    try {
      const body = await res.text();
      // The chat server (createChatHandler) answers with the seed's own error part.
      const part = /^\s*\{/.test(body) ? JSON.parse(body) : undefined;
      if (part?.type === 'error' && typeof part.error === 'string' && CODES.includes(part.code))
        return new AdapterError(part.code, serverMessage(JSON.stringify(part)), retryAfterSeconds(res));
      detail = serverMessage(body);
    } catch {
      // The body could not be read or parsed: the status says enough.
    }
  }
  const said = detail ? `: ${detail}` : '.';
  if (status === 401 || status === 403)
    return new AdapterError('bad_request', `${who} refused the credentials (HTTP ${status}); check the API key${said}`);
  if (status === 429) {
    const wait = retryAfterSeconds(res);
    return new AdapterError(
      'rate_limited',
      `${who} is rate limiting requests${wait === undefined ? '' : `; try again in ${wait} s`}${said}`,
      wait,
    );
  }
  if (status >= 500) return new AdapterError('network', `${who} failed (HTTP ${status})${said}`);
  return new AdapterError('bad_request', `${who} rejected the request (HTTP ${status})${said}`);
}

/** Whatever was thrown, as an AdapterError (a fetch `TypeError` is a network failure). */
export function toAdapterError(e: unknown, who: string): AdapterError {
  if (e instanceof AdapterError) return e;
  // fetch's TypeError says only "fetch failed"; its cause names the socket error (ECONNREFUSED).
  const cause = (e as { cause?: { code?: unknown; message?: unknown } })?.cause;
  const detail = cause?.code ?? cause?.message;
  const why = e instanceof Error && e.message ? `: ${e.message}${typeof detail === 'string' ? ` (${detail})` : ''}` : '';
  return new AdapterError('network', `Could not reach ${who.replace(/^The /, 'the ')}${why}`);
}

/** An error event inside a stream (`{ error: { type, message } }`), by the kind it names. */
export function streamError(error: unknown, who: string): AdapterError {
  const e = (error ?? {}) as { type?: unknown; code?: unknown; message?: unknown };
  const kind = `${e.type ?? ''} ${e.code ?? ''}`;
  const message = `${who} reported an error: ${typeof e.message === 'string' ? serverMessage(JSON.stringify({ error: e.message })) : 'no details'}`;
  if (/rate_limit/.test(kind)) return new AdapterError('rate_limited', message);
  if (/invalid_request|authentication|permission|not_found|context|exceed/.test(kind)) return new AdapterError('bad_request', message);
  return new AdapterError('network', message);
}
