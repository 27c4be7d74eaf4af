/**
 * What the Prompt API engine and its native tool loops share: sessions, the browser's failures as
 * the seed's error codes, and the probe that finds which tool design the browser implements.
 */
import { AdapterError } from '../../shared/errors.js';
import { LANGUAGES } from '../detect.js';
import { NOT_AN_OBJECT } from '../ids.js';
import type { StepPart } from '../../shared/loop.js';
import { isObject } from '../grammar.js';
import { why } from '../words.js';
import type { LanguageModelLike } from '../types.js';

// The model's output is untrusted: a call with arguments that are not an object is answered with words.
export const invalid = (args: unknown) => (isObject(args) ? {} : { invalid: NOT_AN_OBJECT });

/**
 * One prompt on a fresh session made with `create`, as step parts: text as it streams, or
 * (`whole`, or a session without streaming) the whole reply's text and `tool-call` pieces. The
 * session is destroyed when the reply ends or is dropped.
 */
export async function* ask(lm: LanguageModelLike, create: Parameters<LanguageModelLike['create']>[0], input: unknown, options: object, whole?: boolean): AsyncGenerator<StepPart> {
  const s = await lm.create(create);
  try {
    if (!whole && s.promptStreaming) {
      for await (const delta of s.promptStreaming(input, options) as AsyncIterable<string>) if (delta) yield { type: 'text-delta', delta: String(delta) };
      return;
    }
    const r = await s.prompt(input, options);
    for (const c of typeof r === 'string' ? [{ type: 'text', value: r }] : Array.isArray(r) ? r : []) {
      if (c?.type === 'text' && c.value) yield { type: 'text-delta', delta: String(c.value) };
      if (c?.type !== 'tool-call') continue;
      // The loop gives a call without a string id a fresh one, and answers a missing name with words.
      const v = (c.value ?? {}) as { callID?: string; callId?: string; name: string; arguments?: unknown };
      const args = v.arguments ?? {};
      yield { type: 'tool-call', id: v.callID ?? v.callId ?? '', name: v.name, input: args, ...invalid(args) };
    }
  } finally {
    s.destroy();
  }
}

/** What a session with the browser's tool loop declares it expects besides text. */
export const TOOL_LANGUAGES = {
  expectedInputs: [...LANGUAGES.expectedInputs, { type: 'tool-response' }],
  expectedOutputs: [...LANGUAGES.expectedOutputs, { type: 'tool-call' }],
};

/**
 * The two published designs of the Prompt API's native tools:
 * - `execute`: the spec draft's `LanguageModelTool { name, description, inputSchema, execute }`;
 *   the browser calls `execute` and hands the result to the model itself.
 * - `declared`: Chromium's (`AIPromptAPIToolUse`) and webref's `LanguageModelToolDeclaration
 *   { name, description, inputSchema }`; the reply holds `tool-call` pieces and the page answers
 *   with `tool-response` pieces (`LanguageModelToolSuccess` / `LanguageModelToolError`).
 */
export type NativeTools = 'execute' | 'declared';

export interface ToolProbe {
  /** Which design this browser's `LanguageModel` takes, or none (the prompt format then). */
  design?: NativeTools;
  /** What `availability()` says for a session with tools. */
  availability?: string;
}

/**
 * Finds the browser's tool design by what it reads. An option a browser does not know is silently
 * ignored (Web IDL drops unknown dictionary members), so passing `tools` proves nothing; but a
 * browser that knows the option reads it, and reads `execute` from each tool only when its design
 * calls tools itself. The `declared` design also needs the response classes it answers with.
 */
export async function probeTools(lm: LanguageModelLike): Promise<ToolProbe> {
  // A tool whose members report when they are read. The getters are not enumerable: only code that
  // asks for a member by name (as Web IDL's dictionary conversion does) reads them, not a copy, a
  // spread or `JSON.stringify`.
  const read = new Set<string>();
  const tool = {};
  for (const [k, v] of Object.entries({ name: 'probe', description: 'Feature detection.', inputSchema: { type: 'object', properties: {} }, execute: async () => '' }))
    Object.defineProperty(tool, k, { get: () => (read.add(k), v) });
  let availability: string | undefined;
  try {
    availability = await lm.availability({ ...TOOL_LANGUAGES, tools: [tool] });
  } catch {
    // A browser that refuses the tool types cannot use tools natively.
  }
  const g = globalThis as Record<string, unknown>;
  const classes = ['LanguageModelToolCall', 'LanguageModelToolSuccess', 'LanguageModelToolError'].every((n) => typeof g[n] === 'function');
  const design = read.has('execute') ? 'execute' : read.has('inputSchema') && classes ? 'declared' : undefined;
  return { design, availability };
}

/** A failure of the browser's model as words and the seed's error codes. The signal's own reason on Stop. */
export function promptError(e: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  const name = (e as DOMException)?.name;
  const words = why(e);
  if (name === 'QuotaExceededError') return new AdapterError('bad_request', "The conversation is too long for Chrome's built-in model: start a new chat, or ask for less.");
  if (name === 'NotSupportedError') return new AdapterError('bad_request', `Chrome's built-in model cannot do this here (${words}).`);
  if (name === 'NetworkError') return new AdapterError('network', `Chrome's built-in model could not be reached (${words}).`);
  return e instanceof AdapterError ? e : new AdapterError('bad_request', `Chrome's built-in model stopped (${words}).`);
}
