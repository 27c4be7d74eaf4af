/**
 * Confirmation records and how they move (DESIGN section 3, step 7): the pipeline's side (`request`,
 * `check`, `consume`) and the decisions the store's public methods delegate to once a record exists.
 * A record lives for a TTL, is used at most once, and a retry must present the same binding. Part of
 * the invoke pipeline's module graph: the pipeline makes the first record of a store, and hands this
 * module's logic to it then (`ConfirmationStore.logic`).
 */
import type { ConfirmationBinding, ConfirmationLogic, ConfirmationStore, StoredConfirmation } from './confirmations.js';
import { holdOpen } from './running.js';
import { deepFreeze, randomId, remember, withInstance } from './util.js';
import type { ConfirmationEvent, ConfirmationOutcome, ConfirmationStatus, JsonObject, PendingConfirmation } from './types.js';
import { wireHash } from './hash.js';

type Waiter = (outcome: ConfirmationOutcome) => void;

export class ConfirmationRecord implements StoredConfirmation {
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
    // A short, stable fingerprint of the canonical input for display and audit (cyrb53, 53 bits, the
    // hash wire names use). The binding itself compares the full canonical text, never this digest.
    this.inputDigest = `c53-${wireHash(binding.canonicalInput, 11)}`;
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
      ...withInstance(r.instanceId),
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

/** Decided records kept to answer late retries and `waitFor` with the right reason. */
const MAX_DECIDED = 64;
/** setTimeout's limit; longer TTLs are re-armed when they fire early. */
const MAX_TIMER_MS = 0x7fffffff;
const MAX_REASON_LENGTH = 300;

// Every record in a store was made here, so the store's maps hold ConfirmationRecords.
type Records = Map<string, ConfirmationRecord>;

// -- the pipeline's side ---------------------------------------------------------------------

/**
 * The pending record for `binding`: the one already waiting for this very request (a repeated call
 * without a confirmationId does not open a second prompt), else a new one. `undefined` when too
 * many records are pending.
 */
export function requestConfirmation(store: ConfirmationStore, binding: ConfirmationBinding): ConfirmationRecord | undefined {
  open(store);
  const now = Date.now();
  sweep(store, now);
  for (const record of (store.live as Records).values()) {
    if (record.status === 'pending' && record.matches(binding)) return record;
  }
  if (store.pendingCount >= store.maxPending) return undefined;
  const record = new ConfirmationRecord(`cf-${(++confirmationSeq).toString(36)}-${randomId(3)}`, binding, now, now + store.ttlMs);
  store.live.set(record.id, record);
  store.pendingCount++;
  arm(store, record, now);
  changed(store, record, 'created', true);
  return record;
}

/** What a retry carrying `confirmationId` may do. */
export function checkConfirmation(store: ConfirmationStore, confirmationId: string, binding: ConfirmationBinding): ConfirmationCheck {
  open(store);
  const record = find(store, confirmationId);
  const status = record !== undefined && record.matches(binding) ? record.status : 'consumed';
  if (status === 'approved') return { ok: true, record: record! };
  // Consumed: the approval was already used by this request (a replay is answered by the
  // idempotency store before it gets here), so this is a different attempt.
  return { ok: false, reason: status === 'consumed' ? 'mismatch' : status, record } as ConfirmationCheck;
}

/** Uses an approval once, just before its call runs. False when it is no longer usable. */
export function consumeConfirmation(store: ConfirmationStore, record: ConfirmationRecord): boolean {
  if (record.status !== 'approved') return false;
  if (Date.now() >= record.expiresAt) {
    decide(store, record, 'expired');
    return false;
  }
  decide(store, record, 'consumed');
  return true;
}

// -- the person's side, once a store has records ---------------------------------------------

const LOGIC: ConfirmationLogic = {
  list(store) {
    sweep(store);
    return pending(store).slice();
  },

  approve(store, confirmationId) {
    const record = livePending(store, confirmationId);
    if (record === undefined) return false;
    const now = Date.now();
    record.status = 'approved';
    store.pendingCount--;
    // The approval stays usable for a full TTL from the decision, so an agent that was told to
    // retry after the person acted is not raced by the clock.
    record.expiresAt = now + store.ttlMs;
    arm(store, record, now);
    changed(store, record, 'approved', true);
    settleWaiters(record, { status: 'approved' });
    return true;
  },

  deny(store, confirmationId, reason) {
    const record = livePending(store, confirmationId);
    if (record === undefined) return false;
    record.reason =
      typeof reason === 'string' && reason.trim() !== '' ? reason.trim().slice(0, MAX_REASON_LENGTH) : 'denied by the person';
    decide(store, record, 'denied');
    return true;
  },

  waitFor(store, confirmationId, signal) {
    const record = typeof confirmationId === 'string' ? find(store, confirmationId) : undefined;
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
  },

  expireWhere(store, test) {
    if (store.live.size === 0) return;
    for (const record of [...(store.live as Records).values()]) if (test(record)) decide(store, record, 'expired');
  },
};

// -- internals -------------------------------------------------------------------------------

/** Gives a store its records, counts and logic the first time the pipeline needs them. */
function open(store: ConfirmationStore): void {
  if (!store.logic) Object.assign(store, { logic: LOGIC, live: new Map(), decided: new Map(), pendingCount: 0 });
}

function find(store: ConfirmationStore, id: string): ConfirmationRecord | undefined {
  const live = (store.live as Records).get(id);
  if (live !== undefined) {
    if (Date.now() >= live.expiresAt) decide(store, live, 'expired');
    return live;
  }
  return (store.decided as Records).get(id);
}

function livePending(store: ConfirmationStore, id: unknown): ConfirmationRecord | undefined {
  if (typeof id !== 'string' || store.disposed) return undefined;
  const record = find(store, id);
  return record !== undefined && record.status === 'pending' ? record : undefined;
}

/** Expires records whose timer has not fired yet (timers can run late, or be faked). */
function sweep(store: ConfirmationStore, now = Date.now()): void {
  LOGIC.expireWhere(store, (record) => now >= (record as ConfirmationRecord).expiresAt);
}

function pending(store: ConfirmationStore): readonly PendingConfirmation[] {
  if (store.pendingList === undefined) {
    const list: PendingConfirmation[] = [];
    for (const record of (store.live as Records).values()) if (record.status === 'pending') list.push(record.view());
    store.pendingList = Object.freeze(list);
  }
  return store.pendingList;
}

function arm(store: ConfirmationStore, record: ConfirmationRecord, now: number): void {
  clearTimeout(record.timer);
  const delay = Math.min(Math.max(0, record.expiresAt - now), MAX_TIMER_MS);
  record.timer = setTimeout(() => {
    record.timer = undefined;
    if (record.status !== 'pending' && record.status !== 'approved') return;
    if (Date.now() >= record.expiresAt) decide(store, record, 'expired');
    else arm(store, record, Date.now());
  }, delay);
  holdWhileAwaited(record);
}

/** Moves a live record to a final status. */
function decide(store: ConfirmationStore, record: ConfirmationRecord, status: 'denied' | 'expired' | 'consumed'): void {
  if (!store.live.has(record.id)) return;
  const wasPending = record.status === 'pending';
  clearTimeout(record.timer);
  record.timer = undefined;
  store.live.delete(record.id);
  if (wasPending) store.pendingCount--;
  record.status = status;
  remember(store.decided, record.id, record, MAX_DECIDED);
  changed(store, record, status, wasPending);
  settleWaiters(record, outcomeOf(record));
}

function changed(store: ConfirmationStore, record: ConfirmationRecord, action: ConfirmationEvent['action'], pendingListChanged: boolean): void {
  store.emit({ type: 'confirmation', action, confirmation: record.view() });
  if (!pendingListChanged) return;
  store.pendingList = undefined;
  if (store.subscribers.size === 0) return;
  const list = pending(store);
  for (const listener of [...store.subscribers]) {
    try {
      listener(list.slice());
    } catch (error) {
      console.error('[agent-surface-kit] a confirmations subscriber threw', error);
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
