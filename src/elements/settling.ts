/**
 * The connected `<agent-capability>` elements, so `<agent-surface>`'s `updateComplete` can wait until
 * every capability inside it has registered or been refused (a registration can wait for a lazy
 * chunk, the end of parsing, or the batch at the end of a microtask). A module of its own: the
 * surface needs the set, not the capability class.
 */
export interface SettlingCapability extends Element {
  readonly updateComplete: Promise<boolean>;
}

export const connectedCapabilities = new Set<SettlingCapability>();

