/**
 * Runs on Chrome's built-in model through the browser's own tool loop, in either published design
 * (see `NativeTools` in ./prompt-api.ts). Every call the model makes is reported as a `tool-call`
 * part and runs through `req.callTool` (the registry, approvals included) one at a time; its result
 * goes back to the model as the tool's response. Loaded only where the browser has native tools.
 *
 * A browser may still refuse its tools when a session is made or prompted (a `NotSupportedError`:
 * the spec's answer to options or content types the model cannot take), even after the probe saw
 * them read. The run then goes on in the prompt format (`Fallback`), with the conversation so far.
 */
import type { AgentMessage, AgentPart, AgentRunRequest, AgentStreamPart, AgentToolPart, ToolDescriptor, ToolOutput } from '../../../chat/types.js';
import { toTurns, type Turn } from '../../shared/history.js';
import { DEFAULT_MAX_STEPS, NOT_EXECUTED, outputText, toolLoop, uid, usedIds, type Step } from '../../shared/loop.js';
import type { AdapterError } from '../../shared/errors.js';
import { toolText } from '../../shared/untrusted.js';
import { toTurns as textTurns } from '../tool-format.js';
import { formatStep } from '../steps.js';
import type { LanguageModelContentLike, LanguageModelLike, LocalAdapterOptions, LocalSession } from '../types.js';
import { promptError, textOf, TOOL_LANGUAGES } from './prompt-api-session.js';

type Ctor = new (init: Record<string, unknown>) => object;
const api = globalThis as unknown as Record<'LanguageModelToolCall' | 'LanguageModelToolSuccess' | 'LanguageModelToolError', Ctor>;
// Chromium spells the id `callID`; webref's IDL `callId`. Web IDL reads only the member it knows.
const ids = (id: string) => ({ callID: id, callId: id });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const declare = (t: ToolDescriptor) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema });
const live = (req: AgentRunRequest, o: LocalAdapterOptions) => (o.toolChoice === 'none' ? [] : req.tools);

/**
 * Where a run goes when the browser refuses its native tools: `generate` is the engine's
 * prompt-format step (constrained by `responseConstraint`), `refused` is told once with the
 * browser's error so later runs skip the native loop.
 */
export interface Fallback {
  generate: LocalSession['generate'];
  refused(e: unknown): void;
}

/** A refusal of native tools, as opposed to Stop or any other failure. */
const refusal = (e: unknown, signal: AbortSignal) => !signal.aborted && (e as DOMException)?.name === 'NotSupportedError';

/** The conversation as Prompt API messages with native `tool-call` and `tool-response` pieces. */
export function nativeMessages(turns: readonly Turn[], instructions?: string): Array<{ role: string; content: string | LanguageModelContentLike[] }> {
  const out: Array<{ role: string; content: string | LanguageModelContentLike[] }> = instructions ? [{ role: 'system', content: instructions }] : [];
  for (const t of turns) {
    if (t.role === 'user') {
      out.push({ role: 'user', content: t.text });
      continue;
    }
    const names = new Map<string, string>();
    const content: LanguageModelContentLike[] = [];
    for (const p of t.parts) {
      if (p.type === 'text') content.push({ type: 'text', value: p.text });
      else if (p.type === 'tool') {
        names.set(p.id, p.name);
        content.push({ type: 'tool-call', value: new api.LanguageModelToolCall({ ...ids(p.id), name: p.name, arguments: isObject(p.input) ? p.input : {} }) });
      }
    }
    if (content.length) out.push({ role: 'assistant', content });
    if (t.answers.length) {
      out.push({
        role: 'user',
        content: t.answers.map((a) => {
          const name = names.get(a.id) ?? '';
          const value = a.isError
            ? new api.LanguageModelToolError({ ...ids(a.id), name, errorMessage: a.text })
            : new api.LanguageModelToolSuccess({ ...ids(a.id), name, result: [{ type: 'text', value: a.text }] });
          return { type: 'tool-response', value };
        }),
      });
    }
  }
  return out;
}

/**
 * The `declared` design: each model step is a session over the conversation so far (so the
 * page's tools are read fresh every step), whose reply may hold `tool-call` pieces; the shared
 * tool loop runs them and the next step sends their `tool-response`s.
 */
