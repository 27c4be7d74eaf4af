/**
 * `createChatHandler`: the server half of the cloud pair, a Web `Request → Response` function.
 * It holds what must never reach a browser (the provider key, the agents' instructions), looks
 * the agent up by the id the page sends, and streams one model step per request as server-sent
 * events of stream parts. The page runs the tools and posts the next step.
 *
 * Wire: `POST { agent, messages, tools }` → `text/event-stream` of `data: <AgentStreamPart>`,
 * ending with `step-finish` (tool calls to run; post again), `finish` or `error`. Refusals before
 * the stream (bad body, unknown agent, switched off, rate limited) are JSON error parts with an
 * HTTP status. `GET` answers `{ "ready": true }` when the caller may chat (the status check).
 */
import { anthropicBase, anthropicBody, anthropicStep, type AnthropicBodyOptions } from '../adapters/anthropic/protocol.js';
import { openAIBody, openAIStep } from '../adapters/openai/protocol.js';
import { hasScheme } from '../adapters/identity.js';
import { dataMarker, toTurns } from '../adapters/shared/history.js';
import { AdapterError, stepLimit, uid, usedIds, type StepPart } from '../adapters/shared/loop.js';
import type { Fetch, PostOptions } from '../adapters/shared/sse.js';
import type { AgentErrorCode, AgentMessage, AgentStreamPart, ToolDescriptor, ToolOutput } from '../chat/types.js';
import { compileScope } from '../core/scope.js';
import { decodeWireName } from '../core/wire-names.js';

interface ProviderCommon {
  model: string;
  /** Default: `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` from the server's environment. */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: Fetch;
  /** Longest wait for the provider's response or next chunk. Default 120 000. */
  timeoutMs?: number;
}
export type ChatProvider =
  | (ProviderCommon & { kind: 'openai-compatible'; baseUrl: string; parallelToolCalls?: boolean })
  | (ProviderCommon & { kind: 'anthropic'; baseUrl?: string; version?: string; thinking?: AnthropicBodyOptions['thinking'] });

export interface ChatAgentConfig {
  /** Required in an array; a record's keys are the ids. */
  id?: string;
  /** The system prompt. Stays on the server. */
  instructions: string;
  /** Model steps per run, capped by `limits.maxSteps`. */
  maxSteps?: number;
  /** Only tools whose wire name is listed or whose capability id is inside a listed prefix (whole segments), as `defineWebAgent`'s `tools`. */
  tools?: readonly string[];
  /** Overrides the provider's model for this agent. */
  model?: string;
}

export interface ChatLimits {
  /** Model steps per run. Default 8. */
  maxSteps?: number;
  /** Request body size in bytes. Default 1 000 000. */
  maxBodyBytes?: number;
  /** Tool descriptors per request. Default 128. */
  maxTools?: number;
  /** The provider's output token limit per step. Default 4096. */
  maxOutputTokens?: number;
  /** Requests per client per minute. Default 60. */
  requestsPerMinute?: number;
  /** Tool outputs are cut to this many characters before they reach the model. Default 20 000. */
  maxToolOutputChars?: number;
}

export interface ChatHandlerOptions {
  provider: ChatProvider;
  agents: readonly (ChatAgentConfig & { id: string })[] | Record<string, ChatAgentConfig>;
  limits?: ChatLimits;
  /** The app's own session check; false (or a throw) answers `chat_disabled`. */
  authorize?: (request: Request) => boolean | Promise<boolean>;
  /** false switches the chat off: every request answers `chat_disabled`. Default true. */
  enabled?: boolean;
  /**
   * Who is asking, for the rate limit. Default: the `clientId` the runtime adapter passes (the
   * socket address under `toNodeListener`), else `cf-connecting-ip` / `x-real-ip` /
   * the first `x-forwarded-for` entry, else one shared bucket.
   */
  clientId?: (request: Request) => string | undefined;
  /**
   * Server-side logging of provider and internal failures (the browser gets words without details).
   * Default: `console.error`, so a misconfigured provider is seen in the server's log; pass your logger,
   * or `() => {}` for none.
   */
  onError?: (error: unknown, request: Request) => void;
  /** The clock for the rate limit (tests pass their own). Default `Date.now`. */
  now?: () => number;
}

