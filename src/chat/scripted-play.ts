/**
 * The scripted adapter's player: the steps of a script played as one run's stream parts. Loaded with
 * the first run (./scripted-adapter.ts), so a chat that never plays a script never downloads it.
 */
import { findTool } from './find-tool.js';
import { fallbackId } from './run.js';
import { outputText } from './session.js';
import type {
  AgentErrorCode,
  AgentMessage,
  AgentRunRequest,
  AgentStreamPart,
  ProviderMetadata,
  ToolDescriptor,
  ToolOutput,
  WebAgent,
} from './types.js';

/** What a dynamic step sees: the run so far. */
export interface ScriptContext {
  readonly messages: readonly AgentMessage[];
  /** The text of the last user message. */
  readonly text: string;
  /** `req.tools`, read fresh. */
  readonly tools: readonly ToolDescriptor[];
  readonly agent: WebAgent | undefined;
  /** Outputs of this run's calls, in order. */
  readonly outputs: readonly ToolOutput[];
  /** The last call's output. */
  readonly last: ToolOutput | undefined;
  /** A call's output as JSON (`structuredContent`, else its text parsed), `undefined` when it is not JSON. */
  json(output?: ToolOutput): unknown;
}

export type ScriptStep =
  /** Streamed in deltas of `chunk` characters (default: the whole text at once). */
  | { text: string; chunk?: number }
  | { reasoning: string; providerMetadata?: ProviderMetadata }
  /**
   * A call to the tool whose wire name is `tool`, or whose capability id is `tool` (an instance's tool
   * too). Missing: a failed step the script can read in `last` (`optional: true` skips it instead).
   */
  | { tool: string; input?: unknown; optional?: boolean; providerMetadata?: ProviderMetadata }
  /** Waits `ms` milliseconds, or until the promise settles (a test's gate); Stop ends the wait. */
  | { wait: number | Promise<unknown> | (() => Promise<unknown>) }
  /** Ends the run with an error. */
  | { error: string; code?: AgentErrorCode }
  /** Ends the run as stopped after at most this many model steps (`max-steps`). */
  | { finish: 'stop' | 'max-steps' }
  /** Decided when reached, from what the run has seen so far. */
  | ((ctx: ScriptContext) => ScriptStep | readonly ScriptStep[] | void | Promise<ScriptStep | readonly ScriptStep[] | void>);

/** The script: fixed steps, or steps chosen per run (by the user's text, the agent, the tools). */
export type Script = readonly ScriptStep[] | ((ctx: ScriptContext) => readonly ScriptStep[] | Promise<readonly ScriptStep[]>);

function jsonOf(output: ToolOutput | undefined): unknown {
  if (!output) return undefined;
  if (output.structuredContent !== undefined) return output.structuredContent;
  try {
    return JSON.parse(outputText(output)) as unknown;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    // Timers take at most 2^31 − 1 ms; a longer wait would otherwise fire at once.
    const timer = setTimeout(done, Math.min(ms, 2 ** 31 - 1));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function until(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    promise.then(done, done);
  });
}

export async function* play(script: Script, req: AgentRunRequest): AsyncGenerator<AgentStreamPart> {
  const outputs: ToolOutput[] = [];
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const ctx: ScriptContext = {
    messages: req.messages,
    text: lastUser ? lastUser.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') : '',
    get tools() {
      return req.tools;
    },
    agent: req.agent,
    outputs,
    get last() {
      return outputs[outputs.length - 1];
    },
    json: (output) => jsonOf(output ?? outputs[outputs.length - 1]),
  };
  const maxSteps = req.agent?.maxSteps ?? Infinity;
  let messageId = fallbackId('msg');
  let step = 0;
  let calledThisStep = false;
  yield { type: 'message-start', messageId };

  const queue: ScriptStep[] = [...(typeof script === 'function' ? await script(ctx) : script)];
  while (queue.length) {
    if (req.signal.aborted) break;
    let s = queue.shift()!;
    if (typeof s === 'function') {
      const made = await s(ctx);
      if (made === undefined) continue;
      queue.unshift(...(Array.isArray(made) ? made : [made as ScriptStep]));
      continue;
    }
    s = s as Exclude<ScriptStep, (ctx: ScriptContext) => unknown>;
    if ('text' in s) {
      // Text after tool calls is a new model step, in a new message (as a model's reply would be).
      if (calledThisStep) {
        yield { type: 'step-finish', step: ++step };
        calledThisStep = false;
        if (step >= maxSteps) {
          yield { type: 'finish', reason: 'max-steps' };
          return;
        }
        messageId = fallbackId('msg');
        yield { type: 'message-start', messageId };
      }
      const size = s.chunk && s.chunk > 0 ? Math.floor(s.chunk) : s.text.length || 1;
      for (let i = 0; i < s.text.length; i += size) {
        if (req.signal.aborted) break;
        yield { type: 'text-delta', messageId, delta: s.text.slice(i, i + size) };
      }
    } else if ('reasoning' in s) {
      const part: AgentStreamPart = { type: 'reasoning', messageId, text: s.reasoning };
      if (s.providerMetadata) part.providerMetadata = s.providerMetadata;
      yield part;
    } else if ('tool' in s) {
      const tool = findTool(req.tools, s.tool);
      if (!tool) {
        if (s.optional) continue;
        outputs.push({ content: [{ type: 'text', text: `Error: no tool ${JSON.stringify(s.tool)} on this page.` }], isError: true });
        continue;
      }
      const id = fallbackId('call');
      const input = s.input ?? {};
      const call: AgentStreamPart = { type: 'tool-call', messageId, id, name: tool.name, input };
      if (s.providerMetadata) call.providerMetadata = s.providerMetadata;
      yield call;
      calledThisStep = true;
      const output = await req.callTool({ id, name: tool.name, input });
      outputs.push(output);
      yield output.isError ? { type: 'tool-error', id, error: outputText(output) || 'Error' } : { type: 'tool-result', id, output };
    } else if ('wait' in s) {
      const w = s.wait;
      if (typeof w === 'number') await sleep(w, req.signal);
      else await until(typeof w === 'function' ? w() : w, req.signal);
    } else if ('error' in s) {
      const part: AgentStreamPart = { type: 'error', error: s.error };
      if (s.code) part.code = s.code;
      yield part;
      return;
    } else if ('finish' in s) {
      yield { type: 'finish', reason: s.finish };
      return;
    }
  }
  if (calledThisStep) yield { type: 'step-finish', step: ++step };
  yield { type: 'finish', reason: req.signal.aborted ? 'aborted' : 'stop' };
}
