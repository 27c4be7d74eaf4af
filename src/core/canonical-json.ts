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
    super(`canonicalJson: ${problem.reason} at ${describePath(problem.path)}`);
    this.name = 'CanonicalJsonError';
    this.path = problem.path;
    this.code = problem.code;
  }
}

/** `/a/0` style pointers; `(root)` for the empty pointer, in messages only. */
function describePath(path: string): string {
  return path === '' ? '(root)' : `"${path}"`;
}

function escapePointerToken(key: string): string {
  return key.indexOf('~') < 0 && key.indexOf('/') < 0 ? key : key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Builds a JSON pointer from path segments (RFC 6901). */
export function jsonPointer(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) out += '/' + (typeof s === 'number' ? String(s) : escapePointerToken(s));
  return out;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  const name = proto?.constructor?.name;
  return name ? `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}` : 'an object with a foreign prototype';
}

/**
 * `{}` or `Object.create(null)`, from this realm or another one (an object literal made in an
 * iframe has that frame's `Object.prototype`, a different object from ours).
 */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return true;
  if (Object.getPrototypeOf(proto) !== null) return false;
  const ctor = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value as { name?: unknown } | undefined;
  return typeof ctor === 'function' && ctor.name === 'Object' && Object.prototype.toString.call(value) === '[object Object]';
}

type Problem = Omit<JsonProblem, 'path'>;
const CYCLE: Problem = { code: 'cycle', reason: 'a cycle (the value contains itself)' };
const HOLE: Problem = { code: 'sparse-array', reason: 'an array hole is not JSON' };
const notPlain = (value: object): Problem => ({
  code: 'non-plain-object',
  reason: `${typeName(value)} is not a plain object, so not JSON`,
});

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

// ---------------------------------------------------------------------------------------------
// canonicalJson

/**
 * The canonical JSON text of `value`. Throws a `CanonicalJsonError` (a `TypeError`) naming the JSON
 * pointer of the first value that is not JSON: `undefined` (in objects and arrays), functions,
 * symbols, BigInt, NaN, ±Infinity, cycles, and objects that are not plain (Date, Map, class
 * instances...). `toJSON` is never called: what is hashed is exactly what is written.
 */
export function canonicalJson(value: unknown): string {
  const trail: (string | number)[] = [];
  const ancestors = new Set<object>();

  const raise = (problem: Problem): never => {
    throw new CanonicalJsonError({ ...problem, path: jsonPointer(trail) });
  };

  const write = (v: unknown): string => {
    if (v === null) return 'null';
    if (typeof v !== 'object') {
      const problem = scalarProblem(v);
      if (problem) raise(problem);
      return JSON.stringify(v);
    }
    if (ancestors.has(v)) raise(CYCLE);
    ancestors.add(v);
    let out: string;
    if (Array.isArray(v)) {
      out = '[';
      for (let i = 0; i < v.length; i++) {
        trail.push(i);
        if (!(i in v)) raise(HOLE);
        out += (i === 0 ? '' : ',') + write(v[i]);
        trail.pop();
      }
      out += ']';
    } else {
      if (!isPlainObject(v)) raise(notPlain(v));
      const keys = Object.keys(v).sort();
      out = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        trail.push(key);
        out += (i === 0 ? '' : ',') + JSON.stringify(key) + ':' + write((v as Record<string, unknown>)[key]);
        trail.pop();
      }
      out += '}';
    }
    ancestors.delete(v);
    return out;
  };

  return write(value);
}

// ---------------------------------------------------------------------------------------------
// checkJson

/** UTF-8 length of `JSON.stringify(s)`, quotes included, without building the string. */
export function jsonStringBytes(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d)
        n += 2;
      else if (c < 0x20) n += 6;
      else n += 1;
    } else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 6; // lone surrogate: JSON.stringify writes \udXXX
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

/** UTF-8 byte length of any string (lone surrogates count as U+FFFD, as TextEncoder writes them). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

const DEFAULT_MAX_DEPTH = 256;

/**
 * Checks that `value` is JSON (the same rules as `canonicalJson`), that it has no own `__proto__`
 * key (JSON.parse creates one from `{"__proto__": …}`; merging such a value pollutes prototypes),
 * and that it fits the limits. Never throws: returns the first problem with its JSON pointer, or
 * `{ ok: true, bytes }` with the UTF-8 size of the value's JSON text. One walk, no stringify.
 */
export function checkJson(value: unknown, options: JsonCheckOptions = {}): JsonCheck {
  const maxBytes = options.maxBytes ?? Infinity;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const trail: (string | number)[] = [];
  const ancestors: object[] = [];
  let bytes = 0;
  let problem: Problem | undefined;

  // Returns false as soon as a problem is recorded; `trail` then points at it.
  const walk = (v: unknown, depth: number): boolean => {
    if (v === null) {
      bytes += 4;
    } else if (typeof v === 'string') {
      bytes += jsonStringBytes(v);
    } else if (typeof v !== 'object') {
      problem = scalarProblem(v);
      if (problem) return false;
      bytes += v === true ? 4 : v === false ? 5 : String(v).length;
    } else {
      if (depth >= maxDepth) {
        problem = { code: 'too-deep', reason: `nesting deeper than ${maxDepth} levels` };
        return false;
      }
      if (ancestors.includes(v)) {
        problem = CYCLE;
        return false;
      }
      ancestors.push(v);
      if (Array.isArray(v)) {
        bytes += v.length > 0 ? v.length + 1 : 2; // brackets and commas
        for (let i = 0; i < v.length; i++) {
          trail.push(i);
          if (!(i in v)) {
            problem = HOLE;
            return false;
          }
          if (!walk(v[i], depth + 1)) return false;
          trail.pop();
        }
      } else {
        if (!isPlainObject(v)) {
          problem = notPlain(v);
          return false;
        }
        const keys = Object.keys(v);
        bytes += keys.length > 0 ? keys.length * 2 + 1 : 2; // braces, colons and commas
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          trail.push(key);
          if (key === '__proto__') {
            problem = { code: 'proto-key', reason: 'the key "__proto__" is not allowed' };
            return false;
          }
          bytes += jsonStringBytes(key);
          if (!walk((v as Record<string, unknown>)[key], depth + 1)) return false;
          trail.pop();
        }
      }
      ancestors.pop();
    }
    if (bytes > maxBytes) {
      problem = { code: 'too-large', reason: `larger than ${maxBytes} bytes of JSON` };
      return false;
    }
    return true;
  };

  let ok: boolean;
  try {
    ok = walk(value, 0);
  } catch {
    // A throwing getter or proxy trap: the value cannot be read as JSON.
    problem = { code: 'unreadable', reason: 'a property could not be read' };
    ok = false;
  }
  if (ok) return { ok: true, bytes };
  const p = problem ?? { code: 'unreadable' as const, reason: 'not JSON' };
  return { ok: false, path: jsonPointer(trail), code: p.code, reason: p.reason };
}

/** Whether `value` is a JSON value (no `__proto__` keys, default depth limit). */
export function isJsonValue(value: unknown): value is JsonValue {
  return checkJson(value).ok;
}

/** A deep copy of a JSON value with keys in canonical order (a fresh object the caller owns). */
export function canonicalCopy<T extends JsonValue>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T;
}
