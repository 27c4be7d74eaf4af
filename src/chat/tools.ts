/**
 * The tools of a chat run: from an `<agent-surface>`'s registry through a toolset (topology
 * `embedded`), or from any ToolSource (`createWebMcpSource()`), filtered through the agent, plus
 * one `delegate_to_<id>` tool per sub-agent. DOM-free.
 *
 * Both kinds fail closed when the tools changed under a call: a toolset's tool presents the surface
 * version of the catalog it came from (the registry answers STALE_CAPABILITY), a source call
 * presents the revision the model read (the source answers STALE_TOOLS). Nothing here retries.
 */
import { compileScope } from '../core/scope.js';
import { lazy } from './lazy.js';
import { toToolResult } from '../core/tool-result.js';
import type { AgentSurfaceRegistry, AgentTool, AgentToolset, CapabilityDescriptor } from '../core/types.js';
import { decodeWireName } from '../core/wire-names.js';
import type { ToolDefinition, ToolSnapshot, ToolSource } from '../webmcp/types.js';
import { CANCELLED_TEXT, errorOutput, messageOf, toToolOutput } from './call-tool.js';
import type { ToolDescriptor, ToolOutput, WebAgent } from './types.js';

/** What a call gets besides its input. */
export interface ChatToolCallContext {
  /** The model's call id. */
  readonly id: string;
  /** A fresh id for this execution (the registry's invocation id): never reused across runs. */
  readonly invocationId: string;
  readonly signal: AbortSignal;
}

/** One tool of a run, as the chat knows it. */
export interface ChatTool {
  readonly descriptor: ToolDescriptor;
  /** The capability behind it, when there is one (for the card and the highlight). */
  readonly capabilityId?: string;
  readonly instanceId?: string;
  /** What the card shows as the tool's description: the capability's authored text. */
  readonly title: string;
  /** The capability may return third-party text: shown as plain text, never Markdown. */
  readonly untrustedOutput: boolean;
  call(input: unknown, ctx: ChatToolCallContext): Promise<ToolOutput>;
}

/** Where a chat gets its tools. */
export interface ChatToolProvider {
  /** The tools right now. */
  tools(): readonly ChatTool[];
  /** Brings the list up to date (a source discovers); never rejects. */
  refresh(signal?: AbortSignal): Promise<void>;
  /** Why there are no tools, when something went wrong (no WebMCP host, say). */
  problem(): string | undefined;
  subscribe(listener: () => void): () => void;
  dispose(): void;
}

function cancelledWhen(output: ToolOutput, cancelled: boolean): ToolOutput {
  if (!cancelled) return output;
  const text = output.content.map((c) => c.text).join('\n');
  return errorOutput(text ? `${CANCELLED_TEXT} ${text}` : CANCELLED_TEXT);
}

// ---------------------------------------------------------------------------------------------
// From a registry's toolset

/** A provider over a direct-mode toolset of `registry` (what `<agent-chat>` makes from its surface). */
export function toolsetProvider(toolset: AgentToolset, registry: AgentSurfaceRegistry, consumerId: string): ChatToolProvider {
  let memo: { version: string; tools: readonly AgentTool[]; chat: readonly ChatTool[] } | undefined;
  const wrap = new WeakMap<AgentTool, ChatTool>();
  const list = (): readonly ChatTool[] => {
    const tools = toolset.tools();
    const version = registry.surfaceVersion;
    if (memo && memo.tools === tools && memo.version === version) return memo.chat;
    const targets = toolset.wireTargets();
    let descriptors: Map<string, CapabilityDescriptor> | undefined;
    const describe = (capabilityId: string, instanceId: string | undefined) => {
      descriptors ??= new Map(
        registry.snapshot({ consumer: { id: consumerId, kind: 'chat' } }).capabilities.map((d) => [`${d.capabilityId}\u0000${d.instanceId ?? ''}`, d]),
      );
      return descriptors.get(`${capabilityId}\u0000${instanceId ?? ''}`);
    };
    const chat = tools.map((tool) => {
      const known = wrap.get(tool);
      if (known) return known;
      const target = targets.get(tool.name);
      const d = target && describe(target.capabilityId, target.instanceId);
      const made: ChatTool = {
        descriptor: {
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          ...(d?.untrustedOutput ? { untrustedOutput: true } : {}),
        },
        ...(target ? { capabilityId: target.capabilityId } : {}),
        ...(target?.instanceId !== undefined ? { instanceId: target.instanceId } : {}),
        title: d?.description ?? tool.description,
        untrustedOutput: d?.untrustedOutput ?? false,
        async call(input, ctx) {
          const result = await tool.execute(input, { toolCallId: ctx.invocationId, signal: ctx.signal });
          return cancelledWhen(toToolOutput(toToolResult(result)), !result.ok && (result.error.code === 'CANCELLED' || ctx.signal.aborted));
        },
      };
      wrap.set(tool, made);
      return made;
    });
    memo = { version, tools, chat };
    return chat;
  };
  return {
    tools: list,
    refresh: () => Promise.resolve(),
    problem: () => undefined,
    subscribe: (listener) => toolset.subscribe(listener),
    dispose: () => toolset.dispose(),
  };
}

/**
 * The toolset code, fetched on first need: a page with a surface has it already (the elements entry
 * links it), and a chat over a ToolSource never needs it.
 */
const toolsetModule = lazy(() => import('./toolset-loader.js'));

/**
 * A provider over a new direct-mode toolset of `registry` (topology `embedded`, the chat's consumer).
 * Until the toolset code has loaded it lists no tools; `refresh()` waits for it.
 */
