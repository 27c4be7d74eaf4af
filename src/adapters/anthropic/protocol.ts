/**
 * The Messages API (`POST {baseUrl}/v1/messages`, `stream: true`): the request body from the
 * conversation, and one model step from the event stream (`message_start`, `content_block_*`,
 * `message_delta`, `message_stop`, `ping`, `error`). Shared by the browser adapter and the chat
 * server. Thinking blocks keep their signatures in `providerMetadata.anthropic` and go back with
 * the tool calls they came with, as the API requires.
 */
import type { ToolDescriptor } from '../../chat/types.js';
import { wireHash } from '../../core/hash.js';
import type { Turn } from '../shared/history.js';
import { parseArguments, tokenLimit, type StepPart } from '../shared/loop.js';
import { cutOff, json, networkError, postEvents, streamError, type PostOptions } from '../shared/sse.js';

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
  /** `max_tokens` (required by the API): a whole number of at least 1. Default (and for any other value) 4096. */
  maxOutputTokens?: number;
  /** Passed through as `thinking`, for example `{ type: 'enabled', budget_tokens: 2048 }`. */
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' };
}

interface AnthropicMeta {
  signature?: unknown;
  redactedData?: unknown;
}

/**
 * The API root the adapter adds `/v1/messages` to: the SDK's `https://api.anthropic.com`, or the
 * same written with `/v1`, as OpenAI-compatible base URLs are (which would otherwise post to `/v1/v1/messages`).
 */
export const anthropicBase = (url = 'https://api.anthropic.com') => String(url).replace(/\/+$/, '').replace(/\/v1$/, '');

/**
 * A tool call id as the API takes one (`^[a-zA-Z0-9_-]+$`): another provider's, say Kimi's
 * `functions.search:0`, is mapped, with a hash of the original so that ids differing only in the
 * characters replaced (`a.1`, `a:1`) stay two ids.
 */
const toolId = (id: string) => (/^[\w-]+$/.test(id) ? id : `${id.replace(/[^\w-]/g, '_')}_${wireHash(id, 8)}`);

/** The Messages request for the next step. */
export function anthropicBody(turns: Turn[], tools: readonly ToolDescriptor[], instructions: string | undefined, o: AnthropicBodyOptions) {
  const messages: AnthropicMessage[] = [];
  // Same-role neighbours merge: tool results and the next user text share one user message.
  const push = (role: AnthropicMessage['role'], content: AnthropicBlock[]) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...content);
    else if (content.length) messages.push({ role, content });
  };
  for (const t of turns) {
    if (t.role === 'user') {
      push('user', [{ type: 'text', text: t.text }]);
      continue;
    }
    // Steps of thinking alone are dropped (toTurns), and text of whitespace only (Claude streams
    // some before a call at times): the API refuses both.
    const blocks: AnthropicBlock[] = [];
    for (const p of t.parts) {
      if (p.type === 'text') {
        if (p.text.trim()) blocks.push({ type: 'text', text: p.text });
      } else if (p.type === 'tool') {
        const input = p.input && typeof p.input === 'object' && !Array.isArray(p.input) ? (p.input as Record<string, unknown>) : {};
        blocks.push({ type: 'tool_use', id: toolId(p.id), name: p.name, input });
      } else {
        // Only Claude's own, signed thinking can go back; anything else is dropped.
        const m = p.providerMetadata?.anthropic as AnthropicMeta | undefined;
        if (typeof m?.signature === 'string') blocks.push({ type: 'thinking', thinking: p.text, signature: m.signature });
        else if (typeof m?.redactedData === 'string') blocks.push({ type: 'redacted_thinking', data: m.redactedData });
      }
    }
    push('assistant', blocks);
    push(
      'user',
      t.answers.map((a) => ({ type: 'tool_result' as const, tool_use_id: toolId(a.id), content: a.text, is_error: a.isError || undefined })),
    );
  }
  return {
    model: o.model,
    max_tokens: tokenLimit(o.maxOutputTokens) ?? 4096,
    stream: true as const,
    messages,
    // Fields left undefined are left out of the JSON.
    system: instructions || undefined,
    tools: tools.length ? tools.map((t) => ({ name: t.name, description: t.description, input_schema: { ...t.inputSchema, type: 'object' as const } })) : undefined,
    thinking: o.thinking,
  };
}

