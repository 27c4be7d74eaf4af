/**
 * The invoke pipeline (DESIGN section 3), in order: idempotency, resolution, staleness,
 * availability, policy, validation, confirmation, concurrency, execution, audit.
 *
 * `runInvocation` never throws and never rejects: every outcome is an `AgentInvocationResult`.
 * It is one async function whose only `await`s are on real promises (an async validator while an
 * interpreter loads, a queue wait, a handler's pending promise), so a synchronous handler costs no
 * extra ticks. Per-call work avoids closures, serialization and timers on the common path.
 */
import { canonicalJson } from './canonical-json.js';
import { ABORT_MESSAGES, checkOutput, inputMismatch, isThenable, readInput, thrownPayload, type OutputRefusal } from './call-checks.js';
import { checkConfirmation, consumeConfirmation, requestConfirmation, type ConfirmationRecord } from './confirmation-records.js';
import type { ConfirmationBinding } from './confirmations.js';
import { endSentence, isSignal, withInstance } from './util.js';
import { RunningCalls, acquireSlot, leaveQueue, releaseSlot, type AbortCode, type QueueWaiter, type RunningCall } from './running.js';
import { issueError } from './dev.js';
import { DEFAULT_RETRY, errorPayload } from './errors.js';
import { IdempotencyEntry, IdempotencyStore, sameInput } from './idempotency.js';
import type { Registration, RegistryCore } from './registry-core.js';
import { discoverable } from './snapshot.js';
import type {
  AgentConsumer,
  AgentErrorCode,
  AgentErrorPayload,
  AgentInvocationResult,
  AgentRetry,
  InvocationContext,
  InvocationEvent,
  JsonObject,
  JsonValue,
  ValidationOutcome,
} from './types.js';

/** Strings in a request longer than this are refused before any lookup. */
const MAX_ID_LENGTH = 512;
/** Instances listed in an `AMBIGUOUS_INSTANCE` error. */
const MAX_LISTED_INSTANCES = 50;

/** Effects whose finished calls keep their idempotency slot for the whole TTL (step 1). */
const KEPT_EFFECTS: readonly string[] = ['server-mutation', 'external-side-effect', 'destructive'];
/** Effects that may only run against a surface the agent has actually seen (step 3, fail closed). */
const VERSION_REQUIRED_EFFECTS: readonly string[] = ['destructive', 'external-side-effect'];


/**
 * The registry's calls in progress. Only the pipeline creates them, so what the registry holds
 * (typed there by what the registry needs) is this class.
 */
function runningCalls(core: RegistryCore): RunningCalls {
  return (core.running ??= new RunningCalls(core.ordered)) as RunningCalls;
}

/** A thrown value or an audit event's `cause` may be anything, `undefined` included: this stands for none. */
const NONE = Symbol();

/** One call's state, from request to result. Short-lived: the store keeps only its small entry. */
class Invocation {
  invocationId = '';
  consumer?: AgentConsumer;
  capabilityId = '';
  instanceId?: string;
  registrationId?: string;
  surfaceVersion?: string;
  confirmationId?: string;
  signal?: AbortSignal;
  /** The request's input as given (`undefined` stands for `{}`). */
  input?: unknown;
  /** The input's deep-frozen JSON copy: what policies, validation, the confirmation and the handler see. */
  args?: JsonObject;
  /** Why the input cannot be used, reported at step 6. */
  inputFailure?: AgentInvocationResult;
  reg?: Registration;
  /** This call's idempotency entry: removed again unless the call becomes terminal. */
  entry?: IdempotencyEntry<Registration>;
  /** The handler was called: the result is terminal and cached. */
  started?: boolean;
  holdsSlot?: boolean;
  policyConfirmation?: boolean;
  approval?: ConfirmationRecord;
  ctx?: HandlerContext;
  pending?: Promise<void>;
  value?: unknown;
  /** What the handler threw (or its promise rejected with), `NONE` until then. */
  error: unknown = NONE;
  abortCode?: AbortCode;
  /** What the audit event reports as `cause`: `NONE` until something failed with one. */
  cause: unknown = NONE;
  replay?: 'joined' | 'cached';
  readonly t0: number;

  constructor(t0: number) {
    this.t0 = t0;
  }
}

