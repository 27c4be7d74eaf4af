/**
 * The execution side of a toolset: what runs inside a tool's `execute` once an agent calls it.
 * One call through `registry.invoke` with the toolset's confirmation mode, and a direct tool's call.
 * Loaded with the rest of the execution side by toolset-exec.ts (an `import()` of tool-execution.ts).
 */
import { canonicalJson } from './canonical-json.js';
import { snapshotJson } from './json-snapshot.js';
import { errorPayload } from './errors.js';
import { callInvocationId, failedCall } from './toolset-common.js';
import { remember, withInstance } from './util.js';
import type {
  AgentConsumer,
  AgentInvocationResult,
  AgentSurfaceRegistry,
  AgentToolCall,
  CapabilityDescriptor,
  InvokeRequest,
} from './types.js';

/** Two-phase memory per toolset: enough for a few turns of pending confirmations. */
const MAX_REMEMBERED_CONFIRMATIONS = 64;

export interface PendingConfirmation {
  invocationId: string;
  confirmationId: string;
  expiresAt: number;
}

/** What a toolset hands its calls: made once per toolset by createAgentToolset. */
export interface ToolCallState {
  readonly registry: AgentSurfaceRegistry;
  readonly consumer: AgentConsumer;
  readonly twoPhase: boolean;
  /** Aborted by `dispose()`: ends confirmation waits and refuses new calls. */
  readonly lifetime: AbortSignal;
  /** Two-phase memory: the pending confirmation a retry of the same (tool, input) should present. */
  readonly pendingByCall: Map<string, PendingConfirmation>;
  /** Meta mode: the invocation a confirmationId belongs to, when the model forgets to echo it. */
  readonly invocationByConfirmation: Map<string, string>;
}

/** A direct tool's target; `version` is read at call time (a reused tool presents its latest build). */
export interface DirectTarget {
  readonly descriptor: CapabilityDescriptor;
  readonly version: string;
}

export type CallRequest = Omit<InvokeRequest, 'consumer' | 'invocationId' | 'signal'> & { invocationId?: string };

/**
 * One call through the registry with the toolset's confirmation mode.
 * `wait`: a CONFIRMATION_REQUIRED is awaited and retried once with the same invocationId and the
 * confirmationId; the registry reports denial or expiry as CONFIRMATION_INVALID. An abort (the
 * caller's signal or dispose) returns the original CONFIRMATION_REQUIRED and nothing runs.
 * `two-phase`: the CONFIRMATION_REQUIRED goes back to the model; with `rememberAs`, the next call
 * with the same key reuses the invocation and presents the confirmation.
 */
export async function runCall(
  state: ToolCallState,
  request: CallRequest,
  call: AgentToolCall | undefined,
  rememberAs: string | undefined,
): Promise<AgentInvocationResult> {
  const { registry } = state;
  if (state.lifetime.aborted) {
    return failedCall(
      errorPayload('CANCELLED', 'this toolset was disposed'),
      request.invocationId ?? callInvocationId(call),
      registry.surfaceVersion,
    );
  }
  const now = Date.now();
  let invocationId = request.invocationId;
  let confirmationId = request.confirmationId;
  let pending: PendingConfirmation | undefined;
  if (rememberAs !== undefined && confirmationId === undefined) {
    pending = state.pendingByCall.get(rememberAs);
    if (pending && pending.expiresAt <= now) {
      state.pendingByCall.delete(rememberAs);
      pending = undefined;
    }
    if (pending) {
      invocationId = pending.invocationId;
      confirmationId = pending.confirmationId;
    }
  }
  if (confirmationId !== undefined && invocationId === undefined)
    invocationId = state.invocationByConfirmation.get(confirmationId);
  invocationId ??= callInvocationId(call);

  // Fires when the caller cancels or the toolset is disposed, whichever comes first.
  const signal = call?.signal ? AbortSignal.any([state.lifetime, call.signal]) : state.lifetime;
  const base: InvokeRequest = { ...request, invocationId, consumer: state.consumer, signal };
  if (confirmationId !== undefined) base.confirmationId = confirmationId;
  else delete base.confirmationId;
  const first = await registry.invoke(base);
  if (first.ok || first.error.code !== 'CONFIRMATION_REQUIRED') {
    // A remembered confirmation is only ever found under `rememberAs`.
    if (pending) state.pendingByCall.delete(rememberAs!);
    return first;
  }
  const details = first.error.details ?? {};
  const requiredId = typeof details.confirmationId === 'string' ? details.confirmationId : undefined;
  if (requiredId === undefined) return first;

  if (state.twoPhase) {
    const expiresAt = typeof details.expiresAt === 'number' ? details.expiresAt : now + 120_000;
    if (rememberAs !== undefined)
      remember(state.pendingByCall, rememberAs, { invocationId, confirmationId: requiredId, expiresAt }, MAX_REMEMBERED_CONFIRMATIONS);
    remember(state.invocationByConfirmation, requiredId, invocationId, MAX_REMEMBERED_CONFIRMATIONS);
    // The retry needs both ids; a model in meta mode can only echo what it sees. A call that is
    // remembered (a direct tool, surface_read) has no slot for them: the same call again presents them.
    const error = { ...first.error, details: { ...details, invocationId } };
    if (rememberAs !== undefined) error.message = error.message.replace(/call again.*/, 'make the same call again.');
    return { ...first, error };
  }

  const outcome = await registry.confirmations.waitFor(requiredId, { signal });
  if (outcome.status === 'aborted' || signal.aborted) {
    // Nobody retries this invocation now (the caller stopped, or the toolset went away): take the
    // request off the person's screen rather than leave it there until its TTL, as WebMCP calls do.
    if (outcome.status !== 'approved') registry.confirmations.deny(requiredId, 'withdrawn');
    return first;
  }
  return await registry.invoke({ ...base, confirmationId: requiredId });
}

/** A direct tool's call: its capability, instance and registration, at the version of its catalog. */
export function callDirect(
  state: ToolCallState,
  target: DirectTarget,
  name: string,
  input: unknown,
  call: AgentToolCall | undefined,
): Promise<AgentInvocationResult> {
  const { capabilityId, instanceId, registrationId } = target.descriptor;
  // Two-phase: one read of the agent's input, so that the key and the call see the same value. Input
  // that is not JSON goes to the registry as it is, to be refused there; there is nothing to remember.
  const snap = state.twoPhase ? snapshotJson(input ?? {}, { maxBytes: MAX_KEYED_INPUT_BYTES }) : undefined;
  const request: CallRequest = { capabilityId, ...withInstance(instanceId), registrationId, surfaceVersion: target.version, input: snap?.ok ? snap.value : input };
  // Identity of a direct call for two-phase memory: the tool and the input's canonical JSON.
  return runCall(state, request, call, snap?.ok ? `${name}\u0000${canonicalJson(snap.value)}` : undefined);
}

/** Far above any registry's input limit; bounds the copy of a value that shares one object many times. */
const MAX_KEYED_INPUT_BYTES = 1 << 22;
