/**
 * The shell every HTTP model adapter shares: id and label, the connection-checked status, and
 * `run` as the tool loop over the provider's step.
 */
import type { AgentAdapter } from '../../chat/types.js';
import { toolLoop, type StepInput, type StepPart } from './loop.js';
import { DEFAULT_TIMEOUT_MS, request, type Fetch, type PostOptions } from './sse.js';
import { connectionStatus } from './status.js';

/** The options every HTTP adapter takes. */
export interface HttpOptions {
  fetch?: Fetch;
  timeoutMs?: number;
  maxSteps?: number;
  /** GET the check URL when the status is first read. Default true. */
  check?: boolean;
}

export interface HttpAdapterSpec {
  id: string;
  label: string;
  who: string;
  headers: () => Record<string, string>;
  /** The URL a GET checks the server with. */
  checkUrl: string;
  step(input: StepInput, post: PostOptions): AsyncIterable<StepPart>;
}

/** The adapter, plus `recheck()` to run the connection check again (after starting a server, say). */
export type CheckedAdapter = AgentAdapter & { recheck(): Promise<void> };

export function httpAdapter(o: HttpOptions, s: HttpAdapterSpec): CheckedAdapter {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const post = (signal?: AbortSignal, ms = timeoutMs): PostOptions => ({ fetch: o.fetch, headers: s.headers(), signal, timeoutMs: ms, who: s.who });
  const conn = connectionStatus(
    o.check !== false &&
      (async () => {
        const { res, done } = await request(s.checkUrl, post(undefined, Math.min(timeoutMs, 15_000)));
        done();
        await res.body?.cancel();
      }),
  );
  return {
    id: s.id,
    label: s.label,
    status: conn.status,
    subscribe: conn.subscribe,
    recheck: conn.recheck,
    async *run(req) {
      for await (const part of toolLoop(req, (input) => s.step(input, post(input.signal)), o.maxSteps)) {
        if (part.type === 'step-finish') conn.report();
        if (part.type === 'error') conn.report(part.code ?? 'network', part.error);
        yield part;
      }
    },
  };
}
