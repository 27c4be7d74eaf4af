/**
 * How `<agent-capability>` reaches the parts of it that can wait, in one chunk: its registration
 * (capability-registration.ts: batches, claims, refusals, answering calls with `agent-invoke`) and
 * reading contracts from markup (the declaration rules and schema-script handling the compiler
 * shares). It is a real `import()` in every build, fetched when the first `<agent-capability>` with a
 * registry to register with updates, so a page that registers from script alone never downloads it,
 * and every capability's first registration on a page waits for one fetch, which its
 * `updateComplete` (and `<agent-surface>.ready`) covers. If the chunk cannot be loaded, the page
 * author sees why on the console (once) and the element stays unregistered until its next update,
 * which tries again.
 */
import { issueError } from '../core/dev.js';
import { lazyModule } from '../core/util.js';

export type ElementChunk = typeof import('./capability-registration.js');

export const elementChunk = lazyModule<ElementChunk>(() => import('./capability-registration.js'));

/** Settles once the chunk is there (`true`) or could not be loaded (`false`). */
export function elementChunkLoaded(): Promise<boolean> {
  return elementChunk.load().then(
    () => true,
    (error: unknown) => {
      issueError(
        'DECLARATION_UNAVAILABLE',
        'load',
        `<agent-capability>: the element's registration code did not load (${String(error)}); capabilities register on their next update`,
      );
      return false;
    },
  );
}