export function declaredLoop(lm: LanguageModelLike, req: AgentRunRequest, o: LocalAdapterOptions, marker: string, f: Fallback): AsyncIterable<AgentStreamPart> {
  const fallback = formatStep(f, o, marker);
  let refused = false;
  const native: Step = async function* (input) {
    const { messages, tools, instructions, signal } = input;
    const declared = o.toolChoice === 'none' ? [] : tools;
    const prompts = nativeMessages(toTurns(messages, tools, marker, o), instructions);
    const last = prompts[prompts.length - 1]?.role === 'user' ? prompts.pop()! : { role: 'user', content: '' };
    let shown = false;
    let s;
    try {
      s = await lm.create({ ...TOOL_LANGUAGES, signal, initialPrompts: prompts, tools: declared.map(declare) });
      if (!declared.length && s.promptStreaming) {
        for await (const delta of s.promptStreaming([last], { signal }) as AsyncIterable<string>) if (delta) yield ((shown = true), { type: 'text-delta', delta: String(delta) });
        return;
      }
      const reply = await s.prompt([last], { signal });
      for (const c of typeof reply === 'string' ? [{ type: 'text', value: reply }] : Array.isArray(reply) ? reply : []) {
        if (c?.type === 'text' && c.value) yield { type: 'text-delta', delta: String(c.value) };
        if (c?.type !== 'tool-call') continue;
        // The model's output is untrusted: a call without a name or with non-object arguments is answered with words.
        const v = (c.value ?? {}) as { callID?: unknown; callId?: unknown; name?: unknown; arguments?: unknown };
        const args = v.arguments ?? {};
        yield {
          type: 'tool-call',
          id: String(v.callID ?? v.callId ?? ''),
          name: String(v.name ?? ''),
          input: args,
          ...(isObject(args) ? {} : { invalid: 'Error: the arguments must be a JSON object.' }),
        };
      }
    } catch (e) {
      // Refused before this step showed anything: this step and the rest of the run take the prompt format.
      if (shown || !refusal(e, signal)) throw promptError(e, signal);
      refused = true;
      f.refused(e);
      yield* fallback(input);
    } finally {
      s?.destroy();
    }
  };
  return toolLoop(req, (input) => (refused ? fallback : native)(input), req.agent?.maxSteps);
}

/**
 * The `execute` design: one prompt, inside which the browser calls each tool's `execute`. Each
 * call is reported and run through `req.callTool` (one at a time: one page, one cursor), and what
 * `execute` returns is the tool's response. Calls past `maxSteps` are refused with words.
 */
