/**
 * Capability ids: `<plane>:<path>` (DESIGN section 2). The plane is `view` or `domain`; the path is
 * dot-separated segments. Canonical segments match `[A-Za-z][A-Za-z0-9]*`; other non-empty segments
 * are accepted but make the id non-canonical (wire names then cannot be reversed without a catalog).
 */
import type { CapabilityPlane, ParsedCapabilityId } from './types.js';

export type CapabilityIdProblem =
  | 'not-a-string'
  | 'empty'
  | 'too-long'
  | 'missing-plane'
  | 'unknown-plane'
  | 'empty-path'
  | 'empty-segment'
  | 'invalid-character';

export type CapabilityIdParse =
  ({ ok: true } & ParsedCapabilityId) | { ok: false; code: CapabilityIdProblem; reason: string };

/** Longer ids are refused: they only ever come from generated or hostile input. */
export const MAX_CAPABILITY_ID_LENGTH = 256;

const CANONICAL_ID = /^(?:view|domain):[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*$/;
// Whitespace, controls and the Unicode separators never belong in an id, canonical or not.
const FORBIDDEN_CHARACTER = /[\s\0-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060\ufeff]/u;

function fail(code: CapabilityIdProblem, reason: string): CapabilityIdParse {
  return { ok: false, code, reason };
}

/** Splits an id into plane and path, or says why it is not an id. Never throws. */
export function parseCapabilityId(id: unknown): CapabilityIdParse {
  if (typeof id !== 'string')
    return fail('not-a-string', `a capability id must be a string, got ${id === null ? 'null' : typeof id}`);
  if (id.length === 0) return fail('empty', 'the capability id is empty');
  if (id.length > MAX_CAPABILITY_ID_LENGTH) {
    return fail(
      'too-long',
      `the capability id is ${id.length} characters long; the limit is ${MAX_CAPABILITY_ID_LENGTH}`,
    );
  }
  const colon = id.indexOf(':');
  if (colon < 0) return fail('missing-plane', `"${id}" has no plane: write "view:${id}" or "domain:${id}"`);
  const plane = id.slice(0, colon);
  if (plane !== 'view' && plane !== 'domain') {
    return fail('unknown-plane', `"${id}" has the plane "${plane}"; the plane must be "view" or "domain"`);
  }
  const rest = id.slice(colon + 1);
  if (rest.length === 0) return fail('empty-path', `"${id}" has no path after "${plane}:"`);
  const bad = FORBIDDEN_CHARACTER.exec(rest);
  if (bad) {
    const cp = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return fail('invalid-character', `"${id}" contains U+${cp} (whitespace or a control character)`);
  }
  const path = rest.split('.');
  const empty = path.indexOf('');
  if (empty >= 0)
    return fail(
      'empty-segment',
      `"${id}" has an empty path segment (segment ${empty + 1}): remove the extra "."`,
    );
  return { ok: true, plane: plane as CapabilityPlane, path, canonical: CANONICAL_ID.test(id) };
}

/** Whether `id` follows the canonical grammar exactly (`domain:devices.disable`, `view:devices.table.selectRows`). */
export function isCanonicalCapabilityId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= MAX_CAPABILITY_ID_LENGTH && CANONICAL_ID.test(id);
}

/** Whether `id` may be registered at all (canonical or not). */
export function isCapabilityId(id: unknown): id is string {
  return parseCapabilityId(id).ok;
}

