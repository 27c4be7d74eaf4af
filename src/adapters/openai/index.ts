/**
 * `createOpenAICompatibleAdapter`: an AgentAdapter over any Chat Completions server (hosted
 * services, Ollama, llama.cpp's llama-server, LM Studio, vLLM), with the tool loop in the page.
 */
import type { AgentAdapter } from '../../chat/types.js';
import { dataMarker, toTurns, type OutputOptions } from '../shared/history.js';
import { toolLoop } from '../shared/loop.js';
import { deadline, DEFAULT_TIMEOUT_MS, type Fetch } from '../shared/sse.js';
import { AdapterError, httpError, toAdapterError } from '../shared/errors.js';
import { connectionStatus } from '../shared/status.js';
import { openAIBody, openAIStep } from './protocol.js';

export interface OpenAICompatibleAdapterOptions extends OutputOptions {
  /** The API root, `/v1` included: `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …`. Local servers need none. */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: Fetch;
  /** Model steps per run; default `req.agent.maxSteps`, else 8. */
  maxSteps?: number;
  /** Sent as `parallel_tool_calls` only when set (some servers reject the field). */
  parallelToolCalls?: boolean;
  /** Sent as `max_tokens` when set. */
  maxOutputTokens?: number;
  /** Longest wait for the response or the next chunk before the run fails as `network`. Default 120 000. */
  timeoutMs?: number;
  /** Check the server with `GET {baseUrl}/models` when the status is first read. Default true. */
  check?: boolean;
  id?: string;
  label?: string;
}

/** The adapter, plus `recheck()` to run the connection check again (after starting a server, say). */
export type OpenAICompatibleAdapter = AgentAdapter & { recheck(): Promise<void> };

export function createOpenAICompatibleAdapter(o: OpenAICompatibleAdapterOptions): OpenAICompatibleAdapter {
  const base = String(o.baseUrl).replace(/\/+$/, '');
  const who = `The model server at ${base}`;
  const headers = () => ({ ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}), ...o.headers });
  const marker = dataMarker();
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const conn = connectionStatus(
    o.check !== false &&
      (async () => {
        const d = deadline(undefined, Math.min(timeoutMs, 15_000));
        try {
          const res = await (o.fetch ?? fetch)(`${base}/models`, { headers: headers(), signal: d.signal }).catch((e) => {
            throw toAdapterError(d.state.timedOut ? d.signal.reason : e, who);
          });
          if (!res.ok) throw await httpError(res, who);
          await res.body?.cancel();
        } finally {
          d.done();
        }
      }),
  );
  return {
    id: o.id ?? `openai-compatible:${base}:${o.model}`,
    label: o.label ?? o.model,
    status: conn.status,
    subscribe: conn.subscribe,
    recheck: conn.recheck,
    async *run(req) {
      for await (const part of toolLoop(
        req,
        (s) =>
          openAIStep(`${base}/chat/completions`, openAIBody(toTurns(s.messages, s.tools, marker, o), s.tools, s.instructions, o), {
            fetch: o.fetch,
            headers: headers(),
            signal: s.signal,
            timeoutMs,
            who,
          }),
        o.maxSteps,
      )) {
        if (part.type === 'step-finish') conn.report();
        if (part.type === 'error') conn.report(new AdapterError(part.code ?? 'network', part.error));
        yield part;
      }
    },
  };
}