export interface ChatRequestContext {
  /** The caller's address or id, when the runtime knows it. */
  clientId?: string;
}

export type ChatHandler = (request: Request, context?: ChatRequestContext) => Promise<Response>;

/** Clients the rate limit remembers at once. */
const MAX_CLIENTS = 10_000;

const ERROR_STATUS: Record<AgentErrorCode, number> = { bad_request: 400, chat_disabled: 403, rate_limited: 429, network: 502 };

function refuse(code: AgentErrorCode, error: string, status = ERROR_STATUS[code], headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: 'error', error, code }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

/** Without `onError`, failures go to the server's log with the request they failed. */
const logError = (error: unknown, request: Request) => console.error(`agent-surface-kit/server: ${request.method} ${request.url} failed:`, error);

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name] ??
  (globalThis as { Deno?: { env?: { get(n: string): string | undefined } } }).Deno?.env?.get(name);

async function readBody(request: Request, max: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length'));
  if (declared > max) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Deeper JSON than this is refused before anything reads it: serializing it for the provider would overflow the stack. */
const MAX_DEPTH = 100;

/** Whether a parsed body nests deeper than `MAX_DEPTH` (an explicit stack: the check itself must not recurse). */
function tooDeep(root: unknown): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_DEPTH) return true;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** A posted tool output reduced to what a model step reads: its text items and whether it failed. */
function checkOutput(v: unknown): ToolOutput | undefined {
  if (!isObject(v) || !Array.isArray(v.content)) return undefined;
  const content = v.content.flatMap((c) => (isObject(c) && c.type === 'text' && typeof c.text === 'string' ? [{ type: 'text' as const, text: c.text }] : []));
  return v.isError === true ? { content, isError: true } : { content };
}

/**
 * Model steps this run has taken: the assistant messages after the last user message, and inside
 * each the steps that followed a tool call (text or reasoning after a call is the next step), so a
 * page cannot reset the count by folding its steps into one message.
 */
function stepsTaken(messages: readonly AgentMessage[]): number {
  let taken = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'assistant'; i--) {
    let steps = 1;
    let afterCall = false;
    for (const p of messages[i]!.parts) {
      if (p.type === 'tool') afterCall = true;
      else if (afterCall) {
        steps++;
        afterCall = false;
      }
    }
    taken += steps;
  }
  return taken;
}

/** The posted conversation, checked part by part: untrusted input from any browser. */
function checkMessages(v: unknown): AgentMessage[] | string {
  if (!Array.isArray(v) || !v.length) return 'messages must be a non-empty array';
  if (v.length > 500) return 'too many messages';
  const out: AgentMessage[] = [];
  for (const m of v) {
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant') || !Array.isArray(m.parts)) return 'each message needs a role (user or assistant) and parts';
    const parts: AgentMessage['parts'] = [];
    for (const p of m.parts) {
      if (!isObject(p)) return 'each part must be an object';
      if ((p.type === 'text' || p.type === 'reasoning') && typeof p.text === 'string')
        parts.push(p.type === 'reasoning' && isObject(p.providerMetadata) ? { type: 'reasoning', text: p.text, providerMetadata: p.providerMetadata } : { type: p.type, text: p.text });
      else if (p.type === 'tool' && typeof p.id === 'string' && typeof p.name === 'string' && typeof p.state === 'string') {
        const state = ['running', 'awaiting-confirmation', 'done', 'error', 'cancelled'].includes(p.state) ? (p.state as 'done') : 'error';
        const output = checkOutput(p.output);
        parts.push({
          type: 'tool',
          id: p.id,
          name: p.name,
          input: p.input,
          state,
          ...(output ? { output } : {}),
          ...(typeof p.error === 'string' ? { error: p.error } : {}),
          ...(isObject(p.providerMetadata) ? { providerMetadata: p.providerMetadata } : {}),
        });
      }
    }
    out.push({ id: typeof m.id === 'string' ? m.id : '', role: m.role, parts });
  }
  if (out[0]!.role !== 'user') return 'the conversation must start with a user message';
  return out;
}

