/**
 * The public types of agent-surface-kit's core. Plain interfaces and string unions only:
 * everything here crosses module, process and wire boundaries unchanged.
 */

// ---------------------------------------------------------------------------------------------
// JSON

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}
/** A JSON Schema document (2020-12 by default, draft-07 through `$schema`). */
export type JsonSchema = JsonObject;

// ---------------------------------------------------------------------------------------------
// Capabilities and contracts (DESIGN section 2)

export type CapabilityPlane = 'view' | 'domain';
export type CapabilityKind = 'action' | 'observation';
export type CapabilityEffect =
  | 'read'
  | 'local-state'
  | 'navigation'
  | 'server-query'
  | 'server-mutation'
  | 'external-side-effect'
  | 'destructive';
export type ConfirmationRequirement = 'never' | 'optional' | 'required';
export type CapabilityConcurrency = 'serial' | 'parallel';

export interface CapabilityContract {
  id: string;
  kind: CapabilityKind;
  effect: CapabilityEffect;
  /** Default `"never"`. */
  confirmation?: ConfirmationRequirement;
  /** Authored, model-visible text; 1 to 300 characters. */
  description: string;
  /**
   * A short human label for user interfaces (WebMCP's and MCP's `title`), 1 to 100 characters on one
   * line. Optional: projections show a readable form of the id instead. Part of the token.
   */
  title?: string;
  /** `type: "object"`; default: no properties, `additionalProperties: false`. */
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  /** The output may carry user or third-party content. Default `false`. */
  untrustedOutput?: boolean;
  /** Default `"serial"` for actions, `"parallel"` for observations. */
  concurrency?: CapabilityConcurrency;
  /** Default 10 000 for actions, 5 000 for observations. */
  timeoutMs?: number;
}

/** A contract with every default filled in: what tokens are computed over. */
export interface NormalizedContract {
  id: string;
  kind: CapabilityKind;
  effect: CapabilityEffect;
  confirmation: ConfirmationRequirement;
  description: string;
  /** Absent when the contract has none (so contracts without one keep their tokens). */
  title?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  untrustedOutput: boolean;
  concurrency: CapabilityConcurrency;
  timeoutMs: number;
}

export interface ParsedCapabilityId {
  plane: CapabilityPlane;
  /** The dot-separated segments after the plane. */
  path: string[];
  /** Whether the id follows the canonical grammar (`[A-Za-z][A-Za-z0-9]*` segments). */
  canonical: boolean;
}

// ---------------------------------------------------------------------------------------------
// Consumers

export type AgentConsumerKind = 'embedded' | 'remote' | 'webmcp' | 'chat' | 'test' | (string & {});

/** Who is calling: scopes policy, idempotency and confirmations. */
export interface AgentConsumer {
  id: string;
  kind: AgentConsumerKind;
}

// ---------------------------------------------------------------------------------------------
// Errors

export type AgentErrorCode =
  | 'CAPABILITY_NOT_FOUND'
  | 'CAPABILITY_NOT_AVAILABLE'
  | 'AMBIGUOUS_INSTANCE'
  | 'COMPONENT_UNMOUNTED'
  | 'STALE_CAPABILITY'
  | 'INVOCATION_CONFLICT'
  | 'INVALID_INPUT'
  | 'NOT_AUTHORIZED'
  | 'PRECONDITION_FAILED'
  | 'CONFIRMATION_REQUIRED'
  | 'CONFIRMATION_INVALID'
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'EXECUTION_FAILED';

/** Errors raised while defining or registering a capability (never by an agent's call). */
export type DefinitionErrorCode =
  | 'INVALID_CONTRACT'
  | 'UNAUTHORIZED_CONTRACT'
  | 'DUPLICATE_REGISTRATION'
  | 'INVALID_REGISTRATION';

export type AgentRetry =
  | 'no'
  | 'yes'
  | 'after-refresh'
  | 'after-delay'
  | 'with-confirmation'
  | 'with-changes';

/** An error as data: crosses every boundary unchanged. */
export interface AgentErrorPayload {
  code: AgentErrorCode;
  message: string;
  retry: AgentRetry;
  details?: JsonObject;
}

