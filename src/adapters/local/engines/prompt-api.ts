/**
 * Chrome's built-in model through the Prompt API (`LanguageModel`). The browser downloads and
 * keeps the weights; `create({ monitor })` reports the download.
 *
 * Tools run in one of three ways:
 * - the browser's own tool loop, in either published design of its native tools:
 *   - `execute`: the spec draft's `LanguageModelTool { name, description, inputSchema, execute }`;
 *     the browser calls `execute` and hands the result to the model itself;
 *   - `declared`: Chromium's (`AIPromptAPIToolUse`) and webref's `LanguageModelToolDeclaration
 *     { name, description, inputSchema }`; the reply holds `tool-call` pieces and the page answers
 *     with `tool-response` pieces (`LanguageModelToolSuccess` / `LanguageModelToolError`);
 *   every call the model makes is reported as a `tool-call` part and runs through `req.callTool`
 *   (the registry, approvals included) one at a time, as steps of the shared tool loop;
 * - elsewhere the same `<tool_call>` format as the other engines, constrained by the API's
 *   `responseConstraint` (a JSON Schema built from the live tools).
 *
 * A browser may still refuse its tools when a session is made or prompted (a `NotSupportedError`:
 * the spec's answer to options or content types the model cannot take), even after the probe saw
 * them read. The run then goes on in the prompt format, with the conversation so far, and later
 * runs skip the native loop.
 */
import type { AgentRunRequest, AgentStreamPart, ToolDescriptor } from '../../../chat/types.js';
import { toTurns, type Turn } from '../../shared/history.js';
import { AdapterError, stepLimit, toolLoop, type Step, type StepPart } from '../../shared/loop.js';
import { LANGUAGES } from '../detect.js';
import { isObject } from '../grammar.js';
import { CALL_CLOSE, CALL_OPEN, NOT_AN_OBJECT } from '../ids.js';
import { formatStep, steps } from '../steps.js';
import { answerText, toTurns as textTurns } from '../tool-format.js';
import { why } from '../words.js';
import type { GenerateRequest, LanguageModelContentLike, LanguageModelLike, LanguageModelSessionLike, LocalAdapterOptions, LocalSession } from '../types.js';

const CHROME = "Chrome's built-in model";

/** What a session with the browser's tool loop declares it expects besides text. */
const TOOL_LANGUAGES = {
  expectedInputs: [...LANGUAGES.expectedInputs, { type: 'tool-response' }],
  expectedOutputs: [...LANGUAGES.expectedOutputs, { type: 'tool-call' }],
};

type Ctor = new (init: Record<string, unknown>) => object;
const api = globalThis as unknown as Record<'LanguageModelToolCall' | 'LanguageModelToolSuccess' | 'LanguageModelToolError', Ctor>;
const declare = ({ name, description, inputSchema }: ToolDescriptor) => ({ name, description, inputSchema });
// The model's output is untrusted: a call with arguments that are not an object is answered with words.
const call = (id: string, name: string, input: unknown): StepPart => ({ type: 'tool-call', id, name, input, ...(isObject(input) ? {} : { invalid: NOT_AN_OBJECT }) });

/**
 * One prompt on a fresh session made with `create`, as step parts: text as it streams, or
 * (`whole`, or a session without streaming) the whole reply's text and `tool-call` pieces. The
 * session is destroyed when the reply ends or is dropped.
 */
async function* ask(lm: LanguageModelLike, create: Parameters<LanguageModelLike['create']>[0], input: unknown, options: object, whole?: boolean): AsyncGenerator<StepPart> {
  const s = await lm.create(create);
  try {
    if (!whole && s.promptStreaming) {
      for await (const delta of s.promptStreaming(input, options) as AsyncIterable<string>) if (delta) yield { type: 'text-delta', delta: String(delta) };
      return;
    }
    const r = await s.prompt(input, options);
    for (const c of typeof r == 'string' ? [{ type: 'text', value: r }] : Array.isArray(r) ? r : []) {
      const v = c?.value as { callID?: string; callId?: string; name: string; arguments?: unknown } | undefined;
      if (c?.type == 'text' && v) yield { type: 'text-delta', delta: String(v) };
      // The loop gives a call without a string id a fresh one, and answers a missing name with words.
      if (c?.type == 'tool-call') yield call(v?.callID ?? v?.callId ?? '', v?.name ?? '', v?.arguments ?? {});
    }
  } finally {
    s.destroy();
  }
}

/** What `probeTools` finds: the native tool design this browser's `LanguageModel` takes (none: the prompt format), and `availability()` for a session with tools. */
export interface ToolProbe {
  design?: 'execute' | 'declared';
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
  // A browser that refuses the tool types cannot use tools natively.
  const availability = await lm.availability({ ...TOOL_LANGUAGES, tools: [tool] }).catch(() => undefined);
  const classes = ['LanguageModelToolCall', 'LanguageModelToolSuccess', 'LanguageModelToolError'].every((n) => typeof api[n as keyof typeof api] == 'function');
  return { design: read.has('execute') ? 'execute' : read.has('inputSchema') && classes ? 'declared' : undefined, availability };
}

