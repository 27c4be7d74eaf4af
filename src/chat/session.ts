/**
 * `sessionReducer`: the conversation as a pure fold over the adapter's stream parts and the
 * person's actions. The state is plain JSON (no classes, no functions, no Dates), so it can be
 * stored (`persist`), sent, compared and replayed; `<agent-chat>` is a view over it, and any
 * framework can drive its own UI from the same reducer.
 *
 * Invariants the reducer keeps whatever it is fed (test/chat/session.node.test.ts checks them with
 * fast-check):
 * - message ids are unique, and tool-call ids are unique across the whole conversation (nested
 *   sub-agent runs included);
 * - a tool call reaches exactly one terminal state (`done`, `error` or `cancelled`) and never
 *   leaves it; a run that ends (finish, error, stop) cancels every call still open;
 * - nothing changes the conversation once a run has ended but the person's next action.
 *
 * DOM-free: runs in Node as well as in the browser.
 */
import type {
  AgentErrorCode,
  AgentMessage,
  AgentPart,
  AgentStreamPart,
  AgentToolPart,
  FinishReason,
  ToolCallState,
  ToolOutput,
} from './types.js';

/** Where the session is: no run, a run in progress, or how the last run ended. */
export type SessionStatus = 'idle' | 'running' | 'done' | 'aborted' | 'error';

export interface SessionState {
  readonly messages: AgentMessage[];
  readonly status: SessionStatus;
  /** Counts runs; a part tagged with another run's number is stale and ignored. */
  readonly run: number;
  /** How the last run finished, once it has. */
  readonly finish?: FinishReason;
  /** The last run's error, while `status` is `error`. */
  readonly error?: { error: string; code?: AgentErrorCode };
  /** This run's adapter message ids → the conversation's (an adapter may reuse an id across runs). */
  readonly aliases: Record<string, string>;
  /** Source of the reducer's own ids (user messages, renamed assistant messages). */
  readonly seq: number;
}

/**
 * What the reducer folds. `part` wraps what an adapter yields (tagged with the run it belongs to);
 * everything else is the person's action or the page's report. Nothing an adapter yields can
 * approve or deny: `approve`/`deny` only record a decision the person made in the page, which the
 * element takes to the registry itself.
 */
export type SessionEvent =
  | { type: 'part'; part: AgentStreamPart; run?: number }
  | { type: 'send'; text: string; id?: string }
  | { type: 'stop' }
  | { type: 'retry' }
  | { type: 'edit'; messageId: string; text: string }
  /** A tool call is parked on a confirmation the person must give (the registry's pending record). */
  | { type: 'confirmation'; id: string; prompt: string }
  /** That confirmation was decided (anywhere) or went away: the call runs on, or fails by itself. */
  | { type: 'confirmation-settled'; id: string }
  | { type: 'approve'; id: string }
  | { type: 'deny'; id: string }
  /** A sub-agent's nested run behind a `delegate_to_<id>` call. */
  | { type: 'agent'; id: string; agent: { id: string; messages: AgentMessage[] } }
  /** Replaces the conversation (a stored one, restored): a run that was open is ended as aborted. */
  | { type: 'load'; messages: AgentMessage[] }
  | { type: 'clear' };

const TERMINAL: ReadonlySet<ToolCallState> = new Set(['done', 'error', 'cancelled']);
const CANCELLED_PREFIX = 'Error [cancelled]';
/** Longest tool name a session keeps (WebMCP tools carry names of any length; wire names are at most 64). */
export const MAX_TOOL_NAME = 1000;

/** Text from whatever an adapter yielded: a null-prototype object or a throwing `toString` gives ''. */
function str(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '';
  }
}

/** A JSON copy (the state stays plain data, and later changes to the adapter's object change nothing); undefined when it is not JSON. */
function json<T>(value: T): T | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  } catch {
    return undefined;
  }
}