export interface DefinitionErrorPayload {
  code: DefinitionErrorCode;
  message: string;
  details?: JsonObject;
}

// ---------------------------------------------------------------------------------------------
// Validation and authority

export interface ValidationIssue {
  /** JSON pointer into the validated value (`""` for the root). */
  path: string;
  message: string;
  keyword?: string;
}

export type ValidationOutcome = { valid: true } | { valid: false; issues: ValidationIssue[] };

/** Validates one value; synchronous for compiled validators, may be async while an interpreter loads. */
export type ValueValidator = (value: JsonValue) => ValidationOutcome | Promise<ValidationOutcome>;

/** The shape of an ajv (standalone) validate function. */
export interface StandaloneValidator {
  (data: unknown): boolean;
  errors?: Array<{ instancePath: string; message?: string; keyword: string; params?: unknown }> | null;
}

export interface ContractValidators {
  input: StandaloneValidator;
  output?: StandaloneValidator;
}

export interface ManifestEntry {
  contract: NormalizedContract;
  token: string;
}

/** What `agent-surface compile` emits next to the validators. */
export interface ContractManifest {
  /** Format marker. */
  format: 'agent-surface-kit/manifest@1';
  compilerVersion: string;
  /** `sha256-<base64url>` of the canonical JSON of `contracts`. */
  hash: string;
  /** Keyed by capability id. */
  contracts: Record<string, ManifestEntry>;
}

export interface AdmittedContract {
  ok: true;
  contract: NormalizedContract;
  token: string;
  validateInput: ValueValidator;
  validateOutput?: ValueValidator;
}

export interface RefusedContract {
  ok: false;
  /** Same as `error.code`. */
  code: DefinitionErrorCode;
  /** Why: `missing-token`, `unknown-token`, `token-of-another-contract`, `contract-differs`, or `invalid-contract`. */
  reason: string;
  error: DefinitionErrorPayload;
}

export type Admission = AdmittedContract | RefusedContract;

export interface AuthorityEntry {
  contract: NormalizedContract;
  token: string;
}

/** The set of contracts a build approved, with a validator per contract. */
export interface AgentSurfaceAuthority {
  readonly kind: 'compiler' | 'dev';
  contract(id: string): AuthorityEntry | undefined;
  admit(contract: CapabilityContract, token: string | undefined | null): Admission;
}

// ---------------------------------------------------------------------------------------------
// Registry (DESIGN section 3)

export interface CapabilityState {
  available: boolean;
  unavailableReason?: string;
  note?: string;
}

export interface InvocationContext {
  signal: AbortSignal;
  invocationId: string;
  consumer: AgentConsumer;
  instanceId?: string;
}

export type CapabilityHandler = (input: JsonObject, ctx: InvocationContext) => unknown;
/** `input` is the validated input (observations may take parameters, e.g. a filter). */
export type ObservationReader = (ctx: InvocationContext, input: JsonObject) => unknown;

/**
 * Input and output types of the capabilities a build authorized, by id. Empty here: the `.d.ts` that
 * `agent-surface compile` writes beside a manifest module fills it (declaration merging on
 * `agent-surface-kit`), so `agent-surface-kit/jsx` can type a handler's input from its contract.
 * Each entry is `{ input; output; token }`, `token` the contract's token as a string literal.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CapabilityTypeMap {}

/** The input a handler of capability `Id` gets: from the manifest's types, else any JSON object. */
export type CapabilityInput<Id extends string> = Id extends keyof CapabilityTypeMap
  ? CapabilityTypeMap[Id] extends { input: infer I } ? I : JsonObject
  : JsonObject;

/** The output capability `Id` returns: from the manifest's types, else any JSON value. */
export type CapabilityOutput<Id extends string> = Id extends keyof CapabilityTypeMap
  ? CapabilityTypeMap[Id] extends { output: infer O } ? O : JsonValue
  : JsonValue;

export interface RegisterOptions {
  contract: CapabilityContract;
  token?: string | null;
  instanceId?: string;
  handler?: CapabilityHandler;
  read?: ObservationReader;
  state?: Partial<CapabilityState>;
}

export interface RegistrationHandle {
  readonly registrationId: string;
  readonly capabilityId: string;
  readonly instanceId?: string;
  update(state: Partial<CapabilityState>): void;
  unregister(): void;
}

