/**
 * Wire names: capability ids projected to provider tool names (`^[A-Za-z0-9_-]{1,64}$`).
 *
 * Canonical ids encode reversibly (`view:devices.table.selectRows` → `view_devices__table__selectRows`).
 * Everything else (non-canonical ids, instance ids that are not plain tokens, names over 64 characters)
 * is escaped and given a `-<hash>` suffix. A canonical encoding never contains `-` nor a single `_`
 * after the plane, so `decodeWireName` can tell the reversible names from all the others.
 */
import { isCanonicalCapabilityId } from './capability-id.js';
import { wireHash } from './hash.js';

export const WIRE_NAME_MAX_LENGTH = 64;
export const WIRE_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const CANONICAL_WIRE = /^(view|domain)_([A-Za-z][A-Za-z0-9]*(?:__[A-Za-z][A-Za-z0-9]*)*)$/;
/** Instance ids kept verbatim; anything else is escaped and hashed. */
const PLAIN_INSTANCE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const UNSAFE_CHAR = /[^A-Za-z0-9_-]/g;
const DOTS = /\./g;

/** Hash characters at level 0; each collision level adds more. */
const BASE_HASH_LENGTH = 8;
const HASH_STEP = 6;

/** Identity of a (capability, instance) pair; `undefined` and `""` instances differ. */
export const targetKey = ({ capabilityId, instanceId }: WireNameEntry): string =>
  instanceId === undefined ? capabilityId : `${capabilityId}\u0000${instanceId}`;

/**
 * The wire name with a given collision level. Level 0 is the public encoding; level n ≥ 1 always
 * carries a hash of `BASE_HASH_LENGTH + n * HASH_STEP` characters, used to separate names that
 * collided inside one catalog.
 */
export function encodeWireNameAtLevel(id: string, instanceId: string | undefined, level: number): string {
  // A canonical id and a plain instance have nothing to escape but `:` and `.` (the common case).
  const plain = isCanonicalCapabilityId(id) && (instanceId === undefined || PLAIN_INSTANCE.test(instanceId));
  // `:` → `_`, `.` → `__`, anything else outside `[A-Za-z0-9_-]` → `_`.
  let idPart = id.replace(':', '_').replace(DOTS, '__');
  let instancePart = instanceId === undefined ? '' : `_at_${instanceId}`;
  if (!plain) {
    idPart = idPart.replace(UNSAFE_CHAR, '_');
    instancePart = instancePart.replace(UNSAFE_CHAR, '_');
  }
  const readable = idPart + instancePart;
  if (level === 0 && plain && readable.length <= WIRE_NAME_MAX_LENGTH) return readable;
  const hashLength = Math.min(BASE_HASH_LENGTH + level * HASH_STEP, WIRE_NAME_MAX_LENGTH - 1);
  const hash = wireHash(`${level}\u0001${targetKey({ capabilityId: id, instanceId })}`, hashLength);
  return `${shorten(idPart, instancePart, WIRE_NAME_MAX_LENGTH - 1 - hashLength)}-${hash}`;
}

/** Cuts `text` to `room` characters in its middle, keeping both ends (`room` ≥ 4 at every call). */
function cutMiddle(text: string, room: number): string {
  const head = Math.ceil((room - 1) / 2);
  return text.length <= room ? text : `${text.slice(0, head)}_${text.slice(head + 1 - room)}`;
}

/**
 * Fits a readable id into `room` characters, keeping what tells tools apart to a model: the plane
 * and first segment when they fit, and the last segments (the verb). Middle segments go first.
 */
function shortenId(readable: string, room: number): string {
  if (readable.length <= room) return readable;
  const parts = readable.split('__');
  if (parts.length > 1) {
    const underscore = parts[0]!.indexOf('_');
    const plane = underscore > 0 ? parts[0]!.slice(0, underscore) : '';
    for (const [lead, glue] of [
      [parts[0]!, '__'],
      [plane, '_'],
    ] as const) {
      if (lead === '') continue;
      let tail = '';
      for (let i = parts.length - 1; i > 0; i--) {
        const next = tail === '' ? parts[i]! : `${parts[i]}__${tail}`;
        if (lead.length + glue.length + next.length > room) break;
        tail = next;
      }
      if (tail !== '') return `${lead}${glue}${tail}`;
    }
  }
  return cutMiddle(readable, room);
}

/** A readable name in `room` characters: the instance suffix keeps at most half of the room. */
function shorten(idPart: string, instancePart: string, room: number): string {
  if (idPart.length + instancePart.length <= room) return idPart + instancePart;
  // Deep collision levels leave almost no room (never below 0: the hash takes at most 63): a plain
  // cut is all that fits.
  if (room < 16) return (idPart + instancePart).slice(0, room);
  const suffix =
    instancePart === ''
      ? ''
      : `_at_${cutMiddle(instancePart.slice(4), Math.floor(room / 2) - 4)}`;
  return shortenId(idPart, room - suffix.length) + suffix;
}

/**
 * The provider tool name for a capability (and instance). Always matches `^[A-Za-z0-9_-]{1,64}$`.
 * Reverse it only through the catalog's `wireNameMap()`: shortened and hashed names are not reversible.
 */
export function encodeWireName(id: string, instanceId?: string): string {
  return encodeWireNameAtLevel(id, instanceId, 0);
}

/**
 * The capability id of a canonical, unshortened, unqualified wire name; `undefined` for any other
 * name (shortened, instance-qualified, non-canonical).
 */
export function decodeWireName(name: string): string | undefined {
  if (name.length > WIRE_NAME_MAX_LENGTH) return undefined;
  const match = CANONICAL_WIRE.exec(name);
  if (!match) return undefined;
  return `${match[1]}:${match[2]!.split('__').join('.')}`;
}

export interface WireNameEntry {
  capabilityId: string;
  instanceId?: string;
}

/**
 * Names for a whole catalog, unique. Names that collide are re-encoded, all of them, with a longer
 * hash, level by level, until none collide. Resolution depends only on the colliding entries, so
 * adding or removing an unrelated capability never renames another one. Entries with the same
 * (capability, instance) share one name.
 */
export function assignWireNames<T extends WireNameEntry>(
  entries: readonly T[],
  encode: (id: string, instanceId: string | undefined) => string = encodeWireName,
): Map<T, string> {
  const names = new Map<T, string>();
  const byName = new Map<string, T[]>();
  /** Names `entry`; answers the group that already had the name, if any. */
  const place = (entry: T, name: string): T[] | undefined => {
    names.set(entry, name);
    const group = byName.get(name);
    if (group) group.push(entry);
    else byName.set(name, [entry]);
    return group;
  };
  for (const entry of entries) place(entry, encode(entry.capabilityId, entry.instanceId));
  let colliding = [...byName.values()];
  for (let level = 1; (colliding = colliding.filter(manyTargets)).length > 0; level++) {
    // 53-bit hashes chained to 63 characters: reaching this means the hash itself is broken.
    if (level > 16) throw new Error('assignWireNames: names still collide after 16 re-encodings');
    const next: T[][] = [];
    for (const group of colliding) {
      byName.delete(names.get(group[0]!)!);
      for (const entry of group) {
        const other = place(entry, encodeWireNameAtLevel(entry.capabilityId, entry.instanceId, level));
        if (other && !next.includes(other)) next.push(other);
      }
    }
    colliding = next;
  }
  return names;
}

/** Whether a group of entries with one name holds more than one target. */
function manyTargets(group: readonly WireNameEntry[]): boolean {
  return group.length > 1 && new Set(group.map(targetKey)).size > 1;
}
