/**
 * Concurrency for serial capabilities (DESIGN section 3, step 8): one FIFO per registration, i.e.
 * per (capability, instance). One call runs; up to `depth` calls wait behind it; more are refused
 * (`RATE_LIMITED`). The uncontended path is a boolean: no queue, no promise.
 */

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
