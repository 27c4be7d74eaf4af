/**
 * The shell every HTTP model adapter shares: id and label, the connection-checked status, and
 * `run` as the tool loop over the provider's step.
 */
import type { AgentAdapter } from '../../chat/types.js';
import { AdapterError, httpError, toAdapterError } from './errors.js';
import { toolLoop, type StepInput, type StepPart } from './loop.js';
import { deadline, DEFAULT_TIMEOUT_MS, type Fetch, type PostOptions } from './sse.js';
import { connectionStatus } from './status.js';

export interface HttpAdapterSpec {
  id: string;
  label: string;
  who: string;
  fetch?: Fetch;
  timeoutMs?: number;
  headers: () => Record<string, string>;
  /** GET this URL to check the server; false skips the check. */
  checkUrl: string | false;
  maxSteps?: number;
  step(input: StepInput, post: PostOptions): AsyncIterable<StepPart>;
}

/** The adapter, plus `recheck()` to run the connection check again (after starting a server, say). */
export type CheckedAdapter = AgentAdapter & { recheck(): Promise<void> };

export function httpAdapter(s: HttpAdapterSpec): CheckedAdapter {
  const timeoutMs = s.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const url = s.checkUrl;
  const conn = connectionStatus(
    url !== false &&
      (async () => {
        const d = deadline(undefined, Math.min(timeoutMs, 15_000));
        try {
          const res = await (s.fetch ?? fetch)(url, { headers: s.headers(), signal: d.signal }).catch((e) => {
            throw toAdapterError(d.state.timedOut ? d.signal.reason : e, s.who);
          });
          if (!res.ok) throw await httpError(res, s.who);
          await res.body?.cancel();
        } finally {
          d.done();
        }
      }),
  );
  return {
    id: s.id,
    label: s.label,
    status: conn.status,
    subscribe: conn.subscribe,
    recheck: conn.recheck,
    async *run(req) {
      const post = (signal: AbortSignal): PostOptions => ({ fetch: s.fetch, headers: s.headers(), signal, timeoutMs, who: s.who });
      for await (const part of toolLoop(req, (input) => s.step(input, post(input.signal)), s.maxSteps)) {
        if (part.type === 'step-finish') conn.report();
        if (part.type === 'error') conn.report(new AdapterError(part.code ?? 'network', part.error));
        yield part;
      }
    },
  };
}
