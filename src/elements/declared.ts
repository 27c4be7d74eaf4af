/**
 * How `<agent-capability>` reaches the parts of it that can wait, in one chunk: reading contracts from
 * markup (the declaration rules and schema-script handling the compiler shares) and answering a call
 * with `agent-invoke` (invoke-event.ts). It is a real `import()` in every build, fetched when the
 * first `<agent-capability>` asks for it, so a page that registers from script with handlers never
 * downloads it, and one that declares its capabilities in markup has it before they register.
 * An element that needs the reader before it arrives registers once it is here, and its
 * `updateComplete` waits for that. If the chunk cannot be loaded, the page author sees why on the
 * console (once) and the element stays unregistered until its next update, which tries again; a call
 * that needs `agent-invoke` then fails with `EXECUTION_FAILED` (`details.reason: "load-failed"`,
 * retry `after-delay`), and the next call loads again.
 */
import { issueError } from '../core/dev.js';
import { AgentSurfaceError } from '../core/errors.js';
import { lazyModule } from '../core/util.js';

export type ElementChunk = typeof import('./declared-contract.js');
export type DeclaredContractReader = ElementChunk['declaredContract'];

export const elementChunk = lazyModule<ElementChunk>(() => import('./declared-contract.js'));

/** The markup reader, or `undefined` while it is on its way. */
export function declaredContractReader(): DeclaredContractReader | undefined {
  return elementChunk.module?.declaredContract;
}

/** Settles once the reader is there (`true`) or could not be loaded (`false`). */
export function declaredContractLoaded(): Promise<boolean> {
  return elementChunk.load().then(
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

/** What a call that needed the chunk answers when it could not be loaded: it ran nothing. */
export function chunkUnavailable(): never {
  throw new AgentSurfaceError('EXECUTION_FAILED', "The call did not run: the page could not load the kit's element code. Try again later.", {
    retry: 'after-delay',
    details: { reason: 'load-failed' },
  });
}
