/**
 * Canonical JSON: object keys sorted by UTF-16 code unit at every level, no whitespace, numbers and
 * strings as `JSON.stringify` writes them. Tokens and manifest hashes are computed over it, so two
 * equal values always give the same text whatever their key order.
 *
 * `canonicalJson` throws for anything that is not JSON (a programmer's mistake in a contract);
 * `checkJson` reports the same problems as data, for an agent's input.
 */
import type { JsonValue } from './types.js';

export type JsonProblemCode =
  | 'undefined'
  | 'function'
  | 'symbol'
  | 'bigint'
  | 'non-finite-number'
  | 'non-plain-object'
  | 'sparse-array'
  | 'cycle'
  | 'proto-key'
  | 'too-deep'
  | 'too-large'
  | 'unreadable';

export interface JsonProblem {
  /** JSON pointer to the offending value (`""` for the root). */
  path: string;
  code: JsonProblemCode;
  /** A sentence a person (or an agent) can act on. */
  reason: string;
}

export type JsonCheck = { ok: true; bytes: number } | ({ ok: false } & JsonProblem);

export interface JsonCheckOptions {
  /** Maximum size of the value's JSON text in UTF-8 bytes. Default: no limit. */
  maxBytes?: number;
  /**
   * Maximum nesting: a scalar is depth 0, `{}` and `[]` depth 1, `{"a":[1]}` depth 2.
   * Default 256, so a hostile value can never exhaust the stack.
   */
  maxDepth?: number;
}

/** Thrown by `canonicalJson` for a value that is not JSON. */
export class CanonicalJsonError extends TypeError {
  readonly path: string;
  readonly code: JsonProblemCode;

  constructor(problem: JsonProblem) {
    // The pointer quoted, or `(root)` for the empty one.
    super(`canonicalJson: ${problem.reason} at ${problem.path === '' ? '(root)' : `"${problem.path}"`}`);
    this.name = 'CanonicalJsonError';
    this.path = problem.path;
    this.code = problem.code;
  }
}

/** Builds a JSON pointer from path segments (RFC 6901). */
export function jsonPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** "a Date", "an Engine": how messages name the class of a non-null object. */
function typeName(value: object): string {
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  const name = proto?.constructor?.name;
  return name ? `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}` : 'an object with a foreign prototype';
}

/**
 * `{}` or `Object.create(null)`, from this realm or another one (an object literal made in an
 * iframe has that frame's `Object.prototype`, a different object from ours).
 */
export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return true;
  if (Object.getPrototypeOf(proto) !== null) return false;
  const ctor = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value as { name?: unknown } | undefined;
  return typeof ctor === 'function' && ctor.name === 'Object' && Object.prototype.toString.call(value) === '[object Object]';
}

type Problem = Omit<JsonProblem, 'path'>;
const CYCLE: Problem = { code: 'cycle', reason: 'a cycle (the value contains itself)' };
const HOLE: Problem = { code: 'sparse-array', reason: 'an array hole is not JSON' };

/** What is wrong with each kind of value JSON cannot hold, by `typeof`. */
const NOT_JSON: Readonly<Record<string, Problem>> = {
  undefined: { code: 'undefined', reason: 'undefined is not JSON (omit the key, or use null)' },
  function: { code: 'function', reason: 'a function is not JSON' },
  symbol: { code: 'symbol', reason: 'a symbol is not JSON' },
  bigint: { code: 'bigint', reason: 'a BigInt is not JSON (use a number or a string)' },
};

/** Classifies a non-container value that JSON cannot hold; `undefined` when it is fine. */
function scalarProblem(value: unknown): Problem | undefined {
  return typeof value === 'number'
    ? Number.isFinite(value)
      ? undefined
      : { code: 'non-finite-number', reason: `${String(value)} is not a JSON number` }
    : NOT_JSON[typeof value];
}

/** UTF-8 byte length of any string (lone surrogates count as U+FFFD, as TextEncoder writes them). */
let encoder: TextEncoder | undefined;
export function utf8Length(s: string): number {
  return (encoder ??= new TextEncoder()).encode(s).length;
}

