/**
 * Confirmation records (DESIGN section 3, step 7). A record binds one request, (consumer,
 * capability, instance, registration, invocation id, input), to a person's decision. It lives for
 * a TTL, is used at most once, and a retry must present the same binding. The person's side is the
 * public `ConfirmationsApi` (`list`, `subscribe`, `approve`, `deny`, `waitFor`); the pipeline's side
 * is `request`, `check` and `consume`.
 */
import { holdOpen } from './running.js';
import { isSignal, randomId, deepFreeze } from './util.js';
import type {
  AgentConsumer,
  CapabilityEffect,
  ConfirmationEvent,
  ConfirmationOutcome,
  ConfirmationsApi,
  ConfirmationStatus,
  JsonObject,
  PendingConfirmation,
} from './types.js';
import { wireHash } from './wire-names.js';

/** The registration a record is for: what its public view shows. */
export interface ConfirmationTarget {
  readonly id: string;
  readonly capabilityId: string;
  readonly instanceId: string | undefined;
  readonly info: { readonly contract: { readonly description: string; readonly effect: CapabilityEffect } };
}

/**
 * What a record is bound to. One registration object stands for its capability, instance and
 * registration id together. `canonicalInput` is the canonical JSON of the input.
 */
export interface ConfirmationBinding {
  consumer: AgentConsumer;
  registration: ConfirmationTarget;
  invocationId: string;
  canonicalInput: string;
}

type Waiter = (outcome: ConfirmationOutcome) => void;

export class ConfirmationRecord {
  readonly id: string;
  readonly binding: ConfirmationBinding;
  readonly input: JsonObject;
  readonly inputDigest: string;
  readonly createdAt: number;
  status: ConfirmationStatus = 'pending';
  expiresAt: number;
  reason: string | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  waiters: Waiter[] | undefined;
  #view: PendingConfirmation | undefined;

  constructor(id: string, binding: ConfirmationBinding, createdAt: number, expiresAt: number) {
    this.id = id;
    this.binding = binding;
    this.input = deepFreeze(JSON.parse(binding.canonicalInput) as JsonObject);
    this.inputDigest = digest(binding.canonicalInput);
    this.createdAt = createdAt;
    this.expiresAt = expiresAt;
  }

  /** A frozen public view of the record as it is now. */
  view(): PendingConfirmation {
    const cached = this.#view;
    if (cached !== undefined && cached.status === this.status && cached.expiresAt === this.expiresAt) return cached;
    const b = this.binding;
    const r = b.registration;
    const view: PendingConfirmation = {
      confirmationId: this.id,
      status: this.status,
      consumer: b.consumer,
      capabilityId: r.capabilityId,
      ...(r.instanceId !== undefined ? { instanceId: r.instanceId } : {}),
      registrationId: r.id,
      invocationId: b.invocationId,
      input: this.input,
      inputDigest: this.inputDigest,
      description: r.info.contract.description,
      effect: r.info.contract.effect,
      createdAt: this.createdAt,
      expiresAt: this.expiresAt,
      ...(this.reason !== undefined ? { reason: this.reason } : {}),
    };
    return (this.#view = Object.freeze(view));
  }

  /** Whether `binding` is the request this record was created for. */
  matches(binding: ConfirmationBinding): boolean {
    const b = this.binding;
    return (
      b.consumer.id === binding.consumer.id &&
      b.registration === binding.registration &&
      b.invocationId === binding.invocationId &&
      b.canonicalInput === binding.canonicalInput
    );
  }
}

export type ConfirmationCheck =
  | { ok: true; record: ConfirmationRecord }
  | { ok: false; reason: 'denied' | 'expired' | 'mismatch'; record: ConfirmationRecord | undefined }
  | { ok: false; reason: 'pending'; record: ConfirmationRecord };

export interface ConfirmationStoreOptions {
  ttlMs: number;
  maxPending: number;
  emit: (event: ConfirmationEvent) => void;
}

/** Decided records kept to answer late retries and `waitFor` with the right reason. */
const MAX_DECIDED = 64;
/** setTimeout's limit; longer TTLs are re-armed when they fire early. */
const MAX_TIMER_MS = 0x7fffffff;
const MAX_REASON_LENGTH = 300;

export class ConfirmationStore implements ConfirmationsApi {
  readonly #ttlMs: number;
  readonly #maxPending: number;
  readonly #emit: (event: ConfirmationEvent) => void;
  /** Pending and approved records, oldest first. */
  readonly #live = new Map<string, ConfirmationRecord>();
  /** Denied, expired and consumed records, oldest first, bounded. */
  readonly #decided = new Map<string, ConfirmationRecord>();
  readonly #subscribers = new Set<(pending: PendingConfirmation[]) => void>();
  #pendingCount = 0;
  #pendingList: readonly PendingConfirmation[] | undefined;
  #disposed = false;

