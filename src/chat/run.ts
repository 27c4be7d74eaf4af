/**
 * One run of an adapter: builds its `AgentRunRequest` (a fresh `tools` getter, a serial
 * `callTool` that never rejects), checks and folds what the adapter yields into the session,
 * runs sub-agents behind their `delegate_to_<id>` tools, and ends the run on Stop. DOM-free: the
 * element supplies the session, the tools and the hooks.
 */
import { CANCELLED_TEXT, errorOutput, messageOf } from './call-tool.js';
import { createSessionState, messageText, sessionReducer, type SessionEvent, type SessionState } from './session.js';
import { DELEGATE_PREFIX, delegateDescriptor, filterTools, type ChatTool } from './tools.js';
import type {
  AgentAdapter,
  AgentMessage,
  AgentRunRequest,
  AgentStreamPart,
  ToolDescriptor,
  ToolOutput,
  WebAgent,
} from './types.js';

/** A call in progress, as the element sees it (to bind a confirmation, to show where it acts). */
export interface ActiveCall {
  /** The model's call id: the tool part's id. */
  readonly id: string;
  readonly name: string;
  readonly invocationId: string;
  readonly tool: ChatTool | undefined;
  /** The input the model gave the call, as it was handed to the tool. */
  readonly input: unknown;
  /** Folds an event into the session that owns this call's part (the chat's, or a sub-agent's). */
  dispatch(event: SessionEvent): void;
}

export interface RunHost {
  readonly adapter: AgentAdapter;
  readonly agent?: WebAgent | undefined;
  /** The page's tools right now, before any agent filter. */
  tools(): readonly ChatTool[];
  /** Folds an event into the chat's session. */
  dispatch(event: SessionEvent): void;
  state(): SessionState;
  /** Called when a call starts; the function it returns when the call ends. */
  onCall?(call: ActiveCall): (() => void) | void;
  /** Makes an id no run has used (for invocations). */
  randomId(): string;
}

let counter = 0;
export function fallbackId(prefix: string): string {
  return (
    globalThis.crypto?.randomUUID?.() ?? `${prefix}-${Date.now().toString(36)}-${(++counter).toString(36)}-${Math.random().toString(36).slice(2)}`
  );
}

/** Whether a value an adapter yielded is a stream part of the contract (members of the right kinds). */
export function isStreamPart(value: unknown): value is AgentStreamPart {
  if (!value || typeof value !== 'object') return false;
  const p = value as Record<string, unknown>;
  const str = (k: string) => typeof p[k] === 'string';
  switch (p.type) {
    case 'message-start':
      return str('messageId');
    case 'text-delta':
      return str('messageId') && str('delta');
    case 'reasoning':
      return str('messageId') && str('text');
    case 'tool-call':
      return str('messageId') && str('id') && str('name');
    case 'tool-result':
      return str('id') && !!p.output && typeof p.output === 'object' && Array.isArray((p.output as ToolOutput).content);
    case 'tool-error':
      return str('id') && str('error');
    case 'step-finish':
      return typeof p.step === 'number';
    case 'finish':
      return p.reason === 'stop' || p.reason === 'max-steps' || p.reason === 'aborted';
    case 'error':
      return str('error');
  }
  // Any other type, or none.
  return false;
}

/** Tools of one agent: the page's through its filter, plus its sub-agents' delegate tools. */
function agentTools(host: RunHost, agent: WebAgent | undefined): { list: ChatTool[]; delegates: Map<string, WebAgent> } {
  const list = filterTools(host.tools(), agent?.tools);
  const delegates = new Map<string, WebAgent>();
  for (const sub of agent?.agents ?? []) delegates.set(`${DELEGATE_PREFIX}${sub.id}`, sub);
  return { list, delegates };
}

/** One call at a time across the chat (one page, one cursor), sub-agents included: runs each task after the last one settled. */
type CallLock = <T>(task: () => Promise<T>) => Promise<T>;

function callLock(): CallLock {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const result = tail.then(task);
    tail = result.catch(() => undefined);
    return result;
  };
}

/**
 * Runs `host.adapter` for the session's current run (the reducer has just started it with `send`,
 * `retry` or `edit`). Resolves when the run is over; never rejects. Aborting `signal` is Stop.
 */
export async function runAdapter(host: RunHost, signal: AbortSignal): Promise<void> {
  const lock = callLock();
  const run = host.state().run;
  const dispatchRoot = (event: SessionEvent) => {
    // A part of an earlier run (the person stopped it and sent again) is dropped by the reducer.
    if (event.type === 'part') host.dispatch({ ...event, run });
    else host.dispatch(event);
  };
  await drive(host, lock, host.agent, host.state().messages, signal, dispatchRoot, () => host.state().status === 'running' && host.state().run === run);
}

/**
 * Plays one adapter run into `dispatch`: the chat's own run, or a sub-agent's nested one.
 * `live()` says whether the session still wants parts.
 */
