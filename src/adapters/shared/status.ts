/**
 * An adapter's `status()` for a server behind a URL: `loading` while a connection check runs
 * (started lazily, by the first `status()` or `subscribe()`, never at module load), then `ready` or
 * `unavailable` with the reason. Runs update it: a network failure makes it `unavailable`, a
 * reply makes it `ready` again.
 */
import type { AdapterStatus } from '../../chat/types.js';
import { AdapterError } from './errors.js';

/** A refusal that will not pass by retrying: bad credentials, or a chat switched off. */
const refused = (e: AdapterError) => e.code === 'chat_disabled' || /credentials/.test(e.message);

export function connectionStatus(check: (() => Promise<unknown>) | false) {
  let current: AdapterStatus = check ? { state: 'loading' } : { state: 'ready' };
  let started = !check;
  const listeners = new Set<() => void>();
  const set = (s: AdapterStatus) => {
    current = s;
    for (const l of [...listeners]) l();
  };
  const report = (e?: unknown): void => {
    // A run's outcome is as good as a check: no need to start one after it.
    started = true;
    if (!e) return void (current.state === 'ready' || set({ state: 'ready' }));
    // Only failures to reach the server make it unavailable; a refused request says nothing of it.
    if (e instanceof AdapterError && e.code !== 'network') {
      if (refused(e)) set({ state: 'unavailable', reason: e.message });
      return;
    }
    set({ state: 'unavailable', reason: e instanceof Error ? e.message : String(e) });
  };
  const recheck = (): Promise<void> => {
    started = true;
    if (!check) return Promise.resolve();
    if (current.state !== 'loading') set({ state: 'loading' });
    return check().then(
      () => report(),
      // Any other answer (a 404 from a server without the route, say) proves the server is there.
      (e) => report(e instanceof AdapterError && e.code !== 'network' && !refused(e) ? undefined : e),
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
