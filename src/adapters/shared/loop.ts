/**
 * The tool loop every model adapter runs: one model step, then the step's tool calls one at a
 * time through `req.callTool`, then the next step, up to `maxSteps`. Every call id the model
 * issued is answered (a call the run did not reach is answered as not executed), so the
 * conversation stays a valid request for the next run.
 *
 * Failures end as the seed's `error` codes: an `AdapterError` carries a `code` the widget can
 * explain and words a person can read. Every adapter throws it, the local one too; what maps an
 * HTTP provider's failures onto it is in ./sse.ts, which only the HTTP adapters and the chat server
 * reach. The local adapter's lazily loaded code reaches this module, and esbuild without code
 * splitting wraps every module such code reaches in a lazy-init function (one per module), so
 * the error type lives here rather than in a module of its own.
 */
import type {
  AgentErrorCode,
  AgentMessage,
  AgentPart,
  AgentRunRequest,
  AgentStreamPart,
  AgentToolPart,
  ProviderMetadata,
  ToolDescriptor,
  ToolOutput,
  WebAgent,
} from '../../chat/types.js';

/** A run's failure as one of the seed's error codes, with words a person can read. */
export class AdapterError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    /** Seconds the server asked us to wait (429 `retry-after`). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AdapterError';
  }
}

/** What was thrown, in words. */
export const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** What a provider's step reports: stream parts without the message id the loop adds. */
export type StepPart =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning'; text: string; providerMetadata?: ProviderMetadata }
  | {
      type: 'tool-call';
      id: string;
      name: string;
      input: unknown;
      providerMetadata?: ProviderMetadata;
      /** The call cannot run (arguments that are not JSON): answered with this error instead. */
      invalid?: string;
    }
  /** The step's server ended the run at its step limit (the chat server does). */
  | { type: 'max-steps' };

export interface StepInput {
  /** The conversation, this run's earlier steps included. */
  messages: AgentMessage[];
  tools: ToolDescriptor[];
  /** `req.agent`: its instructions for a provider, its id for the cloud adapter. */
  agent?: WebAgent;
  signal: AbortSignal;
}

/** One model step over the conversation and the tools the model is shown. */
export type Step = (input: StepInput) => AsyncIterable<StepPart>;


/**
 * The first of `limits` that is a number (NaN is not one), else 8, and never below 1: a
 * mistyped limit (`'ten'`, NaN) falls back instead of meaning no limit.
 */
export const stepLimit = (...limits: unknown[]): number =>
  Math.max(1, (limits.find((n) => typeof n === 'number' && n === n) as number | undefined) ?? 8);
/** An output token limit as an API takes it: a whole number of at least 1, else none (NaN, 0, '500' and Infinity were sent as is and refused). */
export const tokenLimit = (n: unknown): number | undefined => (typeof n === 'number' && n >= 1 && n < 2 ** 31 ? Math.floor(n) : undefined);
/** Answer text for a call that never ran; starts as the seed's cancelled marker. */
export const NOT_EXECUTED = 'Error [cancelled] not executed: the run ended before this call ran.';
/** Answer text for a call that failed without saying why. */
export const TOOL_FAILED = 'Error: the tool failed.';

/** A fresh id of about 30 random digits, from `crypto.getRandomValues` (every page has it, secure context or not). */
export const uid = (prefix: string) => `${prefix}_${crypto.getRandomValues(new Uint32Array(3)).join('')}`;

export const outputText = (o: ToolOutput) =>
  (Array.isArray(o?.content) ? o.content : []).map((c) => (typeof c?.text === 'string' ? c.text : '')).join('\n');

/** A name from model output, quoted and cut short, for an error message. */
const quote = (name: string) => JSON.stringify(name.slice(0, 100));

/** Parses a call's streamed arguments: empty means no arguments; not JSON makes the call invalid. */
export function parseArguments(name: string, args: string): { input: unknown; invalid?: string } {
  try {
    return { input: JSON.parse(args.trim() || '{}') };
  } catch {
    return { input: args.slice(0, 2000), invalid: `Error: the arguments for ${quote(name)} were not valid JSON.` };
  }
}

/** Every tool call id the conversation already holds (a reused id would confuse the session). */
export function usedIds(messages: readonly AgentMessage[], into = new Set<string>()): Set<string> {
  for (const m of messages)
    for (const p of m.parts ?? []) {
      if (p.type !== 'tool') continue;
      into.add(p.id);
      if (p.agent) usedIds(p.agent.messages, into);
    }
  return into;
}

