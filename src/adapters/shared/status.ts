/**
 * An adapter's `status()` for a server behind a URL: `loading` while a connection check runs
 * (started lazily, by the first `status()` or `subscribe()`, never at module load), then `ready` or
 * `unavailable` with the reason. Runs update it: a network failure makes it `unavailable`, a
 * reply makes it `ready` again.
 */
import type { AdapterStatus, AgentErrorCode } from '../../chat/types.js';
import { AdapterError, errorText } from './errors.js';

const lasting = (code: AgentErrorCode, reason: string) => code === 'network' || code === 'chat_disabled' || /credentials/.test(reason);

export function connectionStatus(check: (() => Promise<unknown>) | false) {
  let current: AdapterStatus = { state: check ? 'loading' : 'ready' };
  let started = !check;
  const listeners = new Set<() => void>();
  const set = (s: AdapterStatus) => {
    current = s;
    for (const l of [...listeners]) l();
  };
  /**
   * A run's or a check's outcome: no code is a reply, which makes the server ready. Failing to
   * reach it, bad credentials and a chat switched off (lasting refusals) make it unavailable; any
   * other refusal says nothing of the server.
   */
  const report = (code?: AgentErrorCode, reason = ''): void => {
    started = true;
    if (code ? lasting(code, reason) : current.state !== 'ready') set(code ? { state: 'unavailable', reason } : { state: 'ready' });
  };
  const recheck = (): Promise<void> => {
    started = true;
    if (!check) return Promise.resolve();
    if (current.state !== 'loading') set({ state: 'loading' });
    return check().then(
      () => report(),
      (e) => {
        const code = e instanceof AdapterError ? e.code : 'network';
        const reason = errorText(e);
        // Any answer but a lasting refusal (a 404 from a server without the route, say) proves the server is there.
        report(lasting(code, reason) ? code : undefined, reason);
      },
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
