/**
 * Runs on Chrome's built-in model through the browser's own tool loop, in either published design
 * (see `NativeTools` in ./prompt-api-session.ts), as steps of the shared tool loop: every call the
 * model makes is reported as a `tool-call` part and runs through `req.callTool` (the registry,
 * approvals included) one at a time; its result goes back to the model as the tool's response.
 * Loaded only where the browser has native tools.
 *
 * A browser may still refuse its tools when a session is made or prompted (a `NotSupportedError`:
 * the spec's answer to options or content types the model cannot take), even after the probe saw
 * them read. The run then goes on in the prompt format (`Fallback`), with the conversation so far.
 */
import type { AgentRunRequest, AgentStreamPart, ToolDescriptor } from '../../../chat/types.js';
import { toTurns, type Turn } from '../../shared/history.js';
import { stepLimit, toolLoop, type Step, type StepPart } from '../../shared/loop.js';
import { isObject } from '../grammar.js';
import { answerText, toTurns as textTurns } from '../tool-format.js';
import { formatStep } from '../steps.js';
import type { LanguageModelContentLike, LanguageModelLike, LocalAdapterOptions, LocalSession } from '../types.js';
import { ask, invalid, promptError, TOOL_LANGUAGES } from './prompt-api-session.js';

type Ctor = new (init: Record<string, unknown>) => object;
const api = globalThis as unknown as Record<'LanguageModelToolCall' | 'LanguageModelToolSuccess' | 'LanguageModelToolError', Ctor>;
// Chromium spells the id `callID`; webref's IDL `callId`. Web IDL reads only the member it knows.
const ids = (id: string) => ({ callID: id, callId: id });
const declare = (t: ToolDescriptor) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema });

/**
 * Where a run goes when the browser refuses its native tools: `generate` is the engine's
 * prompt-format step (constrained by `responseConstraint`), `refused` is told once with the
 * browser's error so later runs skip the native loop.
 */
export interface Fallback {
  generate: LocalSession['generate'];
  refused(e: unknown): void;
}

type Loop = (lm: LanguageModelLike, req: AgentRunRequest, o: LocalAdapterOptions, marker: string, f: Fallback) => AsyncIterable<AgentStreamPart>;

/**
 * The shared tool loop over `native` steps. A refusal of native tools (a `NotSupportedError`, not
 * Stop) before a step showed anything: that step and the rest of the run take the prompt format.
 */
function nativeLoop(req: AgentRunRequest, o: LocalAdapterOptions, marker: string, f: Fallback, native: Step, maxSteps?: number) {
  const fallback = formatStep(f, o, marker);
  let refused = false;
  return toolLoop(
    req,
    async function* (input) {
      let shown = false;
      try {
        if (!refused) for await (const p of native(input)) yield ((shown = true), p);
      } catch (e) {
        if (shown || input.signal.aborted || (e as DOMException)?.name !== 'NotSupportedError') throw promptError(e, input.signal);
        refused = true;
        f.refused(e);
      }
      if (refused) yield* fallback(input);
    },
    maxSteps,
  );
}

/** The conversation as Prompt API messages with native `tool-call` and `tool-response` pieces. */
export function nativeMessages(turns: readonly Turn[], instructions?: string): Array<{ role: string; content: string | LanguageModelContentLike[] }> {
  const out: Array<{ role: string; content: string | LanguageModelContentLike[] }> = instructions ? [{ role: 'system', content: instructions }] : [];
  for (const t of turns) {
    if (t.role === 'user') {
      out.push({ role: 'user', content: t.text });
      continue;
    }
    const content: LanguageModelContentLike[] = [];
    // A turn's answers are in the order of its calls.
    const responses: LanguageModelContentLike[] = [];
    for (const p of t.parts) {
      if (p.type === 'text') content.push({ type: 'text', value: p.text });
      else if (p.type === 'tool') {
        const a = t.answers[responses.length]!;
        const call = { ...ids(p.id), name: p.name };
        content.push({ type: 'tool-call', value: new api.LanguageModelToolCall({ ...call, arguments: isObject(p.input) ? p.input : {} }) });
        responses.push({
          type: 'tool-response',
          value: a.isError ? new api.LanguageModelToolError({ ...call, errorMessage: a.text }) : new api.LanguageModelToolSuccess({ ...call, result: [{ type: 'text', value: a.text }] }),
        });
      }
    }
    if (content.length) out.push({ role: 'assistant', content });
    if (responses.length) out.push({ role: 'user', content: responses });
  }
  return out;
}