/** Runs the loop; `step` streams one model reply. Never throws: failures end as an `error` part. */
export async function* toolLoop(req: AgentRunRequest, step: Step, maxSteps?: number): AsyncGenerator<AgentStreamPart> {
  // Set once the request passed its check: a request that fails it ends as its error part, never aborted.
  let signal: AbortSignal | undefined;
  // This step's calls, each with the error that answers it instead when it cannot run.
  let calls: [AgentToolPart, string?][] = [];
  const answer = (part: AgentToolPart, error: string, output?: ToolOutput): AgentStreamPart => {
    part.state = error.startsWith('Error [cancelled]') ? 'cancelled' : error ? 'error' : 'done';
    // A failed call keeps its output too: the model reads it as that tool's output (data, when untrusted).
    if (output) part.output = output;
    if (error) return { type: 'tool-error', id: part.id, error: (part.error = error) };
    return { type: 'tool-result', id: part.id, output: output! };
  };
  try {
    // A run request built by hand (not by the chat) may hold anything: an error part says what it
    // needs (the tools are read at each step, never ahead, and checked there).
    if (!(Array.isArray(req?.messages) && req.messages.every((m) => m && typeof m == 'object') && typeof req.signal?.aborted == 'boolean' && typeof req.callTool == 'function'))
      throw new AdapterError('bad_request', 'run(req): req.messages, req.signal and req.callTool must be given; <agent-chat> passes { messages, tools, signal, callTool }.');
    signal = req.signal;
    const limit = stepLimit(maxSteps, req.agent?.maxSteps);
    const messages = [...req.messages];
    const ids = usedIds(messages);
    for (let n = 1; ; n++) {
      const messageId = uid('msg');
      const parts: AgentPart[] = [];
      let capped = false;
      calls = [];
      yield { type: 'message-start', messageId };
      const tools = req.tools;
      // A request built by hand (not by the chat) may hold anything here.
      if (!(Array.isArray(tools) && tools.every((t) => typeof t?.name === 'string')))
        throw new AdapterError('bad_request', 'run(req): req.tools (an array of { name, description, inputSchema }) is missing or malformed.');
      for await (const p of step({ messages, tools, agent: req.agent, signal })) {
        const { providerMetadata } = p as { providerMetadata?: ProviderMetadata };
        const meta = providerMetadata && { providerMetadata };
        const last = parts.at(-1);
        // No reply has this many; thousands of calls or parts would cost the page quadratic work (and run the calls).
        if (parts.length >= 256) throw new AdapterError('network', 'The model sent more than 256 parts (text, reasoning, tool calls) in one step.');
        if (p.type === 'max-steps') capped = true;
        else if (p.type === 'tool-call') {
          // Model output is untrusted: a missing, repeated or reused id gets a fresh one.
          const id = typeof p.id === 'string' && p.id && !ids.has(p.id) ? p.id : uid('call');
          ids.add(id);
          const call = { id, name: String(p.name ?? ''), input: p.input, ...meta };
          const tool: AgentToolPart = { type: 'tool', ...call, state: 'running' };
          parts.push(tool);
          calls.push([tool, p.invalid && String(p.invalid)]);
          yield { type: 'tool-call', messageId, ...call };
        } else if (p.type === 'reasoning') {
          const part = { type: p.type, text: p.text, ...meta };
          parts.push(part);
          yield { ...part, messageId };
        } else if (p.delta) {
          if (last?.type === 'text') last.text += p.delta;
          else parts.push({ type: 'text', text: p.delta });
          yield { type: 'text-delta', messageId, delta: p.delta };
        }
      }
      messages.push({ id: messageId, role: 'assistant', parts });
      // One at a time: one page, one cursor.
      for (const [tool, invalid] of calls) {
        const { id, name, input } = tool;
        let error = signal.aborted
          ? NOT_EXECUTED
          : invalid || (tools.some((t) => t.name === name) ? '' : `Error: there is no tool named ${quote(name)} on this page.`);
        let output: ToolOutput | undefined;
        if (!error) {
          try {
            output = await req.callTool({ id, name, input });
            if (output?.isError) error = outputText(output) || TOOL_FAILED;
          } catch (e) {
            // callTool never rejects by contract; a broken one still gets its call answered.
            error = `Error: ${errorText(e)}`;
          }
        }
        yield answer(tool, error, output);
      }
      yield { type: 'step-finish', step: n };
      const reason = signal.aborted ? 'aborted' : calls.length || capped ? (n >= limit || capped) && 'max-steps' : 'stop';
      if (reason) return yield { type: 'finish', reason };
    }
  } catch (e) {
    // Calls reported but not answered yet are answered as not executed.
    for (const [tool] of calls) if (tool.state === 'running') yield answer(tool, NOT_EXECUTED);
    if (signal?.aborted) return yield { type: 'finish', reason: 'aborted' };
    yield { type: 'error', error: errorText(e), code: e instanceof AdapterError ? e.code : 'network' };
  }
}