function checkTools(v: unknown, max: number): ToolDescriptor[] | string {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return 'tools must be an array';
  if (v.length > max) return `too many tools (at most ${max})`;
  const out: ToolDescriptor[] = [];
  const names = new Set<string>();
  for (const t of v) {
    if (!isObject(t) || typeof t.name !== 'string' || !TOOL_NAME.test(t.name) || !isObject(t.inputSchema))
      return 'each tool needs a name (letters, digits, _ . : -) and an inputSchema object';
    // Providers refuse a request naming one tool twice; say so here, in words the page can act on.
    if (names.has(t.name)) return `two tools are named ${JSON.stringify(t.name)}`;
    names.add(t.name);
    out.push({
      name: t.name,
      description: typeof t.description === 'string' ? t.description.slice(0, 4000) : '',
      inputSchema: t.inputSchema as ToolDescriptor['inputSchema'],
      ...(t.untrustedOutput === true ? { untrustedOutput: true } : {}),
    });
  }
  return out;
}

/** Words for the browser: the code's meaning, never the provider's text, URL or key. */
function publicError(e: unknown): { error: string; code: AgentErrorCode } {
  if (e instanceof AdapterError) {
    if (e.code === 'rate_limited') {
      // The wait comes from the provider's header: said only when it is a sensible number of seconds.
      const wait = e.retryAfter;
      const said = wait !== undefined && Number.isFinite(wait) && wait >= 1 && wait <= 86_400 ? `; try again in ${Math.ceil(wait)} s` : '';
      return { code: e.code, error: `The model provider is rate limiting requests${said}.` };
    }
    if (e.code === 'bad_request')
      return { code: e.code, error: /credentials/.test(e.message) ? 'The chat server could not sign in to its model provider.' : 'The model provider rejected the request.' };
    if (/stalled/.test(e.message)) return { code: 'network', error: 'The model provider stalled; try again.' };
  }
  return { code: 'network', error: 'The model provider could not be reached or failed; try again.' };
}

