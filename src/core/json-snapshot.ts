/**
 * `snapshotJson`: an input read once into a deep-frozen JSON copy, so that what is checked, shown
 * to the person and approved is exactly what a handler gets, whatever getters, proxies or later
 * changes to the caller's object do. Used where an agent's arguments enter: the invoke pipeline and
 * the tool projections' execution side (both lazy chunks, so the entry files do not carry it).
 */
import { checkJson, isPlainObject, type JsonCheckOptions, type JsonProblem } from './canonical-json.js';
import type { JsonValue } from './types.js';

const FAIL = Symbol();

/** What is left of the byte budget of the pass in progress (saved around re-entrant calls). */
let budget = 0;

/**
 * One pass: a deep-frozen copy of a plain JSON value, FAIL for anything it cannot vouch for at once.
 * No closures and no exact byte counts (each string is charged its worst case, 6 bytes a UTF-16
 * unit): this runs on every call. Failing early on the budget also bounds a value that shares one
 * object many times over.
 */
function pass(v: unknown, depth: number, maxDepth: number): unknown {
  switch (typeof v) {
    case 'string':
      budget -= v.length * 6 + 2;
      break;
    case 'number':
      // The longest number JSON.stringify writes is 24 characters (-1.2345678901234567e-100).
      budget -= 25;
      if (v - v !== 0) return FAIL;
      break;
    case 'boolean':
    case 'object': {
      budget -= 5;
      if (v === null || v === true || v === false) break;
      if (depth >= maxDepth) return FAIL;
      let out: unknown[] | Record<string, unknown>;
      if (Array.isArray(v)) {
        out = [];
        for (let i = 0; i < v.length; i++) if ((out[i] = i in v ? pass(v[i], depth + 1, maxDepth) : FAIL) === FAIL || --budget < 0) return FAIL;
      } else {
        const proto = Object.getPrototypeOf(v);
        // (A literal from another realm, such as an agent runtime in a frame, is copied into this one.)
        if (proto !== Object.prototype && proto !== null && !isPlainObject(v as object)) return FAIL;
        out = {};
        for (const key of Object.keys(v as object)) {
          budget -= key.length * 6 + 4;
          if (key === '__proto__' || (out[key] = pass((v as Record<string, unknown>)[key], depth + 1, maxDepth)) === FAIL) return FAIL;
        }
      }
      return budget < 0 ? FAIL : Object.freeze(out);
    }
    default:
      return FAIL;
  }
  return budget < 0 ? FAIL : v;
}

function run(value: unknown, options: JsonCheckOptions, room: number): unknown {
  const saved = budget;
  budget = (options.maxBytes ?? Infinity) * room;
  try {
    return pass(value, 0, options.maxDepth ?? 256);
  } catch {
    return FAIL; // a throwing read: checkJson says where
  } finally {
    budget = saved;
  }
}

const CHANGED = { ok: false, path: '', code: 'unreadable', reason: 'the value changed while it was read' } as const;

/**
 * A copy of `value` made from one read of each property (own enumerable string keys only), deep
 * frozen, under the rules and limits of `checkJson`. When the quick pass cannot vouch for a value,
 * the exact `checkJson` says what is wrong; if nothing is (a size near the limit), it is copied again
 * with room for the worst-case bound, and the inert copy is checked exactly in case the value
 * changed between reads.
 */
export function snapshotJson(value: unknown, options: JsonCheckOptions): { ok: true; value: JsonValue } | ({ ok: false } & JsonProblem) {
  let quick = run(value, options, 1);
  if (quick === FAIL) {
    let check: { ok: true } | ({ ok: false } & JsonProblem) = checkJson(value, options);
    if (check.ok) {
      quick = run(value, options, 25);
      check = quick === FAIL ? CHANGED : checkJson(quick, options);
    }
    if (!check.ok) return check;
  }
  return { ok: true, value: quick as JsonValue };
}
