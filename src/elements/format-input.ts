/**
 * Pure helpers for `<agent-confirm>`: a readable, bounded rendering of an agent's input for the
 * person who approves it, the countdown text and the effect wording. No DOM: rendering stays in lit
 * text bindings, so nothing here can become markup.
 */
import type { CapabilityEffect, JsonValue } from '../core/types.js';

export interface FormattedEntry {
  /** Where the value sits: `reason`, `devices[0].id`, `["odd key"]`; empty for a bare value. */
  readonly path: string;
  /** The value as JSON-like text with invisible and direction-changing characters made visible. */
  readonly value: string;
}

export interface FormattedInput {
  readonly entries: readonly FormattedEntry[];
  /** Entries left out beyond `maxEntries`. */
  readonly omitted: number;
}

export interface FormatInputOptions {
  /** Default 50. */
  maxEntries?: number;
  /** Longer strings are cut. Default 400. */
  maxStringLength?: number;
}

// Characters that could make the text read differently from what it is: controls, bidi overrides
// and isolates, zero-width characters, line and paragraph separators.
const HIDDEN =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

function reveal(text: string): string {
  return text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function quote(text: string, max: number): string {
  const cut = text.length > max;
  const shown = reveal(JSON.stringify(cut ? text.slice(0, max) : text));
  return cut ? `${shown} … (${text.length - max} more characters)` : shown;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function join(path: string, key: string, max: number): string {
  if (IDENT.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${quote(key, max)}]`;
}

/**
 * Flattens a JSON value into `path: value` lines, depth first, in key order as given. Scalars and
 * empty containers are leaves; strings are shown quoted and escaped, so `"a\nb"` cannot pose as two lines.
 */
export function formatInput(input: JsonValue | undefined, options: FormatInputOptions = {}): FormattedInput {
  const maxEntries = options.maxEntries ?? 50;
  const maxString = options.maxStringLength ?? 400;
  const entries: FormattedEntry[] = [];
  let omitted = 0;

  const add = (path: string, value: string) => {
    if (entries.length < maxEntries) entries.push({ path, value });
    else omitted += 1;
  };

  const walk = (value: JsonValue | undefined, path: string, depth: number): void => {
    if (value === undefined) return;
    if (value === null || typeof value !== 'object') {
      add(path, typeof value === 'string' ? quote(value, maxString) : String(value));
    } else if (depth > 32) {
      add(path, '…');
    } else if (Array.isArray(value)) {
      if (value.length === 0) add(path, '[]');
      value.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
    } else {
      const keys = Object.keys(value);
      if (keys.length === 0) {
        if (path) add(path, '{}');
        return;
      }
      for (const key of keys) walk(value[key], join(path, key, maxString), depth + 1);
    }
  };
  walk(input, '', 0);
  return { entries, omitted };
}

/** `m:ss` (or `h:mm:ss`) until a deadline; `0:00` once passed. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const two = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${two(m)}:${two(total % 60)}` : `${m}:${two(total % 60)}`;
}

const EFFECTS: Record<CapabilityEffect, string> = {
  read: 'Reads information on this page',
  'local-state': 'Changes what this page shows',
  navigation: 'Navigates to another page or view',
  'server-query': 'Looks up information on the server',
  'server-mutation': 'Changes data on the server',
  'external-side-effect': 'Acts outside this site (sends, pays, publishes)',
  destructive: 'Deletes or disables something; may not be undone',
};

/** Plain words for an effect, for the person approving a call. */
export function describeEffect(effect: CapabilityEffect): string {
  return EFFECTS[effect] ?? effect;
}