async function drive(
  host: RunHost,
  lock: CallLock,
  agent: WebAgent | undefined,
  messages: AgentMessage[],
  signal: AbortSignal,
  dispatch: (event: SessionEvent) => void,
  live: () => boolean,
): Promise<void> {
  let lastRead: { list: ChatTool[]; delegates: Map<string, WebAgent> } | undefined;
  const read = () => (lastRead = agentTools(host, agent));
  const descriptors = (): ToolDescriptor[] => {
    const { list, delegates } = read();
    return [...list.map((t) => t.descriptor), ...[...delegates.values()].map(delegateDescriptor)];
  };

  const callTool = async (call: { id: string; name: string; input: unknown }): Promise<ToolOutput> => {
    try {
      if (!call || typeof call !== 'object' || typeof call.name !== 'string')
        return errorOutput('Error: callTool takes { id, name, input }.');
      if (signal.aborted) return errorOutput(CANCELLED_TEXT);
      // The tools the model was shown: a call planned on them fails closed if they changed since.
      const seen = lastRead ?? read();
      const sub = seen.delegates.get(call.name);
      const id = typeof call.id === 'string' ? call.id : String(call.id);
      if (sub) return await delegate(host, lock, sub, id, call.input, signal, dispatch);
      const tool = seen.list.find((t) => t.descriptor.name === call.name);
      if (!tool) return errorOutput(`Error: there is no tool named ${JSON.stringify(call.name)} here.`);
      return await lock(async () => {
        if (signal.aborted) return errorOutput(CANCELLED_TEXT);
        const active: ActiveCall = { id, name: call.name, invocationId: host.randomId(), tool, input: call.input, dispatch };
        let done: (() => void) | void = undefined;
        try {
          done = host.onCall?.(active);
        } catch {
          // A broken hook must not break the call.
        }
        try {
          return await tool.call(call.input, { id, invocationId: active.invocationId, signal });
        } finally {
          try {
            done?.();
          } catch {
            // Same as above.
          }
        }
      });
    } catch (error) {
      return errorOutput(`Error: ${messageOf(error, 'the call failed')}`);
    }
  };

  const request: AgentRunRequest = {
    messages,
    get tools() {
      return descriptors();
    },
    signal,
    callTool,
    ...(agent ? { agent } : {}),
  };

  let iterator: AsyncIterator<AgentStreamPart> | undefined;
  const onAbort = () => {
    // Stop ends the run now; the adapter's own wind-down (a last `finish`) is not waited for.
    void iterator?.return?.().catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const stream = host.adapter.run(request);
    iterator = stream[Symbol.asyncIterator]();
    let step: IteratorResult<AgentStreamPart> | undefined;
    while (live() && !signal.aborted) {
      step = await iterator.next();
      if (step.done) break;
      if (!live() || signal.aborted) break;
      if (isStreamPart(step.value)) dispatch({ type: 'part', part: step.value });
    }
    // Done reading (its `finish` or `error` came, Stop, or the session moved on): close the iterator,
    // as a for-await loop would, so the adapter's own clean-up runs now (the local adapter's "a reply
    // is being written" lock ends there, not never). A failure there is the adapter's own business.
    if (!step?.done) await iterator.return?.();
    // An adapter that stops yielding without `finish` or `error` has still ended its run.
    if (live() && !signal.aborted) dispatch({ type: 'part', part: { type: 'finish', reason: 'stop' } });
  } catch (error) {
    if (live() && !signal.aborted) {
      // Read safely: whatever an adapter threw (a Proxy whose traps throw) must still end the run.
      dispatch({ type: 'part', part: { type: 'error', error: messageOf(error, 'The agent stopped with an error.') } });
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** A `delegate_to_<id>` call: the sub-agent's run, folded into its own session and nested in the call's part. */
async function delegate(
  host: RunHost,
  lock: CallLock,
  agent: WebAgent,
  id: string,
  input: unknown,
  signal: AbortSignal,
  parent: (event: SessionEvent) => void,
): Promise<ToolOutput> {
  const task = input && typeof input === 'object' ? (input as { task?: unknown }).task : undefined;
  if (typeof task !== 'string' || task.trim() === '') return errorOutput('Error: delegate tools take { task: string }.');
  let state = sessionReducer(createSessionState(), { type: 'send', text: task, id: `${id}:task` });
  const publish = () => parent({ type: 'agent', id, agent: { id: agent.id, messages: state.messages } });
  const dispatch = (event: SessionEvent) => {
    const next = sessionReducer(state, event);
    if (next === state) return;
    state = next;
    publish();
  };
  publish();
  await drive(host, lock, agent, state.messages, signal, dispatch, () => state.status === 'running');
  if (signal.aborted) {
    state = sessionReducer(state, { type: 'stop' });
    publish();
    return errorOutput(CANCELLED_TEXT);
  }
  if (state.status === 'error') return errorOutput(`Error: the "${agent.id}" agent failed: ${state.error?.error ?? ''}`);
  // Its answer: the text of its last message.
  const last = state.messages[state.messages.length - 1];
  const text = last && last.role === 'assistant' ? messageText(last) : '';
  return { content: [{ type: 'text', text: text || `The "${agent.id}" agent finished without an answer.` }] };
}