  constructor(options: ConfirmationStoreOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxPending = options.maxPending;
    this.#emit = options.emit;
    // The public methods are handed around detached (`const { approve } = registry.confirmations`).
    this.list = this.list.bind(this);
    this.subscribe = this.subscribe.bind(this);
    this.approve = this.approve.bind(this);
    this.deny = this.deny.bind(this);
    this.waitFor = this.waitFor.bind(this);
  }

  // -- the person's side (ConfirmationsApi) --------------------------------------------------

  list(): PendingConfirmation[] {
    this.#sweep();
    return this.#pending().slice();
  }

  subscribe(listener: (pending: PendingConfirmation[]) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('confirmations.subscribe(listener): listener must be a function');
    if (this.#disposed) return () => {};
    this.#subscribers.add(listener);
    return () => {
      this.#subscribers.delete(listener);
    };
  }

  approve(confirmationId: string): boolean {
    const record = this.#livePending(confirmationId);
    if (record === undefined) return false;
    const now = Date.now();
    record.status = 'approved';
    this.#pendingCount--;
    // The approval stays usable for a full TTL from the decision, so an agent that was told to
    // retry after the person acted is not raced by the clock.
    record.expiresAt = now + this.#ttlMs;
    this.#arm(record, now);
    this.#changed(record, 'approved', true);
    settleWaiters(record, { status: 'approved' });
    return true;
  }

  deny(confirmationId: string, reason?: string): boolean {
    const record = this.#livePending(confirmationId);
    if (record === undefined) return false;
    record.reason =
      typeof reason === 'string' && reason.trim() !== '' ? reason.trim().slice(0, MAX_REASON_LENGTH) : 'denied by the person';
    this.#decide(record, 'denied');
    return true;
  }

  waitFor(confirmationId: string, options: { signal?: AbortSignal } = {}): Promise<ConfirmationOutcome> {
    let signal: AbortSignal | undefined;
    try {
      signal = options?.signal;
    } catch {
      // An options object that cannot be read is no signal.
    }
    if (!isSignal(signal)) signal = undefined;
    const record = typeof confirmationId === 'string' ? this.#find(confirmationId) : undefined;
    if (record === undefined) return Promise.resolve({ status: 'unknown' });
    if (record.status !== 'pending') return Promise.resolve(outcomeOf(record));
    if (signal?.aborted) return Promise.resolve({ status: 'aborted' });
    return new Promise<ConfirmationOutcome>((resolve) => {
      let onAbort: (() => void) | undefined;
      const waiter: Waiter = (outcome) => {
        if (onAbort) signal!.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      (record.waiters ??= []).push(waiter);
      holdWhileAwaited(record);
      if (signal) {
        onAbort = () => {
          const list = record.waiters;
          const i = list ? list.indexOf(waiter) : -1;
          if (i >= 0) list!.splice(i, 1);
          holdWhileAwaited(record);
          resolve({ status: 'aborted' });
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  // -- the pipeline's side -------------------------------------------------------------------

  /**
   * The pending record for `binding`: the one already waiting for this very request (a repeated
   * call without a confirmationId does not open a second prompt), else a new one. `undefined`
   * when too many records are pending.
   */
  request(binding: ConfirmationBinding): ConfirmationRecord | undefined {
    const now = Date.now();
    this.#sweep(now);
    for (const record of this.#live.values()) {
      if (record.status === 'pending' && record.matches(binding)) return record;
    }
    if (this.#pendingCount >= this.#maxPending) return undefined;
    const record = new ConfirmationRecord(`cf-${(++confirmationSeq).toString(36)}-${randomId(3)}`, binding, now, now + this.#ttlMs);
    this.#live.set(record.id, record);
    this.#pendingCount++;
    this.#arm(record, now);
    this.#changed(record, 'created', true);
    return record;
  }

  /** What a retry carrying `confirmationId` may do. */
  check(confirmationId: string, binding: ConfirmationBinding): ConfirmationCheck {
    const record = this.#find(confirmationId);
    const status = record !== undefined && record.matches(binding) ? record.status : 'consumed';
    if (status === 'approved') return { ok: true, record: record! };
    // Consumed: the approval was already used by this request (a replay is answered by the
    // idempotency store before it gets here), so this is a different attempt.
    return { ok: false, reason: status === 'consumed' ? 'mismatch' : status, record } as ConfirmationCheck;
  }

  /** Uses an approval once, just before its call runs. False when it is no longer usable. */
  consume(record: ConfirmationRecord): boolean {
    if (record.status !== 'approved') return false;
    if (Date.now() >= record.expiresAt) {
      this.#decide(record, 'expired');
      return false;
    }
    this.#decide(record, 'consumed');
    return true;
  }

  /** Expires every live record bound to a registration that went away. */
  expireRegistration(registrationId: string): void {
    this.#expireWhere((record) => record.binding.registration.id === registrationId);
  }

  /** Expires every live record, resolves every waiter and drops the subscribers. */
  dispose(): void {
    if (this.#disposed) return;
    this.#expireWhere(() => true);
    this.#disposed = true;
    this.#subscribers.clear();
  }

  // -- internals -----------------------------------------------------------------------------

  #find(id: string): ConfirmationRecord | undefined {
    const live = this.#live.get(id);
    if (live !== undefined) {
      if (Date.now() >= live.expiresAt) this.#decide(live, 'expired');
      return live;
    }
    return this.#decided.get(id);
  }

  #livePending(id: unknown): ConfirmationRecord | undefined {
    if (typeof id !== 'string' || this.#disposed) return undefined;
    const record = this.#find(id);
    return record !== undefined && record.status === 'pending' ? record : undefined;
  }

  /** Expires records whose timer has not fired yet (timers can run late, or be faked). */
  #sweep(now = Date.now()): void {
    this.#expireWhere((record) => now >= record.expiresAt);
  }

  #expireWhere(test: (record: ConfirmationRecord) => boolean): void {
    if (this.#live.size === 0) return;
    for (const record of [...this.#live.values()]) if (test(record)) this.#decide(record, 'expired');
  }

  #pending(): readonly PendingConfirmation[] {
    if (this.#pendingList === undefined) {
      const list: PendingConfirmation[] = [];
      for (const record of this.#live.values()) if (record.status === 'pending') list.push(record.view());
      this.#pendingList = Object.freeze(list);
    }
    return this.#pendingList;
  }

  #arm(record: ConfirmationRecord, now: number): void {
    clearTimeout(record.timer);
    const delay = Math.min(Math.max(0, record.expiresAt - now), MAX_TIMER_MS);
    record.timer = setTimeout(() => {
      record.timer = undefined;
      if (record.status !== 'pending' && record.status !== 'approved') return;
      if (Date.now() >= record.expiresAt) this.#decide(record, 'expired');
      else this.#arm(record, Date.now());
    }, delay);
    holdWhileAwaited(record);
  }

  /** Moves a live record to a final status. */
  #decide(record: ConfirmationRecord, status: 'denied' | 'expired' | 'consumed'): void {
    if (!this.#live.has(record.id)) return;
    const wasPending = record.status === 'pending';
    clearTimeout(record.timer);
    record.timer = undefined;
    this.#live.delete(record.id);
    if (wasPending) this.#pendingCount--;
    record.status = status;
    this.#decided.set(record.id, record);
    if (this.#decided.size > MAX_DECIDED) {
      const oldest = this.#decided.keys().next().value;
      if (oldest !== undefined) this.#decided.delete(oldest);
    }
    this.#changed(record, status, wasPending);
    settleWaiters(record, outcomeOf(record));
  }

  #changed(record: ConfirmationRecord, action: ConfirmationEvent['action'], pendingListChanged: boolean): void {
    this.#emit({ type: 'confirmation', action, confirmation: record.view() });
    if (!pendingListChanged) return;
    this.#pendingList = undefined;
    if (this.#subscribers.size === 0) return;
    const list = this.#pending();
    for (const listener of [...this.#subscribers]) {
      try {
        listener(list.slice());
      } catch (error) {
        console.error('[agent-surface-kit] a confirmations subscriber threw', error);
      }
    }
  }
}

/** The outcome of a decided record (never called while it is pending); only a denial has a reason. */
function outcomeOf(record: ConfirmationRecord): ConfirmationOutcome {
  const status = record.status as Exclude<ConfirmationStatus, 'pending'>;
  return record.reason !== undefined ? { status, reason: record.reason } : { status };
}

function settleWaiters(record: ConfirmationRecord, outcome: ConfirmationOutcome): void {
  const waiters = record.waiters;
  if (waiters === undefined) return;
  record.waiters = undefined;
  holdWhileAwaited(record);
  for (const waiter of waiters) waiter(outcome);
}

/** A record's TTL timer holds the process open only while someone awaits it (`waitFor`). */
function holdWhileAwaited(record: ConfirmationRecord): void {
  holdOpen(record.timer, record.waiters !== undefined && record.waiters.length > 0);
}

let confirmationSeq = 0;

/**
 * A short, stable fingerprint of the canonical input for display and audit (cyrb53, 53 bits, the
 * hash wire names use). The binding itself compares the full canonical text, never this digest.
 */
export function digest(text: string): string {
  return `c53-${wireHash(text, 11)}`;
}
