// A clock a browser test moves by hand. Some outcomes are about time itself: a click that lands
// before an approval's activation delay ran, a request that expires. With the real clock those
// tests race the machine (on a loaded one, the round trip of a trusted click alone can outlast a
// 150 ms delay). With this one, time stands still between two steps of the test and moves only
// when the test says so. (Node tests use node:test's `mock.timers`.)
//
// It stops `performance.now()` (the approval guard's clock) and `Date.now()` (confirmation
// expiry, countdowns). Timers still run in real time: code that re-checks the clock when a timer
// fires (the registry's expiry, the dialog's wake-ups) sees the time the test set.

export interface FrozenClock {
  /** Moves both clocks forward by `ms`. */
  tick(ms: number): void;
  /** Puts the real clocks back. Safe to call twice. */
  restore(): void;
}

export function freezeClock(): FrozenClock {
  const realDateNow = Date.now;
  let perf = performance.now();
  let date = realDateNow();
  // An own property shadows Performance.prototype.now; deleting it brings the real one back.
  Object.defineProperty(performance, 'now', { configurable: true, writable: true, value: () => perf });
  Date.now = () => date;
  let frozen = true;
  return {
    tick(ms: number) {
      perf += ms;
      date += ms;
    },
    restore() {
      if (!frozen) return;
      frozen = false;
      delete (performance as { now?: unknown }).now;
      Date.now = realDateNow;
    },
  };
}
