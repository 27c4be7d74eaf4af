/**
 * The idempotency store (DESIGN section 3, step 1): one entry per (consumer id, invocation id),
 * bounded in count and age. A ring of the last `maxEntries` insertions decides eviction in O(1);
 * age is checked when an entry is looked up, so there are no timers.
 *
 * Entries are small and hold the request's input by reference: a reused key compares requests by
 * canonical JSON only then (see `sameInput`), so the hot path never serializes input.
 */
import { canonicalJson, checkJson } from './canonical-json.js';
import type { AgentInvocationResult } from './types.js';

export class IdempotencyEntry<R = unknown> {
  readonly consumerId: string;
  readonly invocationId: string;
  readonly capabilityId: string;
  readonly instanceId: string | undefined;
  /** The request's input as given (`undefined` stands for `{}`). */
  readonly input: unknown;
  expiresAt = 0;
  /** Set once the call has finished. */
  result: AgentInvocationResult | undefined = undefined;
  /** Callers that joined while it ran. */
  waiters: ((result: AgentInvocationResult) => void)[] | undefined = undefined;
  /** What a replay reports in its audit event (the resolved registration). */
  registration: R | undefined = undefined;

  constructor(consumerId: string, invocationId: string, capabilityId: string, instanceId: string | undefined, input: unknown) {
    this.consumerId = consumerId;
    this.invocationId = invocationId;
    this.capabilityId = capabilityId;
    this.instanceId = instanceId;
    this.input = input;
  }

  /** The result once the call has finished, joining it while it runs. */
  join(): Promise<AgentInvocationResult> {
    if (this.result !== undefined) return Promise.resolve(this.result);
    return new Promise((resolve) => (this.waiters ??= []).push(resolve));
  }

  /** Records the result and hands it to every caller that joined. */
  settle(result: AgentInvocationResult): void {
    this.result = result;
    const waiters = this.waiters;
    if (waiters === undefined) return;
    this.waiters = undefined;
    for (let i = 0; i < waiters.length; i++) waiters[i](result);
  }
}

export class IdempotencyStore<E extends IdempotencyEntry<unknown>> {
  readonly #byConsumer = new Map<string, Map<string, E>>();
  readonly #ring: (E | undefined)[];
  #next = 0;
  readonly #ttlMs: number;

  constructor(maxEntries: number, ttlMs: number) {
    this.#ring = new Array<E | undefined>(Math.max(1, Math.floor(maxEntries))).fill(undefined);
    this.#ttlMs = ttlMs;
  }

  /** The live entry for the key, dropping it when it has expired. */
  get(consumerId: string, invocationId: string, now: number): E | undefined {
    const entries = this.#byConsumer.get(consumerId);
    if (entries === undefined) return undefined;
    const entry = entries.get(invocationId);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#delete(entries, entry);
      return undefined;
    }
    return entry;
  }

  /** Adds `entry` (its `expiresAt` is set here), evicting the entry added `maxEntries` insertions ago. */
  add(entry: E, now: number): void {
    entry.expiresAt = now + this.#ttlMs;
    let entries = this.#byConsumer.get(entry.consumerId);
    if (entries === undefined) {
      entries = new Map();
      this.#byConsumer.set(entry.consumerId, entries);
    }
    entries.set(entry.invocationId, entry);
    const ring = this.#ring;
    const slot = this.#next;
    const evicted = ring[slot];
    ring[slot] = entry;
    this.#next = slot + 1 === ring.length ? 0 : slot + 1;
    if (evicted !== undefined && evicted !== entry) this.remove(evicted);
  }

  /** Forgets `entry` if it is still the one stored under its key. */
  remove(entry: E): void {
    const entries = this.#byConsumer.get(entry.consumerId);
    if (entries !== undefined) this.#delete(entries, entry);
  }

  #delete(entries: Map<string, E>, entry: E): void {
    if (entries.get(entry.invocationId) !== entry) return;
    entries.delete(entry.invocationId);
    if (entries.size === 0) this.#byConsumer.delete(entry.consumerId);
  }

  /** Entries currently stored (expired ones included until looked up or evicted). */
  get size(): number {
    let n = 0;
    for (const entries of this.#byConsumer.values()) n += entries.size;
    return n;
  }

  clear(): void {
    this.#byConsumer.clear();
    this.#ring.fill(undefined);
    this.#next = 0;
  }
}

/**
 * Whether two inputs are the same JSON value. Identical references are the same; otherwise both are
 * compared by canonical JSON (key order does not matter). A value that is not JSON never equals
 * anything but itself. `undefined` and `null` stand for `{}` (a missing input).
 */
export function sameInput(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ca = canonicalOrUndefined(a ?? {});
  return ca !== undefined && ca === canonicalOrUndefined(b ?? {});
}

function canonicalOrUndefined(value: unknown): string | undefined {
  if (!checkJson(value).ok) return undefined;
  try {
    return canonicalJson(value);
  } catch {
    return undefined;
  }
}
