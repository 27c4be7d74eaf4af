/**
 * The calls in progress whose handler returned a pending promise, and how the registry ends them
 * (and the queued ones) when a registration goes away. The registry reaches `stopCalls` through
 * the pipeline's seam: in the CDN build this module loads with the pipeline, as no call can run or
 * wait before it has.
 */
import type { AbortCode } from './invoke.js';
import { drainQueue } from './queue.js';
import type { Registration, RegistryCore } from './registry.js';

/** What the list needs of a call (invoke.ts's `Execution`). */
export interface RunningCall {
  readonly deadline: number;
  readonly registration: Registration;
  prev: RunningCall | undefined;
  next: RunningCall | undefined;
  abort(code: AbortCode): void;
}

const now = (): number => Date.now();

/**
 * Whether a timer keeps a Node process alive (`ref`) or lets it exit (`unref`): the registry's
 * timers (running calls, confirmation waits) hold it only while someone awaits what they end, so
 * a forgotten registry never does. Browsers' timers have neither method. Here rather than in
 * util.ts: only the pipeline's chunk needs it.
 */
export function holdOpen(timer: ReturnType<typeof setTimeout> | undefined, hold: boolean): void {
  (timer as { ref?(): void; unref?(): void } | undefined)?.[hold ? 'ref' : 'unref']?.();
}

/**
 * The calls whose handler returned a pending promise, in a linked list, with one timer for all
 * their timeouts armed for the earliest deadline. A call that settles in time costs a list insert
 * and unlink. In Node the timer holds the process open only while a call runs (someone awaits its
 * result, which the timeout guarantees); while idle it is unref'd, so a forgotten registry never
 * keeps a process alive.
 */
export class RunningCalls {
  #head: RunningCall | undefined = undefined;
  #size = 0;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #armedFor = Infinity;

  add(execution: RunningCall): void {
    const head = this.#head;
    execution.next = head;
    if (head !== undefined) head.prev = execution;
    this.#head = execution;
    this.#size++;
    if (execution.deadline < this.#armedFor) this.#arm(execution.deadline);
    else if (this.#size === 1) holdOpen(this.#timer, true);
  }

  delete(execution: RunningCall): void {
    const { prev, next } = execution;
    if (prev === undefined && this.#head !== execution) return;
    if (prev !== undefined) prev.next = next;
    else this.#head = next;
    if (next !== undefined) next.prev = prev;
    execution.prev = execution.next = undefined;
    if (--this.#size === 0) holdOpen(this.#timer, false);
  }

  /** Ends the running calls of one registration (it is going away), or of all with none given. */
  abort(code: AbortCode, registration?: Registration): void {
    for (const e of this.#list()) if (registration === undefined || e.registration === registration) e.abort(code);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.#head = undefined;
    this.#size = 0;
  }

  /** A copy to iterate while calls end (and unlink themselves). */
  #list(): RunningCall[] {
    const out: RunningCall[] = [];
    for (let e = this.#head; e !== undefined; e = e.next) out.push(e);
    return out;
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
    for (const e of this.#list()) {
      // Timers may fire a millisecond early on some engines.
      if (e.deadline <= t + 1) e.abort('TIMEOUT');
      else if (e.deadline < next) next = e.deadline;
    }
    if (next !== Infinity) this.#arm(next);
  }
}


/**
 * Ends the running and queued calls of a registration that went away, or of every registration
 * (the registry is being disposed; its running list is then dropped with its timer).
 */
export function stopCalls(core: RegistryCore, registration?: Registration): void {
  const running = core.running;
  running?.abort('COMPONENT_UNMOUNTED', registration);
  if (registration !== undefined) return drainQueue(registration, 'COMPONENT_UNMOUNTED');
  for (const r of core.ordered) drainQueue(r, 'COMPONENT_UNMOUNTED');
  running?.dispose();
}
