/** Small helpers shared across core modules (kept apart so projections don't pull in the registry). */

/**
 * At most this many issues are reported per validation (by the compiled validators and by the
 * interpreter alike): enough to fix the input, bounded in size.
 */
export const MAX_VALIDATION_ISSUES = 50;

/** Whether `value` behaves as an AbortSignal (duck-typed: signals may come from another realm). */
export function isSignal(value: unknown): value is AbortSignal {
  try {
    return (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as AbortSignal).aborted === 'boolean' &&
      typeof (value as AbortSignal).addEventListener === 'function' &&
      typeof (value as AbortSignal).removeEventListener === 'function'
    );
  } catch {
    return false;
  }
}

/**
 * `words` random 32-bit words in base 36, each 7 characters (ids that are hard to guess). Every
 * runtime the package supports (browsers, secure context or not; Node 20) has `getRandomValues`.
 */
export function randomId(words: number): string {
  let id = '';
  for (const word of crypto.getRandomValues(new Uint32Array(words))) id += word.toString(36).padStart(7, '0');
  return id;
}

/** A non-null object that is not an array: the shape of a JSON object, an options bag, a contract. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `{ instanceId }` when there is one, to spread where the field is optional. */
export const withInstance = (instanceId: string | undefined): { instanceId?: string } => (instanceId !== undefined ? { instanceId } : {});

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** A module fetched on first need (`import()`), readable synchronously once it has arrived. */
export interface LazyModule<M> {
  /** The module, once loaded. */
  readonly module: M | undefined;
  /** One fetch shared by every caller; a failed one is forgotten, so the next need tries again. */
  load(): Promise<M>;
}

export function lazyModule<M>(fetch: () => Promise<M>): LazyModule<M> {
  let pending: Promise<M> | undefined;
  const lazy = {
    module: undefined as M | undefined,
    load: (): Promise<M> =>
      (pending ??= fetch().then(
        (m) => (lazy.module = m),
        (error: unknown) => {
          pending = undefined;
          throw error;
        },
      )),
  };
  return lazy;
}

/**
 * `text` ended as a sentence: a full stop added unless it already ends with `.`, `!`, `?` or `…`
 * (before any closing quote or bracket). Messages that end with author or host text (a reason, a
 * description) use it, so "…is locked." never becomes "…is locked..".
 */
export function endSentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?…]["'’”)\]]*$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Sets `key` as the newest entry of `map`, dropping the oldest beyond `max` (a bounded memory). */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}
