/**
 * What a started WebMCP adapter runs (adapter.ts loads it with `import()` on the first start on a
 * page that has a host): one tool per available capability (instance), kept in sync incrementally,
 * every call through `registry.invoke`, confirmations completed inside the call. adapter.ts keeps
 * the adapter's state (status, start, stop); a run is what one start … stop owns.
 */
import { capabilityTitle } from '../core/capability-title.js';
import { endSentence, isSignal } from '../core/util.js';
import { DEV_MODE, issueWarning } from '../core/dev.js';
import { errorPayload } from '../core/errors.js';
import { toToolResult } from '../core/tool-result.js';
import { randomId } from '../core/toolset-common.js';
import type {
  AgentConsumer,
  AgentInvocationResult,
  AgentSurfaceRegistry,
  CapabilityDescriptor,
  InvocationFailure,
  InvokeRequest,
  JsonSchema,
  ToolResult,
} from '../core/types.js';
import { wireHash } from '../core/hash.js';
import { WIRE_NAME_MAX_LENGTH, assignWireNames, encodeWireName } from '../core/wire-names.js';
import { DEFAULT_CONFIRMATION_TTL_MS } from './adapter-options.js';
import { annotationsFor, type ContractHints } from './annotations.js';
import { AgentWebMcpConflictEvent, AgentWebMcpExposedToRefusedEvent } from './events.js';
import { createToolSync, type HostRefusal, type ToolSpec, type ToolSync } from './host-sync.js';
import type {
  ModelContextExecuteOptions,
  ModelContextLike,
  ModelContextShape,
  ModelContextTool,
  WebMcpAdapterOptions,
  WebMcpConflict,
  WebMcpExposedToRefusal,
} from './types.js';

const NO_SCHEMA: JsonSchema = Object.freeze({ type: 'object', properties: {}, additionalProperties: false }) as JsonSchema;

/** One projected tool: what the host holds, and what its calls resolve to. */
interface Projection extends ToolSpec {
  readonly name: string;
  readonly capabilityId: string;
  readonly instanceId: string | undefined;
  readonly registrationId: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly hints: ContractHints;
  /** The descriptor it was projected from: the registry hands back the same object while nothing changed. */
  source: CapabilityDescriptor;
}

/** Everything one `start` … `stop` owns. */
interface RunState {
  readonly registry: AgentSurfaceRegistry;
  readonly consumer: AgentConsumer;
  readonly scope: readonly string[] | undefined;
  readonly sync: ToolSync;
  /** Aborted by `stop()`: ends confirmation waits. */
  readonly stopped: AbortController;
  projections: Map<string, Projection>;
  /** The surfaceVersion of the last reconciled snapshot: what calls carry. */
  surfaceVersion: string | undefined;
  unsubscribe: () => void;
}

function sameHints(a: Projection['hints'], b: Projection['hints']): boolean {
  return a.readOnlyHint === b.readOnlyHint && a.consequentialHint === b.consequentialHint && a.untrustedContentHint === b.untrustedContentHint;
}

function sameSchema(a: JsonSchema, b: JsonSchema): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The prefixed name, kept within 64 characters by a hash of the full name where needed. */
function withPrefix(prefix: string, name: string): string {
  if (!prefix) return name;
  const full = prefix + name;
  if (full.length <= WIRE_NAME_MAX_LENGTH) return full;
  const hash = wireHash(full, 8);
  return `${full.slice(0, WIRE_NAME_MAX_LENGTH - 1 - hash.length)}-${hash}`;
}

/**
 * Hosts pass an object; older builds and careless agents a JSON string of one; some nothing at
 * all. Anything else goes to the registry as is, which answers INVALID_INPUT.
 */
function normalizeInput(input: unknown): unknown {
  if (input === undefined || input === null) return {};
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: the registry reports it
    }
  }
  return input;
}

function failure(request: InvokeRequest, surfaceVersion: string, payload: InvocationFailure['error']): InvocationFailure {
  return { ok: false, error: payload, invocationId: request.invocationId, surfaceVersion };
}

