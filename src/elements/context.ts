/**
 * The context keys the elements share through `@lit/context`. Keys are global symbols
 * (`Symbol.for`) so two copies of the kit on one page (an app bundle and the CDN file) still meet.
 */
import { ContextRoot, createContext } from '@lit/context';
import type { AgentSurfaceRegistry } from '../core/types.js';

/**
 * The registry of the nearest `<agent-surface>`. `undefined` while the surface has no registry yet
 * (no `.authority` and no `.registry`): consumers subscribe and act once a registry arrives.
 */
export const registryContext = createContext<AgentSurfaceRegistry | undefined>(
  Symbol.for('agent-surface-kit/registry'),
);

/** What an `<agent-view>` tells the capabilities inside it. */
export interface AgentViewContextValue {
  /** The view's `name`: capabilities inside get the id `view:<name>.<capability name>`. */
  readonly name: string;
  /** The instance id the capabilities register with (`instance` or one derived from document order). */
  readonly instance?: string;
  /** Set when the view itself is refused (nested in another view, no name): nothing inside registers. */
  readonly refused?: string;
  /**
   * Set for the moment (a microtask) a view without `instance` waits for its place among same-name
   * views: what's inside registers once it has its instance id, never first without one.
   */
  readonly placing?: true;
}

/** The nearest `<agent-view>`. */
export const viewContext = createContext<AgentViewContextValue | undefined>(
  Symbol.for('agent-surface-kit/view'),
);

const ROOT = Symbol.for('agent-surface-kit/context-root');

/**
 * Attaches one `ContextRoot` to the document (once per page, shared by every copy of the kit). It
 * keeps the requests of elements that upgrade before their provider and replays them when the
 * provider appears: what lets the tags be defined in any order. Consumers call it before requesting.
 */
export function ensureContextRoot(document: Document): void {
  const holder = globalThis as { [ROOT]?: ContextRoot };
  if (!holder[ROOT]) (holder[ROOT] = new ContextRoot()).attach(document.documentElement);
}
