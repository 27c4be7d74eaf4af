/**
 * The idempotency store (DESIGN section 3, step 1): one entry per (consumer id, invocation id),
 * bounded in count and age. A Map keeps insertion order, so the oldest entry is always first:
 * eviction and expiry are O(1) per entry, with no timers.
 *
 * Entries hold the request's input by reference. Comparing a reused key's request happens only on
 * reuse, and then by canonical JSON (see `sameInput`), so the hot path never serializes input.
 */
import { canonicalJson, checkJson } from './canonical-json.js';

export interface IdempotencyEntry {
  /** `consumerId + "\u0000" + invocationId`. */
  key: string;
  /** Epoch ms after which the entry is forgotten. */
  expiresAt: number;
}

export class IdempotencyStore<E extends IdempotencyEntry> {
  readonly #entries = new Map<string, E>();
  readonly #max: number;
  readonly #ttlMs: number;

  constructor(maxEntries: number, ttlMs: number) {
    this.#max = Math.max(1, maxEntries);
    this.#ttlMs = ttlMs;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The live entry for `key`, dropping it when it has expired. */
  get(key: string, now: number): E | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Adds `entry` (its `expiresAt` is set here), evicting expired entries and then the oldest. */
  add(entry: E, now: number): void {
    entry.expiresAt = now + this.#ttlMs;
    const entries = this.#entries;
    entries.delete(entry.key);
    entries.set(entry.key, entry);
    if (entries.size > this.#max) {
      // The first key is the oldest: evict it (and any expired ones behind it, cheaply).
      for (const [key, old] of entries) {
        if (entries.size > this.#max || old.expiresAt <= now) entries.delete(key);
        else break;
      }
    }
  }

  /** Forgets `entry` if it is still the one stored under its key. */
  remove(entry: E): void {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/**
 * Whether two inputs are the same JSON value. Identical references are the same; otherwise both are
 * compared by canonical JSON (key order does not matter). A value that is not JSON never equals
 * anything but itself. `undefined` stands for `{}` (a missing input).
 */
export function sameInput(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ca = canonicalOrUndefined(a === undefined ? {} : a);
  return ca !== undefined && ca === canonicalOrUndefined(b === undefined ? {} : b);
}

function canonicalOrUndefined(value: unknown): string | undefined {
  if (!checkJson(value).ok) return undefined;
  try {
    return canonicalJson(value);
  } catch {
    return undefined;
  }
}