/** The state of a session with no messages. */
export function createSessionState(messages: AgentMessage[] = []): SessionState {
  const state: SessionState = { messages: [], status: 'idle', run: 0, aliases: {}, seq: 0 };
  return messages.length ? sessionReducer(state, { type: 'load', messages }) : state;
}

/** Whether a tool call has reached its end. */
export function isTerminal(state: ToolCallState): boolean {
  return TERMINAL.has(state);
}

// ---------------------------------------------------------------------------------------------
// Helpers (all copy-on-write: no input object is ever mutated)

/** Every tool part of a message list, nested sub-agent runs included. */
export function* toolParts(messages: readonly AgentMessage[]): Generator<AgentToolPart> {
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type !== 'tool') continue;
      yield p;
      if (p.agent) yield* toolParts(p.agent.messages);
    }
  }
}

function hasToolId(messages: readonly AgentMessage[], id: string): boolean {
  for (const p of toolParts(messages)) if (p.id === id) return true;
  return false;
}

/** The first user message of the current run: the run's messages come after it. */
function runStart(messages: readonly AgentMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return i;
  return -1;
}

/** Applies `change` to the top-level tool part with `id` in the current run; same state when none. */
function updateTool(
  state: SessionState,
  id: string,
  change: (part: AgentToolPart) => AgentToolPart | undefined,
): SessionState {
  const messages = state.messages;
  for (let i = messages.length - 1; i > runStart(messages); i--) {
    const m = messages[i]!;
    const at = m.parts.findIndex((p) => p.type === 'tool' && p.id === id);
    if (at < 0) continue;
    const next = change(m.parts[at] as AgentToolPart);
    if (!next || next === m.parts[at]) return state;
    const parts = m.parts.slice();
    parts[at] = next;
    const copy = messages.slice();
    copy[i] = { ...m, parts };
    return { ...state, messages: copy };
  }
  return state;
}

function withoutPrompt(part: AgentToolPart, state: ToolCallState): AgentToolPart {
  const { prompt: _prompt, ...rest } = part;
  return { ...rest, state };
}

/** Ends every open call in `messages` (nested ones too) as cancelled. */
function cancelOpen(messages: AgentMessage[]): AgentMessage[] {
  let changed = false;
  const out = messages.map((m) => {
    let touched = false;
    const parts = m.parts.map((p) => {
      if (p.type !== 'tool') return p;
      let next: AgentToolPart = p;
      if (!TERMINAL.has(p.state)) next = withoutPrompt(p, 'cancelled');
      if (p.agent) {
        const nested = cancelOpen(p.agent.messages);
        if (nested !== p.agent.messages) next = { ...next, agent: { ...p.agent, messages: nested } };
      }
      if (next !== p) touched = true;
      return next;
    });
    if (!touched) return m;
    changed = true;
    return { ...m, parts };
  });
  return changed ? out : messages;
}

function endRun(state: SessionState, status: SessionStatus, extra: Partial<SessionState>): SessionState {
  const { error: _error, finish: _finish, ...rest } = state;
  return { ...rest, ...extra, status, messages: cancelOpen(state.messages), aliases: {} };
}

function startRun(state: SessionState, messages: AgentMessage[]): SessionState {
  const { error: _error, finish: _finish, ...rest } = state;
  return { ...rest, messages, status: 'running', run: state.run + 1, aliases: {} };
}

function nextId(state: SessionState, prefix: string): { id: string; seq: number } {
  let seq = state.seq;
  let id: string;
  do id = `${prefix}-${++seq}`;
  while (state.messages.some((m) => m.id === id));
  return { id, seq };
}

function textMessage(id: string, text: string): AgentMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** The output with only its defined members: the state stays plain JSON. */
function cleanOutput(output: ToolOutput): ToolOutput {
  const content = Array.isArray(output?.content) ? output.content : [];
  const clean: ToolOutput = {
    content: content.map((c) => ({ type: 'text' as const, text: typeof c?.text === 'string' ? c.text : '' })),
  };
  if (output?.isError === true) clean.isError = true;
  const structured = json(output?.structuredContent);
  if (structured !== undefined) clean.structuredContent = structured;
  return clean;
}

