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
 * One pass: a copy (or, without `copy`, the value itself) of a plain JSON value, FAIL for anything it
 * cannot vouch for at once. No closures and no exact byte counts (each string is charged its worst
 * case, 6 bytes a UTF-16 unit): this runs on every call. Failing early on the budget also bounds a
 * value that shares one object many times over.
 */
function pass(v: unknown, depth: number, maxDepth: number, copy: boolean): unknown {
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
      budget -= 5;
      break;
    case 'object': {
      if (v === null) {
        budget -= 4;
        break;
      }
      if (depth >= maxDepth || (budget -= 2) < 0) return FAIL;
      if (Array.isArray(v)) {
        const items: unknown[] | undefined = copy ? [] : undefined;
        for (let i = 0; i < v.length; i++) {
          const item = i in v ? pass(v[i], depth + 1, maxDepth, copy) : FAIL;
          if (item === FAIL || --budget < 0) return FAIL;
          items?.push(item);
        }
        return items ? Object.freeze(items) : v;
      }
      const proto = Object.getPrototypeOf(v);
      // (A literal from another realm, such as an agent runtime in a frame, is copied into this one.)
      if (proto !== Object.prototype && proto !== null && !isPlainObject(v)) return FAIL;
      const keys = Object.keys(v);
      const fields: Record<string, unknown> | undefined = copy ? {} : undefined;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const field = key === '__proto__' ? FAIL : pass((v as Record<string, unknown>)[key], depth + 1, maxDepth, copy);
        if (field === FAIL || (budget -= key.length * 6 + 4) < 0) return FAIL;
        if (fields) fields[key] = field;
      }
      return fields ? Object.freeze(fields) : v;
    }
    default:
      return FAIL;
  }
  return budget < 0 ? FAIL : v;
}

function run(value: unknown, options: JsonCheckOptions, room: number, copy: boolean): unknown {
  const saved = budget;
  budget = (options.maxBytes ?? Infinity) * room;
  try {
    return pass(value, 0, options.maxDepth ?? 256, copy);
  } catch {
    return FAIL; // a throwing read: checkJson says where
  } finally {
    budget = saved;
  }
}

const CHANGED = { ok: false, path: '', code: 'unreadable', reason: 'the value changed while it was read' } as const;

/**
 * A deep-frozen copy of `value` made from one read of each property (own enumerable string keys
 * only), under the rules and limits of `checkJson`. With `copy` false it only checks (`value` is then
 * the original), fast. When the quick pass cannot vouch for a value, the exact `checkJson` says what
 * is wrong; if nothing is (a size near the limit), it is copied with room for the worst-case bound
 * and the inert copy is checked exactly, in case the value changed between reads.
 */
export function snapshotJson(value: unknown, options: JsonCheckOptions, copy = true): { ok: true; value: JsonValue } | ({ ok: false } & JsonProblem) {
  let quick = run(value, options, 1, copy);
  if (quick === FAIL) {
    let check: { ok: true } | ({ ok: false } & JsonProblem) = checkJson(value, options);
    if (check.ok) {
      quick = run(value, options, 25, copy);
      check = quick === FAIL ? CHANGED : checkJson(quick, options);
    }
    if (!check.ok) return check;
  }
  return { ok: true, value: quick as JsonValue };
}
