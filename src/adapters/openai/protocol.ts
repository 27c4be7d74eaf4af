/**
 * Chat Completions (`POST {baseUrl}/chat/completions`, `stream: true`): the request body from the
 * conversation, and one model step from the stream. Shared by the browser adapter and the chat
 * server. The server differences this absorbs are listed in the README.
 */
import type { ToolDescriptor } from '../../chat/types.js';
import type { Turn } from '../shared/history.js';
import { parseArguments, tokenLimit, type StepPart } from '../shared/loop.js';
import { cutOff, json, networkError, postEvents, streamError, type PostOptions } from '../shared/sse.js';

export interface OpenAIAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  /** Reasoning sent back during a tool loop, under the field the server streamed it in. */
  reasoning_content?: string;
  reasoning?: string;
}
export type OpenAIMessage =
  | { role: 'system' | 'user'; content: string }
  | OpenAIAssistantMessage
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAIBodyOptions {
  model: string;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  /** The API root: OpenAI's own (and Azure's) take the limit as `max_completion_tokens`. */
  base?: string;
}

/** OpenAI's reasoning models refuse `max_tokens`; other servers may not know `max_completion_tokens`. */
const tokensField = (base = '') => (/^https:\/\/([^/]+\.)?openai\.(com|azure\.com)\//.test(`${base}/`) ? 'max_completion_tokens' : 'max_tokens');

/** The Chat Completions request for the next step. */
export function openAIBody(turns: Turn[], tools: readonly ToolDescriptor[], instructions: string | undefined, o: OpenAIBodyOptions) {
  const messages: OpenAIMessage[] = instructions ? [{ role: 'system', content: instructions }] : [];
  // Reasoning goes back only within the current tool loop (after the last user turn), which is
  // what servers that want it back ask for; older turns' reasoning is dropped.
  const lastUser = turns.map((t) => t.role).lastIndexOf('user');
  turns.forEach((t, i) => {
    if (t.role === 'user') return void messages.push({ role: 'user', content: t.text });
    const m: OpenAIAssistantMessage = { role: 'assistant', content: null };
    const calls: NonNullable<OpenAIAssistantMessage['tool_calls']> = [];
    for (const p of t.parts) {
      if (p.type === 'text') m.content = (m.content ?? '') + p.text;
      else if (p.type === 'tool') calls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: JSON.stringify(p.input ?? {}) } });
      else if (i > lastUser) {
        const field = (p.providerMetadata?.openaiCompatible as { field?: unknown } | undefined)?.field;
        if (field === 'reasoning_content' || field === 'reasoning') m[field] = (m[field] ?? '') + p.text;
      }
    }
    if (calls.length) m.tool_calls = calls;
    messages.push(m, ...t.answers.map((a) => ({ role: 'tool' as const, tool_call_id: a.id, content: a.text })));
  });
  return {
    model: o.model,
    messages,
    stream: true as const,
    // Fields left undefined are left out of the JSON.
    tools: tools.length ? tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.inputSchema } })) : undefined,
    parallel_tool_calls: tools.length ? o.parallelToolCalls : undefined,
    [tokensField(o.base)]: tokenLimit(o.maxOutputTokens),
  };
}

/** A chunk's `delta`, or a whole reply's `message`. */
interface Delta {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: unknown } }[];
}

interface Assembling {
  id: string;
  name: string;
  args: string;
}

/** One model step: text deltas and reasoning as they come, the assembled tool calls at the end. */
export async function* openAIStep(url: string, body: unknown, post: PostOptions): AsyncGenerator<StepPart> {
  const who = post.who;
  const calls: Assembling[] = [];
  const byIndex: Record<number, Assembling> = {};
  // Reasoning waits for the next text or the end of the step, and goes out as one part.
  let reasoning = '';
  let field = '';
  let complete = false;
  // Some servers (LM Studio and Ollama with some models, llama-server without a reasoning format)
  // put the model's reasoning in the text as a leading `<think>…</think>` block: split it off.
  // The text is held while it may still open that block or is inside it; undefined once past it.
  let held: string | undefined = '';
  /** Inside an open block: only new text can close it (reading all of it per delta was quadratic). */
  let inside = false;
  /** A content delta (`end`: the stream is over), with the reasoning before it. */
  const show = function* (delta: string, end?: boolean): Generator<StepPart> {
    if (held !== undefined) {
      // `</think>` may straddle the previous delta.
      const from = held.length - 7;
      held += delta;
      if (inside && !end && !held.includes('</think>', from)) return;
      const m = /^\s*<think>([\s\S]*?)(<\/think>\s*|$)/.exec(held);
      inside = !!m && !m[2];
      if (!end && (m ? !m[2] : '<think>'.startsWith(held.trimStart()))) return;
      // Reasoning the server sent in its own field comes first; a block beside it is dropped.
      if (m && !reasoning) {
        reasoning = m[1];
        field = 'think-tag';
      }
      delta = m ? held.slice(m[0].length) : held;
      held = undefined;
    }
    if (!delta && !end) return;
    if (reasoning) yield { type: 'reasoning', text: reasoning, providerMetadata: { openaiCompatible: { field } } };
    reasoning = '';
    if (delta) yield { type: 'text-delta', delta };
  };
  for await (const e of postEvents(url, body, post)) {
    if (e.data.trim() === '[DONE]') {
      complete = true;
      break;
    }
    const chunk = json(e, who) as { error?: unknown; choices?: { delta?: Delta; message?: Delta; finish_reason?: unknown }[] };
    if (chunk?.error) throw streamError(chunk.error, who);
    const choice = chunk?.choices?.[0];
    if (!choice) continue;
    // A whole reply (a server that ignored `stream: true`) has a message where a chunk has a delta.
    const d = choice.delta ?? choice.message ?? {};
    for (const f of ['reasoning_content', 'reasoning'] as const) {
      if (typeof d[f] === 'string' && d[f]) {
        reasoning += d[f];
        field = f;
      }
    }
    if (typeof d.content === 'string') yield* show(d.content);
    for (const tc of Array.isArray(d.tool_calls) ? d.tool_calls : []) {
      const index = typeof tc?.index === 'number' ? tc.index : -1;
      const id = typeof tc?.id === 'string' ? tc.id : '';
      let call = byIndex[index] ?? (index < 0 ? calls.at(-1) : undefined);
      // A new id at a known index is a new call: some servers number every call of a batch 0.
      if (!call || (id && call.id && id !== call.id)) calls.push((call = byIndex[index] = { id, name: '', args: '' }));
      call.id ||= id;
      const fn = tc?.function ?? {};
      if (typeof fn.name === 'string') call.name ||= fn.name;
      if (typeof fn.arguments === 'string') call.args += fn.arguments;
      // Some servers send the arguments as an object, whole.
      else if (fn.arguments && typeof fn.arguments === 'object') call.args = JSON.stringify(fn.arguments);
      if (call.args.length > 1_000_000) throw networkError(`${who} sent tool arguments over 1 MB`);
    }
    // The reply is over: a server that keeps the stream open without [DONE] is not waited for.
    if ((complete = !!choice.finish_reason)) break;
  }
  if (!complete) throw cutOff(who);
  yield* show('', true);
  for (const c of calls) yield { type: 'tool-call', id: c.id, name: c.name, ...parseArguments(c.name, c.args) };
}