/** A tool's output as one string (what an error card or a sub-agent's answer shows). */
export function outputText(output: ToolOutput | undefined): string {
  if (!output || !Array.isArray(output.content)) return '';
  return output.content
    .map((c) => (c && typeof c.text === 'string' ? c.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** A message's text: its text parts, joined. */
export function messageText(m: AgentMessage): string {
  return m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** The conversation's id for an adapter message id of this run; starts the message when it is new. */
function assistantMessage(state: SessionState, adapterId: string): { state: SessionState; index: number } {
  const known = state.aliases[adapterId];
  if (known !== undefined) {
    const index = state.messages.findIndex((m) => m.id === known);
    if (index >= 0) return { state, index };
  }
  let id = adapterId;
  let seq = state.seq;
  if (typeof id !== 'string' || id === '' || state.messages.some((m) => m.id === id)) {
    ({ id, seq } = nextId(state, 'assistant'));
  }
  const messages = [...state.messages, { id, role: 'assistant' as const, parts: [] }];
  return {
    state: { ...state, messages, seq, aliases: { ...state.aliases, [str(adapterId)]: id } },
    index: messages.length - 1,
  };
}

function appendPart(state: SessionState, adapterId: string, add: (parts: AgentPart[]) => AgentPart[]): SessionState {
  const found = assistantMessage(state, adapterId);
  const messages = found.state.messages.slice();
  const m = messages[found.index]!;
  messages[found.index] = { ...m, parts: add(m.parts) };
  return { ...found.state, messages };
}

// ---------------------------------------------------------------------------------------------
// Stream parts

function applyPart(state: SessionState, part: AgentStreamPart): SessionState {
  switch (part.type) {
    case 'message-start':
      return assistantMessage(state, part.messageId).state;
    case 'text-delta': {
      if (typeof part.delta !== 'string' || part.delta === '') return state;
      return appendPart(state, part.messageId, (parts) => {
        const last = parts[parts.length - 1];
        if (last?.type === 'text') return [...parts.slice(0, -1), { type: 'text', text: last.text + part.delta }];
        return [...parts, { type: 'text', text: part.delta }];
      });
    }
    case 'reasoning': {
      if (typeof part.text !== 'string') return state;
      const reasoning: AgentPart = { type: 'reasoning', text: part.text };
      const meta = json(part.providerMetadata);
      if (meta !== undefined) reasoning.providerMetadata = meta;
      return appendPart(state, part.messageId, (parts) => [...parts, reasoning]);
    }
    case 'tool-call': {
      // One part per call id in the whole conversation: a repeated id is a second report, ignored.
      if (typeof part.id !== 'string' || part.id === '' || hasToolId(state.messages, part.id)) return state;
      const tool: AgentToolPart = {
        type: 'tool',
        id: part.id,
        // Model output names the tool: a name longer than any tool's is cut, so a huge one never
        // fills the conversation (or its stored copy).
        name: str(part.name).slice(0, MAX_TOOL_NAME),
        // No input at all (or none JSON can carry) is an empty arguments object.
        input: json(part.input) ?? {},
        state: 'running',
      };
      const meta = json(part.providerMetadata);
      if (meta !== undefined) tool.providerMetadata = meta;
      return appendPart(state, part.messageId, (parts) => [...parts, tool]);
    }
    case 'tool-result':
      return updateTool(state, part.id, (p) => {
        if (TERMINAL.has(p.state)) return undefined;
        const output = cleanOutput(part.output);
        // An MCP result that says it failed is a failed call, whichever part carried it.
        if (output && output.isError) return { ...withoutPrompt(p, 'error'), output, error: outputText(output) };
        return { ...withoutPrompt(p, 'done'), output };
      });
    case 'tool-error':
      return updateTool(state, part.id, (p) => {
        if (TERMINAL.has(p.state)) return undefined;
        const error = str(part.error);
        return { ...withoutPrompt(p, error.startsWith(CANCELLED_PREFIX) ? 'cancelled' : 'error'), error };
      });
    case 'step-finish':
      return state;
    case 'finish': {
      const reason: FinishReason = part.reason === 'max-steps' || part.reason === 'aborted' ? part.reason : 'stop';
      return endRun(state, reason === 'aborted' ? 'aborted' : 'done', { finish: reason });
    }
    case 'error': {
      const error: { error: string; code?: AgentErrorCode } = { error: str(part.error ?? 'The agent failed.') };
      if (part.code === 'chat_disabled' || part.code === 'rate_limited' || part.code === 'bad_request' || part.code === 'network')
        error.code = part.code;
      return endRun(state, 'error', { error });
    }
    default:
      // Not a part of the contract: an adapter cannot add behaviour by inventing types.
      return state;
  }
}

// ---------------------------------------------------------------------------------------------
// The reducer

/**
 * Folds one event into the session. Pure: returns the same object when nothing changed, a new
 * one otherwise, and never mutates its arguments. Never throws: an event it cannot read (a
 * Proxy whose traps throw, a getter that fails) leaves the state as it was.
 */
export function sessionReducer(state: SessionState, event: SessionEvent): SessionState {
  try {
    return reduce(state, event);
  } catch {
    return state;
  }
}

function reduce(state: SessionState, event: SessionEvent): SessionState {
  if (!event || typeof event !== 'object') return state;
  switch (event.type) {
    case 'part': {
      // After finish, error or stop nothing lands: the run is over.
      if (state.status !== 'running') return state;
      if (event.run !== undefined && event.run !== state.run) return state;
      if (!event.part || typeof event.part !== 'object') return state;
      return applyPart(state, event.part);
    }
    case 'send': {
      if (state.status === 'running' || typeof event.text !== 'string' || event.text.trim() === '') return state;
      let id = event.id;
      let seq = state.seq;
      if (typeof id !== 'string' || id === '' || state.messages.some((m) => m.id === id)) ({ id, seq } = nextId(state, 'user'));
      return startRun({ ...state, seq }, [...state.messages, textMessage(id, event.text)]);
    }
    case 'stop':
      if (state.status !== 'running') return state;
      return endRun(state, 'aborted', { finish: 'aborted' });
    case 'retry': {
      if (state.status === 'running') return state;
      const start = runStart(state.messages);
      if (start < 0) return state;
      return startRun(state, retryMessages(state.messages, start));
    }
    case 'edit': {
      if (state.status === 'running' || typeof event.text !== 'string' || event.text.trim() === '') return state;
      const at = state.messages.findIndex((m) => m.id === event.messageId && m.role === 'user');
      if (at < 0) return state;
      return startRun(state, [...state.messages.slice(0, at), textMessage(event.messageId, event.text)]);
    }
    case 'confirmation':
      if (state.status !== 'running') return state;
      return updateTool(state, event.id, (p) =>
        p.state === 'running' || p.state === 'awaiting-confirmation'
          ? { ...p, state: 'awaiting-confirmation', prompt: str(event.prompt) }
          : undefined,
      );
    case 'confirmation-settled':
    case 'approve':
    case 'deny':
      // The call goes on running until its result says what came of the decision.
      if (state.status !== 'running') return state;
      return updateTool(state, event.id, (p) => (p.state === 'awaiting-confirmation' ? withoutPrompt(p, 'running') : undefined));
    case 'agent': {
      if (state.status !== 'running' || !event.agent || !Array.isArray(event.agent.messages)) return state;
      // Kept as well-formed plain data, like a stored conversation.
      const nested = { id: str(event.agent.id), messages: sanitizeMessages(json(event.agent.messages) ?? []) };
      return updateTool(state, event.id, (p) => {
        if (TERMINAL.has(p.state) && p.agent) return undefined;
        // A nested run may not reuse an id the outer conversation already has.
        const outer = state.messages;
        for (const t of toolParts(nested.messages)) {
          if (t.id === p.id || (hasToolId(outer, t.id) && !(p.agent && hasToolId(p.agent.messages, t.id)))) return undefined;
        }
        return { ...p, agent: nested };
      });
    }
    case 'load': {
      if (!Array.isArray(event.messages)) return state;
      const messages = sanitizeMessages(event.messages);
      return { messages: cancelOpen(messages), status: 'idle', run: state.run + 1, aliases: {}, seq: state.seq };
    }
    case 'clear':
      return { messages: [], status: 'idle', run: state.run + 1, aliases: {}, seq: state.seq };
    default:
      return state;
  }
}

/**
 * Retry: the conversation up to the last finished tool call of the last run (so work already done
 * on the page is not done twice), or up to the user message when no call finished.
 */
function retryMessages(messages: AgentMessage[], start: number): AgentMessage[] {
  for (let i = messages.length - 1; i > start; i--) {
    const parts = messages[i]!.parts;
    for (let j = parts.length - 1; j >= 0; j--) {
      const p = parts[j]!;
      if (p.type === 'tool' && (p.state === 'done' || p.state === 'error')) {
        const kept = { ...messages[i]!, parts: parts.slice(0, j + 1) };
        return [...messages.slice(0, i), kept];
      }
    }
  }
  return messages.slice(0, start + 1);
}

/**
 * Keeps only well-formed messages and parts from stored data, dropping duplicate ids: what
 * `load` accepts from storage another script could have written.
 */
function sanitizeMessages(input: readonly unknown[]): AgentMessage[] {
  const ids = new Set<string>();
  const toolIds = new Set<string>();
  const part = (raw: unknown): AgentPart | undefined => {
    if (!raw || typeof raw !== 'object') return undefined;
    const p = raw as Record<string, unknown>;
    if (p.type === 'text' && typeof p.text === 'string') return { type: 'text', text: p.text };
    if (p.type === 'reasoning' && typeof p.text === 'string') {
      const r: AgentPart = { type: 'reasoning', text: p.text };
      if (p.providerMetadata && typeof p.providerMetadata === 'object') r.providerMetadata = p.providerMetadata as Record<string, unknown>;
      return r;
    }
    if (p.type === 'tool' && typeof p.id === 'string' && typeof p.name === 'string' && !toolIds.has(p.id)) {
      toolIds.add(p.id);
      const states: ToolCallState[] = ['running', 'awaiting-confirmation', 'done', 'error', 'cancelled'];
      const t: AgentToolPart = {
        type: 'tool',
        id: p.id,
        name: p.name.slice(0, MAX_TOOL_NAME),
        input: p.input,
        state: states.includes(p.state as ToolCallState) ? (p.state as ToolCallState) : 'cancelled',
      };
      if (p.output && typeof p.output === 'object' && Array.isArray((p.output as ToolOutput).content)) t.output = p.output as ToolOutput;
      if (typeof p.error === 'string') t.error = p.error;
      if (p.providerMetadata && typeof p.providerMetadata === 'object') t.providerMetadata = p.providerMetadata as Record<string, unknown>;
      const agent = p.agent as { id?: unknown; messages?: unknown } | undefined;
      if (agent && typeof agent.id === 'string' && Array.isArray(agent.messages))
        t.agent = { id: agent.id, messages: messagesOf(agent.messages) };
      return t;
    }
    return undefined;
  };
  const messagesOf = (list: readonly unknown[]): AgentMessage[] => {
    const out: AgentMessage[] = [];
    for (const raw of list) {
      if (!raw || typeof raw !== 'object') continue;
      const m = raw as Record<string, unknown>;
      if (typeof m.id !== 'string' || ids.has(m.id) || (m.role !== 'user' && m.role !== 'assistant') || !Array.isArray(m.parts)) continue;
      ids.add(m.id);
      out.push({ id: m.id, role: m.role, parts: m.parts.map(part).filter((p): p is AgentPart => p !== undefined) });
    }
    return out;
  };
  return messagesOf(input);
}
