/**
 * The contract between `<agent-chat>` and the agent that drives it (DESIGN section 7). An adapter
 * owns the model and the tool loop and reports what happens as a stream of parts; the widget only
 * renders them. Names, members and meanings follow the seed
 * `reference/seeds/webmcp-agents-chat--adapter-types.md` exactly.
 *
 * DOM-free: the reducer and these types run in Node as well as in the browser.
 */
import type { JsonSchema, ToolResult } from '../core/types.js';

/** JSON Schema as a model sees a tool's parameters. */
export type JSONSchema = JsonSchema;

/** An agent the chat can talk to: the model and tool loop behind a stream of parts. */
export interface AgentAdapter {
  /** Stable id; the widget remembers the chosen adapter by it. */
  readonly id: string;
  /** Shown in the adapter switcher, for example "Claude (cloud)". */
  readonly label: string;
  /** Handle one user message: yield stream parts and call `req.callTool()` for each tool call. */
  run(req: AgentRunRequest): AsyncIterable<AgentStreamPart>;
  /** Current availability. Without it the adapter is always `ready`. */
  status?(): AdapterStatus;
  /** Called on status changes; returns an unsubscribe function. */
  subscribe?(listener: () => void): () => void;
  /** Opt-in heavy setup (a model download), started by the person's click; aborting cancels it. */
  prepare?(signal?: AbortSignal): Promise<void>;
  /** The models the person can pick from; a picker shows when there is more than one. */
  models?(): readonly ModelChoice[];
  /** Switch to one of `models()`. Rejects while a reply or a download is in progress. */
  selectModel?(id: string): Promise<void>;
}

/** One model in the picker. */
export interface ModelChoice {
  /** The id `selectModel` takes. */
  id: string;
  /** Short name, for example "Qwen3 0.6B". */
  label: string;
  /** One sentence on when to pick it. */
  brief: string;
  /** Download size in bytes, when known. */
  bytes?: number;
  /** Already on this device: no download. */
  cached?: boolean;
  /** The adapter's default. */
  recommended?: boolean;
  /** The one in use. */
  selected?: boolean;
}

/** Whether an adapter can run right now. The composer explains any state but `ready`. */
export type AdapterStatus =
  | { state: 'ready' }
  | { state: 'unavailable'; reason: string }
  | { state: 'needs-download'; bytes?: number; note?: string }
  | { state: 'downloading'; progress: number }
  /**
   * Without `progress`: a connection check, unless `note` words what else it is (the local adapter's
   * device check). With it: a model on this device read from disk (a load, never a download).
   */
  | { state: 'loading'; progress?: number; note?: string }
  | { state: 'error'; error: string };

export type AdapterState = AdapterStatus['state'];

/** What an adapter gets for one run: one user message, possibly many model steps. */
export interface AgentRunRequest {
  /** The conversation so far, ending with the new user message (on Retry, with the last finished tool call). */
  readonly messages: AgentMessage[];
  /** The page's tools right now, already filtered through `agent`. A getter: read it fresh before every model call. */
  readonly tools: ToolDescriptor[];
  /** Aborts when the person presses Stop. */
  readonly signal: AbortSignal;
  /** Run a tool on the page. Never rejects: failures come back as `isError` results. */
  callTool(call: { id: string; name: string; input: unknown }): Promise<ToolOutput>;
  /** The page's agent, when set. In-browser adapters read `instructions` and `maxSteps`; the cloud adapter sends only `id`. */
  readonly agent?: WebAgent;
}

/** Provider data that must travel with a call or with reasoning (Gemini thought signatures, OpenAI item ids, Claude thinking signatures). */
export type ProviderMetadata = Record<string, unknown>;

export type FinishReason = 'stop' | 'max-steps' | 'aborted';
export type AgentErrorCode = 'chat_disabled' | 'rate_limited' | 'bad_request' | 'network';

/** What an adapter reports while it runs, in order: `message-start` first, `finish` or `error` last. */
export type AgentStreamPart =
  | { type: 'message-start'; messageId: string }
  | { type: 'text-delta'; messageId: string; delta: string }
  | { type: 'reasoning'; messageId: string; text: string; providerMetadata?: ProviderMetadata }
  | { type: 'tool-call'; messageId: string; id: string; name: string; input: unknown; providerMetadata?: ProviderMetadata }
  | { type: 'tool-result'; id: string; output: ToolOutput }
  /** A text starting `Error [cancelled]` shows as cancelled, not failed. */
  | { type: 'tool-error'; id: string; error: string }
  | { type: 'step-finish'; step: number }
  | { type: 'finish'; reason: FinishReason }
  | { type: 'error'; error: string; code?: AgentErrorCode };

export type AgentStreamPartType = AgentStreamPart['type'];

/** Where a tool call is. `awaiting-confirmation`: parked on a control the person must click. */
export type ToolCallState = 'running' | 'awaiting-confirmation' | 'done' | 'error' | 'cancelled';

/** One turn of the conversation. */
export interface AgentMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: AgentPart[];
}

export type AgentPart =
  | { type: 'text'; text: string }
  /** Kept so the next request can send it back; never rendered. */
  | { type: 'reasoning'; text: string; providerMetadata?: ProviderMetadata }
  | {
      type: 'tool';
      id: string;
      name: string;
      input: unknown;
      state: ToolCallState;
      output?: ToolOutput;
      error?: string;
      /** What the person should click while the call awaits confirmation. */
      prompt?: string;
      /** A sub-agent's nested run behind a `delegate_to_<id>` call. */
      agent?: { id: string; messages: AgentMessage[] };
      providerMetadata?: ProviderMetadata;
    };

export type AgentToolPart = Extract<AgentPart, { type: 'tool' }>;

/** A page tool as the model sees it. */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: JSONSchema;
  /**
   * The tool's output may carry user or third-party text (the capability's `untrustedOutput`, a
   * WebMCP tool's `untrustedContentHint`). Model adapters then hand its results to the model inside
   * delimiters that say it is data, not instructions. Absent means false.
   */
  untrustedOutput?: boolean;
}

/** A tool call's result: an MCP result, `{ content, isError?, structuredContent? }`. */
export type ToolOutput = Omit<ToolResult, 'isError'> & { isError?: boolean };

/** The page's agent (`defineWebAgent`). */
export interface WebAgent {
  /** Stable id; the cloud adapter sends only this. */
  readonly id: string;
  /** The system prompt in-browser adapters send. */
  readonly instructions: string;
  /** Model steps per run; adapters default to 8. */
  readonly maxSteps?: number;
  /** Filters the page's tools by wire name or capability id prefix; all tools when absent. */
  readonly tools?: readonly string[];
  /** Sub-agents: each becomes a `delegate_to_<id>` tool. */
  readonly agents?: readonly WebAgent[];
}