export async function* executeLoop(lm: LanguageModelLike, req: AgentRunRequest, o: LocalAdapterOptions, marker: string, f: Fallback): AsyncGenerator<AgentStreamPart> {
  const { signal } = req;
  const messageId = uid('msg');
  // What the chat was shown, as the message it holds: the conversation a refused run goes on from.
  const parts: AgentPart[] = [];
  const record = (p: AgentStreamPart) => {
    const last = parts[parts.length - 1];
    if (p.type === 'text-delta') {
      if (last?.type === 'text') last.text += p.delta;
      else parts.push({ type: 'text', text: p.delta });
    }
    else if (p.type === 'tool-call') parts.push({ type: 'tool', id: p.id, name: p.name, input: p.input, state: 'running' });
    else if (p.type === 'tool-result' || p.type === 'tool-error') {
      const t = parts.find((x): x is AgentToolPart => x.type === 'tool' && x.id === p.id);
      if (t) Object.assign(t, p.type === 'tool-result' ? { state: 'done', output: p.output } : { state: p.error.startsWith('Error [cancelled]') ? 'cancelled' : 'error', error: p.error });
    }
  };
  const queue: AgentStreamPart[] = [];
  let wake: (() => void) | undefined;
  const push = (p: AgentStreamPart) => {
    queue.push(p);
    wake?.();
  };
  const taken = usedIds(req.messages);
  const limit = Math.max(1, req.agent?.maxSteps ?? DEFAULT_MAX_STEPS);
  let calls = 0;
  let capped = false;
  let chain: Promise<unknown> = Promise.resolve();
  // Untrusted when its tool says so, or when the tool is gone from the page (nothing vouches for it then).
  const untrusted = (name: string) => {
    const t = req.tools.find((x) => x.name === name);
    return !t || t.untrustedOutput === true;
  };

  const execute = (name: string) => (input: unknown) => {
    const call = chain.then(async (): Promise<string> => {
      let id = uid('call');
      while (taken.has(id)) id = uid('call');
      taken.add(id);
      push({ type: 'tool-call', messageId, id, name, input });
      const refuse = (error: string) => (push({ type: 'tool-error', id, error }), error);
      if (signal.aborted) {
        refuse(NOT_EXECUTED);
        throw signal.reason;
      }
      if (++calls > limit) {
        capped = true;
        return refuse(`Error: this run reached its limit of ${limit} tool calls; answer with what you have.`);
      }
      if (!req.tools.some((t) => t.name === name)) return refuse(`Error: there is no tool named ${JSON.stringify(name.slice(0, 100))} on this page.`);
      if (!isObject(input)) return refuse('Error: the arguments must be a JSON object.');
      let output: ToolOutput;
      try {
        output = await req.callTool({ id, name, input });
      } catch (e) {
        // callTool never rejects by contract; a broken one still gets its call answered.
        output = { content: [{ type: 'text', text: `Error: ${e instanceof Error ? e.message : String(e)}` }], isError: true };
      }
      const text = toolText(outputText(output), untrusted(name), marker, o.maxToolOutputChars);
      if (output?.isError) return (refuse(outputText(output) || 'Error: the tool failed.'), `Error: ${text}`);
      push({ type: 'tool-result', id, output });
      return text;
    });
    chain = call.catch(() => {});
    return call;
  };

  // This design has no tool-call pieces for the history: earlier calls are written in the prompt format.
  const turns = textTurns(req.messages, req.agent?.instructions ?? '', { tools: req.tools, marker, maxToolOutputChars: o.maxToolOutputChars });
  const last = turns[turns.length - 1]?.role === 'user' ? turns.pop()!.content : '';
  let failure: unknown;
  let done = false;
  void (async () => {
    // The browser's own error, unconverted: a refusal is told apart from other failures by its name.
    const s = await lm.create({
      ...TOOL_LANGUAGES,
      signal,
      initialPrompts: turns,
      tools: live(req, o).map((t) => ({ ...declare(t), execute: execute(t.name) })),
    });
    try {
      if (!s.promptStreaming) push({ type: 'text-delta', messageId, delta: textOf(await s.prompt(last, { signal })) });
      else for await (const delta of s.promptStreaming(last, { signal }) as AsyncIterable<string>) if (delta) push({ type: 'text-delta', messageId, delta: String(delta) });
    } finally {
      s.destroy();
    }
  })()
    .catch((e) => (failure = e))
    .finally(async () => {
      await chain;
      done = true;
      wake?.();
    });
  // The message starts with its first part, so a run refused before anything has no empty message.
  let started = false;
  for (;;) {
    while (queue.length) {
      const p = queue.shift()!;
      if (p.type === 'text-delta' && !p.delta) continue;
      if (!started) yield ((started = true), { type: 'message-start', messageId });
      record(p);
      yield p;
    }
    if (done) break;
    await new Promise<void>((r) => (wake = r));
    wake = undefined;
  }
  if (failure && refusal(failure, signal) && !parts.some((p) => p.type === 'text')) {
    // Refused before the model wrote any text: the run goes on in the prompt format, after any calls it made.
    f.refused(failure);
    if (started) yield { type: 'step-finish', step: 1 };
    const rest = Object.create(req, { messages: { value: started ? [...req.messages, { id: messageId, role: 'assistant', parts } satisfies AgentMessage] : req.messages } });
    return yield* toolLoop(rest as AgentRunRequest, formatStep(f, o, marker), limit - (started ? 1 : 0));
  }
  if (!started) yield { type: 'message-start', messageId };
  yield { type: 'step-finish', step: 1 };
  if (signal.aborted) return yield { type: 'finish', reason: 'aborted' };
  if (failure) {
    const e = promptError(failure, signal) as AdapterError;
    return yield { type: 'error', error: e.message, code: e.code };
  }
  yield { type: 'finish', reason: capped ? 'max-steps' : 'stop' };
}
