/**
 * Types for both directions of WebMCP: the host shapes a page may find (`document.modelContext`
 * and its older forms), the producer adapter, and the consumer `ToolSource`.
 */
import type {
  AgentConsumer,
  AgentRetry,
  AgentSurfaceRegistry,
  CapabilityDescriptor,
  JsonObject,
  JsonSchema,
  PendingConfirmation,
  SnapshotContext,
  ToolResult,
} from '../core/types.js';

// ---------------------------------------------------------------------------------------------
// Host shapes (reference/webmcp-hosts.md, section 4)

/** `ToolAnnotations` of the current draft; older hosts keep only the first one or two. */
export interface ModelContextToolAnnotations {
  readOnlyHint?: boolean;
  untrustedContentHint?: boolean;
  consequentialHint?: boolean;
  debugging?: boolean;
}

/** What a host passes as the second `execute` argument: `{ signal }` today, a client in older previews. */
export interface ModelContextExecuteOptions {
  signal?: AbortSignal;
  /** Older previews only (removed from the draft mid-2026): runs in-page UI during the call. */
  requestUserInteraction?: <T>(callback: () => T | Promise<T>) => Promise<T>;
}

/** A tool as handed to `registerTool` / `provideContext`. */
export interface ModelContextTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: JsonSchema;
  annotations?: ModelContextToolAnnotations;
  execute(input: unknown, options?: ModelContextExecuteOptions): Promise<unknown>;
}

export interface ModelContextRegisterToolOptions {
  signal?: AbortSignal;
  exposedTo?: string[];
}

/** A tool as `getTools()` lists it. `window` and `origin` are absent on some hosts. */
export interface RegisteredTool {
  name: string;
  title?: string;
  description: string;
  /** An object on current hosts; a JSON string on some older builds. */
  inputSchema?: JsonSchema | string;
  annotations?: ModelContextToolAnnotations;
  origin?: string;
  window?: unknown;
}

/**
 * Any object that can act as a WebMCP host. Every member is optional: which ones exist decides
 * the shape ({@link ModelContextShape}).
 */
export interface ModelContextLike {
  registerTool?(tool: ModelContextTool, options?: ModelContextRegisterToolOptions): Promise<void> | void;
  unregisterTool?(name: string): Promise<void> | void;
  provideContext?(context: { tools: ModelContextTool[] }): Promise<void> | void;
  clearContext?(): Promise<void> | void;
  getTools?(options?: object): Promise<RegisteredTool[]> | RegisteredTool[];
  executeTool?(tool: RegisteredTool, input: unknown, options?: { signal?: AbortSignal }): Promise<unknown>;
  addEventListener?(type: string, listener: EventListener): void;
  removeEventListener?(type: string, listener: EventListener): void;
}

/**
 * How the adapter registers with a host:
 * - `current`: `registerTool(tool, { signal })`, unregistered by aborting the signal (the draft, Chromium 156, @mcp-b polyfill);
 * - `legacy`: `registerTool(tool)` + `unregisterTool(name)` (Chrome 146–149 previews);
 * - `batch`: `provideContext({ tools })` replaces the whole set, `clearContext()` withdraws it.
 */
export type ModelContextShape = 'current' | 'legacy' | 'batch';

// ---------------------------------------------------------------------------------------------
// Producer: createWebMcpAdapter

/** What `exposeCapability` may answer: keep (`undefined`/`true`), skip (`null`/`false`), or a new description. */
export type ExposeDecision = undefined | null | boolean | string | { description: string };

export interface WebMcpAdapterOptions {
  /** A host to use instead of `document.modelContext` / `navigator.modelContext`; `null` means none. */
  modelContext?: ModelContextLike | null;
  /** Narrows what is projected (`scope`); the consumer comes from `start(host)`. */
  snapshotContext?: Omit<SnapshotContext, 'consumer'>;
  /**
   * Curation: skip a capability or replace its description. It cannot change execution, the input
   * schema, or the annotations, which come from the contract.
   */
  exposeCapability?: (descriptor: CapabilityDescriptor) => ExposeDecision;
  /** Prepended to every wire name (`[A-Za-z0-9_-]`, at most 32 characters). */
  prefix?: string;
  /** The longest a call waits for a person's decision on a confirmation. Default 120 000 ms. */
  confirmationTtlMs?: number;
  /**
   * Opt-in, for hosts whose `execute` gets a client with `requestUserInteraction` (older previews):
   * runs inside it and answers `true` to approve. Elsewhere the call waits for `<agent-confirm>`.
   */
  confirm?: (pending: PendingConfirmation, client: ModelContextExecuteOptions) => boolean | Promise<boolean>;
  /** Where `agent-webmcp-conflict` events are dispatched. Default: `window` (when there is one). */
  eventTarget?: EventTarget;
  /** Called for every name the host refused, besides the event and the `console.error`. */
  onConflict?: (conflict: WebMcpConflict) => void;
  /**
   * Origins (`https://…`, or localhost) whose frames in this page may see and call the tools: the
   * draft's `registerTool(tool, { exposedTo })`. Where the host refuses it (the @mcp-b polyfill, older
   * previews, an origin that is not potentially trustworthy) the tools are registered for this
   * document only, and the refusal is said once per start: a `console.error`, an
   * `agent-webmcp-exposed-to-refused` event and `onExposedToRefused`.
   */
  exposedTo?: readonly string[];
  /** Called once per start when the host refused `exposedTo`, besides the event and the `console.error`. */
  onExposedToRefused?: (refusal: WebMcpExposedToRefusal) => void;
}

