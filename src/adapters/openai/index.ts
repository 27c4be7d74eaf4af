/**
 * `createOpenAICompatibleAdapter`: an AgentAdapter over any Chat Completions server (hosted
 * services, Ollama, llama.cpp's llama-server, LM Studio, vLLM), with the tool loop in the page.
 */
import { openAIIdentity, trimBase } from '../identity.js';
import { httpAdapter, type CheckedAdapter } from '../shared/adapter.js';
import { dataMarker, toTurns, type OutputOptions } from '../shared/history.js';
import type { Fetch } from '../shared/sse.js';
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
  /** Sent as `max_tokens` when it is a number of at least 1 (cut to a whole number); otherwise the server's default. */
  maxOutputTokens?: number;
  /** Longest wait for the response or the next chunk before the run fails as `network`. Default 120 000. */
  timeoutMs?: number;
  /** Check the server with `GET {baseUrl}/models` when the status is first read. Default true. */
  check?: boolean;
  id?: string;
  label?: string;
}

export type OpenAICompatibleAdapter = CheckedAdapter;

export function createOpenAICompatibleAdapter(o: OpenAICompatibleAdapterOptions): OpenAICompatibleAdapter {
  const identity = openAIIdentity(o);
  const base = trimBase(o.baseUrl);
  const marker = dataMarker();
  return httpAdapter(o, identity, {
    who: `The model server at ${base}`,
    headers: () => ({ ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}), ...o.headers }),
    checkUrl: `${base}/models`,
    step: (s, post) => openAIStep(`${base}/chat/completions`, openAIBody(toTurns(s.messages, s.tools, marker, o), s.tools, s.agent?.instructions, { ...o, base }), post),
  });
}
