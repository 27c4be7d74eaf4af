/**
 * Discovery scope (DESIGN section 3): a list of entries, each a segment prefix of a capability's
 * path (`devices` matches `domain:devices.disable` and `view:devices.table.selectRows`) or a
 * plane-qualified prefix (`view:devices`; `view:` alone is the whole plane). A capability is in
 * scope when any entry matches. No scope, or an empty list, means no narrowing.
 *
 * Scope limits discovery, never authority: `invoke` does not look at it.
 */

/** One scope entry as written. */
export interface ScopeText {
  /** `undefined`: any plane. */
  plane: string | undefined;
  /** Dot-separated path prefix; `''` matches the whole plane. */
  prefix: string;
}

/** A compiled scope: `undefined` means everything is in scope. */
export type ScopeMatcher = ((capabilityId: string) => boolean) | undefined;

/**
 * One entry's plane (as written: `undefined` for none) and path prefix, or `undefined` for a blank
 * entry. The toolset's stricter reading (`parseScopeEntry` in meta-tools.ts) starts from this one,
 * so both read an entry alike.
 */
export function parseScopeText(raw: string): ScopeText | undefined {
  const entry = raw.trim();
  if (entry === '') return undefined;
  const colon = entry.indexOf(':');
  const plane = colon >= 0 ? entry.slice(0, colon) : undefined;
  // `devices.` and `devices.*` say the same as `devices`; `*` alone is the whole plane.
  const prefix = entry
    .slice(colon + 1)
    .replace(/^\*$|\.\*$/, '')
    .replace(/\.+$/, '');
  return plane === undefined && prefix === '' ? undefined : { plane, prefix };
}

function entryMatches(entry: ScopeText, plane: string | undefined, path: string): boolean {
  if (entry.plane !== undefined && entry.plane !== plane) return false;
  const prefix = entry.prefix;
  if (prefix === '') return true;
  // A segment prefix: `dev` must not match `devices`.
  return path === prefix || (path.length > prefix.length && path.startsWith(prefix) && path.charCodeAt(prefix.length) === 46);
}

/** A compiled scope over an id already split into plane and path (the registry keeps both). */
export type ScopePartsMatcher = ((plane: string | undefined, path: string) => boolean) | undefined;

/** Like `compileScope`, for callers that hold the plane and path apart. */
export function compileScopeParts(scope: readonly string[] | undefined | null): ScopePartsMatcher {
  if (!scope || !Array.isArray(scope) || scope.length === 0) return undefined;
  const entries: ScopeText[] = [];
  for (const raw of scope) {
    if (typeof raw !== 'string') continue;
    const entry = parseScopeText(raw);
    if (entry) entries.push(entry);
  }
  if (entries.length === 0) return undefined;
  return (plane: string | undefined, path: string) => {
    for (let i = 0; i < entries.length; i++) if (entryMatches(entries[i], plane, path)) return true;
    return false;
  };
}

/**
 * Compiles a scope list once for many ids. Returns `undefined` when the scope does not narrow
 * anything (absent, empty, or only blank entries), so callers can skip matching entirely.
 * Entries that are not strings are ignored.
 */
export function compileScope(scope: readonly string[] | undefined | null): ScopeMatcher {
  const parts = compileScopeParts(scope);
  if (parts === undefined) return undefined;
  return (capabilityId: string) => {
    const colon = capabilityId.indexOf(':');
    return colon < 0 ? parts(undefined, capabilityId) : parts(capabilityId.slice(0, colon), capabilityId.slice(colon + 1));
  };
}

/** Whether `capabilityId` is inside `scope` (an absent or empty scope contains everything). */
export function matchesScope(capabilityId: string, scope: readonly string[] | undefined | null): boolean {
  const matcher = compileScope(scope);
  return matcher === undefined || matcher(capabilityId);
}

/** A memo key for a scope list: equal lists give equal keys. */
export function scopeKey(scope: readonly string[] | undefined | null): string {
  // Only string entries count (compileScopeParts ignores the rest), and JSON keeps entries that
  // contain any separator apart: ['a,b'] and ['a', 'b'] narrow differently.
  return Array.isArray(scope) ? JSON.stringify(Array.from(scope).filter((e) => typeof e === 'string')) : '';
}