/** The host would not take `exposedTo`: the tools are registered, for this document only. */
export interface WebMcpExposedToRefusal {
  exposedTo: string[];
  /** The host's error: `NotSupportedError` (the polyfill, older previews), `SecurityError` (a bad origin), … */
  errorName: string;
  message: string;
}

/** What `start` needs: the registry and who the agent is. */
export interface WebMcpAdapterHost {
  registry: AgentSurfaceRegistry;
  /** Default `{ id: "webmcp", kind: "webmcp" }`. */
  consumer?: AgentConsumer;
  /** Merged over `options.snapshotContext`. */
  snapshotContext?: Omit<SnapshotContext, 'consumer'>;
}

/**
 * - `idle`: not started; `starting`: registering the first set; `active`: tools registered and kept in sync;
 * - `unsupported`: no WebMCP host on this page (start was a no-op); `stopped`: withdrawn.
 */
export type WebMcpAdapterStatus = 'idle' | 'starting' | 'active' | 'unsupported' | 'stopped';

export interface WebMcpAdapter {
  readonly name: string;
  readonly status: WebMcpAdapterStatus;
  /** The shape in use, once started on a host. */
  readonly shape: ModelContextShape | undefined;
  /** Registers the registry's tools and keeps them in sync. Resolves once the first set is registered. */
  start(host: WebMcpAdapterHost): Promise<void>;
  /** Withdraws every tool it registered, ends pending confirmation waits, unsubscribes. Safe to repeat. */
  stop(): Promise<void>;
  /** The names currently registered with the host, sorted. */
  toolNames(): string[];
  /** Resolves when every pending host call has settled (the host matches the registry's surface). */
  settled(): Promise<void>;
}

/** A name the host refused (taken by another script, invalid, blocked by permissions policy). */
export interface WebMcpConflict {
  name: string;
  capabilityId: string;
  instanceId?: string;
  /** The host's error: `InvalidStateError`, `NotAllowedError`, … */
  errorName: string;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Consumer: createWebMcpSource (a ToolSource)

/** A page tool as a model sees it. */
export interface ToolDefinition {
  /** Unique key to run it with (the tool's name on this page). */
  id: string;
  name: string;
  description: string;
  /** The host's `title`: a human label for UI. Absent when the tool has none (Chromium lists `""`). */
  title?: string;
  /** Always `type: "object"`. */
  inputSchema: JsonSchema;
  /** From `readOnlyHint`; missing means unsafe. */
  readOnly?: boolean;
  /**
   * From `consequentialHint`; `true` always prompts. `undefined` means not known: the host did not
   * say (the @mcp-b polyfill drops this hint, so every tool there reads `undefined`, never `false`).
   * Treat unknown as consequential.
   */
  consequential?: boolean;
  /** From `untrustedContentHint`: the output may carry third-party text. */
  untrustedContent?: boolean;
}

/**
 * What the host's `toolactivated` / `toolcancel` events say: a tool of this page started running, or
 * one of its runs was cancelled by its caller. The draft gives only the tool's name, not which call.
 */
export interface ToolActivity {
  type: 'activated' | 'cancelled';
  /** The tool's name on this page (its `ToolDefinition.id`). */
  toolId: string;
}

export interface ToolSnapshot {
  /** Rises whenever the tool list changes in a way that matters, re-registrations included. */
  revision: number;
  tools: readonly ToolDefinition[];
}

export interface ToolCall {
  /** The tool call's id (the model's), for the caller's bookkeeping; also read as the tool id when nothing else names one. */
  id?: string;
  /** `ToolDefinition.id`; `name` is used when absent. */
  toolId?: string;
  name?: string;
  /** An object, or a JSON string of one. */
  input?: unknown;
  /** Same as `input`, as some model APIs spell it. */
  arguments?: unknown;
}

export type ToolSourceErrorCode =
  | 'UNSUPPORTED_WEBMCP'
  | 'STALE_TOOLS'
  | 'TOOL_NOT_FOUND'
  | 'INVALID_INPUT'
  | 'EXECUTION_FAILED'
  | 'CANCELLED'
  | 'DISPOSED'
  | (string & {});

export interface ToolSourceErrorPayload {
  code: ToolSourceErrorCode;
  message: string;
  retry: AgentRetry;
  details?: JsonObject;
}

/** `result` is always the MCP shape to hand a model; `ok`/`output`/`error` are for code. */
export type ToolSourceResult =
  | { ok: true; output: unknown; result: ToolResult }
  | { ok: false; code: ToolSourceErrorCode; error: ToolSourceErrorPayload; result: ToolResult };

export interface ToolSource {
  discover(signal?: AbortSignal): Promise<ToolSnapshot>;
  /** Never rejects: failures come back with `ok: false`. */
  execute(call: ToolCall, revision: number, signal?: AbortSignal): Promise<ToolSourceResult>;
  subscribe(listener: () => void): () => void;
  /**
   * Optional for other sources. `createWebMcpSource()` has it: it hears the host's `toolactivated`
   * and `toolcancel` where the host has them (Chromium's native host; not the @mcp-b polyfill, where
   * nothing is ever heard). Returns its own unsubscribe.
   */
  onActivity?(listener: (activity: ToolActivity) => void): () => void;
  dispose(): void;
}

export interface WebMcpSourceOptions {
  /** A host to read instead of `document.modelContext` / `navigator.modelContext`; `null` means none. */
  modelContext?: ModelContextLike | null;
  /** The window whose tools count. Default: the current `window`. */
  window?: unknown;
  /**
   * List tools annotated `debugging: true` too. Default `false`: the draft reserves them for
   * developer tooling, and end-user agents (a chat) leave them out.
   */
  includeDebugging?: boolean;
}
