/**
 * The tool loop every model adapter runs: one model step, then the step's tool calls one at a
 * time through `req.callTool`, then the next step, up to `maxSteps`. Every call id the model
 * issued is answered (a call the run did not reach is answered as not executed), so the
 * conversation stays a valid request for the next run.
 */
import type {
  AgentMessage,
  AgentPart,
  AgentRunRequest,
  AgentStreamPart,
  ProviderMetadata,
  ToolDescriptor,
  ToolOutput,
} from '../../chat/types.js';
import { AdapterError } from './errors.js';

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
  instructions?: string;
  /** `req.agent.id`: what the cloud adapter sends instead of instructions. */
  agentId?: string;
  signal: AbortSignal;
}

export type Step = (input: StepInput) => AsyncIterable<StepPart>;

export const DEFAULT_MAX_STEPS = 8;
/** Answer text for a call that never ran; starts as the seed's cancelled marker. */
export const NOT_EXECUTED = 'Error [cancelled] not executed: the run ended before this call ran.';

export const uid = (prefix: string) =>
  `${prefix}_${globalThis.crypto?.randomUUID?.().replace(/-/g, '') ?? Math.random().toString(36).slice(2) + Date.now().toString(36)}`;

export const outputText = (o: ToolOutput) =>
  Array.isArray(o?.content) ? o.content.map((c) => (typeof c?.text === 'string' ? c.text : '')).join('\n') : '';

/** Parses a call's streamed arguments: empty means no arguments; not JSON makes the call invalid. */
export function parseArguments(name: string, args: string): { input: unknown; invalid?: string } {
  if (!args.trim()) return { input: {} };
  try {
    return { input: JSON.parse(args) };
  } catch {
    return { input: args.slice(0, 2000), invalid: `the arguments for ${JSON.stringify(name.slice(0, 100))} were not valid JSON.` };
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
  const limit = Math.max(1, maxSteps ?? req.agent?.maxSteps ?? DEFAULT_MAX_STEPS);
  const messages = [...req.messages];
  const ids = usedIds(messages);
  // Calls reported but not answered yet: answered as not executed if the run ends early.
  const open = new Map<string, Extract<AgentPart, { type: 'tool' }>>();
  const answer = function* (id: string, error: string, output?: ToolOutput): Generator<AgentStreamPart> {
    const part = open.get(id)!;
    open.delete(id);
    part.state = error.startsWith('Error [cancelled]') ? 'cancelled' : error ? 'error' : 'done';
    if (output) part.output = output;
    if (error) part.error = error;
    yield error ? { type: 'tool-error', id, error } : { type: 'tool-result', id, output: output! };
  };
  try {
    for (let n = 1; ; n++) {
      const messageId = uid('msg');
      const parts: AgentPart[] = [];
      const calls: { id: string; name: string; input: unknown; invalid?: string }[] = [];
      let capped = false;
      yield { type: 'message-start', messageId };
      const tools = req.tools;
      for await (const p of step({ messages, tools, instructions: req.agent?.instructions, agentId: req.agent?.id, signal: req.signal })) {
        if (p.type === 'text-delta') {
          if (!p.delta) continue;
          const last = parts[parts.length - 1];
          if (last?.type === 'text') last.text += p.delta;
          else parts.push({ type: 'text', text: p.delta });
          yield { type: 'text-delta', messageId, delta: p.delta };
        } else if (p.type === 'max-steps') {
          capped = true;
        } else if (p.type === 'reasoning') {
          const meta = p.providerMetadata ? { providerMetadata: p.providerMetadata } : {};
          parts.push({ type: 'reasoning', text: p.text, ...meta });
          yield { type: 'reasoning', messageId, text: p.text, ...meta };
        } else {
          // Model output is untrusted: a missing, repeated or reused id gets a fresh one.
          let id = typeof p.id === 'string' && p.id ? p.id : uid('call');
          if (ids.has(id)) id = uid('call');
          ids.add(id);
          const name = String(p.name ?? '');
          const meta = p.providerMetadata ? { providerMetadata: p.providerMetadata } : {};
          const tool: Extract<AgentPart, { type: 'tool' }> = { type: 'tool', id, name, input: p.input, state: 'running', ...meta };
          parts.push(tool);
          open.set(id, tool);
          calls.push({ id, name, input: p.input, invalid: p.invalid });
          yield { type: 'tool-call', messageId, id, name, input: p.input, ...meta };
        }
      }
      messages.push({ id: messageId, role: 'assistant', parts });
      // One at a time: one page, one cursor.
      for (const c of calls) {
        if (req.signal.aborted) yield* answer(c.id, NOT_EXECUTED);
        else if (c.invalid) yield* answer(c.id, `Error: ${c.invalid}`);
        else if (!tools.some((t) => t.name === c.name))
          yield* answer(c.id, `Error: there is no tool named ${JSON.stringify(c.name.slice(0, 100))} on this page.`);
        else {
          let output: ToolOutput;
          try {
            output = await req.callTool({ id: c.id, name: c.name, input: c.input });
          } catch (e) {
            // callTool never rejects by contract; a broken one still gets its call answered.
            output = { content: [{ type: 'text', text: `Error: ${e instanceof Error ? e.message : String(e)}` }], isError: true };
          }
          yield* answer(c.id, output?.isError ? outputText(output) || 'Error: the tool failed.' : '', output);
        }
      }
      yield { type: 'step-finish', step: n };
      if (req.signal.aborted) return yield { type: 'finish', reason: 'aborted' };
      if (!calls.length && !capped) return yield { type: 'finish', reason: 'stop' };
      if (n >= limit || capped) return yield { type: 'finish', reason: 'max-steps' };
    }
  } catch (e) {
    for (const id of [...open.keys()]) yield* answer(id, NOT_EXECUTED);
    if (req.signal.aborted) return yield { type: 'finish', reason: 'aborted' };
    const err = e instanceof AdapterError ? e : new AdapterError('network', e instanceof Error ? e.message : String(e));
    yield { type: 'error', error: err.message, code: err.code };
  }
}
