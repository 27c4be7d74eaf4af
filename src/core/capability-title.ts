/**
 * The human label projections show for a capability (WebMCP's and MCP's `title`): the contract's own
 * `title` when it has one, else a readable form of its id. A module of its own so that only the
 * projections that show titles carry it.
 */
import type { CapabilityDescriptor } from './types.js';

/** The longest instance id a title quotes in full; longer ones are cut, the tool name tells them apart. */
const MAX_QUOTED_INSTANCE = 40;

/** `setPower` → `set power`, `exportCSV` → `export CSV`, `dark-mode` → `dark mode`. */
function words(segment: string): string {
  return segment
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    // A capitalized word reads as an ordinary word; an all-caps one is an acronym and stays.
    .map((w) => (/^[A-Z][a-z0-9]*$/.test(w) ? w.toLowerCase() : w))
    .join(' ');
}

/**
 * A readable label for a capability id: the last segment is what it does, the ones before it where:
 * `domain:devices.setPower` → `Devices: set power`, `view:settings.save` → `Settings: save`,
 * `domain:search` → `Search`. The plane is left out.
 */
export function readableTitle(capabilityId: string): string {
  const path = capabilityId.slice(capabilityId.indexOf(':') + 1).split('.').map(words).filter(Boolean);
  const last = path.pop() ?? capabilityId;
  const text = path.length ? `${path.join(' ')}: ${last}` : last;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The title of one projected tool: the contract's `title` or {@link readableTitle} of the id, and
 * for a view instance its id, quoted as data (`Devices: rename ("kitchen")`): instance ids come from
 * the page at run time, so they are quoted, stripped of bidi controls and cut to a bounded length.
 */
export function capabilityTitle(d: Pick<CapabilityDescriptor, 'capabilityId' | 'instanceId' | 'title'>): string {
  const base = d.title ?? readableTitle(d.capabilityId);
  if (d.instanceId === undefined) return base;
  let instance = d.instanceId.replace(/[\u202a-\u202e\u2066-\u2069]/g, '');
  if (instance.length > MAX_QUOTED_INSTANCE) instance = `${instance.slice(0, MAX_QUOTED_INSTANCE - 1)}…`;
  return `${base} (${JSON.stringify(instance)})`;
}
