/**
 * `createWebMcpAdapter` and `createWebMcpSource` behind `import()`, for the CDN entry: a page that
 * never starts an adapter or discovers tools never downloads them. Same signatures and observable
 * behaviour as ./adapter.js and ./source.js: what can be answered without the module is answered
 * at once, with the same errors; every other call waits for the module, and once it is there the
 * real object is created and the waiting calls run on it in the order they were made, in one go.
 * The options are handed to the real factory as given (the real ones read them as they go).
 */
import { checkAdapterHost, validateAdapterOptions } from './adapter-options.js';
import {
  DISCOVERY_CANCELLED_MESSAGE,
  DISPOSED_MESSAGE,
  ToolSourceError,
  checkSourceOptions,
  failed,
} from './source-error.js';
import type {
  ToolCall,
  ToolSnapshot,
  ToolSource,
  ToolSourceResult,
  WebMcpAdapter,
  WebMcpAdapterHost,
  WebMcpAdapterOptions,
  WebMcpAdapterStatus,
  WebMcpSourceOptions,
} from './types.js';

/**
 * Loads a module on first need and builds the real object once. `call` waits for it: the waiting
 * calls are reactions to one promise, so they run in the order they were made, one right after the
 * other, and the first of them hands the real object over (`onReady`) before any of them runs.
 */
function lazily<T>(load: () => Promise<T>, onReady: (real: T) => void) {
  let loading: Promise<T> | undefined;
  let ready = false;
  return {
    get loading(): boolean {
      return loading !== undefined;
    },
    call<R>(use: (real: T) => R | Promise<R>, fallback?: (error: unknown) => R | Promise<R>): Promise<R> {
      loading ??= load().catch((error: unknown) => {
        // A later call may try again (a flaky network, a chunk deployed late).
        loading = undefined;
        throw error;
      });
      return loading.then((real) => {
        if (!ready) onReady(real);
        ready = true;
        return use(real);
      }, fallback);
    },
  };
}

/**
 * `createWebMcpAdapter` of ./adapter.js, loaded on the first `start()`. Options are checked now (a
 * TypeError, as the real one throws), and so is the host given to `start()`, which rejects without
 * loading anything.
 */
export function createWebMcpAdapter(options: WebMcpAdapterOptions = {}): WebMcpAdapter {
  validateAdapterOptions(options);
  let real: WebMcpAdapter | undefined;
  // Before the module arrives the adapter is idle, or stopped by a stop() after a start().
  let status: WebMcpAdapterStatus = 'idle';
  const loader = lazily(
    async () => (await import('./adapter.js')).createWebMcpAdapter(options),
    (adapter) => (real = adapter),
  );
  const done = () => undefined;

  return {
    name: 'webmcp',
    get status() {
      return real ? real.status : status;
    },
    get shape() {
      return real?.shape;
    },
    start(host: WebMcpAdapterHost): Promise<void> {
      if (real) return real.start(host);
      try {
        checkAdapterHost(host);
      } catch (error) {
        return Promise.reject(error);
      }
      // A second start() while loading fails on the real adapter, as it would have at once.
      return loader.call((adapter) => adapter.start(host));
    },
    stop(): Promise<void> {
      if (real) return real.stop();
      // Nothing started: the real adapter's stop() would change nothing either.
      if (!loader.loading) return Promise.resolve();
      // A start() is waiting, and the real adapter reads `stopped` at once when a stop voids it.
      status = 'stopped';
      return loader.call((adapter) => adapter.stop(), done);
    },
    toolNames(): string[] {
      return real ? real.toolNames() : [];
    },
    settled(): Promise<void> {
      if (real) return real.settled();
      if (!loader.loading) return Promise.resolve();
      return loader.call((adapter) => adapter.settled(), done);
    },
  };
}

/** Settles like `promise`, or rejects with `CANCELLED` once `signal` aborts (as the real discover does). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return signal
    ? new Promise<T>((resolve, reject) => {
        const onAbort = () => reject(new ToolSourceError('CANCELLED', DISCOVERY_CANCELLED_MESSAGE));
        signal.addEventListener('abort', onAbort, { once: true });
        promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      })
    : promise;
}

/** The error a call answers with when the source's module could not be loaded. */
function loadFailure(error: unknown): ToolSourceError {
  return new ToolSourceError(
    'EXECUTION_FAILED',
    `The WebMCP tool source could not be loaded: ${error instanceof Error && error.message ? error.message : String(error)}`,
    { reason: 'load-failed' },
  );
}

/**
 * `createWebMcpSource` of ./source.js, loading the source on the first
 * `discover()` or `execute()`. Construction never loads; `subscribe()` and `dispose()` work before
 * the module is there and carry over to the real source.
 */
export function createWebMcpSource(options: WebMcpSourceOptions = {}): ToolSource {
  checkSourceOptions(options);
  let real: ToolSource | undefined;
  let disposed = false;
  /**
   * Listeners subscribed before the real source exists (a map: subscribing twice is once, as there),
   * each with its unsubscribe from the real source once carried over.
   */
  const early = new Map<() => void, (() => void) | undefined>();
  const loader = lazily(
    async () => (await import('./source.js')).createWebMcpSource(options),
    (source) => {
      real = source;
      for (const listener of early.keys()) early.set(listener, source.subscribe(listener));
    },
  );

  return {
    discover(signal?: AbortSignal): Promise<ToolSnapshot> {
      if (real) return real.discover(signal);
      if (signal?.aborted) return Promise.reject(new ToolSourceError('CANCELLED', DISCOVERY_CANCELLED_MESSAGE));
      if (disposed) return Promise.reject(new ToolSourceError('DISPOSED', DISPOSED_MESSAGE));
      // The real discovery starts with the module even if the signal aborts first, as it would
      // have started at once: only this caller stops waiting.
      return abortable(
        loader.call(
          (source) => source.discover(),
          (error) => {
            throw loadFailure(error);
          },
        ),
        signal,
      );
    },
    execute(call: ToolCall, revision: number, signal?: AbortSignal): Promise<ToolSourceResult> {
      if (real) return real.execute(call, revision, signal);
      if (disposed) return Promise.resolve(failed('DISPOSED', DISPOSED_MESSAGE));
      return loader.call(
        (source) => source.execute(call, revision, signal),
        (error) => {
          const e = loadFailure(error);
          return failed(e.code, e.message, e.details);
        },
      );
    },
    subscribe(listener: () => void): () => void {
      if (real) return real.subscribe(listener);
      if (disposed) throw new ToolSourceError('DISPOSED', DISPOSED_MESSAGE);
      if (typeof listener !== 'function') throw new TypeError('ToolSource.subscribe(listener): listener must be a function.');
      early.set(listener, undefined);
      return () => {
        early.get(listener)?.();
        early.delete(listener);
      };
    },
    dispose(): void {
      if (real) {
        real.dispose();
        return;
      }
      if (disposed) return;
      disposed = true;
      early.clear();
      // Calls already waiting still run on the real source first, then it is disposed after them.
      if (loader.loading) void loader.call((source) => source.dispose(), () => undefined);
    },
  };
}