/**
 * The `declared` design: each model step is a session over the conversation so far (so the
 * page's tools are read fresh every step), whose reply may hold `tool-call` pieces; the shared
 * tool loop runs them and the next step sends their `tool-response`s.
 */
export const declaredLoop: Loop = (lm, req, o, marker, f) =>
  nativeLoop(req, o, marker, f, async function* ({ messages, tools, instructions, signal }) {
    const declared = o.toolChoice === 'none' ? [] : tools;
    const prompts = nativeMessages(toTurns(messages, tools, marker, o), instructions);
    const last = prompts.at(-1)?.role === 'user' ? prompts.pop()! : { role: 'user', content: '' };
    yield* ask(lm, { ...TOOL_LANGUAGES, signal, initialPrompts: prompts, tools: declared.map(declare) }, [last], { signal }, declared.length > 0);
  });

/**
 * The `execute` design: one prompt, inside which the browser calls each tool's `execute`. Each
 * call ends a step of the loop, which runs it through `req.callTool` (one at a time: one page, one
 * cursor); the next step hands its answer back as what `execute` returns and reads on. Calls past
 * `maxSteps` are refused with words in the step after the last one, which lets the model answer.
 */
export const executeLoop: Loop = (lm, req, o, marker, f) => {
  const limit = stepLimit(req.agent?.maxSteps);
  const capped = `Error: this run reached its limit of ${limit} tool calls; answer with what you have.`;
  // The prompt's own signal, also aborted when the run ends before the prompt does.
  const stop = new AbortController();
  const signal = AbortSignal.any([req.signal, stop.signal]);
  // What the browser does, read by one step after another: text, calls, the prompt's end.
  let c!: ReadableStreamDefaultController<StepPart>;
  const reader = new ReadableStream<StepPart>({ start: (x) => void (c = x) }).getReader();
  // The waiting `execute`s, in the order of their calls.
  const answers: Array<(text: string) => void> = [];
  let calls = 0;
  let failure: unknown;
  let started = false;

  const execute = (name: string) => (input: unknown) =>
    new Promise<string>((resolve, reject) => {
      signal.throwIfAborted();
      signal.addEventListener('abort', () => reject(signal.reason));
      if (++calls > limit) return c.enqueue({ type: 'tool-call', id: '', name, input, invalid: capped }), resolve(capped);
      c.enqueue({ type: 'tool-call', id: '', name, input, ...invalid(input) });
      answers.push(resolve);
    });

  const step: Step = async function* ({ messages, tools, instructions }) {
    if (started) {
      // The answer to the call the last step ended at, as the model reads it.
      for (const a of (toTurns(messages.slice(-1), tools, marker, o)[0] as Extract<Turn, { role: 'assistant' }>).answers)
        answers.shift()?.(answerText(a));
    } else {
      started = true;
      // This design has no tool-call pieces for the history: earlier calls are written in the prompt format.
      const turns = textTurns(messages, instructions ?? '', { tools, marker, maxToolOutputChars: o.maxToolOutputChars });
      const last = turns.at(-1)?.role === 'user' ? turns.pop()!.content : '';
      // The browser's own error, unconverted: a refusal is told apart from other failures by its name.
      void (async () => {
        const tooled = (o.toolChoice === 'none' ? [] : tools).map((t) => ({ ...declare(t), execute: execute(t.name) }));
        for await (const p of ask(lm, { ...TOOL_LANGUAGES, signal, initialPrompts: turns, tools: tooled }, last, { signal })) c.enqueue(p);
      })()
        .catch((e) => (failure = e))
        .finally(() => c.close());
    }
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        if (failure) throw failure;
        return;
      }
      yield value;
      if (value.type === 'tool-call' && value.invalid !== capped) return;
    }
  };

  return (async function* () {
    try {
      yield* nativeLoop(req, o, marker, f, step, limit + 1);
    } finally {
      stop.abort();
    }
  })();
};