/** Settles with the promise's value, or `aborted` once the signal fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<{ value: T } | 'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ value });
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** What adapter.ts hands a run: the registry and consumer from `start(host)`, the scope merged. */
export interface RunHost {
  readonly registry: AgentSurfaceRegistry;
  readonly consumer: AgentConsumer;
  readonly scope: readonly string[] | undefined;
}

/** One start … stop of an adapter. */
export interface AdapterRun {
  /** Subscribes and projects the first set (called once the adapter says `starting`). */
  begin(): void;
  /** Unsubscribes, ends confirmation waits, withdraws every tool; resolves once the host settled. */
  stop(): Promise<void>;
  registered(): string[];
  settled(): Promise<void>;
}

/** A run on `modelContext` (of `shape`) for one start. The options were checked by the adapter. */
export function createAdapterRun(
  options: WebMcpAdapterOptions,
  host: RunHost,
  modelContext: ModelContextLike,
  shape: ModelContextShape,
): AdapterRun {
  const prefix = options.prefix ?? '';
  const ttlMs = options.confirmationTtlMs ?? DEFAULT_CONFIRMATION_TTL_MS;
  // Encoding is pure: cache it, since every change re-projects the whole snapshot.
  const encoded = new Map<string, string>();
  const encode = (id: string, instanceId: string | undefined): string => {
    const key = instanceId === undefined ? id : `${id}\u0000${instanceId}`;
    let name = encoded.get(key);
    if (name === undefined) {
      name = encodeWireName(id, instanceId);
      encoded.set(key, name);
    }
    return name;
  };

  function report(refusal: HostRefusal): void {
    const projection = refusal.spec as Projection;
    const error = refusal.error as { name?: unknown; message?: unknown } | undefined;
    const conflict: WebMcpConflict = {
      name: refusal.name,
      capabilityId: projection.capabilityId,
      errorName: typeof error?.name === 'string' ? error.name : 'Error',
      message: typeof error?.message === 'string' ? error.message : String(refusal.error),
    };
    if (projection.instanceId !== undefined) conflict.instanceId = projection.instanceId;
    // Not de-duplicated: a name you did not get is a name an agent reaches someone else through.
    // NotAllowedError is the `tools` permissions policy, which no prefix gets past.
    console.error(
      `[agent-surface-kit WEBMCP_NAME_REFUSED] The WebMCP host refused the tool "${conflict.name}" ` +
        `(${conflict.capabilityId}): ${conflict.errorName}: ${endSentence(conflict.message)} ` +
        (conflict.errorName === 'NotAllowedError'
          ? 'The permissions policy keeps WebMCP tools out of this document (a frame needs allow="tools").'
          : 'Another script may own this name; give <agent-webmcp> a distinct prefix.'),
    );
    const target = options.eventTarget ?? (globalThis as { window?: EventTarget }).window;
    try {
      target?.dispatchEvent(new AgentWebMcpConflictEvent(conflict));
      options.onConflict?.(conflict);
    } catch (error) {
      // A listener's failure must not stop the other tools from registering.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  /** Said once per start: the host refused `exposedTo`, so the tools are this document's only. */
  function reportExposedTo(error: unknown): void {
    const e = error as { name?: unknown; message?: unknown } | undefined;
    const refusal: WebMcpExposedToRefusal = {
      exposedTo: [...(options.exposedTo ?? [])],
      errorName: typeof e?.name === 'string' ? e.name : 'Error',
      message: typeof e?.message === 'string' ? e.message : String(error),
    };
    console.error(
      `[agent-surface-kit WEBMCP_EXPOSED_TO_REFUSED] The WebMCP host refused exposedTo ${JSON.stringify(refusal.exposedTo)}: ` +
        `${refusal.errorName}: ${endSentence(refusal.message)} The tools are registered for this document only; frames of those origins do not see them.`,
    );
    const target = options.eventTarget ?? (globalThis as { window?: EventTarget }).window;
    try {
      target?.dispatchEvent(new AgentWebMcpExposedToRefusedEvent(refusal));
      options.onExposedToRefused?.(refusal);
    } catch (listenerError) {
      queueMicrotask(() => {
        throw listenerError;
      });
    }
  }

  /** `undefined`: skip. Otherwise the description to show. */
  function curate(d: CapabilityDescriptor): string | undefined {
    if (!options.exposeCapability) return d.description;
    let decision: ReturnType<NonNullable<WebMcpAdapterOptions['exposeCapability']>>;
    try {
      decision = options.exposeCapability(d);
    } catch (error) {
      // Fail closed: a hook that cannot decide does not expose.
      console.error(`[agent-surface-kit WEBMCP_EXPOSE_FAILED] exposeCapability threw for ${d.capabilityId}; it is not exposed.`, error);
      return undefined;
    }
    if (decision === undefined || decision === true) return d.description;
    if (decision === null || decision === false) return undefined;
    const text = typeof decision === 'string' ? decision : decision?.description;
    if (typeof text === 'string' && text.trim() !== '') return text;
    if (DEV_MODE) {
      issueWarning('WEBMCP_BAD_DESCRIPTION', d.capabilityId, `exposeCapability returned an empty or unusable description for ${d.capabilityId}; the authored one is used.`);
    }
    return d.description;
  }

  /**
   * Names in entry order. Without a collision every name is its plain encoding, which is what
   * `assignWireNames` would answer too; only a collision pays for the full resolution.
   */
  function wireNames(entries: readonly { capabilityId: string; instanceId: string | undefined }[]): string[] {
    const names: string[] = new Array(entries.length);
    const seen = new Map<string, string>();
    for (let i = 0; i < entries.length; i++) {
      const { capabilityId, instanceId } = entries[i]!;
      const name = encode(capabilityId, instanceId);
      const key = instanceId === undefined ? capabilityId : `${capabilityId}\u0000${instanceId}`;
      const owner = seen.get(name);
      if (owner !== undefined && owner !== key) {
        const resolved = assignWireNames(entries, encode);
        return entries.map((e) => resolved.get(e)!);
      }
      seen.set(name, key);
      names[i] = name;
    }
    return names;
  }

  function project(r: RunState, name: string, d: CapabilityDescriptor, description: string, hints: Projection['hints']): Projection {
    const inputSchema = d.inputSchema ?? NO_SCHEMA;
    const shown = d.instanceId === undefined ? description : `${description}\n[instance: ${JSON.stringify(d.instanceId)}]`;
    const projection: Projection = {
      name,
      capabilityId: d.capabilityId,
      instanceId: d.instanceId,
      registrationId: d.registrationId,
      description,
      inputSchema,
      hints,
      source: d,
      tool: {
        name,
        // For the host's UI (the draft's `title`): the contract's title or a readable form of the id.
        title: capabilityTitle(d),
        description: shown,
        inputSchema,
        // `debugging: false`: these are the page's own tools for end-user agents, never developer
        // tooling that agents should filter out.
        annotations: { ...hints, debugging: false },
        execute: (input: unknown, hostOptions?: ModelContextExecuteOptions) => callTool(r, projection, input, hostOptions),
      } satisfies ModelContextTool,
    };
    return projection;
  }

  function reconcile(r: RunState): void {
    if (r.stopped.signal.aborted) return;
    let capabilities: readonly CapabilityDescriptor[] = [];
    let surfaceVersion = r.surfaceVersion;
    try {
      const snap = r.registry.snapshot(r.scope ? { consumer: r.consumer, scope: r.scope } : { consumer: r.consumer });
      capabilities = snap.capabilities;
      surfaceVersion = snap.surfaceVersion;
    } catch {
      // A disposed registry: nothing can run any more, so nothing stays exposed.
    }
    const entries: { capabilityId: string; instanceId: string | undefined; d: CapabilityDescriptor; description: string }[] = [];
    for (const d of capabilities) {
      // The transport has no disabled state: an unavailable capability is simply absent.
      if (!d.state.available) continue;
      const description = curate(d);
      if (description !== undefined) entries.push({ capabilityId: d.capabilityId, instanceId: d.instanceId, d, description });
    }
    const names = wireNames(entries);
    const next = new Map<string, Projection>();
    const changed: string[] = [];
    for (let i = 0; i < entries.length; i++) {
      const { d, description } = entries[i]!;
      const name = withPrefix(prefix, names[i]!);
      const prev = r.projections.get(name);
      // The common case on a large surface: this capability did not move at all.
      if (prev && prev.source === d && prev.description === description) {
        next.set(name, prev);
        continue;
      }
      const hints = annotationsFor(d);
      if (
        prev &&
        prev.registrationId === d.registrationId &&
        prev.capabilityId === d.capabilityId &&
        prev.instanceId === d.instanceId &&
        prev.description === description &&
        sameHints(prev.hints, hints) &&
        sameSchema(prev.inputSchema, d.inputSchema ?? NO_SCHEMA)
      ) {
        // Same tool from a new descriptor object: keep the registration (the sync compares specs
        // by identity), remember the new source for the fast path next time.
        prev.source = d;
        next.set(name, prev);
      } else {
        next.set(name, project(r, name, d, description, hints));
        changed.push(name);
      }
    }
    for (const name of r.projections.keys()) if (!next.has(name)) changed.push(name);
    r.projections = next;
    r.surfaceVersion = surfaceVersion;
    if (changed.length) r.sync.update(next, changed);
  }

  async function callTool(r: RunState, p: Projection, rawInput: unknown, hostOptions: ModelContextExecuteOptions | undefined): Promise<ToolResult> {
    // Duck-typed: a host in another realm hands us its own AbortSignal class.
    const signal = isSignal(hostOptions?.signal) ? hostOptions.signal : undefined;
    const client = typeof hostOptions?.requestUserInteraction === 'function' ? hostOptions : undefined;
    const request: InvokeRequest = {
      capabilityId: p.capabilityId,
      registrationId: p.registrationId,
      input: normalizeInput(rawInput),
      invocationId: `webmcp-${randomId()}`,
      consumer: r.consumer,
    };
    if (p.instanceId !== undefined) request.instanceId = p.instanceId;
    // A host (or a script holding the tool object) may keep an `execute` after we withdrew it: after
    // stop(), or once this projection was replaced or dropped. Withdrawn means it runs nothing.
    if (r.stopped.signal.aborted || r.projections.get(p.name) !== p) {
      return toToolResult(
        failure(
          request,
          r.surfaceVersion ?? '',
          errorPayload('CAPABILITY_NOT_FOUND', 'This tool was withdrawn from the page; list the tools again.', { reason: 'withdrawn', tool: p.name }),
        ),
      );
    }
    // The latest projected version: an unchanged tool keeps its registration but tracks the surface.
    if (r.surfaceVersion !== undefined) request.surfaceVersion = r.surfaceVersion;
    if (signal) request.signal = signal;
    try {
      let result = await r.registry.invoke(request);
      if (!result.ok && result.error.code === 'CONFIRMATION_REQUIRED') {
        result = await confirmInCall(r, p, request, result, signal, client);
      }
      return toToolResult(result);
    } catch {
      // registry.invoke never rejects; this guards our own code. A thrown execute reaches the
      // agent as an opaque UnknownError, so answer with content instead.
      return toToolResult(failure(request, r.surfaceVersion ?? '', errorPayload('EXECUTION_FAILED', 'The WebMCP adapter failed to run this call.')));
    }
  }

  /**
   * A tool's input schema has no slot for a confirmationId, so a confirmation completes inside the
   * call: wait for the person's decision (bounded), then retry once with the same invocationId.
   */
  async function confirmInCall(
    r: RunState,
    p: Projection,
    request: InvokeRequest,
    first: InvocationFailure,
    hostSignal: AbortSignal | undefined,
    client: ModelContextExecuteOptions | undefined,
  ): Promise<AgentInvocationResult> {
    const confirmationId = first.error.details?.confirmationId;
    if (typeof confirmationId !== 'string') return first;
    const confirmations = r.registry.confirmations;
    const wait = new AbortController();
    let why: 'stopped' | 'cancelled' | 'timeout' | undefined;
    const end = (reason: typeof why) => () => {
      why ??= reason;
      wait.abort();
    };
    const onStop = end('stopped');
    const onCancel = end('cancelled');
    r.stopped.signal.addEventListener('abort', onStop, { once: true });
    hostSignal?.addEventListener('abort', onCancel, { once: true });
    if (r.stopped.signal.aborted) onStop();
    if (hostSignal?.aborted) onCancel();
    const timer = setTimeout(end('timeout'), ttlMs);
    try {
      if (client?.requestUserInteraction && options.confirm && !wait.signal.aborted) {
        const pending = confirmations.list().find((c) => c.confirmationId === confirmationId);
        if (pending) {
          try {
            const confirm = options.confirm;
            const answer = await untilAborted(
              Promise.resolve(client.requestUserInteraction(() => confirm(pending, client))),
              wait.signal,
            );
            if (answer !== 'aborted') {
              if (answer.value === true) confirmations.approve(confirmationId);
              else confirmations.deny(confirmationId, 'denied');
            }
          } catch {
            // The host's UI failed: fall back to waiting for <agent-confirm>.
          }
        }
      }
      const outcome = await confirmations.waitFor(confirmationId, { signal: wait.signal });
      if (outcome.status === 'aborted' || (wait.signal.aborted && outcome.status !== 'approved')) {
        // Nobody will retry this invocation: withdraw the request from the person's screen.
        confirmations.deny(confirmationId, why === 'timeout' ? 'expired' : 'withdrawn');
        if (why === 'stopped') return first;
        if (why === 'cancelled') {
          return failure(request, first.surfaceVersion, errorPayload('CANCELLED', 'The agent cancelled the call while it waited for confirmation.', { confirmationId }));
        }
        return failure(
          request,
          first.surfaceVersion,
          errorPayload('CONFIRMATION_INVALID', 'Nobody decided on the confirmation in time.', { reason: 'expired', confirmationId }),
        );
      }
      // Decided (approved, denied, expired): the registry checks the evidence and answers. The wait
      // may have outlasted a change of live state no tool shows (a note): as at the call's start,
      // the latest projected version goes with a tool still projected as it was called. A tool
      // withdrawn or replaced meanwhile keeps the version it was called under, which the registry
      // answers with STALE_CAPABILITY where the capability changed since.
      const retry: InvokeRequest = { ...request, confirmationId };
      if (r.projections.get(p.name) === p && r.surfaceVersion !== undefined) retry.surfaceVersion = r.surfaceVersion;
      return await r.registry.invoke(retry);
    } finally {
      clearTimeout(timer);
      r.stopped.signal.removeEventListener('abort', onStop);
      hostSignal?.removeEventListener('abort', onCancel);
    }
  }


  const consumer = host.consumer;
  const r: RunState = {
    registry: host.registry,
    consumer: { id: consumer.id, kind: consumer.kind },
    scope: host.scope && host.scope.length ? [...host.scope] : undefined,
    sync: createToolSync(modelContext, shape, {
      onRefused: report,
      ...(options.exposedTo ? { exposedTo: options.exposedTo, onExposedToRefused: reportExposedTo } : {}),
    }),
    stopped: new AbortController(),
    projections: new Map(),
    surfaceVersion: undefined,
    unsubscribe: () => {},
  };
  return {
    begin() {
      r.unsubscribe = r.registry.on('surface-changed', () => reconcile(r));
      reconcile(r);
    },
    stop() {
      r.unsubscribe();
      r.stopped.abort();
      const names = [...r.projections.keys()];
      r.projections = new Map();
      r.sync.update(new Map(), names);
      return r.sync.settled();
    },
    registered: () => r.sync.registered(),
    settled: () => r.sync.settled(),
  };
}