/** A content block as it streams: its start event's fields, and `text` (text, thinking or tool input JSON). */
interface Block {
  type?: unknown;
  text: string;
  signature?: unknown;
  data?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

interface StreamEvent {
  type?: string;
  index: number;
  content_block?: Omit<Block, 'text'> & { text?: unknown; thinking?: unknown };
  delta?: { text?: unknown; partial_json?: unknown; thinking?: unknown; signature?: unknown };
  error?: unknown;
}

/** One model step. Text streams as it comes; reasoning and tool calls when their block ends. */
export async function* anthropicStep(url: string, body: unknown, post: PostOptions): AsyncGenerator<StepPart> {
  const who = post.who;
  // No prototype: an index of "__proto__" or "constructor" (a hostile stream) is a key like any other.
  const blocks: Record<number, Block> = Object.create(null);
  for await (const e of postEvents(url, body, post)) {
    // `?? {}`: a `null` event reads as an event of no type.
    const data = (json(e, who) ?? {}) as StreamEvent & { content?: unknown };
    // A whole reply (a server that ignored `stream: true`): its blocks' events, then the end.
    const events: StreamEvent[] =
      data.type === 'message'
        ? [
            ...(Array.isArray(data.content) ? data.content : []).flatMap((content_block, index) => [
              { type: 'content_block_start', index, content_block },
              { type: 'content_block_stop', index },
            ]),
            { type: 'message_stop', index: 0 },
          ]
        : [data];
    for (const ev of events) {
      const type = ev?.type ?? e.event;
      if (type === 'error') throw streamError(ev.error, who);
      if (type === 'message_stop') return;
      const b = blocks[ev.index];
      if (type === 'content_block_start') {
        const c = ev.content_block ?? {};
        const text = c.text ?? c.thinking;
        blocks[ev.index] = { ...c, text: typeof text === 'string' ? text : '' };
        if (c.type === 'text' && text) yield { type: 'text-delta', delta: blocks[ev.index].text };
      } else if (type === 'content_block_delta' && b) {
        // Text, tool input (JSON text) and thinking each come in their own delta type, in their own field.
        const d = ev.delta ?? {};
        const piece = d.text ?? d.partial_json ?? d.thinking;
        if (typeof piece === 'string') {
          b.text += piece;
          if (b.type === 'text' && piece) yield { type: 'text-delta', delta: piece };
          if (b.text.length > 1_000_000 && b.type === 'tool_use') throw networkError(`${who} sent tool input over 1 MB`);
        } else if (typeof d.signature === 'string') b.signature = String(b.signature ?? '') + d.signature;
      } else if (type === 'content_block_stop' && b) {
        delete blocks[ev.index];
        if (b.type === 'thinking') yield { type: 'reasoning', text: b.text, providerMetadata: { anthropic: b.signature ? { signature: b.signature } : {} } };
        else if (b.type === 'redacted_thinking') yield { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: String(b.data ?? '') } } };
        else if (b.type === 'tool_use') {
          const name = String(b.name ?? '');
          // The input streams as JSON text; with no deltas the start block's input stands.
          const parsed = b.text ? parseArguments(name, b.text) : { input: b.input && typeof b.input === 'object' ? b.input : {} };
          yield { type: 'tool-call', id: String(b.id ?? ''), name, ...parsed };
        }
      }
      // ping, message_start, message_delta and blocks of other types carry nothing for the chat.
    }
  }
  throw cutOff(who);
}
