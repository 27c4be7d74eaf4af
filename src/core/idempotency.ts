/**
 * The idempotency store (DESIGN section 3, step 1): one shelf per consumer id, so one consumer's
 * calls can never push out another's. An entry is recorded from a call's first step (a retry in the
 * meantime joins it) but holds one of the consumer's `maxEntries` slots only once its handler is
 * about to run: a call refused before that takes no slot and evicts nothing. A running entry never
 * leaves; a finished one expires `ttlMs` after it finished. A full shelf makes room only by dropping
 * its oldest finished entry whose effect may safely run twice (see `keep`); when every slot is kept,
 * `hold` says no and the call is refused with RATE_LIMITED. No timers: age is checked on lookup.
 *
 * Entries hold the request's input snapshot: a reused key compares requests by canonical JSON only
 * then (see `sameInput`). An entry whose input could not be read is refused before anything awaits,
 * so no other call ever sees it.
 */
import { canonicalJson } from './canonical-json.js';
import type { AgentInvocationResult, JsonObject } from './types.js';

export class IdempotencyEntry<R = unknown> {
  readonly consumerId: string;
  readonly invocationId: string;
  readonly capabilityId: string;
  readonly instanceId: string | undefined;
  /** The request's input snapshot. */
  readonly input: JsonObject | undefined;
  /** Set when the call finished; until then the entry never expires. */
  expiresAt = Infinity;
  /** Holds a slot: its handler was called. */
  held?: boolean;
  /** A finished entry that must stay for its TTL (its call changed something outside the page). */
  keep?: boolean;
  /** Set once the call has finished. */
  result?: AgentInvocationResult;
  /** What callers that joined while it ran wait on, made by the first of them. */
  joined?: Promise<AgentInvocationResult>;
  #resolve: ((result: AgentInvocationResult) => void) | undefined;
  /** What a replay reports in its audit event (the resolved registration). */
  registration?: R;

  constructor(consumerId: string, invocationId: string, capabilityId: string, instanceId: string | undefined, input: JsonObject | undefined) {
    this.consumerId = consumerId;
    this.invocationId = invocationId;
    this.capabilityId = capabilityId;
    this.instanceId = instanceId;
    this.input = input;
  }

  /** The result once the call has finished, joining it while it runs. */
  join(): Promise<AgentInvocationResult> {
    if (this.result !== undefined) return Promise.resolve(this.result);
    return (this.joined ??= new Promise((resolve) => (this.#resolve = resolve)));
  }

  /** Records the result and hands it to every caller that joined. */
  settle(result: AgentInvocationResult): void {
    this.result = result;
    this.#resolve?.(result);
  }
}

/** One consumer's entries, oldest first (a Map keeps insertion order), and how many hold a slot. */
interface Shelf<E> {
  readonly entries: Map<string, E>;
  held: number;
}

export class IdempotencyStore<E extends IdempotencyEntry<unknown>> {
  readonly #byConsumer = new Map<string, Shelf<E>>();
  readonly #max: number;
  readonly #ttlMs: number;

  constructor(maxEntries: number, ttlMs: number) {
    this.#max = Math.max(1, Math.floor(maxEntries));
    this.#ttlMs = ttlMs;
  }

  /** The live entry for the key, dropping it when it has expired. */
  get(consumerId: string, invocationId: string, now: number): E | undefined {
    const entry = this.#byConsumer.get(consumerId)?.entries.get(invocationId);
    if (entry !== undefined && entry.expiresAt <= now) {
      this.remove(entry);
      return undefined;
    }
    return entry;
  }

  /** Records a call that has not run yet: retries join it; it holds no slot and evicts nothing. */
  add(entry: E): void {
    let shelf = this.#byConsumer.get(entry.consumerId);
    if (shelf === undefined) this.#byConsumer.set(entry.consumerId, (shelf = { entries: new Map(), held: 0 }));
    shelf.entries.set(entry.invocationId, entry);
  }

  /**
   * Gives `entry` a slot just before its handler runs. On a full shelf the oldest finished entry
   * that is expired or not kept makes room; `false` when there is none (the call must not run).
   */
  hold(entry: E, keep: boolean, now: number): boolean {
    const shelf = this.#byConsumer.get(entry.consumerId)!;
    if (shelf.held >= this.#max) {
      let victim: E | undefined;
      for (const e of shelf.entries.values()) {
        if (e.held && e.result !== undefined && (!e.keep || e.expiresAt <= now)) {
          victim = e;
          break;
        }
      }
      if (victim === undefined) return false;
      this.remove(victim);
    }
    entry.held = true;
    entry.keep = keep;
    shelf.held++;
    return true;
  }

  /** The call of `entry` finished: its TTL starts now. */
  finished(entry: E, now: number): void {
    entry.expiresAt = now + this.#ttlMs;
  }

  /** Forgets `entry` if it is still the one stored under its key. */
  remove(entry: E): void {
    const shelf = this.#byConsumer.get(entry.consumerId);
    if (shelf === undefined || shelf.entries.get(entry.invocationId) !== entry) return;
    shelf.entries.delete(entry.invocationId);
    if (entry.held) shelf.held--;
    if (shelf.entries.size === 0) this.#byConsumer.delete(entry.consumerId);
  }

  clear(): void {
    this.#byConsumer.clear();
  }
}

/**
 * Whether two input snapshots (deep-frozen JSON copies, see `snapshotJson`) are the same JSON value:
 * identical references are, otherwise their canonical JSON decides (key order does not matter).
 */
export function sameInput(a: JsonObject, b: JsonObject): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}
