/**
 * The Messages API (`POST {baseUrl}/v1/messages`, `stream: true`): the request body from the
 * conversation, and one model step from the event stream (`message_start`, `content_block_*`,
 * `message_delta`, `message_stop`, `ping`, `error`). Shared by the browser adapter and the chat
 * server. Thinking blocks keep their signatures in `providerMetadata.anthropic` and go back with
 * the tool calls they came with, as the API requires.
 */
import type { ToolDescriptor } from '../../chat/types.js';
import { AdapterError, streamError } from '../shared/errors.js';
import type { Turn } from '../shared/history.js';
import { parseArguments, type StepPart } from '../shared/loop.js';
import { json, postEvents, type PostOptions } from '../shared/sse.js';

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface AnthropicBodyOptions {
  model: string;
  /** `max_tokens` (required by the API). Default 4096. */
  maxOutputTokens?: number;
  /** Passed through as `thinking`, for example `{ type: 'enabled', budget_tokens: 2048 }`. */
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' };
}

interface AnthropicMeta {
  signature?: unknown;
  redactedData?: unknown;
}

/** The Messages request for the next step. */
export function anthropicBody(turns: Turn[], tools: readonly ToolDescriptor[], instructions: string | undefined, o: AnthropicBodyOptions) {
  const messages: AnthropicMessage[] = [];
  // Same-role neighbours merge: tool results and the next user text share one user message.
  const push = (role: AnthropicMessage['role'], content: AnthropicBlock[]) => {
    if (!content.length) return;
    const last = messages[messages.length - 1];
    if (last?.role === role) last.content.push(...content);
    else messages.push({ role, content });
  };
  for (const t of turns) {
    if (t.role === 'user') {
      push('user', [{ type: 'text', text: t.text }]);
      continue;
    }
    const blocks: AnthropicBlock[] = [];
    for (const p of t.parts) {
      if (p.type === 'text') blocks.push({ type: 'text', text: p.text });
      else if (p.type === 'tool') {
        const input = p.input && typeof p.input === 'object' && !Array.isArray(p.input) ? (p.input as Record<string, unknown>) : {};
        blocks.push({ type: 'tool_use', id: p.id, name: p.name, input });
      } else {
        // Only Claude's own, signed thinking can go back; anything else is dropped.
        const m = p.providerMetadata?.anthropic as AnthropicMeta | undefined;
        if (typeof m?.signature === 'string') blocks.push({ type: 'thinking', thinking: p.text, signature: m.signature });
        else if (typeof m?.redactedData === 'string') blocks.push({ type: 'redacted_thinking', data: m.redactedData });
      }
    }
    // A step of thinking alone is not a message the API takes.
    if (blocks.some((b) => b.type === 'text' || b.type === 'tool_use')) push('assistant', blocks);
    push(
      'user',
      t.answers.map((a) => ({ type: 'tool_result' as const, tool_use_id: a.id, content: a.text, ...(a.isError ? { is_error: true } : {}) })),
    );
  }
  return {
    model: o.model,
    max_tokens: o.maxOutputTokens ?? 4096,
    stream: true as const,
    messages,
    ...(instructions ? { system: instructions } : {}),
    ...(tools.length
      ? { tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: { ...t.inputSchema, type: 'object' as const } })) }
      : {}),
    ...(o.thinking ? { thinking: o.thinking } : {}),
  };
}

interface Block {
  type: string;
  text: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** One model step. Text streams as it comes; reasoning and tool calls when their block ends. */
export async function* anthropicStep(url: string, body: unknown, post: PostOptions): AsyncGenerator<StepPart> {
  const who = post.who;
  const blocks = new Map<number, Block>();
  let complete = false;
  for await (const e of postEvents(url, body, post)) {
    const ev = json(e, who) as {
      type?: string;
      index?: number;
      content_block?: { type?: string; text?: string; id?: string; name?: string; input?: unknown; data?: string; thinking?: string };
      delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; signature?: string };
      error?: unknown;
    };
    const type = ev?.type ?? e.event;
    if (type === 'error') throw streamError(ev.error, who);
    if (type === 'message_stop') {
      complete = true;
      break;
    }
    const index = typeof ev.index === 'number' ? ev.index : -1;
    if (type === 'content_block_start') {
      const b = ev.content_block ?? {};
      const block: Block = { type: String(b.type), text: '', id: b.id, name: b.name, input: b.input, data: b.data };
      blocks.set(index, block);
      const first = b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : '';
      if (first) block.text = first;
      if (b.type === 'text' && first) yield { type: 'text-delta', delta: first };
    } else if (type === 'content_block_delta') {
      const b = blocks.get(index);
      const d = ev.delta ?? {};
      if (!b) continue;
      if (d.type === 'text_delta' && typeof d.text === 'string') {
        b.text += d.text;
        if (d.text) yield { type: 'text-delta', delta: d.text };
      } else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string') {
        b.text += d.partial_json;
        if (b.text.length > 1_000_000) throw new AdapterError('network', `${who} sent tool input over 1 MB`);
      } else if (d.type === 'thinking_delta' && typeof d.thinking === 'string') b.text += d.thinking;
      else if (d.type === 'signature_delta' && typeof d.signature === 'string') b.signature = (b.signature ?? '') + d.signature;
    } else if (type === 'content_block_stop') {
      const b = blocks.get(index);
      blocks.delete(index);
      if (b?.type === 'thinking')
        yield { type: 'reasoning', text: b.text, providerMetadata: { anthropic: b.signature ? { signature: b.signature } : {} } };
      else if (b?.type === 'redacted_thinking') yield { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: b.data ?? '' } } };
      else if (b?.type === 'tool_use') {
        const name = String(b.name ?? '');
        // The input streams as JSON text; with no deltas the start block's input stands.
        const parsed = b.text ? parseArguments(name, b.text) : { input: b.input && typeof b.input === 'object' ? b.input : {} };
        yield { type: 'tool-call', id: String(b.id ?? ''), name, ...parsed };
      }
    }
    // ping, message_start, message_delta and blocks of other types carry nothing for the chat.
  }
  if (!complete) throw new AdapterError('network', `The connection to ${who} closed before the reply finished`);
}