export function registryProvider(registry: AgentSurfaceRegistry, consumerId: string): ChatToolProvider {
  let inner: ChatToolProvider | undefined;
  let disposed = false;
  let problem: string | undefined;
  const listeners = new Set<() => void>();
  const offs = new Map<() => void, () => void>();
  const ready = toolsetModule.load().then(
    ({ createAgentToolset }) => {
      if (disposed) return;
      inner = toolsetProvider(createAgentToolset(registry, { consumer: { id: consumerId, kind: 'chat' }, topology: 'embedded' }), registry, consumerId);
      for (const l of listeners) offs.set(l, inner.subscribe(l));
      for (const l of [...listeners]) l();
    },
    (error: unknown) => {
      problem = messageOf(error, 'The tool code did not load.');
    },
  );
  return {
    tools: () => inner?.tools() ?? [],
    refresh: async (signal) => {
      await ready;
      await inner?.refresh(signal);
    },
    problem: () => problem,
    subscribe(listener) {
      listeners.add(listener);
      if (inner) offs.set(listener, inner.subscribe(listener));
      return () => {
        listeners.delete(listener);
        offs.get(listener)?.();
        offs.delete(listener);
      };
    },
    dispose() {
      disposed = true;
      for (const off of offs.values()) off();
      offs.clear();
      listeners.clear();
      inner?.dispose();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// From a ToolSource

/** A provider over any ToolSource. The list is the last discovered snapshot; calls present its revision. */
export function sourceProvider(source: ToolSource): ChatToolProvider {
  let snapshot: ToolSnapshot | undefined;
  let chat: readonly ChatTool[] = [];
  let problem: string | undefined;
  const listeners = new Set<() => void>();
  let pending: Promise<void> | undefined;
  let disposed = false;

  const toChat = (def: ToolDefinition, revision: number): ChatTool => {
    const capabilityId = decodeWireName(def.name);
    return {
      descriptor: {
        name: def.name,
        description: def.description,
        inputSchema: def.inputSchema,
        ...(def.untrustedContent ? { untrustedOutput: true } : {}),
      },
      ...(capabilityId ? { capabilityId } : {}),
      title: def.description,
      untrustedOutput: def.untrustedContent === true,
      async call(input, ctx) {
        const result = await source.execute({ id: ctx.id, toolId: def.id, input }, revision, ctx.signal);
        return cancelledWhen(toToolOutput(result.result), !result.ok && (result.code === 'CANCELLED' || ctx.signal.aborted));
      },
    };
  };

  /** No tools, and why. */
  const fail = (error: unknown) => {
    problem = messageOf(error, 'The page tools could not be read.');
    snapshot = undefined;
    chat = [];
  };

  const refresh = (signal?: AbortSignal): Promise<void> => {
    if (disposed) return Promise.resolve();
    pending ??= (async () => {
      try {
        const next = await source.discover(signal);
        problem = undefined;
        // A new snapshot is a new object (the same object is the same revision).
        if (next !== snapshot) {
          snapshot = next;
          chat = next.tools.map((d) => toChat(d, next.revision));
        }
      } catch (error) {
        fail(error);
      } finally {
        pending = undefined;
      }
      for (const l of [...listeners]) l();
    })();
    return pending;
  };

  let off: (() => void) | undefined;
  return {
    tools: () => chat,
    refresh,
    problem: () => problem,
    subscribe(listener) {
      listeners.add(listener);
      // A change re-discovers; the listeners hear once the new list is in. A source that cannot
      // be subscribed to (disposed, or a foreign one that throws) leaves no tools and says why,
      // instead of an uncaught error inside the element's update.
      try {
        off ??= source.subscribe(() => void refresh());
      } catch (error) {
        fail(error);
      }
      return () => {
        listeners.delete(listener);
        if (!listeners.size) {
          off?.();
          off = undefined;
        }
      };
    },
    dispose() {
      disposed = true;
      off?.();
      off = undefined;
      listeners.clear();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Filtering and sub-agents

export const DELEGATE_PREFIX = 'delegate_to_';

/** The tools an agent may use: by wire name, or by capability id prefix (segment-wise, as scopes match). */
export function filterTools(tools: readonly ChatTool[], filter: readonly string[] | undefined): ChatTool[] {
  if (!filter) return [...tools];
  const names = new Set(filter);
  // Wire names never parse as a capability path, so one list serves both kinds of entry.
  const scope = compileScope(filter);
  return tools.filter(
    (t) => names.has(t.descriptor.name) || (t.capabilityId !== undefined && scope !== undefined && scope(t.capabilityId)),
  );
}

/**
 * Every delegate tool's input schema: one frozen object, so a consumer that caches per schema (the
 * local adapter's grammar) sees the same one on every read instead of a new one per step.
 */
const DELEGATE_SCHEMA = Object.freeze({
  type: 'object',
  properties: Object.freeze({ task: Object.freeze({ type: 'string', description: 'The task, in full sentences, with everything the agent needs.' }) }),
  required: Object.freeze(['task']),
  additionalProperties: false,
}) as unknown as ToolDescriptor['inputSchema'];

/**
 * The model-visible descriptor of a sub-agent's `delegate_to_<id>` tool. Its answer is model output
 * that may repeat what its own tools read (third-party text, an injected instruction): the parent
 * model reads it as data.
 */
export function delegateDescriptor(agent: WebAgent): ToolDescriptor {
  const summary = agent.instructions.trim().split('\n')[0]!.slice(0, 240);
  return {
    name: `${DELEGATE_PREFIX}${agent.id}`,
    description: `Hand a task to the "${agent.id}" agent and get its answer. It says of itself: ${summary}`,
    inputSchema: DELEGATE_SCHEMA,
    untrustedOutput: true,
  };
}