/**
 * The `ctx` a handler receives. Its `signal` is created on first access: most handlers never
 * look at it, and an AbortController per call is the most expensive object a call would make.
 */
class HandlerContext implements InvocationContext {
  readonly invocationId: string;
  readonly consumer: AgentConsumer;
  readonly instanceId?: string;
  #controller: AbortController | undefined;
  /** Why the call was aborted, `NONE` while it was not. */
  #reason: unknown = NONE;

  constructor(inv: Invocation) {
    this.invocationId = inv.invocationId;
    this.consumer = inv.consumer!;
    const instanceId = inv.instanceId ?? inv.reg?.instanceId;
    if (instanceId !== undefined) this.instanceId = instanceId;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#reason !== NONE) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#reason !== NONE) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/**
 * A handler call that returned a pending promise: settles on its outcome, timeout, cancel or
 * unmount. It is its own abort listener (`handleEvent`), so watching a call costs no closure.
 */
class Execution implements RunningCall {
  readonly promise: Promise<void>;
  readonly deadline: number;
  readonly registration: Registration;
  readonly #core: RegistryCore;
  readonly #inv: Invocation;
  #resolve!: () => void;
  #settled: boolean | undefined;

  constructor(core: RegistryCore, inv: Invocation, deadline: number) {
    this.#core = core;
    this.#inv = inv;
    this.registration = inv.reg!;
    this.deadline = deadline;
    this.promise = new Promise<void>((resolve) => {
      this.#resolve = resolve;
    });
  }

  onValue(value: unknown): void {
    if (this.#settled) return;
    this.#inv.value = value;
    this.#end();
  }

  onError(error: unknown): void {
    if (this.#settled) return;
    this.#inv.error = error;
    this.#end();
  }

  /** The request signal's `abort` event. */
  handleEvent(): void {
    this.abort('CANCELLED');
  }

  abort(code: AbortCode): void {
    if (this.#settled) return;
    const inv = this.#inv;
    inv.abortCode = code;
    // The handler's `ctx.signal` is aborted with the caller's own reason when it cancelled.
    inv.ctx?.abort(
      (code === 'CANCELLED' ? inv.signal?.reason : undefined) ??
        new DOMException(`"${inv.capabilityId}" ${ABORT_MESSAGES[code]}`, code === 'TIMEOUT' ? 'TimeoutError' : 'AbortError'),
    );
    this.#end();
  }

  #end(): void {
    this.#settled = true;
    runningCalls(this.#core).delete(this);
    this.#inv.signal?.removeEventListener('abort', this);
    this.#resolve();
  }
}

// ---------------------------------------------------------------------------------------------
// Results

function failure(
  core: RegistryCore,
  inv: Invocation,
  code: AgentErrorCode,
  message: string,
  details?: JsonObject,
  retry: AgentRetry = DEFAULT_RETRY[code],
): AgentInvocationResult {
  return refusal(core, inv, errorPayload(code, message, details, retry));
}

function refusal(core: RegistryCore, inv: Invocation, error: AgentErrorPayload): AgentInvocationResult {
  return { ok: false, error, invocationId: inv.invocationId, surfaceVersion: core.surfaceVersion };
}

/** Quotes a caller-supplied string in a message, bounded. */
function quote(value: string): string {
  return JSON.stringify(value.length > 120 ? value.slice(0, 120) + '…' : value);
}

// ---------------------------------------------------------------------------------------------
// The pipeline

export async function runInvocation(core: RegistryCore, request: unknown): Promise<AgentInvocationResult> {
  const inv = new Invocation(performance.now());
  let result: AgentInvocationResult | undefined;
  try {
    result = readRequest(core, inv, request);
    if (result === undefined) {
      snapshotInput(core, inv);
      // 1. Idempotency
      const t = Date.now();
      // Built on the first call: the store comes with this module.
      const store = (core.idempotency ??= new IdempotencyStore(core.limits.idempotencyEntries, core.limits.idempotencyTtlMs));
      const previous = store.get(inv.consumer!.id, inv.invocationId, t);
      if (previous !== undefined) {
        if (
          previous.capabilityId !== inv.capabilityId ||
          previous.instanceId !== inv.instanceId ||
          inv.args === undefined ||
          !sameInput(previous.input!, inv.args)
        ) {
          result = failure(
            core,
            inv,
            'INVOCATION_CONFLICT',
            `invocationId ${quote(inv.invocationId)} was already used for a different request; use a new invocationId for a new call.`,
          );
        } else if (previous.result !== undefined) {
          inv.replay = 'cached';
          inv.reg = previous.registration;
          result = previous.result;
        } else {
          inv.replay = 'joined';
          result = await previous.join();
          inv.reg = previous.registration;
        }
      } else {
        const entry = new IdempotencyEntry<Registration>(inv.consumer!.id, inv.invocationId, inv.capabilityId, inv.instanceId, inv.args);
        store.add(entry);
        inv.entry = entry;
        // 2.–5. and the shape of the input
        result = resolve(core, inv);
        // 6. Validation
        if (result === undefined) {
          let outcome = inv.reg!.info.validateInput(inv.args!);
          if (isThenable(outcome)) {
            outcome = await outcome;
            if (!inv.reg!.active) result = unmounted(core, inv);
          }
          if (result === undefined) {
            const mismatch = inputMismatch(inv.capabilityId, outcome as ValidationOutcome);
            if (mismatch !== undefined) result = refusal(core, inv, mismatch);
          }
        }
        // 7. Confirmation
        if (result === undefined) result = confirm(core, inv);
        // 8. Concurrency
        if (result === undefined && inv.reg!.info.contract.concurrency === 'serial') {
          const slot = acquireSlot<AgentInvocationResult>(inv.reg!, core.limits.queueDepth);
          if (slot === 'run') inv.holdsSlot = true;
          else if (slot === 'full') {
            result = failure(
              core,
              inv,
              'RATE_LIMITED',
              `"${inv.capabilityId}" runs one call at a time and ${core.limits.queueDepth} more are already waiting; retry after a moment.`,
              { queueDepth: core.limits.queueDepth },
            );
          } else {
            // A queued call must end if its registration goes: the registry stops it through these.
            runningCalls(core);
            result = await waitInQueue(core, inv, slot);
            if (result === undefined) inv.holdsSlot = true;
          }
        }
        // 9. Execution
        if (result === undefined) {
          result = start(core, inv);
          if (result === undefined) {
            if (inv.pending !== undefined) await inv.pending;
            const out = outputResult(core, inv);
            result = isThenable(out) ? await out : out;
          }
        }
      }
    }
  } catch (error) {
    // A fault of the registry itself: the page author sees the trace, the agent a generic failure.
    const trace = String((error as Error)?.stack ?? error);
    issueError('INTERNAL', trace, `invoke failed inside the registry: ${trace}`);
    inv.cause = error;
    result = failure(core, inv, 'EXECUTION_FAILED', 'The call failed inside the page.', { reason: 'internal' });
  } finally {
    if (inv.holdsSlot) {
      inv.holdsSlot = false;
      releaseSlot(inv.reg!);
    }
  }
  return finish(core, inv, result!);
}

/** Step 10 and the idempotency bookkeeping. */
function finish(core: RegistryCore, inv: Invocation, result: AgentInvocationResult): AgentInvocationResult {
  const entry = inv.entry;
  if (entry !== undefined) {
    // Only a call whose handler ran is terminal; anything refused before may be retried as is.
    if (!inv.started) core.idempotency!.remove(entry);
    else core.idempotency!.finished(entry, Date.now());
    entry.registration = inv.reg;
    entry.settle(result);
  }
  if (core.listeners.invocation.length > 0) {
    const instanceId = inv.instanceId ?? inv.reg?.instanceId;
    const event: InvocationEvent = {
      type: 'invocation',
      consumer: inv.consumer ?? { id: '', kind: '' },
      capabilityId: inv.capabilityId,
      ...withInstance(instanceId),
      ...(inv.reg !== undefined ? { registrationId: inv.reg.id } : {}),
      invocationId: inv.invocationId,
      outcome: result.ok ? 'OK' : result.error.code,
      durationMs: performance.now() - inv.t0,
      ...(inv.cause !== NONE ? { cause: inv.cause } : {}),
      ...(inv.replay !== undefined ? { replay: inv.replay } : {}),
    };
    core.emit('invocation', event);
  }
  return result;
}

const OPTIONAL_FIELDS = ['instanceId', 'registrationId', 'surfaceVersion', 'confirmationId'] as const;

/** Step 0: the request envelope. Every field is read exactly once (getters, proxies). */
function readRequest(core: RegistryCore, inv: Invocation, request: unknown): AgentInvocationResult | undefined {
  if (request === null || typeof request !== 'object') {
    return failure(core, inv, 'INVALID_INPUT', 'The request must be an object { capabilityId, invocationId, consumer, input, … }.', {
      field: '',
    });
  }
  let invocationId: unknown, capabilityId: unknown, signal: unknown, consumerId: unknown, consumerKind: unknown;
  const optional: unknown[] = [];
  try {
    const r = request as Record<string, unknown>;
    invocationId = r.invocationId;
    if (typeof invocationId === 'string' && invocationId !== '' && invocationId.length <= MAX_ID_LENGTH) inv.invocationId = invocationId;
    const consumer = r.consumer as AgentConsumer | null;
    if (consumer !== null && typeof consumer === 'object') {
      consumerId = consumer.id;
      consumerKind = consumer.kind;
    }
    capabilityId = r.capabilityId;
    for (const field of OPTIONAL_FIELDS) optional.push(r[field]);
    signal = r.signal;
    inv.input = r.input;
  } catch {
    return failure(core, inv, 'INVALID_INPUT', 'The request could not be read.', { field: '' });
  }
  if (inv.invocationId === '') {
    return failure(core, inv, 'INVALID_INPUT', `invocationId must be a non-empty string of at most ${MAX_ID_LENGTH} characters.`, {
      field: 'invocationId',
    });
  }
  if (typeof consumerId !== 'string' || consumerId === '' || consumerId.length > MAX_ID_LENGTH || typeof consumerKind !== 'string') {
    return failure(core, inv, 'INVALID_INPUT', 'consumer must be { id: non-empty string, kind: string }.', { field: 'consumer' });
  }
  inv.consumer = { id: consumerId, kind: consumerKind };
  if (typeof capabilityId !== 'string' || capabilityId === '') {
    return failure(core, inv, 'INVALID_INPUT', 'capabilityId must be a non-empty string.', { field: 'capabilityId' });
  }
  inv.capabilityId = capabilityId;
  for (let i = 0; i < OPTIONAL_FIELDS.length; i++) {
    const field = OPTIONAL_FIELDS[i];
    const value = optional[i];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > MAX_ID_LENGTH) {
      return failure(core, inv, 'INVALID_INPUT', `${field} must be a string of at most ${MAX_ID_LENGTH} characters when present.`, { field });
    }
    inv[field] = value;
  }
  if (signal !== undefined && signal !== null) {
    if (!isSignal(signal)) return failure(core, inv, 'INVALID_INPUT', 'signal must be an AbortSignal when present.', { field: 'signal' });
    inv.signal = signal;
  }
  if (core.disposed) {
    return failure(core, inv, 'CAPABILITY_NOT_FOUND', 'This surface was disposed: it has no capabilities any more.', undefined, 'no');
  }
  return undefined;
}

/**
 * The counter a version string stands for, or -1 when it is not one of this registry's versions
 * (another page load, another registry, garbage).
 */
const COUNTER = /^\d{1,15}$/;

function parseVersion(prefix: string, version: string): number {
  const digits = version.startsWith(prefix) ? version.slice(prefix.length) : '';
  return COUNTER.test(digits) ? +digits : -1;
}

function unmounted(core: RegistryCore, inv: Invocation): AgentInvocationResult {
  return failure(core, inv, 'COMPONENT_UNMOUNTED', `"${inv.capabilityId}" was removed from the page; take a new snapshot.`);
}

/** Steps 2 to 5, then the structural check of the input (reported as step 6). */
function resolve(core: RegistryCore, inv: Invocation): AgentInvocationResult | undefined {
  // 2. Resolution
  const slot = core.slots.get(inv.capabilityId);
  let reg = slot === undefined ? undefined : inv.instanceId !== undefined ? slot.instances.get(inv.instanceId) : slot.only;
  if (reg === undefined || !shown(core, inv, reg)) {
    // Only what this consumer may discover counts, in errors too: a hidden instance is absent.
    const visible: Registration[] = [];
    if (slot !== undefined) for (const r of slot.instances.values()) if (shown(core, inv, r)) visible.push(r);
    reg = undefined;
    if (visible.length === 0) {
      return failure(core, inv, 'CAPABILITY_NOT_FOUND', `No capability ${quote(inv.capabilityId)} is on this surface; take a new snapshot.`);
    }
    if (inv.instanceId !== undefined) {
      return failure(core, inv, 'CAPABILITY_NOT_FOUND', `"${inv.capabilityId}" has no instance ${quote(inv.instanceId)}; take a new snapshot.`, {
        instances: listInstances(visible),
      });
    }
    if (visible.length === 1) reg = visible[0];
    else if (inv.registrationId !== undefined) {
      for (const r of visible) if (r.id === inv.registrationId) reg = r;
      if (reg === undefined) return staleRegistration(core, inv);
    } else {
      return failure(
        core,
        inv,
        'AMBIGUOUS_INSTANCE',
        `"${inv.capabilityId}" has ${visible.length} instances: say which one with instanceId.`,
        { instances: listInstances(visible), count: visible.length },
      );
    }
  }
  if (inv.registrationId !== undefined && inv.registrationId !== reg.id) {
    return staleRegistration(core, inv);
  }
  inv.reg = reg;
  const info = reg.info;

  // 3. Staleness
  if (inv.surfaceVersion !== undefined) {
    const seen = parseVersion(core.versionPrefix, inv.surfaceVersion);
    if (seen < 0) return stale(core, inv, `surfaceVersion ${quote(inv.surfaceVersion)} is not a version of this surface`);
    if (seen < reg.changedAt || seen > core.counter) {
      return stale(core, inv, `"${inv.capabilityId}" changed after surfaceVersion ${quote(inv.surfaceVersion)}`);
    }
  } else if (VERSION_REQUIRED_EFFECTS.includes(info.contract.effect)) {
    return stale(
      core,
      inv,
      `"${inv.capabilityId}" has the effect "${info.contract.effect}", which needs the surfaceVersion of the snapshot the call was planned on`,
    );
  }

  // 4. Availability
  const state = reg.state;
  if (!state.available) {
    const reason = state.unavailableReason;
    return failure(
      core,
      inv,
      'CAPABILITY_NOT_AVAILABLE',
      endSentence(`"${inv.capabilityId}" is not available right now${reason?.trim() ? `: ${reason.trim()}` : ''}`),
      reason !== undefined ? { reason } : undefined,
    );
  }

  // The input was snapshotted before policies see it; a problem with it is reported after them (step 6).
  const shape = inv.inputFailure;

  // 5. Policy
  if (core.hasAuthorize) {
    const denied = authorize(core, inv, reg);
    if (denied !== undefined) return denied;
  }
  return shape;
}

/** Whether the consumer's discover policies let it see `reg`. */
function shown(core: RegistryCore, inv: Invocation, reg: Registration): boolean {
  return !core.hasDiscover || discoverable(core.policies, inv.consumer!, reg.descriptor());
}

function stale(core: RegistryCore, inv: Invocation, why: string): AgentInvocationResult {
  return failure(core, inv, 'STALE_CAPABILITY', `The surface changed: ${why}. Take a new snapshot and plan the call again.`, {
    surfaceVersion: core.surfaceVersion,
  });
}

function staleRegistration(core: RegistryCore, inv: Invocation): AgentInvocationResult {
  return stale(core, inv, `registration ${quote(inv.registrationId!)} of "${inv.capabilityId}" is no longer current`);
}

function listInstances(registrations: Registration[]): JsonValue[] {
  return registrations
    .flatMap((r) => r.instanceId ?? [])
    .slice(0, MAX_LISTED_INSTANCES)
    .sort();
}

function authorize(core: RegistryCore, inv: Invocation, reg: Registration): AgentInvocationResult | undefined {
  const policies = core.policies;
  const capability = reg.descriptor();
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i];
    if (typeof policy.authorize !== 'function') continue;
    let decision: unknown;
    try {
      decision = policy.authorize({ consumer: inv.consumer!, capability, input: inv.args });
    } catch (error) {
      issueError('POLICY_THREW', `authorize:${policy.name}`, `Policy "${policy.name}" threw in authorize(); the call is refused. ${String(error)}`);
      decision = { deny: 'the policy failed' };
    }
    if (decision === true) continue;
    if (decision !== null && typeof decision === 'object') {
      const d = decision as { deny?: unknown; requireConfirmation?: unknown };
      if (d.requireConfirmation === true && d.deny === undefined) {
        inv.policyConfirmation = true;
        continue;
      }
      if (typeof d.deny === 'string') {
        return failure(core, inv, 'NOT_AUTHORIZED', endSentence(`Not authorized: ${d.deny}`), { policy: policy.name, reason: d.deny });
      }
    }
    // Anything else is not a permission: fail closed.
    return failure(core, inv, 'NOT_AUTHORIZED', `Not authorized by policy "${policy.name}".`, { policy: policy.name });
  }
  return undefined;
}

/**
 * Reads the input once, into a deep-frozen JSON copy (`inv.args`) that policies, validation, the
 * confirmation and the handler share; a problem with it is reported at step 6.
 */
function snapshotInput(core: RegistryCore, inv: Invocation): void {
  const read = readInput(inv.input, core.limits.maxInputBytes);
  if (read.ok) inv.args = read.value;
  else inv.inputFailure = refusal(core, inv, read.error);
}

/** Step 7. */
function confirm(core: RegistryCore, inv: Invocation): AgentInvocationResult | undefined {
  const reg = inv.reg!;
  const info = reg.info;
  if (info.contract.confirmation !== 'required' && !inv.policyConfirmation) return undefined;
  const binding: ConfirmationBinding = {
    consumer: inv.consumer!,
    registration: reg,
    invocationId: inv.invocationId,
    canonicalInput: canonicalJson(inv.args),
  };
  const store = core.confirmations;
  if (inv.confirmationId === undefined) {
    const record = requestConfirmation(store, binding);
    if (record === undefined) {
      return failure(
        core,
        inv,
        'RATE_LIMITED',
        `${core.limits.maxPendingConfirmations} confirmations are already waiting for the person; retry after they decide.`,
        { maxPending: core.limits.maxPendingConfirmations },
      );
    }
    return confirmationRequired(core, inv, record);
  }
  const check = checkConfirmation(store, inv.confirmationId, binding);
  if (check.ok) {
    inv.approval = check.record;
    return undefined;
  }
  if (check.reason === 'pending') return confirmationRequired(core, inv, check.record);
  return confirmationInvalid(core, inv, check.reason, check.reason === 'denied' ? check.record?.reason : undefined);
}

const CONFIRMATION_INVALID_MESSAGES = {
  denied: 'The person denied this call.',
  expired: 'The confirmation expired before it was used; call again to ask anew.',
  mismatch: 'This confirmationId does not belong to this request (same consumer, capability, instance, invocationId and input).',
};

function confirmationInvalid(
  core: RegistryCore,
  inv: Invocation,
  reason: keyof typeof CONFIRMATION_INVALID_MESSAGES,
  denialReason?: string,
): AgentInvocationResult {
  const details: JsonObject = { reason };
  if (denialReason !== undefined) details.denialReason = denialReason;
  return failure(core, inv, 'CONFIRMATION_INVALID', CONFIRMATION_INVALID_MESSAGES[reason], details, reason === 'expired' ? 'yes' : 'no');
}

function confirmationRequired(core: RegistryCore, inv: Invocation, record: ConfirmationRecord): AgentInvocationResult {
  return failure(
    core,
    inv,
    'CONFIRMATION_REQUIRED',
    `"${inv.capabilityId}" needs the person's confirmation. Once they approve, call again with the same invocationId and this confirmationId.`,
    { confirmationId: record.id, expiresAt: record.expiresAt },
  );
}

/** Step 8 when the slot is taken: wait, unless cancelled or unmounted first. */
async function waitInQueue(core: RegistryCore, inv: Invocation, waiter: QueueWaiter<AgentInvocationResult>): Promise<AgentInvocationResult | undefined> {
  const signal = inv.signal;
  // A cancelled call leaves the queue at once: the slot is never handed to it.
  const onAbort = () => {
    leaveQueue(inv.reg!, waiter as QueueWaiter<unknown>);
    waiter.settle(cancelled(core, inv));
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const outcome = await waiter.promise;
  signal?.removeEventListener('abort', onAbort);
  // The queue is drained with the code of why the registration went away.
  return typeof outcome === 'string' ? unmounted(core, inv) : outcome;
}

function cancelled(core: RegistryCore, inv: Invocation): AgentInvocationResult {
  return failure(core, inv, 'CANCELLED', 'The call was cancelled by its caller.');
}

/** Step 9: consumes the approval, calls the handler, watches a pending promise. */
function start(core: RegistryCore, inv: Invocation): AgentInvocationResult | undefined {
  const reg = inv.reg!;
  if (!reg.active) return unmounted(core, inv);
  const signal = inv.signal;
  if (signal !== undefined && signal.aborted) return cancelled(core, inv);
  if (!core.idempotency!.hold(inv.entry!, KEPT_EFFECTS.includes(reg.info.contract.effect), Date.now())) {
    const idempotencyEntries = core.limits.idempotencyEntries;
    return failure(
      core,
      inv,
      'RATE_LIMITED',
      `This consumer's last ${idempotencyEntries} calls must stay on record; retry after a delay.`,
      { idempotencyEntries },
    );
  }
  if (inv.approval !== undefined && !consumeConfirmation(core.confirmations, inv.approval)) return confirmationInvalid(core, inv, 'expired');
  const ctx = new HandlerContext(inv);
  inv.ctx = ctx;
  inv.started = true;
  let value: unknown;
  let then: unknown;
  try {
    value = reg.info.isAction ? reg.handler!(inv.args!, ctx) : reg.read!(ctx, inv.args!);
    then = value !== null && (typeof value === 'object' || typeof value === 'function') ? (value as PromiseLike<unknown>).then : undefined;
  } catch (error) {
    inv.error = error;
    return undefined;
  }
  if (typeof then !== 'function') {
    // A synchronous handler that removed its own registration still ran, but its page is gone.
    if (!reg.active) inv.abortCode = 'COMPONENT_UNMOUNTED';
    inv.value = value;
    return undefined;
  }
  const execution = new Execution(core, inv, Date.now() + reg.info.contract.timeoutMs);
  runningCalls(core).add(execution);
  if (signal !== undefined) signal.addEventListener('abort', execution);
  if (!reg.active) execution.abort('COMPONENT_UNMOUNTED');
  try {
    (then as PromiseLike<unknown>['then']).call(
      value,
      (v: unknown) => execution.onValue(v),
      (e: unknown) => execution.onError(e),
    );
  } catch (error) {
    execution.onError(error);
  }
  inv.pending = execution.promise;
  return undefined;
}

/** The result of a finished handler call: errors, output checks. */
function outputResult(core: RegistryCore, inv: Invocation): AgentInvocationResult | PromiseLike<AgentInvocationResult> {
  const code = inv.abortCode;
  if (code !== undefined) {
    const details: JsonObject | undefined = code === 'TIMEOUT' ? { timeoutMs: inv.reg!.info.contract.timeoutMs } : undefined;
    return failure(core, inv, code, `"${inv.capabilityId}" ${ABORT_MESSAGES[code]}.`, details);
  }
  if (inv.error !== NONE) {
    // A thrown `AgentSurfaceError` reaches the agent as is; anything else becomes a generic failure.
    inv.cause = inv.error;
    return refusal(core, inv, thrownPayload(inv.capabilityId, inv.error, core.limits.maxOutputBytes));
  }
  const value = (inv.value === undefined ? null : inv.value) as JsonValue;
  const refused = checkOutput(inv.capabilityId, value, core.limits.maxOutputBytes, inv.reg!.info.validateOutput);
  if (refused === undefined) return success(core, inv, value);
  return isThenable(refused)
    ? refused.then((r) => (r === undefined ? success(core, inv, value) : outputRefused(core, inv, r)))
    : outputRefused(core, inv, refused);
}

function success(core: RegistryCore, inv: Invocation, output: JsonValue): AgentInvocationResult {
  return { ok: true, output, invocationId: inv.invocationId, surfaceVersion: core.surfaceVersion };
}

function outputRefused(core: RegistryCore, inv: Invocation, refused: OutputRefusal): AgentInvocationResult {
  inv.cause = refused.cause;
  return refusal(core, inv, refused.error);
}
