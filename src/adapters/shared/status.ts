/**
 * An adapter's `status()` for a server behind a URL: `loading` while a connection check runs
 * (started lazily, by the first `status()` or `subscribe()`, never at module load), then `ready` or
 * `unavailable` with the reason. Runs update it: a network failure makes it `unavailable`, a
 * reply makes it `ready` again.
 */
import type { AdapterStatus } from '../../chat/types.js';
import { AdapterError } from './errors.js';

/**
 * What an error says of the server: undefined when it proves the server is there (any refusal but
 * a lasting one), else the reason it is unavailable. Bad credentials and a chat switched off will
 * not pass by retrying, so they count as unavailable.
 */
const unavailable = (e: unknown) =>
  e instanceof AdapterError && e.code !== 'network' && e.code !== 'chat_disabled' && !/credentials/.test(e.message)
    ? undefined
    : e instanceof Error
      ? e.message
      : String(e);

export function connectionStatus(check: (() => Promise<unknown>) | false) {
  let current: AdapterStatus = { state: check ? 'loading' : 'ready' };
  let started = !check;
  const listeners = new Set<() => void>();
  const set = (s: AdapterStatus) => {
    current = s;
    for (const l of [...listeners]) l();
  };
  /** A run's outcome is as good as a check: no need to start one after it. */
  const report = (e?: unknown): void => {
    started = true;
    const reason = e ? unavailable(e) : undefined;
    if (reason !== undefined) set({ state: 'unavailable', reason });
    // A request the server refused says nothing of it: only a reply makes it ready.
    else if (!e && current.state !== 'ready') set({ state: 'ready' });
  };
  const recheck = (): Promise<void> => {
    started = true;
    if (!check) return Promise.resolve();
    if (current.state !== 'loading') set({ state: 'loading' });
    // Any answer but a lasting refusal (a 404 from a server without the route, say) proves the server is there.
    return check().then(
      () => report(),
      (e) => report(unavailable(e) === undefined ? undefined : e),
    );
  };
  return {
    status: (): AdapterStatus => (started || void recheck(), current),
    subscribe(listener: () => void) {
      listeners.add(listener);
      if (!started) void recheck();
      return () => void listeners.delete(listener);
    },
    report,
    recheck,
  };
}
