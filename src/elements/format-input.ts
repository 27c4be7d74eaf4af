/**
 * Pure helpers for `<agent-confirm>`: a readable, bounded rendering of an agent's input for the
 * person who approves it, the countdown text and the effect wording. No DOM: rendering stays in lit
 * text bindings, so nothing here can become markup.
 */
import { CAPABILITY_EFFECTS } from '../core/effects.js';
import { reveal } from '../core/reveal.js';
import type { CapabilityEffect, JsonValue } from '../core/types.js';

export { reveal } from '../core/reveal.js';

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

/** `text` as a JSON string cut after `max` characters, the hidden characters shown as `\uXXXX`. */
function quote(text: string, max: number): string {
  const cut = text.length > max;
  const shown = reveal(JSON.stringify(cut ? text.slice(0, max) : text));
  return cut ? `${shown} … (${text.length - max} more characters)` : shown;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Flattens a JSON value into `path: value` lines, depth first, in key order as given. Scalars and
 * empty containers are leaves (but an empty object at the top, which says nothing); strings are
 * shown quoted and escaped, so `"a\nb"` cannot pose as two lines.
 */
export function formatInput(input: JsonValue | undefined, options: FormatInputOptions = {}): FormattedInput {
  const maxEntries = options.maxEntries ?? 50;
  const max = options.maxStringLength ?? 400;
  const entries: FormattedEntry[] = [];
  let omitted = 0;

  const walk = (value: JsonValue | undefined, path: string, depth: number): void => {
    if (value === undefined) return;
    let shown: string | undefined;
    if (value === null || typeof value !== 'object') {
      shown = typeof value === 'string' ? quote(value, max) : String(value);
    } else if (depth > 32) {
      shown = '…';
    } else {
      // An array's keys are its indexes, in order.
      const list = Array.isArray(value);
      const keys = Object.keys(value);
      if (!keys.length && (list || path)) shown = list ? '[]' : '{}';
      for (const key of keys) {
        const at = list ? `${path}[${key}]` : IDENT.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${quote(key, max)}]`;
        walk((value as Record<string, JsonValue>)[key], at, depth + 1);
      }
    }
    if (shown === undefined) return;
    if (entries.length < maxEntries) entries.push({ path, value: shown });
    else omitted++;
  };
  walk(input, '', 0);
  return { entries, omitted };
}

/** `m:ss` (or `h:mm:ss`) until a deadline; `0:00` once passed. */
export function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${h ? `${h}:${two(m)}` : m}:${two(s % 60)}`;
}

/** What each effect does, in the order of `CAPABILITY_EFFECTS`. */
const EFFECT_WORDS = [
  'Reads information on this page',
  'Changes what this page shows',
  'Navigates to another page or view',
  'Looks up information on the server',
  'Changes data on the server',
  'Acts outside this site (sends, pays, publishes)',
  'Deletes or disables something; may not be undone',
];

/** Plain words for an effect, for the person approving a call; an unknown effect as it is. */
export function describeEffect(effect: CapabilityEffect): string {
  return EFFECT_WORDS[CAPABILITY_EFFECTS.indexOf(effect)] ?? effect;
}
