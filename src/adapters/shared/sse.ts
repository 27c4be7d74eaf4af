/**
 * Requests with a deadline and server-sent event streams, shared by the HTTP adapters and the chat
 * server, and their failures as AdapterErrors: everything a provider or a network can do wrong ends
 * with a seed code and words a person can read; nothing here rethrows a raw provider body. Events
 * are parsed by `eventsource-parser`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { AgentErrorCode } from '../../chat/types.js';
import { AdapterError } from './loop.js';

export type Fetch = typeof fetch;

export interface PostOptions {
  fetch?: Fetch;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Names the server in error messages. */
  who: string;
}

/**
 * Fetches `url` (a JSON POST of `body`, or a GET without one) under an idle deadline and yields
 * the response's server-sent events; a GET yields none (its headers answer a connection check).
 * The request aborts when `o.signal` aborts or when the response or its next chunk takes longer
 * than the timeout (a stalled server). Throws AdapterError for HTTP errors, network failures and
 * stalls; an abort through `o.signal` ends with the signal's reason.
 */
export async function* postEvents(url: string, body: unknown, o: PostOptions): AsyncGenerator<EventSourceMessage> {
  const ctl = new AbortController();
  // Aborts for the outer signal or a stall: either way its reason says why.
  const signal = o.signal ? AbortSignal.any([o.signal, ctl.signal]) : ctl.signal;
  // The longest wait for response headers or for the next chunk of a stream: 120 s unless said.
  // Not a positive number (NaN, 0, '120000') is the default; at most what setTimeout holds (past it,
  // Infinity included, a timer fires at once): either way the request failed as stalled at its start.
  const ms = Math.min(2 ** 31 - 1, typeof o.timeoutMs === 'number' && o.timeoutMs > 0 ? o.timeoutMs : 120_000);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ctl.abort(networkError(`No answer for ${+(ms / 1000).toFixed(1)} s: the server stalled`)), ms);
  };
  const fail = (e: unknown): never => {
    throw signal.aborted ? signal.reason : toAdapterError(e, o.who);
  };
  // Every wait ends when the signal aborts (Stop, or the stall timer), whether or not the fetch
  // honours it: a fetch passed in (a test double, a wrapper) may ignore the signal, and a body it
  // streams would otherwise keep the run waiting after Stop or past the deadline.
  // `fail` then throws the signal's reason; an abort comes first, even over an answer already there.
  let onAbort: () => void;
  const aborted = new Promise<never>((_, no) => signal.addEventListener('abort', (onAbort = no)));
  aborted.catch(() => {});
  // What it no longer waits for may still fail (a body erroring on the abort): that is not an
  // unhandled rejection. Whatever a wait throws goes through `fail`.
  const race = <T>(p: Promise<T>): Promise<T> => (p.catch(() => {}), signal.aborted ? Promise.reject() : Promise.race([aborted, p])).catch(fail);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const get = body === undefined;
  try {
    arm();
    const res = await race(
      (async () =>
        (o.fetch ?? fetch)(
          url,
          get
            ? { headers: o.headers, signal }
            : { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...o.headers }, body: JSON.stringify(body), signal },
        ))(),
    );
    if (!res.ok) throw await race(httpError(res, o.who));
    // No header is null, which the tests below read as "null": no match.
    const type = res.headers.get('content-type') as string;
    // No API answers with HTML: a wrong URL reached a web app's fallback page or a sign-in page.
    if (/html/.test(type)) throw networkError(`${o.who} answered with a web page, not the API: check the URL`);
    // A server that ignores `stream: true` sends the whole reply as JSON: one event of it.
    if (!get && /json/.test(type)) return yield { data: await race(res.text()) };
    reader = res.body?.getReader();
    if (get) return;
    // No body at all is a reply that ended before it began.
    if (!reader) throw cutOff(o.who);
    // One read per network chunk, its events parsed at once: the stall timer is re-armed per chunk.
    const queue: EventSourceMessage[] = [];
    const parser = createParser({
      onEvent: (e) => queue.push(e),
      // One event that never ends (no real one comes near this) would be held until memory ran out.
      // In characters: tool arguments are refused past 1 MB, and JSON may double them.
      maxBufferSize: 8e6,
      onError: (e) => {
        if (e.type === 'max-buffer-size-exceeded') throw networkError(`${o.who} sent a stream event over 8 MB`);
      },
    });
    // A streaming decoder keeps a character split across network chunks whole.
    const decoder = new TextDecoder();
    let paused = Date.now();
    for (let chunk: ReadableStreamReadResult<Uint8Array> | undefined; !chunk?.done; ) {
      arm();
      chunk = await race(reader.read());
      // At the end an unterminated event is dropped, as the SSE spec says: the caller notices
      // the missing end-of-stream event and reports a cut-off reply.
      parser.feed(decoder.decode(chunk.value, { stream: !chunk.done }));
      yield* queue.splice(0);
      // A server faster than the page keeps every read resolved at once: without a task boundary
      // now and then, the page could neither render nor take a click (Stop) until the stream ended.
      if (Date.now() - paused > 50) {
        await new Promise((r) => setTimeout(r));
        paused = Date.now();
      }
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort!);
    reader?.cancel().catch(() => {});
  }
}

/** An event's data as JSON, or an AdapterError naming the server. */
export function json(e: EventSourceMessage, who: string): unknown {
  try {
    return JSON.parse(e.data);
  } catch {
    throw networkError(`${who} sent a stream event that is not JSON`);
  }
}

/** A network failure (the code of everything that is not the request's own fault). */
export const networkError = (message: string) => new AdapterError('network', message);

/** Untrusted text (a server's words) as one short line. */
export const line = (text: string) => {
  return (text = text.replace(/\s+/g, ' ').trim()).length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** `who` inside a sentence. */
const the = (who: string) => who.replace(/^The /, 'the ');

/**
 * The start of a response's body as text: an error body that never ends (or a huge one) is read
 * only this far, not into memory until the deadline.
 */
export async function head(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let r; text.length < 65_536 && !(r = await reader!.read()).done; ) text += decoder.decode(r.value, { stream: true });
  } catch {
    // A body that fails midway (or none): what came so far.
  }
  reader?.cancel().catch(() => {});
  return text;
}

/**
 * An HTTP error response as an AdapterError, with the server's own message when it gave one (its
 * body is untrusted and may be HTML or huge). The chat server hands it responses without a body, so
 * a provider's words, which may quote a key, never reach the browser.
 */
export async function httpError(res: Response, who: string): Promise<AdapterError> {
  const status = res.status;
  // `retry-after` is a number of seconds or an HTTP date; none is null, read as "null": neither.
  const after = res.headers.get('retry-after') as string;
  const s = /^\d/.test(after) ? +after : (Date.parse(after) - Date.now()) / 1000;
  const wait = s > 0 ? Math.ceil(s) : s <= 0 ? 0 : undefined;
  const body = await head(res);
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
          : // A 404 that is not about the model (Ollama's "model … not found") is a wrong address: `/v1` left out, say.
            status === 404 && !/model/i.test(String(said))
            ? ['bad_request', 'rejected the request', '; check the URL']
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
