/**
 * The calls in progress: those whose handler returned a pending promise, with one timer for their
 * timeouts, and the queued ones. Part of the invoke pipeline's module graph: the registry reaches
 * them only through `RegistryCore.running` (typed there by what it needs), which the pipeline
 * fills on its first call, so no call can run or wait before this module has loaded.
 */

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
  #timer: ReturnType<typeof setTimeout> | undefined;
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
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, deadline - Date.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const t = Date.now();
    let next = Infinity;
    for (const e of [...this.#calls]) {
      // Timers may fire a millisecond early on some engines.
      if (e.deadline <= t + 1) e.abort('TIMEOUT');
      else if (e.deadline < next) next = e.deadline;
    }
    if (next !== Infinity) this.#arm(next);
  }
}

// ---------------------------------------------------------------------------------------------
// The queues of serial capabilities (DESIGN section 3, step 8): one FIFO per registration, i.e.
// per (capability, instance). One call runs; up to `depth` calls wait behind it; more are refused
// (`RATE_LIMITED`). The uncontended path is a boolean: no queue, no promise.

/** The serial state a registration carries. */
export interface SerialSlot {
  running: boolean;
  /** Calls waiting for the slot, oldest first; created on first contention. */
  waiting?: QueueWaiter<unknown>[];
}

/**
 * A call waiting for the slot. `settle(undefined)` hands it the slot; `settle(value)` ends its
 * wait with that value instead (unmounted) and it never runs. A waiter that gives up (its call was
 * cancelled) leaves the queue at once (`leaveQueue`), so every waiter in a queue still wants the slot.
 */
export interface QueueWaiter<T> {
  readonly promise: Promise<T | undefined>;
  /** The promise's resolve: only its first value counts. */
  readonly settle: (value: T | undefined) => void;
}

/**
 * Takes the slot when it is free (`'run'`), queues a waiter when there is room, or says `'full'`.
 * A waiter that is handed the slot owns it: it must `releaseSlot` when done.
 */
export function acquireSlot<T>(slot: SerialSlot, depth: number): 'run' | 'full' | QueueWaiter<T> {
  if (!slot.running) {
    slot.running = true;
    return 'run';
  }
  const waiting = (slot.waiting ??= []);
  if (waiting.length >= depth) return 'full';
  let settle!: (value: T | undefined) => void;
  const promise = new Promise<T | undefined>((resolve) => (settle = resolve));
  const waiter = { promise, settle };
  waiting.push(waiter as QueueWaiter<unknown>);
  return waiter;
}

/** Passes the slot to the oldest waiter, or frees it. */
export function releaseSlot(slot: SerialSlot): void {
  const next = slot.waiting?.shift();
  // The slot stays taken: it now belongs to `next`.
  if (next !== undefined) next.settle(undefined);
  else slot.running = false;
}

/** Takes a waiter out of the queue (its call was cancelled). */
export function leaveQueue(slot: SerialSlot, waiter: QueueWaiter<unknown>): void {
  const waiting = slot.waiting;
  if (waiting === undefined) return;
  const i = waiting.indexOf(waiter);
  if (i >= 0) waiting.splice(i, 1);
}

/** Ends every wait with `value` (the registration went away). */
export function drainQueue<T>(slot: SerialSlot, value: T): void {
  const waiting = slot.waiting;
  if (waiting === undefined) return;
  slot.waiting = undefined;
  for (const waiter of waiting) waiter.settle(value);
}