export interface CapabilityDescriptor {
  capabilityId: string;
  instanceId?: string;
  registrationId: string;
  plane: CapabilityPlane;
  kind: CapabilityKind;
  effect: CapabilityEffect;
  confirmation: ConfirmationRequirement;
  description: string;
  /** The contract's `title`, when it has one. */
  title?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  untrustedOutput: boolean;
  state: CapabilityState;
}

export interface SnapshotContext {
  consumer: AgentConsumer;
  /** Segment prefixes (`devices`) or plane-qualified prefixes (`view:devices`). */
  scope?: readonly string[];
}

export interface SurfaceSnapshot {
  surfaceVersion: string;
  capabilities: readonly CapabilityDescriptor[];
}

export interface InvokeRequest {
  capabilityId: string;
  instanceId?: string;
  registrationId?: string;
  surfaceVersion?: string;
  input?: unknown;
  invocationId: string;
  consumer: AgentConsumer;
  confirmationId?: string;
  signal?: AbortSignal;
}

export interface InvocationSuccess {
  ok: true;
  output: JsonValue;
  invocationId: string;
  surfaceVersion: string;
}

export interface InvocationFailure {
  ok: false;
  error: AgentErrorPayload;
  invocationId: string;
  surfaceVersion: string;
}

export type AgentInvocationResult = InvocationSuccess | InvocationFailure;

export interface PolicyContext {
  consumer: AgentConsumer;
  capability: CapabilityDescriptor;
  /** Present for `authorize` only. */
  input?: JsonObject;
}

export type PolicyDecision = true | { deny: string } | { requireConfirmation: true };

export interface AgentSurfacePolicy {
  name: string;
  discover?(ctx: PolicyContext): boolean;
  authorize?(ctx: PolicyContext): PolicyDecision;
}

export interface RegistryLimits {
  /** Default 120 000. */
  confirmationTtlMs?: number;
  /** Default 32. */
  maxPendingConfirmations?: number;
  /** Calls waiting behind a running serial call, per instance. Default 2. */
  queueDepth?: number;
  /** Default 64 KiB of JSON. */
  maxInputBytes?: number;
  /** Default 32 KiB of JSON. */
  maxOutputBytes?: number;
  /**
   * Calls on record per consumer (each handler call takes one until its entry expires). Finished
   * `server-mutation`, `external-side-effect` and `destructive` calls are never evicted before their
   * TTL: when they fill a consumer's record, its new calls are RATE_LIMITED. Default 200.
   */
  idempotencyEntries?: number;
  /** How long a finished call's result is replayed for its (consumer, invocationId). Default 600 000. */
  idempotencyTtlMs?: number;
}

export interface RegistryOptions {
  authority?: AgentSurfaceAuthority;
  policies?: readonly AgentSurfacePolicy[];
  limits?: RegistryLimits;
}

export type ConfirmationStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';

export interface PendingConfirmation {
  confirmationId: string;
  status: ConfirmationStatus;
  consumer: AgentConsumer;
  capabilityId: string;
  instanceId?: string;
  registrationId: string;
  invocationId: string;
  input: JsonObject;
  inputDigest: string;
  description: string;
  effect: CapabilityEffect;
  createdAt: number;
  expiresAt: number;
  /** Why it was denied, when it was. */
  reason?: string;
}

export interface ConfirmationOutcome {
  status: 'approved' | 'denied' | 'expired' | 'consumed' | 'aborted' | 'unknown';
  reason?: string;
}

export interface ConfirmationsApi {
  /** Pending records, oldest first. */
  list(): PendingConfirmation[];
  /** Called with the pending list on every change; returns the unsubscribe function. */
  subscribe(listener: (pending: PendingConfirmation[]) => void): () => void;
  approve(confirmationId: string): boolean;
  deny(confirmationId: string, reason?: string): boolean;
  /** Resolves once the record is decided, expires or the signal aborts. Never rejects. */
  waitFor(confirmationId: string, options?: { signal?: AbortSignal }): Promise<ConfirmationOutcome>;
}

export type InvocationOutcomeCode = 'OK' | AgentErrorCode;

