/**
 * The prompt format for models without native tool support: the tools described in the system
 * turn, calls written as Qwen3-style `<tool_call>` JSON, results sent back as `<tool_response>`
 * blocks in a user turn. Only plain system/user/assistant turns come out of here, so any chat
 * template (the GGUF's own, ChatML, the Prompt API's) can render them. DOM-free.
 */
import type { AgentMessage, ToolDescriptor, ToolOutput } from '../../chat/types.js';
import { toolText } from '../shared/untrusted.js';

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export const CALL_OPEN = '<tool_call>';
export const CALL_CLOSE = '</tool_call>';
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/** The system turn's tool section: each tool as one line of JSON inside `<tools>`. */
export function toolsPrompt(tools: readonly ToolDescriptor[]): string {
  if (!tools.length) return '';
  const lines = tools.map((t) =>
    JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }),
  );
  return [
    '# Tools',
    '',
    'You can call functions to help with the request. Their signatures are inside <tools></tools>:',
    '<tools>',
    ...lines,
    '</tools>',
    '',
    'To call a function, answer with a JSON object holding its name and arguments inside <tool_call></tool_call> tags:',
    CALL_OPEN,
    '{"name": <function-name>, "arguments": <args-json-object>}',
    CALL_CLOSE,
  ].join('\n');
}

/** A call as the model writes it (compact JSON, so a grammar and a re-rendered history agree). */
export function renderCall(name: string, input: unknown): string {
  return `${CALL_OPEN}\n${JSON.stringify({ name, arguments: input ?? {} })}\n${CALL_CLOSE}`;
}

/** What a tool call returned, as the model reads it. */
export function outputText(output: ToolOutput | undefined, error?: string): string {
  if (error !== undefined) return `Error: ${error}`;
  if (!output) return 'Error: no result';
  const text = output.structuredContent !== undefined
    ? JSON.stringify(output.structuredContent)
    : output.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  return output.isError ? `Error: ${text}` : text;
}

const responseBlock = (text: string) => `<tool_response>\n${text}\n</tool_response>`;

export interface TurnOptions {
  /** The live tools: an output counts as untrusted when its tool says so or is gone from the page. */
  tools?: readonly ToolDescriptor[];
  /** This adapter's data marker: untrusted outputs are wrapped in a block the output cannot close. */
  marker?: string;
  /** Outputs are cut to this many characters (default 20 000). */
  maxToolOutputChars?: number;
}

/**
 * The conversation as plain turns: a system turn (instructions and tools), then user and assistant
 * turns; an assistant message's tool calls stay in its turn and their results follow as one user
 * turn of `<tool_response>` blocks, so a multi-step message becomes several turn pairs.
 */
export function toTurns(messages: readonly AgentMessage[], system: string, o: TurnOptions = {}): ChatTurn[] {
  const result = (name: string, output: ToolOutput | undefined, error: string | undefined): string => {
    if (!output || !o.marker) return outputText(output, error);
    const tool = o.tools?.find((t) => t.name === name);
    const untrusted = !tool || tool.untrustedOutput === true;
    const text = toolText(outputText({ ...output, isError: false }), untrusted, o.marker, o.maxToolOutputChars);
    return output.isError ? `Error: ${text}` : text;
  };
  const turns: ChatTurn[] = [];
  if (system) turns.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'user') {
      const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
      turns.push({ role: 'user', content: text });
      continue;
    }
    let assistant: string[] = [];
    let responses: string[] = [];
    const flush = () => {
      if (assistant.length) turns.push({ role: 'assistant', content: assistant.join('\n') });
      if (responses.length) turns.push({ role: 'user', content: responses.join('\n') });
      assistant = [];
      responses = [];
    };
    for (const part of message.parts) {
      if (part.type === 'text') {
        if (responses.length) flush();
        if (part.text) assistant.push(part.text);
      } else if (part.type === 'tool') {
        assistant.push(renderCall(part.name, part.input));
        const settled = part.state === 'done' || part.state === 'error' || part.state === 'cancelled';
        responses.push(responseBlock(settled ? result(part.name, part.output, part.output ? undefined : part.error) : 'Error: the call did not finish'));
      }
    }
    flush();
  }
  return turns;
}

