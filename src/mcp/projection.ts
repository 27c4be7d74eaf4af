/**
 * The registry as MCP tools: a toolset (src/core) underneath, so names, descriptions, schemas,
 * the meta verbs, two-phase memory and the invoke pipeline are the toolset's; this module adds
 * what only MCP has (tool names of your own, `outputSchema`, annotations, the result shape without
 * a schema clash) and completes confirmations with the person in the call when it can.
 *
 * No transport here and nothing Node-only: it runs wherever the SDK's `Server` runs.
 */
import { errorPayload } from '../core/errors.js';
import { reveal } from '../core/reveal.js';
import { toToolResult } from '../core/tool-result.js';
import { createAgentToolset } from '../core/toolset.js';
import type {
  AgentInvocationResult,
  AgentSurfaceRegistry,
  AgentTool,
  AgentToolset,
  CapabilityDescriptor,
  JsonSchema,
  PendingConfirmation,
} from '../core/types.js';
import type { McpConfirmationMode, McpServerOptions, McpToolNamer } from './types.js';

/** The MCP `Tool` fields we produce (a subset of the SDK's type, kept structural). */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema?: JsonSchema & { type: 'object' };
  annotations: {
    title?: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  _meta?: Record<string, unknown>;
}

/** The MCP `CallToolResult` we produce. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** What a call can ask of the client it came from (the SDK's `Server`, seen through a narrow window). */
export interface McpCallContext {
  signal: AbortSignal;
  /** Whether the client declared form elicitation. */
  canElicit(): boolean;
  /** `elicitation/create` on the request's own stream; rejects when the client fails or the call is cancelled. */
  elicit(message: string, signal: AbortSignal, timeoutMs: number): Promise<'accept' | 'decline' | 'cancel'>;
}

/** Where live capability state goes in a direct tool (MCP has no slot for it; models see errors). */
export const STATE_META_KEY = 'agent-surface-kit/state';

/** The SDK's tool-name rule (SEP-986), checked here so a bad custom name never reaches a client. */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** The input shown to the person is model-chosen text: bounded, so a huge input cannot bury the question. */
const MAX_SHOWN_INPUT = 2000;
/** Withdrawn requests remembered per projection: as many as the toolset's two-phase memory holds. */
const MAX_WITHDRAWN = 64;

const MODES: readonly McpConfirmationMode[] = ['elicit', 'wait', 'two-phase'];
const OPTION_KEYS = ['consumer', 'mode', 'scope', 'name', 'version', 'toolName', 'confirmations'];

interface Entry {
  tool: AgentTool;
  mcp: McpTool;
  /** Direct mode: whether the tool declares an `outputSchema` (then errors carry no `structuredContent`). */
  typedOutput: boolean;
}

interface Catalog {
  version: string;
  tools: McpTool[];
  byName: Map<string, Entry>;
}

export interface McpProjection {
  readonly mode: 'direct' | 'meta';
  tools(): McpTool[];
  call(name: string, args: unknown, context: McpCallContext): Promise<McpToolResult>;
  /** Called once per relevant surface change (coalesced by the toolset); direct mode only. */
  subscribe(listener: () => void): () => void;
  dispose(): void;
}

function fail(message: string): never {
  throw new TypeError(`createMcpServer: ${message}`);
}

export function checkMcpOptions(options: McpServerOptions): void {
  if (!options || typeof options !== 'object') fail('pass options { consumer }');
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) fail(`unknown option "${key}": use ${OPTION_KEYS.join(', ')}`);
  }
  if (options.confirmations !== undefined && !MODES.includes(options.confirmations))
    fail(`unknown confirmations "${String(options.confirmations)}": use "${MODES.join('", "')}"`);
  if (options.toolName !== undefined && typeof options.toolName !== 'function')
    fail('toolName must be a function (capabilityId, instanceId) → name | undefined');
  for (const key of ['name', 'version'] as const) {
    if (options[key] !== undefined && (typeof options[key] !== 'string' || options[key] === ''))
      fail(`${key} must be a non-empty string`);
  }
}

