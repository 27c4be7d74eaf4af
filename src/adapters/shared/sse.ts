/**
 * Requests with a deadline and server-sent event streams, shared by every adapter. Events are
 * parsed by `eventsource-parser`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { cutOff, httpError, networkError, toAdapterError } from './errors.js';

export type Fetch = typeof fetch;

/** Default idle limit: the longest wait for response headers or for the next chunk of a stream. */
export const DEFAULT_TIMEOUT_MS = 120_000;

export interface PostOptions {
  fetch?: Fetch;
  headers: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Names the server in error messages. */
  who: string;
  /** Leave the server's own words out of error messages (the chat server). */
  quiet?: boolean;
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
  const ms = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ctl.abort(networkError(`No answer for ${Math.round(ms / 1000)} s: the server stalled`)), ms);
  };
  const fail = (e: unknown): never => {
    throw signal.aborted ? signal.reason : toAdapterError(e, o.who);
  };
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    arm();
    const init: RequestInit =
      body === undefined
        ? { headers: o.headers }
        : { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...o.headers }, body: JSON.stringify(body) };
    const res = await (o.fetch ?? fetch)(url, { ...init, signal }).catch(fail);
    if (!res.ok) throw await httpError(res, o.who, o.quiet);
    // No API answers with HTML: a wrong URL reached a web app's fallback page or a sign-in page.
    if (/html/.test(res.headers.get('content-type') ?? '')) throw networkError(`${o.who} answered with a web page, not the API: check the URL`);
    reader = res.body?.getReader();
    if (body === undefined) return;
    // No body at all is a reply that ended before it began.
    if (!reader) throw cutOff(o.who);
    // One read per network chunk, its events parsed at once: the stall timer is re-armed per chunk.
    const queue: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => queue.push(e) });
    // A streaming decoder keeps a character split across network chunks whole.
    const decoder = new TextDecoder();
    for (let chunk: ReadableStreamReadResult<Uint8Array> | undefined; !chunk?.done; ) {
      arm();
      chunk = await reader.read().catch(fail);
      // At the end an unterminated event is dropped, as the SSE spec says: the caller notices
      // the missing end-of-stream event and reports a cut-off reply.
      parser.feed(decoder.decode(chunk.value, { stream: !chunk.done }));
      yield* queue.splice(0);
    }
  } finally {
    clearTimeout(timer);
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