/** A turn of `<tool_response>` blocks for calls made in the current run. */
export function responsesTurn(results: readonly string[]): ChatTurn {
  return { role: 'user', content: results.map(responseBlock).join('\n') };
}

export type ParsedCall =
  | { ok: true; name: string; input: Record<string, unknown>; raw: string }
  | { ok: false; name?: string; raw: string; error: string };

export interface ParsedOutput {
  /** The text outside tool calls and reasoning. */
  text: string;
  reasoning: string;
  calls: ParsedCall[];
}

/** Splits one model turn into text, `<think>` reasoning and `<tool_call>` blocks. Never throws. */
export function parseOutput(output: string): ParsedOutput {
  let text = '';
  let reasoning = '';
  const calls: ParsedCall[] = [];
  let rest = output;
  for (;;) {
    const call = rest.indexOf(CALL_OPEN);
    const think = rest.indexOf(THINK_OPEN);
    if (call < 0 && think < 0) {
      text += rest;
      break;
    }
    const isThink = think >= 0 && (call < 0 || think < call);
    const at = isThink ? think : call;
    text += rest.slice(0, at);
    const close = isThink ? THINK_CLOSE : CALL_CLOSE;
    const start = at + (isThink ? THINK_OPEN : CALL_OPEN).length;
    const end = rest.indexOf(close, start);
    const body = rest.slice(start, end < 0 ? undefined : end);
    if (isThink) reasoning += body.trim();
    else calls.push(parseCall(body, end < 0));
    if (end < 0) break;
    rest = rest.slice(end + close.length);
  }
  return { text: text.trim(), reasoning, calls };
}

function parseCall(body: string, unterminated: boolean): ParsedCall {
  const raw = body.trim();
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    const name = /"name"\s*:\s*"([^"\\]{1,128})"/.exec(raw)?.[1];
    const why = unterminated ? 'the call was cut off before </tool_call>' : 'its body is not valid JSON';
    return { ok: false, name, raw, error: `The tool call could not be read: ${why}. Write one JSON object {"name": ..., "arguments": {...}} between <tool_call> and </tool_call>.` };
  }
  const obj = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const name = typeof obj?.name === 'string' ? obj.name : undefined;
  const args = obj?.arguments ?? obj?.parameters ?? {};
  if (!name) return { ok: false, raw, error: 'The tool call has no "name" string.' };
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { ok: false, name, raw, error: 'The tool call\'s "arguments" must be a JSON object.' };
  }
  return { ok: true, name, input: args as Record<string, unknown>, raw };
}

/**
 * Streams the visible text of a turn while it is generated: holds back anything that may be the
 * start of `<tool_call>` or `<think>`, and stops at the first tool call (what follows is parsed
 * once the turn is complete).
 */
export class VisibleText {
  private buffer = '';
  private thinking = false;
  private stopped = false;
  /** The text passed on so far. */
  shown = '';

  /** Feeds a delta; returns the text that is safe to show now. */
  push(delta: string): string {
    if (this.stopped) return '';
    this.buffer += delta;
    let out = '';
    for (;;) {
      if (this.thinking) {
        const end = this.buffer.indexOf(THINK_CLOSE);
        if (end < 0) break;
        this.buffer = this.buffer.slice(end + THINK_CLOSE.length);
        this.thinking = false;
        continue;
      }
      const lt = this.buffer.indexOf('<');
      if (lt < 0) {
        out += this.buffer;
        this.buffer = '';
        break;
      }
      out += this.buffer.slice(0, lt);
      this.buffer = this.buffer.slice(lt);
      if (this.buffer.startsWith(CALL_OPEN)) {
        this.stopped = true;
        break;
      }
      if (this.buffer.startsWith(THINK_OPEN)) {
        this.thinking = true;
        this.buffer = this.buffer.slice(THINK_OPEN.length);
        continue;
      }
      if (CALL_OPEN.startsWith(this.buffer) || THINK_OPEN.startsWith(this.buffer)) break; // maybe a tag: wait
      out += '<';
      this.buffer = this.buffer.slice(1);
    }
    // Leading whitespace before a tool call or after reasoning is not worth a delta of its own.
    if (!this.shown) out = out.trimStart();
    this.shown += out;
    return out;
  }
}
