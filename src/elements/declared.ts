/**
 * How `<agent-capability>` reaches its markup reader: reading contracts from markup (the declaration
 * rules and schema-script handling the compiler shares) is a real `import()` in every build, fetched
 * when the first `<agent-capability>` asks for it, so a page that registers from script never
 * downloads it.
 * An element that needs it before it arrives registers once it is here, and its `updateComplete`
 * waits for that. If the chunk cannot be loaded, the page author sees why on the console (once) and
 * the element stays unregistered until its next update, which tries again.
 */
import { issueError } from '../core/dev.js';
import { lazyModule } from '../core/util.js';

export type DeclaredContractReader = typeof import('./declared-contract.js').declaredContract;

const chunk = lazyModule(() => import('./declared-contract.js'));

/** The markup reader, or `undefined` while it is on its way. */
export function declaredContractReader(): DeclaredContractReader | undefined {
  return chunk.module?.declaredContract;
}

/** Settles once the reader is there (`true`) or could not be loaded (`false`). */
export function declaredContractLoaded(): Promise<boolean> {
  return chunk.load().then(
    () => true,
    (error: unknown) => {
      issueError(
        'DECLARATION_UNAVAILABLE',
        'load',
        `<agent-capability>: the markup reader did not load (${String(error)}); capabilities declared in markup register on their next update`,
      );
      return false;
    },
  );
}
