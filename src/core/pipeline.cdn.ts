/**
 * The CDN build's `pipeline.ts`: the invoke pipeline (the biggest part of the core), the stores
 * only it fills (confirmation records, idempotency entries) and the list of running calls are one
 * chunk beside the entry file,
 * fetched when the first registry is created, so a page pays for them after its elements are up,
 * and an agent's first call rarely waits for them.
 * `registry.invoke()` keeps its contract: it never rejects. If the chunk cannot be loaded (the
 * network failed), the call fails with `EXECUTION_FAILED` (`details.reason: "pipeline-unavailable"`,
 * retry `after-delay`), runs nothing, and the next call tries again.
 *
 * The pipeline builds the idempotency store and the running list on its first call. Until the
 * chunk is there, a registry's confirmation store is a stand-in: no record can exist before the
 * pipeline has run, so it answers as an empty real store does, keeps what has to outlast the wait
 * (subscribers, a dispose), and hands over to a real store built with the same options on its
 * first use after the chunk has loaded.
 */
import { issueError } from './dev.js';
import { errorPayload } from './errors.js';
import { isSignal, lazyModule } from './util.js';
import type { ConfirmationStoreOptions } from './confirmations.js';
import type * as Linked from './pipeline.js';
import type { Registration, RegistryCore } from './registry.js';
import type { AgentInvocationResult, ConfirmationOutcome, PendingConfirmation } from './types.js';

type Pipeline = typeof Linked;
type RealConfirmationStore = InstanceType<Pipeline['ConfirmationStore']>;

// From this file, `./pipeline.js` is the linked seam (rollup.config.js): invoke.ts and the real stores.
const pipeline = lazyModule<Pipeline>(() => import('./pipeline.js'));

export function preparePipeline(): void {
  // Started now, awaited by the first call; a failure here is reported by that call.
  pipeline.load().catch(() => {});
}

export function runInvocation(core: RegistryCore, request: unknown): Promise<AgentInvocationResult> {
  const loaded = pipeline.module;
  if (loaded !== undefined) return loaded.runInvocation(core, request);
  return pipeline.load().then(
    (m) => m.runInvocation(core, request),
    (error: unknown): AgentInvocationResult => {
      // The agent is told to try later, without the loader's words; the page author sees them once.
      issueError('pipeline-unavailable', 'load', `the invoke pipeline chunk did not load: ${String(error)}`);
      let id: unknown;
      try {
        id = (request as { invocationId?: unknown } | null)?.invocationId;
      } catch {
        // A hostile getter: the result carries no id.
      }
      return {
        ok: false,
        error: errorPayload(
          'EXECUTION_FAILED',
          "The call did not run: the page could not load the kit's invoke pipeline. Try again later.",
          { reason: 'pipeline-unavailable' },
          'after-delay',
        ),
        invocationId: typeof id === 'string' ? id : '',
        surfaceVersion: core.surfaceVersion,
      };
    },
  );
}

/** Calls run and wait only once the chunk has loaded: before that there is nothing to stop. */
export function stopCalls(core: RegistryCore, registration?: Registration): void {
  pipeline.module?.stopCalls(core, registration);
}

type Listener = (pending: PendingConfirmation[]) => void;

/** Stands in for `confirmations.ts`'s store until the pipeline's chunk is there. */
export class ConfirmationStore implements Pick<RealConfirmationStore, keyof RealConfirmationStore> {
  readonly #options: ConfirmationStoreOptions;
  #real: RealConfirmationStore | undefined;
  /** Subscribers while there is no real store yet, in subscription order. */
  readonly #early = new Set<Listener>();
  #disposed = false;

  constructor(options: ConfirmationStoreOptions) {
    this.#options = options;
  }

  /** The real store once the chunk has loaded (built on first use), else undefined. */
  #store(): RealConfirmationStore | undefined {
    const loaded = pipeline.module;
    if (this.#real !== undefined || loaded === undefined) return this.#real;
    const real = new loaded.ConfirmationStore(this.#options);
    for (const listener of this.#early) real.subscribe(listener);
    this.#early.clear();
    if (this.#disposed) real.dispose();
    return (this.#real = real);
  }

  // -- the person's side: an empty store's answers until the real one exists -------------------

  // The public methods are handed around detached, as the real store's are: arrow properties.

  list = (): PendingConfirmation[] => this.#store()?.list() ?? [];

  subscribe = (listener: Listener): (() => void) => {
    const real = this.#store();
    if (real !== undefined) return real.subscribe(listener);
    if (typeof listener !== 'function') throw new TypeError('confirmations.subscribe(listener): listener must be a function');
    if (this.#disposed) return () => {};
    this.#early.add(listener);
    return () => {
      const now = this.#real;
      // On the real store, subscribing and unsubscribing at once removes the listener wherever
      // it is, which is what the real store's own unsubscribe does.
      if (now !== undefined) now.subscribe(listener)();
      else this.#early.delete(listener);
    };
  };

  approve = (confirmationId: string): boolean => this.#store()?.approve(confirmationId) ?? false;

  deny = (confirmationId: string, reason?: string): boolean => this.#store()?.deny(confirmationId, reason) ?? false;

  waitFor = (confirmationId: string, options: { signal?: AbortSignal } = {}): Promise<ConfirmationOutcome> => {
    const real = this.#store();
    if (real !== undefined) return real.waitFor(confirmationId, options);
    // Read the options as the real store does (a getter can notice); no id is known yet.
    let signal: unknown;
    try {
      signal = options?.signal;
    } catch {
      // Unreadable options: no signal.
    }
    isSignal(signal);
    return Promise.resolve({ status: 'unknown' });
  };

  // -- the pipeline's and the registry's side ------------------------------------------------
  // Only the pipeline fills the store, and it runs once the chunk has loaded, so the real store
  // is there for these three (were it not, a kit bug, they would throw a TypeError).

  request(binding: Parameters<RealConfirmationStore['request']>[0]): ReturnType<RealConfirmationStore['request']> {
    return this.#store()!.request(binding);
  }

  check(
    confirmationId: string,
    binding: Parameters<RealConfirmationStore['check']>[1],
  ): ReturnType<RealConfirmationStore['check']> {
    return this.#store()!.check(confirmationId, binding);
  }

  consume(record: Parameters<RealConfirmationStore['consume']>[0]): boolean {
    return this.#store()!.consume(record);
  }

  expireRegistration(registrationId: string): void {
    this.#store()?.expireRegistration(registrationId);
  }

  dispose(): void {
    const real = this.#store();
    if (real !== undefined) return real.dispose();
    this.#disposed = true;
    this.#early.clear();
  }
}
