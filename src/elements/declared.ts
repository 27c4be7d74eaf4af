/**
 * How `<agent-capability>` reaches the parts of it that can wait, in one chunk: its registration
 * (capability-registration.ts: batches, claims, refusals, answering calls with `agent-invoke`),
 * reading contracts from markup (the declaration rules and schema-script handling the compiler
 * shares) and the numbering of `<agent-view>`s without an instance (view-numbering.ts). It is a real
 * `import()` in every build, begun when the first `<agent-capability>` is created (upgraded or made
 * by script), before it has a registry, so that by the time it has one the fetch and compile are
 * usually over; a page that registers from script alone never downloads it. A capability that
 * updates with a registry before the chunk is here waits for it, which its `updateComplete` (and
 * `<agent-surface>.ready`) covers. If the chunk cannot be loaded, the page author sees why on the
 * console (once, when a registration needed it) and the element stays unregistered until its next
 * update, which tries again.
 */
import { issueError } from '../core/dev.js';
import { lazyModule } from '../core/util.js';

export type ElementChunk = typeof import('./capability-registration.js');

export const elementChunk = lazyModule<ElementChunk>(() => import('./capability-registration.js'));

let prefetched = false;

/**
 * Begins the chunk's fetch without waiting for it, once per page (the first `<agent-capability>`
 * created). A failure here says nothing and is not retried: the first update that needs the chunk
 * fetches again (`elementChunkLoaded`) and, if that fails too, tells the page author.
 */
export function prefetchElementChunk(): void {
  if (prefetched) return;
  prefetched = true;
  elementChunk.load().catch(() => {});
}

/** What runs once the chunk is here, whoever loaded it: views waiting to number themselves. */
const waiting = new Set<() => void>();

/**
 * Settles once the chunk is there (`true`) or could not be loaded (`false`); `then` runs first, on
 * this load or, if it fails, on the next one that succeeds.
 */
export function elementChunkLoaded(then?: () => void): Promise<boolean> {
  if (then) waiting.add(then);
  return elementChunk.load().then(
    () => {
      for (const go of waiting) go();
      waiting.clear();
      return true;
    },
    (error: unknown) => {
      issueError(
        'DECLARATION_UNAVAILABLE',
        'load',
        `<agent-capability>: the kit's element code did not load (${String(error)}); capabilities register on their next update`,
      );
      return false;
    },
  );
}
