/**
 * The calls in progress: those whose handler returned a pending promise, with one timer for their
 * timeouts, and the queued ones. Part of the invoke pipeline's module graph: the registry reaches
 * them only through `RegistryCore.running` (typed there by what it needs), which the pipeline
 * fills on its first call, so no call can run or wait before this module has loaded.
 */
import { drainQueue, type SerialSlot } from './queue.js';

/**
 * Whether a timer keeps a Node process alive (`ref`) or lets it exit (`unref`): the registry's
 * timers (running calls, confirmation waits) hold it only while someone awaits what they end, so
 * a forgotten registry never does. Browsers' timers have neither method.
 */
export function holdOpen(timer: ReturnType<typeof setTimeout> | undefined, hold: boolean): void {
  (timer as { ref?(): void; unref?(): void } | undefined)?.[hold ? 'ref' : 'unref']?.();
}

/** Why a running call is ended early. */
export type AbortCode = 'TIMEOUT' | 'CANCELLED' | 'COMPONENT_UNMOUNTED';

/** What the set needs of a call (invoke.ts's `Execution`). */
export interface RunningCall {
  readonly deadline: number;
  /** The registration the call runs on, compared by identity only. */
  readonly registration: object;
  abort(code: AbortCode): void;
}

const now = (): number => Date.now();

/**
 * The calls whose handler returned a pending promise, in a set, with one timer for all their
 * timeouts armed for the earliest deadline. A call that settles in time costs a set insert and
 * delete. In Node the timer holds the process open only while a call runs (someone awaits its
 * result, which the timeout guarantees); while idle it is unref'd, so a forgotten registry never
 * keeps a process alive.
 */
export class RunningCalls {
  /** The registry's registrations (its live list), whose queues `stop()` drains on dispose. */
  readonly #registrations: readonly SerialSlot[];
  readonly #calls = new Set<RunningCall>();
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #armedFor = Infinity;

  constructor(registrations: readonly SerialSlot[]) {
    this.#registrations = registrations;
  }

  /**
   * Ends the running and queued calls of a registration that went away, or of every registration
   * (the registry is being disposed; the set is then dropped with its timer).
   */
  stop(registration?: SerialSlot): void {
    // A copy: each call deletes itself from the set as it ends.
    for (const e of [...this.#calls]) if (registration === undefined || e.registration === registration) e.abort('COMPONENT_UNMOUNTED');
    if (registration !== undefined) return drainQueue(registration, 'COMPONENT_UNMOUNTED');
    for (const r of this.#registrations) drainQueue(r, 'COMPONENT_UNMOUNTED');
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.#calls.clear();
  }

  add(execution: RunningCall): void {
    this.#calls.add(execution);
    if (execution.deadline < this.#armedFor) this.#arm(execution.deadline);
    else if (this.#calls.size === 1) holdOpen(this.#timer, true);
  }

  /** A call that settled; a no-op for one already gone. */
  delete(execution: RunningCall): void {
    if (this.#calls.delete(execution) && this.#calls.size === 0) holdOpen(this.#timer, false);
  }

  #arm(deadline: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = deadline;
    // Armed only while calls run (from add, or for calls left after firing): the timer stays ref'd.
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, deadline - now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const t = now();
    let next = Infinity;
    for (const e of [...this.#calls]) {
      // Timers may fire a millisecond early on some engines.
      if (e.deadline <= t + 1) e.abort('TIMEOUT');
      else if (e.deadline < next) next = e.deadline;
    }
    if (next !== Infinity) this.#arm(next);
  }
}