/** A failure of the browser's model as words and the seed's error codes. The signal's own reason on Stop. */
export function promptError(e: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  if (e instanceof AdapterError) return e;
  const name = (e as DOMException)?.name;
  const words = why(e);
  return name == 'QuotaExceededError'
    ? new AdapterError('bad_request', `The conversation is too long for ${CHROME}: start a new chat, or ask for less.`)
    : new AdapterError(
        name == 'NetworkError' ? 'network' : 'bad_request',
        `${CHROME} ${name == 'NotSupportedError' ? 'cannot do this here' : name == 'NetworkError' ? 'could not be reached' : 'stopped'} (${words}).`,
      );
}

/** The reply as JSON: either text or one call of a live tool with arguments following its schema. */
function responseSchema(tools: readonly ToolDescriptor[], choice: GenerateRequest['toolChoice']): object | undefined {
  if (!tools.length || choice == 'none') return;
  const object = (properties: object, required: string[], extra?: object) => ({ type: 'object', properties, required, additionalProperties: false, ...extra });
  const call = object({ tool_call: { anyOf: tools.map((t) => object({ name: { const: t.name }, arguments: t.inputSchema }, ['name', 'arguments'])) } }, ['tool_call']);
  return choice == 'required' ? call : { anyOf: [object({ reply: { type: 'string' } }, ['reply']), call] };
}

/**
 * The constrained JSON reply as the `<tool_call>` format's text. JSON that does not parse (a reply
 * cut off at the token limit) becomes an unterminated call, which the parser turns into words for
 * the model instead of showing it as an answer.
 */
function fromJsonReply(json: string): string {
  try {
    const v = JSON.parse(json) as { reply?: unknown; tool_call?: unknown };
    if (typeof v.reply == 'string') return v.reply;
    if (v.tool_call !== undefined) return `${CALL_OPEN}\n${JSON.stringify(v.tool_call)}\n${CALL_CLOSE}`;
  } catch {
    // fall through
  }
  return `${CALL_OPEN}\n${json}`;
}

/** The conversation as Prompt API messages with native `tool-call` and `tool-response` pieces. */
export function nativeMessages(turns: readonly Turn[], instructions?: string): Array<{ role: string; content: string | LanguageModelContentLike[] }> {
  const out: Array<{ role: string; content: string | LanguageModelContentLike[] }> = instructions ? [{ role: 'system', content: instructions }] : [];
  for (const t of turns) {
    if (t.role == 'user') {
      out.push({ role: 'user', content: t.text });
      continue;
    }
    const content: LanguageModelContentLike[] = [];
    // A turn's answers are in the order of its calls.
    const responses: LanguageModelContentLike[] = [];
    for (const p of t.parts) {
      if (p.type == 'text') content.push({ type: 'text', value: p.text });
      else if (p.type == 'tool') {
        const a = t.answers[responses.length]!;
        // Chromium spells the id `callID`; webref's IDL `callId`. Web IDL reads only the member it knows.
        const ids = { callID: p.id, callId: p.id, name: p.name };
        content.push({ type: 'tool-call', value: new api.LanguageModelToolCall({ ...ids, arguments: isObject(p.input) ? p.input : {} }) });
        responses.push({
          type: 'tool-response',
          value: a.isError ? new api.LanguageModelToolError({ ...ids, errorMessage: a.text }) : new api.LanguageModelToolSuccess({ ...ids, result: [{ type: 'text', value: a.text }] }),
        });
      }
    }
    if (content.length) out.push({ role: 'assistant', content });
    if (responses.length) out.push({ role: 'user', content: responses });
  }
  return out;
}

/**
 * Chrome's built-in model as a session, from the first session's `create()` (`created`), which the
 * adapter calls itself, within the click (the adapter checks `availability()` itself, at once).
 */
