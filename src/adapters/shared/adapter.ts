/**
 * The shell every HTTP model adapter shares: id and label, the connection-checked status, and
 * `run` as the tool loop over the provider's step.
 */
import type { AdapterStatus, AgentAdapter, AgentErrorCode } from '../../chat/types.js';
import { AdapterError, errorText, toolLoop, type StepInput, type StepPart } from './loop.js';
import { postEvents, type Fetch, type PostOptions } from './sse.js';

/** The options every HTTP adapter takes. */
export interface HttpOptions {
  fetch?: Fetch;
  timeoutMs?: number;
  maxSteps?: number;
  /** GET the check URL when the status is first read. Default true. */
  check?: boolean;
}

export interface HttpAdapterSpec {
  who: string;
  headers: () => Record<string, string> | undefined;
  /** The URL a GET checks the server with. */
  checkUrl: string;
  step(input: StepInput, post: PostOptions): AsyncIterable<StepPart>;
}

/** The adapter, plus `recheck()` to run the connection check now (after starting a server, say). */
export type CheckedAdapter = AgentAdapter & { recheck(): Promise<void> };

/**
 * `status()` is `loading` while a connection check runs (started lazily, by the first `status()`
 * or `subscribe()`, never at creation), then `ready` or `unavailable` with the reason; while
 * unavailable and listened to, it checks again now and then. Runs update it: a reply makes it
 * `ready`; after a network failure (a 5xx, a dropped stream, a stall) the run checks the server
 * before it ends, and only a server the check cannot reach makes it `unavailable`, so one failed
 * reply from a server that is up leaves Send and Retry on.
 */
export function httpAdapter(o: HttpOptions, identity: { id: string; label: string }, s: HttpAdapterSpec): CheckedAdapter {
  // The adapter's options carry `fetch` and `timeoutMs`; the rest is the spec's and the call's.
  const post = (signal?: AbortSignal, timeoutMs = o.timeoutMs): PostOptions => ({ ...o, headers: s.headers(), signal, timeoutMs, who: s.who });
  const check = o.check !== false;
  let current: AdapterStatus = { state: check ? 'loading' : 'ready' };
  let started = !check;
  const listeners = new Set<() => void>();
  const set = (next: AdapterStatus) => {
    current = next;
    for (const l of [...listeners]) l();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wait = 0;
  /**
   * While unavailable and listened to (the widget keeps Send off then), look again after 10 s, then
   * less often: the server may start, the session come back. Without connection checks the status just turns
   * ready again, so the person can retry. Unref'd in Node: it never keeps a process up.
   */
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(() => listeners.size && current.state === 'unavailable' && (check ? recheck(true) : set({ state: 'ready' })), (wait = Math.min(wait * 2 || 10_000, 120_000)));
    (timer as { unref?(): void }).unref?.();
  };
  /**
   * An outcome: no code is a reply. Failing to reach the server, bad credentials and a chat
   * switched off (lasting refusals) make it unavailable; any other answer, a refusal included,
   * proves the server is there.
   */
  const report = (code?: AgentErrorCode, reason = ''): void => {
    started = true;
    if (code === 'network' || code === 'chat_disabled' || /credentials/.test(reason)) {
      set({ state: 'unavailable', reason });
      later();
    } else {
      wait = 0;
      if (current.state !== 'ready') set({ state: 'ready' });
    }
  };
  /** `quiet`: the periodic check, which keeps the status as it is until the answer. */
  const recheck = async (quiet?: boolean): Promise<void> => {
    started = true;
    if (!check) return;
    if (!quiet && current.state !== 'loading') set({ state: 'loading' });
    try {
      await postEvents(s.checkUrl, undefined, post(undefined, Math.min(o.timeoutMs! > 0 ? o.timeoutMs! : 15_000, 15_000))).next();
      report();
    } catch (e) {
      report(e instanceof AdapterError ? e.code : 'network', errorText(e));
    }
  };
  return {
    ...identity,
    status: () => (started || void recheck(), current),
    subscribe(listener) {
      listeners.add(listener);
      if (!started) void recheck();
      // A chat mounted again while unavailable: its timer may have passed unheard.
      else if (current.state === 'unavailable') later();
      return () => listeners.delete(listener);
    },
    recheck,
    async *run(req) {
      let failed;
      try {
        for await (const part of toolLoop(req, (input) => s.step(input, post(input.signal)), o.maxSteps)) {
          // The loop's error parts always carry a code. Without checks a network failure is all it knows.
          if (part.type === 'error') {
            if (!(failed = check && part.code === 'network')) report(part.code, part.error);
          } else if (part.type === 'step-finish') report();
          yield part;
        }
      } finally {
        // The error is shown first; the status follows the check's answer.
        if (failed) await recheck(true);
      }
    },
  };
}
