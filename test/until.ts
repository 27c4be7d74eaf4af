// Waiting in a browser test, sized for a loaded machine. @open-wc/testing's `waitUntil` gives up
// after one second by default, which a shared two-core machine (or two `npm test` runs at once)
// overshoots for things that take milliseconds when it is quiet: a frame that loads, a lazy chunk,
// a round trip to the test runner. A test waits on a condition; the timeout only bounds a wait for
// one that never comes true, so it is a safety net, never a measure. ESLint keeps tests on this
// module (no-restricted-imports in eslint.config.js).
import { waitUntil as pollUntil } from '@open-wc/testing';

/** The shortest a wait gives up after: long enough that only a broken condition reaches it. */
export const SAFETY_NET_MS = 30_000;

export interface UntilOptions {
  /** How often to look, in milliseconds (default 20). */
  interval?: number;
  /** Gives up after this long, in milliseconds; never less than SAFETY_NET_MS (a shorter value is raised to it). */
  timeout?: number;
}

/**
 * Resolves once `predicate` returns something truthy (it may be async); rejects with `message`
 * if that has not happened after the safety net. A test that must see something NOT happen waits
 * for the event that would have caused it instead of passing time.
 */
export function waitUntil(predicate: () => unknown, message?: string, options: UntilOptions = {}): Promise<void> {
  return pollUntil(predicate, message, {
    interval: options.interval ?? 20,
    timeout: Math.max(options.timeout ?? 0, SAFETY_NET_MS),
  });
}

/** Resolves once `Date.now()` has moved past what it read when called (the next millisecond). */
export function clockMoved(): Promise<void> {
  const then = Date.now();
  return waitUntil(() => Date.now() > then, 'the clock never moved', { interval: 1 });
}
