/**
 * `createWebMcpSource`: the page's WebMCP tools as a ToolSource for an in-page agent (the chat).
 *
 * This module is the source's own state: its listeners and its disposal. The work on the host
 * (reading `getTools()`, following `toolchange`, revisions, validating and running calls:
 * source-engine.ts) is a real `import()`, fetched on the first `discover()`, `execute()` or `onActivity()`, the same
 * in every build. Once it is there every call reaches it synchronously.
 */
import { lazyModule } from '../core/util.js';
import type { SourceEngine } from './source-engine.js';
import { DISCOVERY_CANCELLED_MESSAGE, DISPOSED_MESSAGE, ToolSourceError, checkSourceOptions, failed } from './source-error.js';
import type { ToolActivity, ToolCall, ToolSnapshot, ToolSource, ToolSourceResult, WebMcpSourceOptions } from './types.js';

// Re-exported: `agent-surface-kit/webmcp` has always exported it from here.
export { ToolSourceError };

const engineModule = lazyModule(() => import('./source-engine.js'));

const cancelled = () => new ToolSourceError('CANCELLED', DISCOVERY_CANCELLED_MESSAGE);

/** The error a call answers with when the engine's module could not be fetched (the next call fetches again). */
function loadFailure(error: unknown): ToolSourceError {
  return new ToolSourceError(
    'EXECUTION_FAILED',
    `The WebMCP tool source could not be loaded: ${error instanceof Error && error.message ? error.message : String(error)}`,
    { reason: 'load-failed' },
  );
}

/**
 * The page's WebMCP tools (`options.modelContext`, `document.modelContext`, `navigator.modelContext`)
 * as a ToolSource. Construction never throws for a missing host; the first `discover()` rejects with
 * `UNSUPPORTED_WEBMCP` where there is none.
 */
export function createWebMcpSource(options: WebMcpSourceOptions = {}): ToolSource {
  checkSourceOptions(options);
  const listeners = new Set<() => void>();
  const activityListeners = new Set<(activity: ToolActivity) => void>();
  let engine: SourceEngine | undefined;
  /** Calls every listener of `set`; one's failure is reported on its own, never stopping the others. */
  const tell = <A extends unknown[]>(set: Set<(...args: A) => void>, ...args: A) => {
    for (const listener of [...set]) {
      try {
        listener(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
  const owner = {
    disposed: false,
    notify: () => tell(listeners),
    activity: (activity: ToolActivity) => tell(activityListeners, activity),
  };
  /** Adds a listener (once, as a set does) and returns its unsubscribe. */
  const listen = <L>(set: Set<L>, listener: L, method: string): (() => void) => {
    if (owner.disposed) throw new ToolSourceError('DISPOSED', DISPOSED_MESSAGE);
    if (typeof listener !== 'function') throw new TypeError(`ToolSource.${method}(listener): listener must be a function.`);
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  };

  /** The engine, synchronously once its module is there (the first caller makes it). */
  const withEngine = <R>(use: (e: SourceEngine) => R | Promise<R>, onLoadFailure: (error: ToolSourceError) => R | Promise<R>): R | Promise<R> => {
    const m = engineModule.module;
    if (m) return use((engine ??= m.createSourceEngine(options, owner)));
    return engineModule.load().then(
      (loaded) => use((engine ??= loaded.createSourceEngine(options, owner))),
      (error: unknown) => onLoadFailure(loadFailure(error)),
    );
  };

  return {
    discover(signal?: AbortSignal): Promise<ToolSnapshot> {
      if (signal?.aborted) return Promise.reject(cancelled());
      const loading = Promise.resolve(
        withEngine(
          (e) => e.load(),
          (error) => {
            throw error;
          },
        ),
      );
      if (!signal) return loading;
      // Only this caller stops waiting: the discovery goes on for the others.
      return new Promise<ToolSnapshot>((resolve, reject) => {
        const onAbort = () => reject(cancelled());
        signal.addEventListener('abort', onAbort, { once: true });
        loading.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    },

    async execute(toolCall: ToolCall, revisionPlanned: number, signal?: AbortSignal): Promise<ToolSourceResult> {
      if (owner.disposed) return failed('DISPOSED', DISPOSED_MESSAGE);
      return withEngine(
        (e) => e.execute(toolCall, revisionPlanned, signal),
        (error) => failed(error.code, error.message, error.details),
      );
    },

    subscribe(listener: () => void): () => void {
      return listen(listeners, listener, 'subscribe');
    },

    onActivity(listener: (activity: ToolActivity) => void): () => void {
      const off = listen(activityListeners, listener, 'onActivity');
      // The engine listens from its host lookup, as for `toolchange`: fetch it now if need be. If
      // that fails, the next discover() fetches again and listening starts then.
      void withEngine(
        (e) => e.watch(),
        () => undefined,
      );
      return off;
    },

    dispose(): void {
      if (owner.disposed) return;
      owner.disposed = true;
      listeners.clear();
      activityListeners.clear();
      engine?.dispose();
    },
  };
}
