/**
 * Requests with a deadline and server-sent event streams, shared by every adapter. Events are
 * parsed by `eventsource-parser`; bytes are decoded with a streaming TextDecoder so a character
 * split across network chunks arrives whole.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { AdapterError, httpError, toAdapterError } from './errors.js';

export type Fetch = typeof fetch;

/** Default idle limit: the longest wait for response headers or for the next chunk of a stream. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Aborts when `outer` aborts or when `arm()` is not called again within `ms` (a stalled server).
 * `timedOut` tells the two apart afterwards.
 */
export function deadline(outer: AbortSignal | undefined, ms: number) {
  const ctl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const state = { timedOut: false };
  const stop = () => ctl.abort(outer?.reason);
  if (outer?.aborted) stop();
  else outer?.addEventListener('abort', stop, { once: true });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.timedOut = true;
      ctl.abort(new AdapterError('network', `No answer for ${Math.round(ms / 1000)} s: the server stalled`));
    }, ms);
  };
  const done = () => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', stop);
  };
  arm();
  return { signal: ctl.signal, arm, done, state };
}

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
 * POSTs `body` as JSON and yields the response's server-sent events. Throws AdapterError for HTTP
 * errors, network failures and stalls; an abort through `signal` ends with the signal's reason.
 */
export async function* postEvents(url: string, body: unknown, o: PostOptions): AsyncGenerator<EventSourceMessage> {
  const d = deadline(o.signal, o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const fail = (e: unknown) => {
    if (o.signal?.aborted) throw o.signal.reason;
    if (d.state.timedOut) throw d.signal.reason;
    throw toAdapterError(e, o.who);
  };
  try {
    let res: Response;
    try {
      res = await (o.fetch ?? fetch)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...o.headers },
        body: JSON.stringify(body),
        signal: d.signal,
      });
    } catch (e) {
      return fail(e);
    }
    if (!res.ok) throw await httpError(res, o.who, o.quiet);
    if (!res.body) throw new AdapterError('network', `${o.who} sent no response body`);
    const queue: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => queue.push(e) });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        d.arm();
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          return fail(e);
        }
        // At the end an unterminated event is dropped, as the SSE spec says: the caller notices
        // the missing end-of-stream event and reports a cut-off reply.
        parser.feed(chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true }));
        while (queue.length) yield queue.shift()!;
        if (chunk.done) return;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  } finally {
    d.done();
  }
}

/** An event's data as JSON, or an AdapterError naming the server. */
export function json(e: EventSourceMessage, who: string): unknown {
  try {
    return JSON.parse(e.data);
  } catch {
    throw new AdapterError('network', `${who} sent a stream event that is not JSON`);
  }
}