export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const o = options;
  // The app's own configuration: a mistake throws here, at start-up, not on every request.
  const pr = o?.provider as Partial<ChatProvider> & { baseUrl?: unknown };
  if ((pr?.kind !== 'anthropic' && (pr?.kind !== 'openai-compatible' || typeof pr.baseUrl !== 'string' || !pr.baseUrl)) || typeof pr.model !== 'string' || !pr.model)
    throw new TypeError('createChatHandler: provider must be { kind: "openai-compatible", baseUrl, model } or { kind: "anthropic", model }.');
  hasScheme('createChatHandler', 'provider.baseUrl', pr.baseUrl);
  // The key belongs to the provider; one beside it would be ignored, and every request go without it.
  if ('apiKey' in o) throw new TypeError('createChatHandler: the key goes in provider: { apiKey }, not beside it.');
  if (!o.agents || typeof o.agents !== 'object' || (Array.isArray(o.agents) && !o.agents.every((a) => typeof a?.id === 'string')))
    throw new TypeError('createChatHandler: agents must be a list of { id, instructions } or a record of { instructions } by id.');
  const limits = o.limits ?? {};
  /**
   * A limit that is not a number (`'60'`, NaN) falls back to its default, and those that must be
   * positive are at least 1: a mistyped limit compared false everywhere and meant no limit at all.
   */
  const limit = (v: unknown, fallback: number, least = 0) => Math.max(least, typeof v === 'number' && v === v ? v : fallback);
  const maxBody = limit(limits.maxBodyBytes, 1_000_000);
  const perMinute = limit(limits.requestsPerMinute, 60, 1);
  const maxTools = limit(limits.maxTools, 128);
  const maxOutputTokens = limit(limits.maxOutputTokens, 4096, 1);
  const now = o.now ?? Date.now;
  const agents = new Map<string, ChatAgentConfig>(
    Array.isArray(o.agents) ? o.agents.map((a) => [a.id, a]) : Object.entries(o.agents as Record<string, ChatAgentConfig>),
  );
  const hits = new Map<string, number[]>();
  /** Logging must never change what the browser gets: a throwing `onError` is ignored. */
  const report = (error: unknown, request: Request) => {
    try {
      (o.onError ?? logError)(error, request);
    } catch {
      // The app's logger failed; the answer stays the same.
    }
  };
  const marker = dataMarker();
  const p = o.provider;
  const apiKey = p.apiKey ?? env(p.kind === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY');

  /** Sliding one-minute window per client; the answer is the seconds to wait, or 0. */
  const limited = (client: string): number => {
    const t = now();
    const list = (hits.get(client) ?? []).filter((at) => at > t - 60_000);
    if (list.length >= perMinute) {
      hits.set(client, list);
      return Math.max(1, Math.ceil((list[0]! + 60_000 - t) / 1000));
    }
    list.push(t);
    hits.set(client, list);
    // Keep the table small: drop clients with nothing in the window, and past the bound the
    // oldest entries (made-up client ids must not grow it without end, nor make each request slow).
    if (hits.size > MAX_CLIENTS) {
      for (const [k, v] of hits) if (!v.some((at) => at > t - 60_000)) hits.delete(k);
      for (const k of hits.keys()) {
        if (hits.size <= MAX_CLIENTS * 0.9) break;
        hits.delete(k);
      }
    }
    return 0;
  };

  const ownClientId = (request: Request): string | undefined => {
    try {
      const id = o.clientId?.(request);
      return typeof id === 'string' ? id : undefined;
    } catch (e) {
      report(e, request);
      return undefined;
    }
  };
  const clientOf = (request: Request, ctx?: ChatRequestContext) =>
    ownClientId(request) ??
    ctx?.clientId ??
    request.headers.get('cf-connecting-ip') ??
    request.headers.get('x-real-ip') ??
    request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() ??
    'anonymous';

  // A provider's refusal is read without its body: the provider's words, which may quote a key, never
  // reach the browser; its status and headers (`retry-after` among them) still say what failed.
  const wordless: Fetch = async (url, init) => {
    const res = await (p.fetch ?? fetch)(url, init);
    if (res.ok) return res;
    void res.body?.cancel().catch(() => {});
    return new Response(null, res);
  };
  const step = (agent: ChatAgentConfig, messages: AgentMessage[], tools: ToolDescriptor[], signal: AbortSignal): AsyncIterable<StepPart> => {
    const turns = toTurns(messages, tools, marker, limits);
    const model = agent.model ?? p.model;
    const post: PostOptions = { fetch: wordless, signal, timeoutMs: p.timeoutMs, who: 'The model provider', headers: {} };
    if (p.kind === 'anthropic') {
      post.headers = { 'anthropic-version': p.version ?? '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}), ...p.headers };
      return anthropicStep(`${anthropicBase(p.baseUrl)}/v1/messages`, anthropicBody(turns, tools, agent.instructions, { model, maxOutputTokens, thinking: p.thinking }), post);
    }
    post.headers = { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...p.headers };
    const base = p.baseUrl.replace(/\/+$/, '');
    return openAIStep(
      `${base}/chat/completions`,
      openAIBody(turns, tools, agent.instructions, { model, maxOutputTokens, parallelToolCalls: p.parallelToolCalls, base }),
      post,
    );
  };

  return async (request, ctx) => {
    try {
      if (o.enabled === false) return refuse('chat_disabled', 'The chat is switched off.');
      let allowed = true;
      try {
        if (o.authorize) allowed = (await o.authorize(request)) === true;
      } catch (e) {
        allowed = false;
        report(e, request);
      }
      if (!allowed) return refuse('chat_disabled', 'The chat is not available for this session.');
      if (request.method === 'GET') return new Response('{"ready":true}', { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
      if (request.method !== 'POST') return refuse('bad_request', 'Use POST.', 405, { allow: 'GET, POST' });
      const wait = limited(clientOf(request, ctx));
      if (wait) return refuse('rate_limited', `Too many requests; try again in ${wait} s.`, 429, { 'retry-after': String(wait) });

      const text = await readBody(request, maxBody);
      if (text === undefined) return refuse('bad_request', `The request is larger than ${maxBody} bytes.`, 413);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return refuse('bad_request', 'The request body is not JSON.');
      }
      if (!isObject(body)) return refuse('bad_request', 'The request body must be a JSON object.');
      if (tooDeep(body)) return refuse('bad_request', `The request nests deeper than ${MAX_DEPTH} levels.`);
      const agent = typeof body.agent === 'string' ? agents.get(body.agent) : undefined;
      if (!agent) return refuse('bad_request', typeof body.agent === 'string' ? `There is no agent ${JSON.stringify(body.agent.slice(0, 80))}.` : 'The request names no agent.');
      const messages = checkMessages(body.messages);
      if (typeof messages === 'string') return refuse('bad_request', `Bad messages: ${messages}.`);
      let tools = checkTools(body.tools, maxTools);
      if (typeof tools === 'string') return refuse('bad_request', `Bad tools: ${tools}.`);
      if (agent.tools) {
        // The same rule as the page's own filter (defineWebAgent's `tools`): a wire name, or a
        // capability id prefix by whole segments, plane optional ("devices" keeps domain:devices.*).
        const names = new Set(agent.tools);
        const scope = compileScope(agent.tools);
        tools = tools.filter((t) => {
          const id = decodeWireName(t.name);
          return names.has(t.name) || (id !== undefined && !!scope?.(id));
        });
      }

      const taken = stepsTaken(messages);
      const maxSteps = Math.min(stepLimit(agent.maxSteps), stepLimit(limits.maxSteps));

      const ids = usedIds(messages);
      const abort = new AbortController();
      const onAbort = () => abort.abort();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          const send = (part: AgentStreamPart | Record<string, unknown>) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(part)}\n\n`));
          try {
            if (taken >= maxSteps) {
              send({ type: 'finish', reason: 'max-steps' });
              return;
            }
            const messageId = uid('msg');
            send({ type: 'message-start', messageId });
            let calls = 0;
            for await (const s of step(agent, messages, tools, abort.signal)) {
              if (s.type === 'tool-call') {
                calls++;
                let id = s.id || uid('call');
                if (ids.has(id)) id = uid('call');
                ids.add(id);
                // Only the tools the model was shown may run: the page also has those the agent's filter left out.
                const shown = tools.some((t) => t.name === s.name);
                send({ ...s, id, messageId, ...(shown ? {} : { invalid: `Error: there is no tool named ${JSON.stringify(s.name.slice(0, 100))} on this page.` }) });
              } else if (s.type !== 'max-steps') send({ ...s, messageId });
            }
            // Every step ends with its step-finish; a step without tool calls ends the run too.
            send({ type: 'step-finish', step: taken + 1 });
            if (!calls) send({ type: 'finish', reason: 'stop' });
          } catch (e) {
            if (!abort.signal.aborted) {
              report(e, request);
              send({ type: 'error', ...publicError(e) });
            }
          } finally {
            request.signal?.removeEventListener('abort', onAbort);
            try {
              controller.close();
            } catch {
              // Already closed: the client went away.
            }
          }
        },
        cancel() {
          abort.abort();
        },
      });
      return new Response(stream, {
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
      });
    } catch (e) {
      report(e, request);
      return refuse('network', 'The chat server failed.', 500);
    }
  };
}
