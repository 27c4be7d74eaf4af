/**
 * `createAnthropicAdapter`: an AgentAdapter over Anthropic's Messages API (or a server speaking
 * it), with the tool loop in the page.
 */
import { anthropicIdentity } from '../identity.js';
import { httpAdapter, type CheckedAdapter } from '../shared/adapter.js';
import { dataMarker, toTurns, type OutputOptions } from '../shared/history.js';
import type { Fetch } from '../shared/sse.js';
import { anthropicBase, anthropicBody, anthropicStep, type AnthropicBodyOptions } from './protocol.js';

export interface AnthropicAdapterOptions extends OutputOptions, AnthropicBodyOptions {
  /** Default `https://api.anthropic.com`; the adapter adds `/v1/messages` (to a root written with `/v1`, only `/messages`). */
  baseUrl?: string;
  /** Sent as `x-api-key`. In a browser this exposes the key to the page: prefer createCloudAdapter. */
  apiKey?: string;
  /** Default `2023-06-01`. */
  version?: string;
  headers?: Record<string, string>;
  fetch?: Fetch;
  /** Model steps per run; default `req.agent.maxSteps`, else 8. */
  maxSteps?: number;
  /** Longest wait for the response or the next event before the run fails as `network`. Default 120 000. */
  timeoutMs?: number;
  /** Check the server with `GET {baseUrl}/v1/models` when the status is first read. Default true. */
  check?: boolean;
  id?: string;
  label?: string;
}

export type AnthropicAdapter = CheckedAdapter;

export function createAnthropicAdapter(o: AnthropicAdapterOptions): AnthropicAdapter {
  const identity = anthropicIdentity(o);
  const base = anthropicBase(o.baseUrl);
  const marker = dataMarker();
  return httpAdapter(o, identity, {
    who: `The Anthropic API at ${base}`,
    headers: () => ({
      'anthropic-version': o.version ?? '2023-06-01',
      // The API refuses browser requests without this; a key in a page is the app's own choice.
      ...(o.apiKey ? { 'x-api-key': o.apiKey, 'anthropic-dangerous-direct-browser-access': 'true' } : {}),
      ...o.headers,
    }),
    checkUrl: `${base}/v1/models`,
    step: (s, post) => anthropicStep(`${base}/v1/messages`, anthropicBody(toTurns(s.messages, s.tools, marker, o), s.tools, s.agent?.instructions, o), post),
  });
}
