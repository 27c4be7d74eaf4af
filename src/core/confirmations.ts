/**
 * The confirmation store a registry holds (DESIGN section 3, step 7): the person's side, the public
 * `ConfirmationsApi` (`list`, `subscribe`, `approve`, `deny`, `waitFor`), over the records the
 * pipeline makes. A record binds one request (consumer, capability, instance, registration,
 * invocation id, input) to a person's decision; what a record is and how it moves from pending to
 * decided is `confirmation-records.ts`, which comes with the invoke pipeline: only the pipeline
 * creates records, so before its first record a store is empty and every answer is the empty
 * store's (`[]`, `false`, `unknown`). One object from the registry's creation on: subscribers and
 * options are its own, nothing is handed over.
 */
import { isSignal } from './util.js';
import type {
  AgentConsumer,
  CapabilityEffect,
  ConfirmationEvent,
  ConfirmationOutcome,
  ConfirmationsApi,
  ConfirmationStatus,
  PendingConfirmation,
} from './types.js';

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

/** What the store keeps of a record (confirmation-records.ts's `ConfirmationRecord`). */
export interface StoredConfirmation {
  readonly id: string;
  readonly binding: ConfirmationBinding;
  status: ConfirmationStatus;
}

/** How records behave: `confirmation-records.ts`, handed to a store with its first record. */
export interface ConfirmationLogic {
  list(store: ConfirmationStore): PendingConfirmation[];
  approve(store: ConfirmationStore, confirmationId: string): boolean;
  deny(store: ConfirmationStore, confirmationId: string, reason: string | undefined): boolean;
  waitFor(store: ConfirmationStore, confirmationId: string, signal: AbortSignal | undefined): Promise<ConfirmationOutcome>;
  expireWhere(store: ConfirmationStore, test: (record: StoredConfirmation) => boolean): void;
}

export interface ConfirmationStoreOptions {
  ttlMs: number;
  maxPending: number;
  emit: (event: ConfirmationEvent) => void;
}

export class ConfirmationStore implements ConfirmationsApi {
  readonly ttlMs: number;
  readonly maxPending: number;
  readonly emit: (event: ConfirmationEvent) => void;
  // The records and their counts are made with the first record, by the logic that keeps them
  // (`confirmation-records.ts`); before it, nothing reads them.
  /** Pending and approved records, oldest first. */
  declare readonly live: Map<string, StoredConfirmation>;
  /** Denied, expired and consumed records, oldest first, bounded. */
  declare readonly decided: Map<string, StoredConfirmation>;
  declare pendingCount: number;
  declare pendingList: readonly PendingConfirmation[] | undefined;
  readonly subscribers = new Set<(pending: PendingConfirmation[]) => void>();
  /** Set by `dispose()`. */
  declare disposed?: true;
  /** Set with the first record: no record, nothing to decide. */
  declare logic?: ConfirmationLogic;

  constructor(options: ConfirmationStoreOptions) {
    this.ttlMs = options.ttlMs;
    this.maxPending = options.maxPending;
    this.emit = options.emit;
  }

  list(): PendingConfirmation[] {
    return this.logic ? this.logic.list(this) : [];
  }

  subscribe(listener: (pending: PendingConfirmation[]) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('confirmations.subscribe(listener): listener must be a function');
    if (this.disposed) return () => {};
    this.subscribers.add(listener);
    return () => {
      this.subscribers.delete(listener);
    };
  }

  approve(confirmationId: string): boolean {
    return this.logic?.approve(this, confirmationId) ?? false;
  }

  deny(confirmationId: string, reason?: string): boolean {
    return this.logic?.deny(this, confirmationId, reason) ?? false;
  }

  waitFor(confirmationId: string, options: { signal?: AbortSignal } = {}): Promise<ConfirmationOutcome> {
    let signal: AbortSignal | undefined;
    try {
      signal = options?.signal;
    } catch {
      // An options object that cannot be read is no signal.
    }
    if (!isSignal(signal)) signal = undefined;
    return this.logic ? this.logic.waitFor(this, confirmationId, signal) : Promise.resolve({ status: 'unknown' });
  }

  /** Expires every live record bound to a registration that went away. */
  expireRegistration(registrationId: string): void {
    this.logic?.expireWhere(this, (record) => record.binding.registration.id === registrationId);
  }

  /** Expires every live record, resolves every waiter and drops the subscribers. */
  dispose(): void {
    if (this.disposed) return;
    this.logic?.expireWhere(this, () => true);
    this.disposed = true;
    this.subscribers.clear();
  }
}