// Printable ASCII but `"` and `\\`: JSON.stringify writes each as one byte.
const PLAIN_STRING = /^[ !#-[\]-~]*$/;

/**
 * UTF-8 length of `JSON.stringify(s)`, quotes included. Plain ASCII is counted; other text is
 * written and encoded (JSON.stringify escapes controls and lone surrogates in ASCII, so the length
 * is exact). Only `checkJson` uses it, and the pipeline calls that only near a limit or on a problem.
 */
export function jsonStringBytes(s: string): number {
  return PLAIN_STRING.test(s) ? s.length + 2 : utf8Length(JSON.stringify(s));
}

const DEFAULT_MAX_DEPTH = 256;

/**
 * The one walk behind both `canonicalJson` (`canonical`: writes the text with sorted keys, no limits,
 * lets what reading throws propagate) and `checkJson` (counts bytes, refuses `__proto__` keys,
 * enforces the limits, turns a throwing read into a problem). Same rules, same pointers. `depth` is
 * the nesting reached (a scalar 0, `{}` 1), which the contract checks report.
 */
export function walkJson(
  value: unknown,
  canonical: boolean,
  maxDepth = Infinity,
  maxBytes = Infinity,
): { text: string; bytes: number; depth: number; problem?: JsonProblem } {
  const trail: (string | number)[] = [];
  const ancestors: object[] = [];
  let text = '';
  let bytes = 0;
  let deepest = 0;
  let problem: Problem | undefined;
  const fail = (p: Problem): false => ((problem = p), false);

  // Returns false as soon as a problem is recorded; `trail` then points at it.
  const walk = (v: unknown, depth: number): boolean => {
    if (v === null || typeof v !== 'object') {
      const p = scalarProblem(v);
      if (p) return fail(p);
      if (canonical) text += JSON.stringify(v);
      else bytes += typeof v === 'string' ? jsonStringBytes(v) : v === true || v === null ? 4 : String(v).length;
    } else {
      if (depth >= maxDepth) return fail({ code: 'too-deep', reason: `nesting deeper than ${maxDepth} levels` });
      if (ancestors.includes(v)) return fail(CYCLE);
      ancestors.push(v);
      if (depth >= deepest) deepest = depth + 1;
      if (Array.isArray(v)) {
        if (canonical) text += '[';
        else bytes += v.length > 0 ? v.length + 1 : 2; // brackets and commas
        for (let i = 0; i < v.length; i++) {
          trail.push(i);
          if (!(i in v)) return fail(HOLE);
          if (canonical && i) text += ',';
          if (!walk(v[i], depth + 1)) return false;
          trail.pop();
        }
        if (canonical) text += ']';
      } else {
        if (!isPlainObject(v)) return fail({ code: 'non-plain-object', reason: `${typeName(v)} is not a plain object, so not JSON` });
        const keys = Object.keys(v);
        if (canonical) {
          keys.sort();
          text += '{';
        } else bytes += keys.length > 0 ? keys.length * 2 + 1 : 2; // braces, colons and commas
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          trail.push(key);
          if (canonical) text += (i ? ',' : '') + JSON.stringify(key) + ':';
          else if (key === '__proto__') return fail({ code: 'proto-key', reason: 'the key "__proto__" is not allowed' });
          else bytes += jsonStringBytes(key);
          if (!walk((v as Record<string, unknown>)[key], depth + 1)) return false;
          trail.pop();
        }
        if (canonical) text += '}';
      }
      ancestors.pop();
    }
    return bytes <= maxBytes || fail({ code: 'too-large', reason: `larger than ${maxBytes} bytes of JSON` });
  };

  try {
    walk(value, 0);
  } catch (error) {
    if (canonical) throw error;
    // A throwing getter or proxy trap: the value cannot be read as JSON.
    problem = { code: 'unreadable', reason: 'a property could not be read' };
  }
  return {
    text,
    bytes,
    depth: deepest,
    problem: problem && { path: jsonPointer(trail), code: problem.code, reason: problem.reason },
  };
}

/**
 * The canonical JSON text of `value`. Throws a `CanonicalJsonError` (a `TypeError`) naming the JSON
 * pointer of the first value that is not JSON: `undefined` (in objects and arrays), functions,
 * symbols, BigInt, NaN, ±Infinity, cycles, and objects that are not plain (Date, Map, class
 * instances...). `toJSON` is never called: what is hashed is exactly what is written.
 */
export function canonicalJson(value: unknown): string {
  const { text, problem } = walkJson(value, true);
  if (problem) throw new CanonicalJsonError(problem);
  return text;
}

/**
 * Checks that `value` is JSON (the same rules as `canonicalJson`), that it has no own `__proto__`
 * key (JSON.parse creates one from `{"__proto__": …}`; merging such a value pollutes prototypes),
 * and that it fits the limits. Never throws: returns the first problem with its JSON pointer, or
 * `{ ok: true, bytes }` with the UTF-8 size of the value's JSON text. One walk.
 */
export function checkJson(value: unknown, options: JsonCheckOptions = {}): JsonCheck {
  const { bytes, problem } = walkJson(value, false, options.maxDepth ?? DEFAULT_MAX_DEPTH, options.maxBytes);
  return problem ? { ok: false, ...problem } : { ok: true, bytes };
}

/** Whether `value` is a JSON value (no `__proto__` keys, default depth limit). */
export function isJsonValue(value: unknown): value is JsonValue {
  return checkJson(value).ok;
}

/** A deep copy of a JSON value with keys in canonical order (a fresh object the caller owns). */
export function canonicalCopy<T extends JsonValue>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T;
}
