/**
 * `createCloudAdapter`: the page half of the cloud pair. It talks only to the app's own server
 * (`createChatHandler` from `agent-surface-kit/server`), which holds the provider key and the
 * agents' instructions. Each model step is one POST of the conversation, the live tool
 * descriptors and the agent id (never instructions, never keys); the server streams that step's
 * parts back and the page runs the tools, then posts the next step.
 */
import type { AgentMessage, AgentPart, ProviderMetadata, ToolDescriptor } from '../chat/types.js';
import { cloudIdentity } from './identity.js';
import { httpAdapter, type CheckedAdapter } from './shared/adapter.js';
import { AdapterError } from './shared/errors.js';
import type { StepPart } from './shared/loop.js';
import { cutOff, head, json, line, postEvents, type Fetch } from './shared/sse.js';

export interface CloudAdapterOptions {
  /** The app's chat route, for example `/api/chat`. */
  endpoint: string;
  /** The agent id to send when the run has no `req.agent` (a chat without `.agent`). */
  agent?: string;
  fetch?: Fetch;
  /** Extra headers for the app's own server (a CSRF token, say). Cookies go as the page's fetch sends them. */
  headers?: Record<string, string>;
  /**
   * Model steps per run on the page's side. Default: the server's limit decides (its agent's
   * `maxSteps` and `limits.maxSteps`, which it ends the run at with `max-steps`), with 100 as a
   * backstop. `req.agent.maxSteps` is not read: the cloud adapter sends only the agent's id.
   */
  maxSteps?: number;
  /** Longest wait for the response or the next event. Default 120 000. */
  timeoutMs?: number;
  /** Check the server with `GET {endpoint}` when the status is first read. Default true. */
  check?: boolean;
  id?: string;
  label?: string;
}

export type CloudAdapter = CheckedAdapter;

/** What the server needs of a part: no prompts, no nested sub-agent runs. Fields left undefined are left out of the JSON. */
function wirePart(p: AgentPart): AgentPart | [] {
  if (p.type === 'text' || p.type === 'reasoning') return { type: p.type, text: p.text, providerMetadata: (p as { providerMetadata?: ProviderMetadata }).providerMetadata };
  if (p.type !== 'tool') return [];
  const { id, name, input, state, output, error, providerMetadata } = p;
  // Of an output only its text items reach the model: images and structuredContent stay in the
  // page, so they do not fill the server's body limit.
  const wire = output && { content: (Array.isArray(output.content) ? output.content : []).filter((c) => c?.type === 'text'), isError: output.isError };
  return { type: 'tool', id, name, input, state, output: wire, error, providerMetadata };
}

export const wireMessages = (messages: readonly AgentMessage[]) =>
  messages.map((m) => ({ id: m.id, role: m.role, parts: (m.parts ?? []).flatMap(wirePart) }));

export const wireTools = (tools: readonly ToolDescriptor[]) =>
  tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, untrustedOutput: t.untrustedOutput }));

/** The page's step limit when the option sets none: high enough that the server's own limit ends the run. */
const SERVER_DECIDES = 100;

const CODES: unknown[] = ['chat_disabled', 'rate_limited', 'bad_request', 'network'];

/** The server's error part: its code and words when they are the seed's kinds, else a network failure in our words. */
const serverError = (p: Record<string, unknown>) =>
  new AdapterError(CODES.includes(p.code) ? (p.code as AdapterError['code']) : 'network', (typeof p.error === 'string' && line(p.error)) || 'The chat server failed.');

export function createCloudAdapter(o: CloudAdapterOptions): CloudAdapter {
  const who = 'The chat server';
  // The chat server refuses with the seed's own error part: its code and words stand.
  const checked: Fetch = async (url, init) => {
    const res = await (o.fetch ?? fetch)(url, init);
    const p = (!res.ok && (await head(res.clone()).then(JSON.parse).catch(() => 0))) as Record<string, unknown> | undefined;
    if (p?.type === 'error' && typeof p.error === 'string' && CODES.includes(p.code)) throw serverError(p);
    // The app's own sign-in in front of the handler: the page has a session, not an API key.
    if (res.status === 401 || res.status === 403) throw new AdapterError('bad_request', `${who} refused the credentials of this session (HTTP ${res.status}); sign in again.`);
    return res;
  };
  return httpAdapter({ ...o, maxSteps: o.maxSteps ?? SERVER_DECIDES, fetch: checked }, cloudIdentity(o), {
    who,
    headers: () => o.headers,
    checkUrl: o.endpoint,
    async *step(s, post) {
      const body = { agent: s.agent?.id ?? o.agent, messages: wireMessages(s.messages), tools: wireTools(s.tools) };
      for await (const e of postEvents(o.endpoint, body, post)) {
        const p = json(e, who) as Record<string, unknown>;
        const type = p?.type;
        if (type === 'text-delta' && typeof p.delta === 'string') yield { type, delta: p.delta };
        else if (type === 'reasoning' && typeof p.text === 'string') yield p as StepPart;
        else if (type === 'tool-call') yield p as StepPart;
        else if (type === 'error') throw serverError(p);
        else if (type === 'finish' || type === 'step-finish') {
          if (p.reason === 'max-steps') yield { type: 'max-steps' };
          return;
        }
      }
      throw cutOff(who);
    },
  });
}
