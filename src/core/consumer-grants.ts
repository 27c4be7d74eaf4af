/**
 * Which projections a page's script allowed to reach its registry, and under which consumer
 * identity. Markup can declare a projection (`<agent-webmcp consumer="…" prefix="…">`,
 * `<agent-chat consumer="…">`) but not grant it: an element found in markup starts only when the
 * page's script granted its projection for that registry (`surface.consumers = { webmcp: {…} }` or
 * `grantConsumers(registry, …)`), and its attributes may only repeat what was granted. So injected
 * markup publishes nothing on a page that never used WebMCP, and cannot borrow another
 * projection's consumer id to slip past consumer-based policies.
 *
 * The store (this module) is tiny and loads with the elements; the check is `checkConsumerGrant`
 * in `consumer-grant-check.ts`, loaded with the projection that needs it.
 */

/** What one projection may use: its consumer id (default: the projection's own) and tool-name prefix. */
export interface ConsumerGrant {
  /** The consumer id its calls carry; markup must ask for this one or none. */
  consumer?: string;
  /** The tool-name prefix; when set, markup must ask for this one or none. */
  prefix?: string;
  /**
   * WebMCP only: origins whose frames may see the tools (`<agent-webmcp exposed-to>`). Markup may
   * list these or fewer; without the attribute the projection uses this list. Not granted, markup
   * cannot open the tools to any other origin.
   */
  exposedTo?: readonly string[];
}

/** Grants by projection: `webmcp`, `chat`, or any name a projection checks for. `true` grants the defaults. */
export type ConsumerGrants = Readonly<Record<string, ConsumerGrant | true>>;

const grants = new WeakMap<object, ConsumerGrants>();

/**
 * Grants projections of `registry` (replacing earlier grants; `undefined` withdraws them). Script
 * only: there is no attribute for it. `surface.consumers` calls it and tells the elements inside;
 * an element given this registry directly sees the change at its next update (`requestUpdate()`).
 */
export function grantConsumers(registry: object, value: ConsumerGrants | undefined): void {
  // Anything but an object withdraws: a mistake fails closed.
  if (value && typeof value === 'object') grants.set(registry, value);
  else grants.delete(registry);
}

/** The grants script gave `registry`, if any. */
export function consumerGrantsOf(registry: object): ConsumerGrants | undefined {
  return grants.get(registry);
}
