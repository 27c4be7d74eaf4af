/**
 * The prompt format for models without native tool support: the tools described in the system
 * turn, calls written as Qwen3-style `<tool_call>` JSON, results sent back as `<tool_response>`
 * blocks in a user turn. Only plain system/user/assistant turns come out of here, so any chat
 * template (the GGUF's own, ChatML, the Prompt API's) can render them. DOM-free.
 */
import type { AgentMessage, ToolDescriptor } from '../../chat/types.js';
import { toTurns as stepTurns, type ToolAnswer } from '../shared/history.js';
import { isObject } from './grammar.js';
import { CALL_CLOSE, CALL_OPEN, NOT_AN_OBJECT } from './ids.js';

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const THINK_OPEN = '<think>';

/** The system turn's tool section: each tool as one line of JSON inside `<tools>`. */
export const toolsPrompt = (tools: readonly ToolDescriptor[]): string =>
  tools.length
    ? `# Tools

You can call functions to help with the request. Their signatures are inside <tools></tools>:
<tools>
${tools.map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })).join('\n')}
</tools>

To call a function, answer with a JSON object holding its name and arguments inside <tool_call></tool_call> tags:
${CALL_OPEN}
{"name": <function-name>, "arguments": <args-json-object>}
${CALL_CLOSE}`
    : '';

/** A call as the model writes it (compact JSON, so a grammar and a re-rendered history agree). */
export const renderCall = (name: string, input: unknown): string => `${CALL_OPEN}\n${JSON.stringify({ name, arguments: input ?? {} })}\n${CALL_CLOSE}`;

export interface TurnOptions {
  /** The live tools: an output counts as untrusted when its tool says so or is gone from the page. */
  tools?: readonly ToolDescriptor[];
  /** This adapter's data marker: untrusted outputs are wrapped in a block the output cannot close. */
  marker: string;
  /** Outputs are cut to this many characters (default 20 000). */
  maxToolOutputChars?: number;
}

/** A tool's answer as the model reads it: an error says so (the shared loop's own answers already start with "Error"). */
export const answerText = (a: ToolAnswer) => (a.isError && !a.text.startsWith('Error') ? `Error: ${a.text}` : a.text);

/**
 * The conversation as plain turns: a system turn (instructions and tools), then user and assistant
 * turns; an assistant step's tool calls stay in its turn and their results follow as one user
 * turn of `<tool_response>` blocks, so a multi-step message becomes several turn pairs.
 */
export function toTurns(messages: readonly AgentMessage[], system: string, o: TurnOptions): ChatTurn[] {
  const turns: ChatTurn[] = [];
  // llama.cpp reads a control token's spelling inside any message as the token (`<|im_end|>` ends
  // the turn), so a tool's output could close its turn and open a system turn. An invisible joiner
  // after the `<` of ChatML/Llama 3/Phi/DeepSeek bars, Gemma's turn tags and `<s>`/`</s>` breaks
  // the spelling; the words stay for the model to read.
  const add = (role: ChatTurn['role'], content: string) => content && turns.push({ role, content: content.replace(/<(?=[|｜]|\/?s>|(?:start|end)_of_turn>)/g, '<\u200c') });
  add('system', system);
  for (const t of stepTurns(messages, o.tools ?? [], o.marker, o)) {
    if (t.role == 'user') add('user', t.text);
    else {
      add('assistant', t.parts.map((p) => (p.type == 'text' ? p.text : p.type == 'tool' ? renderCall(p.name, p.input) : '')).filter(Boolean).join('\n'));
      add('user', t.answers.map((a) => `<tool_response>\n${answerText(a)}\n</tool_response>`).join('\n'));
    }
  }
  return turns;
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

// A `<think>` or `<tool_call>` block, to its closing tag or (cut off) to the end of the turn.
const BLOCK = /<(think|tool_call)>([^]*?)(<\/\1>|$)/g;

/** Splits one model turn into text, `<think>` reasoning and `<tool_call>` blocks. Never throws. */
export function parseOutput(output: string): ParsedOutput {
  let reasoning = '';
  const calls: ParsedCall[] = [];
  const text = output.replace(BLOCK, (_, tag: string, body: string, close: string) => {
    if (tag == 'think') reasoning += body.trim();
    else calls.push(parseCall(body.trim(), !close));
    return '';
  });
  return { text: text.trim(), reasoning, calls };
}

function parseCall(raw: string, unterminated: boolean): ParsedCall {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    const name = /"name"\s*:\s*"([^"\\]{1,128})"/.exec(raw)?.[1];
    const why = unterminated ? 'the call was cut off before </tool_call>' : 'its body is not valid JSON';
    return { ok: false, name, raw, error: `The tool call could not be read: ${why}. Write one JSON object {"name": ..., "arguments": {...}} between <tool_call> and </tool_call>.` };
  }
  const call = isObject(value) ? value : {};
  const name = typeof call.name == 'string' ? call.name : '';
  if (!name) return { ok: false, raw, error: 'The tool call has no "name" string.' };
  const input = call.arguments ?? call.parameters ?? {};
  if (!isObject(input)) return { ok: false, name, raw, error: NOT_AN_OBJECT };
  return { ok: true, name, input, raw };
}

/**
 * Streams the visible text of a turn while it is generated: holds back anything that may be the
 * start of `<tool_call>` or `<think>`, and stops at the first tool call (what follows is parsed
 * once the turn is complete).
 */
export class VisibleText {
  private turn = '';
  /** The text passed on so far. */
  shown = '';

  /** Feeds a delta; returns the text that is safe to show now. `whole` is the finished turn's text. */
  push(delta: string, whole?: string): string {
    let text = (this.turn += delta).split(CALL_OPEN)[0]!;
    const tail = /<[^<]*$/.exec(text)?.[0];
    if (tail && (CALL_OPEN.startsWith(tail) || THINK_OPEN.startsWith(tail))) text = text.slice(0, -tail.length);
    // Leading whitespace before a tool call or after reasoning is not worth a delta of its own.
    text = whole ?? text.replace(BLOCK, '').trimStart();
    if (!text.startsWith(this.shown)) return '';
    const out = text.slice(this.shown.length);
    this.shown = text;
    return out;
  }
}