export async function loadPromptApi(lm: LanguageModelLike, signal: AbortSignal, created: Promise<LanguageModelSessionLike>): Promise<LocalSession> {
  // Creating the first session is what downloads the model; it stays open so the browser keeps it loaded.
  let base: LanguageModelSessionLike;
  try {
    base = await created;
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    const name = (e as DOMException)?.name;
    throw new Error(
      name == 'QuotaExceededError'
        ? `Not enough disk space for ${CHROME}.`
        : name == 'NotAllowedError'
          ? `Chrome needs a click on the page before it downloads its built-in model.`
          : `${CHROME} could not start (${why(e)}).`,
    );
  }
  const probe = await probeTools(lm);
  // Which native tool design runs; none once the browser has refused it (for this and later runs).
  let native = probe.availability != 'unavailable' && probe.design;

  const generate = async (req: GenerateRequest): Promise<string> => {
    const { turns, signal } = req;
    try {
      const schema = responseSchema(req.tools, req.toolChoice);
      const options = { signal };
      // A browser that does not know `responseConstraint` ignores it and writes free text,
      // in the prompt format the system turn describes: read as such, not as JSON.
      let constrained = false;
      if (schema) Object.defineProperty(options, 'responseConstraint', { get: () => ((constrained = true), schema) });
      // A JSON reply is shown only once it is whole (as text, or as a call).
      let text = '';
      for await (const p of ask(lm, { ...LANGUAGES, signal, initialPrompts: turns.slice(0, -1) }, turns.at(-1)?.content ?? '', options, !!schema)) {
        if (p.type != 'text-delta') continue;
        text += p.delta;
        if (!schema) req.onText(p.delta);
      }
      if (constrained) text = fromJsonReply(text);
      if (schema) req.onText(text);
      return text;
    } catch (e) {
      throw promptError(e, signal);
    }
  };
  const session: LocalSession = { generate, dispose: () => base.destroy() };
  if (!native) return session;

  /**
   * The shared tool loop over `nativeStep`s. A refusal of native tools (a `NotSupportedError`, not
   * Stop) before a step showed anything: that step and the rest of the run take the prompt format.
   */
  const loop = (req: AgentRunRequest, o: LocalAdapterOptions, marker: string, nativeStep: Step, maxSteps?: number) => {
    const fallback = formatStep(session, o, marker);
    let refused = false;
    return toolLoop(
      req,
      async function* (input) {
        let shown = false;
        try {
          if (!refused) for await (const p of nativeStep(input)) yield ((shown = true), p);
        } catch (e) {
          if (shown || input.signal.aborted || (e as DOMException)?.name != 'NotSupportedError') throw promptError(e, input.signal);
          refused = true;
          if (native) console.warn(`${CHROME} refused its native tools (${(e as Error).name}: ${(e as Error).message}); tool calls use the <tool_call> prompt format from now on.`);
          native = false;
        }
        if (refused) yield* fallback(input);
      },
      maxSteps,
    );
  };

  /**
   * The `declared` design: each model step is a session over the conversation so far (so the
   * page's tools are read fresh every step), whose reply may hold `tool-call` pieces; the shared
   * tool loop runs them and the next step sends their `tool-response`s.
   */
  const declaredLoop = (req: AgentRunRequest, o: LocalAdapterOptions, marker: string) =>
    loop(req, o, marker, async function* ({ messages, tools, agent, signal }) {
      const declared = o.toolChoice == 'none' ? [] : tools;
      const prompts = nativeMessages(toTurns(messages, tools, marker, o), agent?.instructions);
      const last = prompts.at(-1)?.role == 'user' ? prompts.pop()! : { role: 'user', content: '' };
      yield* ask(lm, { ...TOOL_LANGUAGES, signal, initialPrompts: prompts, tools: declared.map(declare) }, [last], { signal }, declared.length > 0);
    });

  /**
   * The `execute` design: one prompt, inside which the browser calls each tool's `execute`. Each
   * call ends a step of the loop, which runs it through `req.callTool` (one at a time: one page, one
   * cursor); the next step hands its answer back as what `execute` returns and reads on. Calls past
   * `maxSteps` are refused with words in the step after the last one, which lets the model answer.
   */
  async function* executeLoop(req: AgentRunRequest, o: LocalAdapterOptions, marker: string): AsyncGenerator<AgentStreamPart> {
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
        c.enqueue(call('', name, input));
        answers.push(resolve);
      });

    const step: Step = async function* ({ messages, tools, agent }) {
      if (started) {
        // The answer to the call the last step ended at, as the model reads it.
        for (const a of (toTurns(messages.slice(-1), tools, marker, o)[0] as Extract<Turn, { role: 'assistant' }>).answers) answers.shift()?.(answerText(a));
      } else {
        started = true;
        // This design has no tool-call pieces for the history: earlier calls are written in the prompt format.
        const turns = textTurns(messages, agent?.instructions ?? '', { tools, marker, maxToolOutputChars: o.maxToolOutputChars });
        const last = turns.at(-1)?.role == 'user' ? turns.pop()!.content : '';
        // The browser's own error, unconverted: a refusal is told apart from other failures by its name.
        void (async () => {
          const tooled = (o.toolChoice == 'none' ? [] : tools).map((t) => ({ ...declare(t), execute: execute(t.name) }));
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
        if (value.type == 'tool-call' && value.invalid !== capped) return;
      }
    };

    try {
      yield* loop(req, o, marker, step, limit + 1);
    } finally {
      stop.abort();
    }
  }

  // The browser's loop cannot be made to call a tool: a forced first call takes the prompt format.
  session.run = (req, o, marker) => (!native || o.toolChoice == 'required' ? steps(req, session, o, marker) : (native == 'execute' ? executeLoop : declaredLoop)(req, o, marker));
  return session;
}