export interface SurfaceChangedEvent {
  type: 'surface-changed';
  surfaceVersion: string;
}

export interface InvocationEvent {
  type: 'invocation';
  consumer: AgentConsumer;
  capabilityId: string;
  instanceId?: string;
  registrationId?: string;
  invocationId: string;
  outcome: InvocationOutcomeCode;
  durationMs: number;
  /** The original error a handler threw: for the developer, never sent to the agent. */
  cause?: unknown;
  /** Set when the result came from the idempotency store: joined an in-flight call, or a cached result. */
  replay?: 'joined' | 'cached';
}

export interface ConfirmationEvent {
  type: 'confirmation';
  action: 'created' | 'approved' | 'denied' | 'expired' | 'consumed';
  confirmation: PendingConfirmation;
}

export interface RefusalEvent {
  type: 'refused';
  capabilityId: string;
  instanceId?: string;
  error: DefinitionErrorPayload;
}

export interface RegistryEventMap {
  'surface-changed': SurfaceChangedEvent;
  invocation: InvocationEvent;
  confirmation: ConfirmationEvent;
  refused: RefusalEvent;
}

export interface AgentSurfaceRegistry {
  readonly surfaceVersion: string;
  readonly confirmations: ConfirmationsApi;
  readonly authority: AgentSurfaceAuthority | undefined;
  register(options: RegisterOptions): RegistrationHandle;
  snapshot(context: SnapshotContext): SurfaceSnapshot;
  invoke(request: InvokeRequest): Promise<AgentInvocationResult>;
  on<K extends keyof RegistryEventMap>(type: K, listener: (event: RegistryEventMap[K]) => void): () => void;
  /** Replace the policy list (re-filters snapshots). */
  setPolicies(policies: readonly AgentSurfacePolicy[]): void;
  dispose(): void;
  readonly disposed: boolean;
}

// ---------------------------------------------------------------------------------------------
// Tool projection (DESIGN section 4)

export type ToolsetMode = 'direct' | 'meta';
export type ToolsetTopology = 'embedded' | 'remote';
export type ConfirmationMode = 'wait' | 'two-phase';

export interface AgentToolsetOptions {
  consumer: AgentConsumer;
  mode?: ToolsetMode;
  topology?: ToolsetTopology;
  confirmations?: ConfirmationMode;
  scope?: readonly string[];
  budget?: { maxComponents?: number; maxBytes?: number };
}

export interface AgentToolCall {
  toolCallId?: string;
  signal?: AbortSignal;
}

export interface AgentTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  state: CapabilityState;
  execute(input: unknown, call?: AgentToolCall): Promise<AgentInvocationResult>;
}

export interface AgentToolset {
  tools(): readonly AgentTool[];
  /** Wire name → capability id, authoritative for this catalog. */
  wireNameMap(): ReadonlyMap<string, string>;
  /** Wire name → capability id and instance id, for instance-qualified names. */
  wireTargets(): ReadonlyMap<string, WireTarget>;
  capabilityState(): string;
  subscribe(listener: () => void): () => void;
  dispose(): void;
}

export interface WireTarget {
  capabilityId: string;
  instanceId?: string;
}

/** What `gateway.expose` takes: a compiled contract, its token and the code behind it. */
export interface ExposeToolOptions {
  contract: CapabilityContract;
  token: string | undefined | null;
  handler: CapabilityHandler;
}

export interface ExposureGatewayOptions {
  /** Passed to handlers as `ctx.consumer`. Default `{ id: "exposure-gateway", kind: "embedded" }`. */
  consumer?: AgentConsumer;
  limits?: Pick<RegistryLimits, 'maxInputBytes' | 'maxOutputBytes'>;
}

/** Standalone provider tools admitted by an authority (`createAgentExposureGateway`). */
export interface AgentExposureGateway {
  /** Throws the authority's definition error when the contract is not admitted. */
  expose(options: ExposeToolOptions): AgentTool;
  tools(): readonly AgentTool[];
  wireNameMap(): ReadonlyMap<string, string>;
  /** Removes an exposed tool by wire name; `false` when there was none. */
  withdraw(name: string): boolean;
}

/** The MCP tool-result shape. */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  isError: boolean;
  structuredContent?: JsonObject;
}