/** Hints from the contract's kind and effect only: curation and authored text never reach them. */
export function mcpAnnotations(
  d: Pick<CapabilityDescriptor, 'kind' | 'effect'>,
  title: string,
): McpTool['annotations'] {
  const readOnlyHint = d.kind === 'observation' || d.effect === 'read' || d.effect === 'server-query';
  return {
    title,
    readOnlyHint,
    destructiveHint: !readOnlyHint && d.effect === 'destructive',
    // Only reading is known to be repeatable; an action's effect says nothing about idempotency.
    idempotentHint: readOnlyHint,
    // The app's own state and server are a closed world; an external side effect is not.
    openWorldHint: d.effect === 'external-side-effect',
  };
}

const META_ANNOTATIONS: Record<string, McpTool['annotations']> = {
  surface_discover: {
    title: 'Discover capabilities',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  surface_read: {
    title: 'Read an observation',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  // It can run any capability: the spec's cautious defaults.
  surface_act: {
    title: 'Run a capability',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
};

/** The contract's authored title (authorized with it, like the description), else the capability id. */
function titleOf(d: CapabilityDescriptor): string {
  const title = d.title ?? d.capabilityId;
  return d.instanceId === undefined ? title : `${title} (${JSON.stringify(d.instanceId)})`;
}

const targetKey = (capabilityId: string, instanceId: string | undefined) =>
  instanceId === undefined ? capabilityId : `${capabilityId}\u0000${instanceId}`;

/** MCP wants an object `outputSchema` and an object `structuredContent` to match it. */
function objectSchema(schema: JsonSchema | undefined): (JsonSchema & { type: 'object' }) | undefined {
  return schema && typeof schema === 'object' && schema.type === 'object'
    ? (schema as JsonSchema & { type: 'object' })
    : undefined;
}

const warned = new Set<string>();
function warnOnce(key: string, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(`[agent-surface-kit] ${message}`);
}

/**
 * Custom names where `toolName` gives a valid, unused one; the wire name otherwise (and where even
 * that is taken by a custom name, the wire name with a counter). Deterministic for a given catalog.
 */
function assignNames(
  tools: readonly AgentTool[],
  targets: ReadonlyMap<string, { capabilityId: string; instanceId?: string }>,
  namer: McpToolNamer | undefined,
): string[] {
  if (!namer) return tools.map((t) => t.name);
  const wanted = tools.map((t) => {
    const target = targets.get(t.name);
    if (!target) return undefined;
    let name: unknown;
    try {
      name = namer(target.capabilityId, target.instanceId);
    } catch (error) {
      warnOnce(
        `throw:${target.capabilityId}`,
        `toolName threw for ${target.capabilityId}; using its wire name (${String(error)})`,
      );
      return undefined;
    }
    if (name === undefined) return undefined;
    if (typeof name !== 'string' || !MCP_TOOL_NAME.test(name)) {
      warnOnce(
        `bad:${String(name)}`,
        `toolName gave ${JSON.stringify(name)} for ${target.capabilityId}, not an MCP tool name ([A-Za-z0-9_.-]{1,128}); using its wire name`,
      );
      return undefined;
    }
    return name;
  });
  const taken = new Set<string>();
  const names: (string | undefined)[] = wanted.map((name) => {
    if (name === undefined || taken.has(name)) return undefined;
    taken.add(name);
    return name;
  });
  return tools.map((t, i) => {
    const got = names[i];
    if (got !== undefined) return got;
    if (wanted[i] !== undefined)
      warnOnce(
        `dup:${wanted[i]}`,
        `toolName gave "${wanted[i]}" to two tools; the second keeps its wire name`,
      );
    let name = t.name;
    for (let n = 2; taken.has(name); n++) name = `${t.name}_${n}`;
    taken.add(name);
    return name;
  });
}

function confirmationOf(result: AgentInvocationResult): string | undefined {
  if (result.ok || result.error.code !== 'CONFIRMATION_REQUIRED') return undefined;
  const id = result.error.details?.confirmationId;
  return typeof id === 'string' ? id : undefined;
}

function question(record: PendingConfirmation | undefined): string {
  if (!record) return 'An agent asks to run a capability that needs your approval. Allow it?';
  let input = JSON.stringify(record.input);
  if (input.length > MAX_SHOWN_INPUT)
    input = `${input.slice(0, MAX_SHOWN_INPUT)}… (${input.length} characters)`;
  // JSON leaves line separators, bidi overrides and invisible characters as they are: shown raw,
  // they could make the input read as more lines of this question, or as other text.
  input = reveal(input);
  const instance = record.instanceId === undefined ? '' : ` on ${JSON.stringify(record.instanceId)}`;
  return (
    `An agent asks to run ${record.capabilityId}${instance}: ${record.description}\n` +
    `Effect: ${record.effect}\nInput: ${input}\nAllow it to run once?`
  );
}

export function createMcpProjection(
  registry: AgentSurfaceRegistry,
  options: McpServerOptions,
): McpProjection {
  checkMcpOptions(options);
  const confirmations = options.confirmations ?? 'elicit';
  const mode = options.mode ?? 'direct';
  // Two-phase underneath: the toolset remembers a pending confirmation per (tool, input), so the
  // retry after the person's decision presents it; asking (or waiting) happens here, in the call.
  const toolset: AgentToolset = createAgentToolset(registry, {
    consumer: options.consumer,
    mode,
    confirmations: 'two-phase',
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
  });
  const { consumer } = options;
  const scope = options.scope?.length ? [...options.scope] : undefined;
  let catalog: Catalog | undefined;
  let disposed = false;

  const build = (): Catalog => {
    const version = registry.surfaceVersion;
    const tools = toolset.tools();
    const byName = new Map<string, Entry>();
    const list: McpTool[] = [];
    if (mode === 'meta') {
      for (const tool of tools) {
        const mcp: McpTool = {
          name: tool.name,
          title: META_ANNOTATIONS[tool.name]?.title ?? tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema as McpTool['inputSchema'],
          annotations: META_ANNOTATIONS[tool.name] ?? META_ANNOTATIONS.surface_act!,
        };
        byName.set(mcp.name, { tool, mcp, typedOutput: false });
        list.push(mcp);
      }
      return { version, tools: list, byName };
    }
    const targets = toolset.wireTargets();
    // Same registry version as the toolset's catalog: the descriptors behind its tools.
    const snapshot = registry.snapshot(scope ? { consumer, scope } : { consumer });
    const descriptors = new Map(
      snapshot.capabilities.map((d) => [targetKey(d.capabilityId, d.instanceId), d]),
    );
    const names = assignNames(tools, targets, options.toolName);
    tools.forEach((tool, i) => {
      const target = targets.get(tool.name);
      const d = target && descriptors.get(targetKey(target.capabilityId, target.instanceId));
      if (!d) return;
      const title = titleOf(d);
      const mcp: McpTool = {
        name: names[i]!,
        title,
        description: tool.description,
        inputSchema: tool.inputSchema as McpTool['inputSchema'],
        annotations: mcpAnnotations(d, title),
      };
      const outputSchema = objectSchema(d.outputSchema);
      if (outputSchema) mcp.outputSchema = outputSchema;
      const { available, unavailableReason, note } = tool.state;
      if (!available || note !== undefined)
        mcp._meta = {
          [STATE_META_KEY]: {
            available,
            ...(unavailableReason !== undefined ? { unavailableReason } : {}),
            ...(note !== undefined ? { note } : {}),
          },
        };
      byName.set(mcp.name, { tool, mcp, typedOutput: outputSchema !== undefined });
      list.push(mcp);
    });
    return { version, tools: list, byName };
  };

  const current = (): Catalog => {
    if (!catalog || catalog.version !== registry.surfaceVersion) catalog = build();
    return catalog;
  };

  const shape = (result: AgentInvocationResult, entry: Entry | undefined): McpToolResult => {
    const out = toToolResult(result) as McpToolResult;
    // A client checks `structuredContent` against the tool's `outputSchema`, errors included: the
    // error stays in the text, where every model reads it. A name no longer in the catalog may still
    // have the schema the client listed before the capability went away: no `structuredContent` then either.
    if (!result.ok && (!entry || entry.typedOutput)) delete out.structuredContent;
    return out;
  };

  /** Invocations whose request `withdraw` took back while the toolset's two-phase memory still names it. */
  const withdrawn = new Set<string>();
  /** Calls waiting on each request: identical calls share one (the toolset presents the first one's). */
  const waiting = new Map<string, number>();
  const withdraw = (confirmationId: string, invocationId: string) => {
    // Nobody waits for this answer now (the client cancelled the call, or its session ended): take
    // the request off the person's screen, as a toolset's and WebMCP's waits do, so that a late
    // approval cannot run the model's next identical call without anybody being asked about it.
    if (waiting.has(confirmationId) || !registry.confirmations.deny(confirmationId, 'withdrawn')) return;
    withdrawn.add(invocationId);
    if (withdrawn.size > MAX_WITHDRAWN) withdrawn.delete(withdrawn.values().next().value!);
  };

  /** Asks the person (or waits for them); false when the call should go back two-phase. */
  const decide = async (
    confirmationId: string,
    invocationId: string,
    context: McpCallContext,
  ): Promise<boolean> => {
    waiting.set(confirmationId, (waiting.get(confirmationId) ?? 0) + 1);
    let decided: boolean | 'withdraw';
    try {
      decided = await ask(confirmationId, context);
    } finally {
      const left = waiting.get(confirmationId)! - 1;
      if (left) waiting.set(confirmationId, left);
      else waiting.delete(confirmationId);
    }
    if (decided !== 'withdraw') return decided;
    withdraw(confirmationId, invocationId);
    return false;
  };

  /** decide's asking or waiting: 'withdraw' when the call was cancelled before a decision. */
  const ask = async (confirmationId: string, context: McpCallContext): Promise<boolean | 'withdraw'> => {
    const { signal } = context;
    if (confirmations !== 'two-phase' && context.canElicit()) {
      const record = registry.confirmations.list().find((r) => r.confirmationId === confirmationId);
      let action: 'accept' | 'decline' | 'cancel';
      try {
        // The question is open as long as the record is: past its TTL the answer could not count.
        const timeoutMs = Math.max(1, (record?.expiresAt ?? Date.now() + 120_000) - Date.now());
        action = await context.elicit(question(record), signal, timeoutMs);
      } catch {
        // The client could not ask (an error, a timeout): the record stays pending for a decision
        // made elsewhere, and the call answers two-phase. A cancelled call gets no answer at all.
        return signal.aborted ? 'withdraw' : false;
      }
      if (signal.aborted) return 'withdraw';
      if (action === 'accept') registry.confirmations.approve(confirmationId);
      else
        registry.confirmations.deny(
          confirmationId,
          action === 'decline' ? 'declined by the person' : 'cancelled by the person',
        );
      return true;
    }
    if (confirmations === 'wait') {
      const outcome = await registry.confirmations.waitFor(confirmationId, { signal });
      if (outcome.status !== 'aborted' && !signal.aborted) return true;
      return outcome.status === 'approved' ? false : 'withdraw';
    }
    return false;
  };

  const call = async (name: string, args: unknown, context: McpCallContext): Promise<McpToolResult> => {
    const entry = disposed ? undefined : current().byName.get(name);
    if (!entry) {
      return shape(
        {
          ok: false,
          error: errorPayload(
            'CAPABILITY_NOT_FOUND',
            `no tool named ${JSON.stringify(String(name).slice(0, 200))}: list the tools again`,
            undefined,
            'after-refresh',
          ),
          invocationId: '',
          surfaceVersion: registry.surfaceVersion,
        },
        undefined,
      );
    }
    const input = args ?? {};
    const signal = context.signal;
    let first = await entry.tool.execute(input, { signal });
    // The toolset's two-phase memory presented a request withdrawn above, now denied: it has
    // forgotten it after this answer, so the same call asks anew.
    if (withdrawn.delete(first.invocationId) && !first.ok && first.error.code === 'CONFIRMATION_INVALID')
      first = await entry.tool.execute(input, { signal });
    // surface_discover never needs one; surface_read and surface_act (and every direct tool) may.
    const confirmationId = name === 'surface_discover' ? undefined : confirmationOf(first);
    if (confirmationId === undefined || !(await decide(confirmationId, first.invocationId, context)))
      return shape(first, entry);
    // The decision is the registry's now; the retry presents it (a direct tool and surface_read
    // through the toolset's two-phase memory, surface_act with the ids it was given) and runs at
    // most once.
    let retryInput: unknown = input;
    if (mode === 'meta' && name === 'surface_act' && !first.ok) {
      const invocationId = first.error.details?.invocationId;
      retryInput = { ...(input as object), confirmationId, ...(typeof invocationId === 'string' ? { invocationId } : {}) };
    }
    return shape(await entry.tool.execute(retryInput, { signal }), entry);
  };

  return {
    mode,
    tools: () => (disposed ? [] : current().tools),
    call,
    subscribe: (listener) => (mode === 'direct' && !disposed ? toolset.subscribe(listener) : () => {}),
    dispose() {
      if (disposed) return;
      disposed = true;
      catalog = undefined;
      toolset.dispose();
    },
  };
}
