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
 * wait with that value instead (cancelled, unmounted) and it never runs.
 */
export class QueueWaiter<T> {
  readonly promise: Promise<T | undefined>;
  settle!: (value: T | undefined) => void;
  done = false;

  constructor() {
    this.promise = new Promise<T | undefined>((resolve) => {
      this.settle = (value) => {
        if (this.done) return;
        this.done = true;
        resolve(value);
      };
    });
  }
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
  const waiter = new QueueWaiter<T>();
  waiting.push(waiter as QueueWaiter<unknown>);
  return waiter;
}

/** Passes the slot to the oldest waiter, or frees it. */
export function releaseSlot(slot: SerialSlot): void {
  const waiting = slot.waiting;
  if (waiting !== undefined) {
    while (waiting.length > 0) {
      const next = waiting.shift()!;
      if (next.done) continue;
      next.settle(undefined); // the slot stays taken: it now belongs to `next`
      return;
    }
  }
  slot.running = false;
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
