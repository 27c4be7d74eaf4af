/**
 * `createCloudAdapter`: the page half of the cloud pair. It talks only to the app's own server
 * (`createChatHandler` from `agent-surface-kit/server`), which holds the provider key and the
 * agents' instructions. Each model step is one POST of the conversation, the live tool
 * descriptors and the agent id (never instructions, never keys); the server streams that step's
 * parts back and the page runs the tools, then posts the next step.
 */
import type { AgentMessage, AgentPart, AgentToolPart, ToolDescriptor } from '../chat/types.js';
import { cloudIdentity } from './identity.js';
import { httpAdapter, type CheckedAdapter } from './shared/adapter.js';
import { AdapterError, type StepPart } from './shared/loop.js';
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

/**
 * What the server needs of a part: no prompts, no nested sub-agent runs. Text and reasoning have no
 * tool fields and a tool part no text: fields left undefined are left out of the JSON.
 */
const wirePart = ({ type, text, id, name, input, state, output, error, providerMetadata }: WirePart): WirePart | [] =>
  type === 'text' || type === 'reasoning' || type === 'tool'
    ? // Of an output only its text items reach the model: images and structuredContent stay in the
      // page, so they do not fill the server's body limit.
      { type, text, id, name, input, state, output: output && { content: (Array.isArray(output.content) ? output.content : []).filter((c) => c?.type === 'text'), isError: output.isError }, error, providerMetadata }
    : [];

/** Any part, read through the fields the wire keeps. */
type WirePart = { type: AgentPart['type'] } & Partial<Omit<AgentToolPart, 'type'> & { text: string }>;

export const wireMessages = (messages: readonly AgentMessage[]) =>
  messages.map((m) => ({ id: m.id, role: m.role, parts: (m.parts ?? []).flatMap(wirePart) }));

export const wireTools = (tools: readonly ToolDescriptor[]) =>
  tools.map(({ name, description, inputSchema, untrustedOutput }) => ({ name, description, inputSchema, untrustedOutput }));

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
  // Without the option the server's own limit ends the run (it answers max-steps); 100 steps is only the page's backstop.
  return httpAdapter({ ...o, maxSteps: o.maxSteps ?? 100, fetch: checked }, cloudIdentity(o), {
    who,
    headers: () => o.headers,
    checkUrl: o.endpoint,
    async *step(s, post) {
      const body = { agent: s.agent?.id ?? o.agent, messages: wireMessages(s.messages), tools: wireTools(s.tools) };
      for await (const e of postEvents(o.endpoint, body, post)) {
        const p = json(e, who) as Record<string, unknown>;
        const type = p?.type;
        // The loop reads a part's own fields only (a delta's text, a call's id, name and input).
        if ((type === 'text-delta' && typeof p.delta === 'string') || (type === 'reasoning' && typeof p.text === 'string') || type === 'tool-call') yield p as StepPart;
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
