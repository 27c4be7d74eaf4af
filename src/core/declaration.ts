/**
 * Markup → contract: the one function `<agent-capability>` (at run time) and the compiler (at build
 * time) both use to turn a declaration's attributes, schema scripts and placement into a contract.
 * Keeping it in one DOM-free place means the contract a build authorized and the contract a page
 * declares cannot drift apart by a default, a whitespace or a parsing rule (DESIGN section 6).
 *
 * It checks what markup can get wrong (missing or unknown attribute values, placement, schema JSON),
 * then runs the contract checks (`checkContract`) on the result, so an author sees every problem
 * where the declaration is written: in the console at run time, at file:line:column at build time.
 */
import {
  CAPABILITY_CONCURRENCIES,
  CAPABILITY_EFFECTS,
  CAPABILITY_KINDS,
  CONFIRMATION_REQUIREMENTS,
  checkContract,
} from './contract.js';
import type { CapabilityContract, JsonSchema } from './types.js';

/**
 * What one `<agent-capability>` declares. Attribute values are the raw strings (or `null` when the
 * attribute is absent), exactly as `getAttribute()` or an HTML parser returns them.
 */
export interface CapabilityDeclaration {
  name: string | null;
  /** The element's own `view="…"` attribute. */
  view: string | null;
  /**
   * The `name` of the nearest enclosing `<agent-view>`, or `null` when there is none. The element
   * knows it at run time; the compiler knows it statically inside one file and passes `view` when
   * it cannot tell (a component's template rendered inside someone else's view).
   */
  placementView: string | null;
  /**
   * The `plane="…"` attribute: `"domain"` states that a capability is a domain capability where the
   * compiler cannot see its placement (a lit template); at run time it must then sit outside any view.
   * Optional so callers that predate it keep compiling.
   */
  plane?: string | null;
  kind: string | null;
  effect: string | null;
  confirmation: string | null;
  description: string | null;
  /** The `title` attribute: a short human label. Optional so callers that predate it keep compiling. */
  title?: string | null;
  concurrency: string | null;
  /** The `timeout-ms` attribute. */
  timeoutMs: string | null;
  /** Whether the boolean attribute `untrusted-output` is present (its value does not matter). */
  untrustedOutput: boolean;
  /** Text of the `<script type="application/schema+json">` child without `data-schema="output"`. */
  inputSchemaText: string | null;
  /** Text of the `<script type="application/schema+json" data-schema="output">` child. */
  outputSchemaText: string | null;
}

export type DeclarationResult =
  { ok: true; contract: CapabilityContract } | { ok: false; problems: string[] };

/**
 * The attributes that make up the contract (and the id): a change to any of them means a different
 * contract, so the element re-registers. `token`, `unavailable` and `note` are not among them.
 */
export const CONTRACT_ATTRIBUTES: readonly string[] = Object.freeze([
  'name',
  'view',
  'plane',
  'kind',
  'effect',
  'confirmation',
  'description',
  'title',
  'concurrency',
  'timeout-ms',
  'untrusted-output',
]);

/** The script type that carries a schema inside `<agent-capability>`. */
export const SCHEMA_SCRIPT_TYPE = 'application/schema+json';

const PLANES = ['domain', 'view'] as const;

// A name or view may hold dots (`table.selectRows`), but no plane separator, whitespace or empty segment.
const PATH_RE = /^[^\s.:]+(?:\.[^\s.:]+)*$/;

/** The id a declaration gets: `view:<view>.<name>` inside a view, `domain:<name>` otherwise. */
export function declarationId(name: string, view?: string | null): string {
  return view ? `view:${view}.${name}` : `domain:${name}`;
}

/**
 * How descriptions are read from markup, decided once for the element and the compiler: leading
 * and trailing whitespace is dropped and every run of HTML whitespace (space, tab, CR, LF, FF)
 * becomes one space, so re-indenting or re-wrapping markup never changes a contract or its token.
 * Other characters (a non-breaking space from `&nbsp;`) are kept as written.
 */
export function normalizeDescription(text: string): string {
  return text.replace(/[\t\n\f\r ]+/g, ' ').trim();
}

/** How messages name the element. */
function tagOf(name: string | null | undefined): string {
  return name ? `<agent-capability name="${name}">` : '<agent-capability>';
}

/** Attribute values other than descriptions are read with surrounding HTML whitespace dropped. */
function attr(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
}

function parseSchema(
  text: string | null,
  which: 'input' | 'output',
  who: string,
  problems: string[],
): JsonSchema | undefined {
  if (text === null) return undefined;
  const where = `${who} ${which} schema (<script type="${SCHEMA_SCRIPT_TYPE}"${which === 'output' ? ' data-schema="output"' : ''}>)`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    problems.push(`${where} is not valid JSON: ${(error as Error).message}`);
    return undefined;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as JsonSchema;
  problems.push(`${where} must be a JSON object`);
}

/** Builds the contract a declaration states, or says everything that is wrong with it. Never throws. */
export function contractFromDeclaration(decl: CapabilityDeclaration): DeclarationResult {
  const problems: string[] = [];
  const name = attr(decl.name);
  const view = attr(decl.view);
  const placementView = attr(decl.placementView);
  const who = tagOf(name);
  const say = (problem: string) => void problems.push(`${who} ${problem}`);
  /** The attribute's value when it is one of `allowed`; `undefined` when absent or (a problem) another. */
  const pick = <T extends string>(
    what: 'plane' | 'kind' | 'effect' | 'confirmation' | 'concurrency',
    allowed: readonly T[],
  ): T | undefined => {
    const value = attr(decl[what]);
    if (value === null || (allowed as readonly string[]).includes(value)) return (value ?? undefined) as T | undefined;
    say(`has ${what}="${value}": use one of ${allowed.join(', ')}`);
  };

  if (!name) say('has no name="…": add one, e.g. name="selectRows"');
  else if (!PATH_RE.test(name)) say('has an invalid name: use dot-separated words without spaces or ":"');
  if (view !== null && !PATH_RE.test(view)) say(`has an invalid view="${view}": use the name of its <agent-view>`);

  // Placement: the id comes from where the element sits; an explicit view or plane must agree with it.
  const plane = pick('plane', PLANES);
  let idView: string | null = null;
  if (plane === 'domain') {
    if (view !== null) say(`declares plane="domain" and view="${view}": remove one`);
    if (placementView) say(`declares plane="domain" but sits inside <agent-view name="${placementView}">: move it out or drop plane`);
  } else if (view !== null) {
    if (placementView !== view) {
      say(
        placementView
          ? `declares view="${view}" but its nearest <agent-view> is "${placementView}"`
          : `declares view="${view}" but is not inside an <agent-view name="${view}">`,
      );
    }
    idView = view;
  } else if (placementView) {
    idView = placementView;
  } else if (plane === 'view') {
    say('declares plane="view" but is not inside an <agent-view>: add view="…" or move it');
  }

  const kind = pick('kind', CAPABILITY_KINDS) ?? 'action';
  const effect = attr(decl.effect) ? pick('effect', CAPABILITY_EFFECTS) : undefined;
  if (!attr(decl.effect)) say(`has no effect="…": say what calling it does, one of ${CAPABILITY_EFFECTS.join(', ')}`);
  const confirmation = pick('confirmation', CONFIRMATION_REQUIREMENTS) ?? 'never';
  const concurrency = pick('concurrency', CAPABILITY_CONCURRENCIES);

  const description = normalizeDescription(decl.description ?? '');
  if (!description) say('has no description="…": say what it does');

  let timeoutMs: number | undefined;
  const timeoutAttr = attr(decl.timeoutMs);
  if (timeoutAttr !== null) {
    const n = /^\d+$/.test(timeoutAttr) ? Number(timeoutAttr) : NaN;
    if (!Number.isSafeInteger(n) || n <= 0) say(`has timeout-ms="${timeoutAttr}": use a whole number of milliseconds above 0`);
    else timeoutMs = n;
  }

  const inputSchema = parseSchema(decl.inputSchemaText, 'input', who, problems);
  const outputSchema = parseSchema(decl.outputSchemaText, 'output', who, problems);

  if (problems.length || !name || !effect) return { ok: false, problems };

  const contract: CapabilityContract = {
    id: declarationId(name, idView),
    kind,
    effect,
    confirmation,
    description,
  };
  // The optional fields only when stated, in this order.
  const optional: Partial<CapabilityContract> = {
    // Read like a description (whitespace runs folded); an empty title="" means none, as in HTML.
    title: normalizeDescription(decl.title ?? '') || undefined,
    inputSchema,
    outputSchema,
    untrustedOutput: decl.untrustedOutput ? true : undefined,
    concurrency,
    timeoutMs,
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) (contract as unknown as Record<string, unknown>)[key] = value;
  const contractProblems = checkContract(contract);
  if (contractProblems.length)
    return { ok: false, problems: contractProblems.map((p) => `${who}: ${p.message}`) };
  return { ok: true, contract };
}

/** One `<script>` child of an `<agent-capability>`, as either side reads it. */
export interface SchemaScriptInfo {
  /** The `type` attribute (`null` when absent). */
  type: string | null;
  /** The `data-schema` attribute (`null` when absent). */
  dataSchema: string | null;
  text: string;
}

/**
 * Picks the input and output schema texts from an element's direct `<script>` children: only
 * `type="application/schema+json"` counts; `data-schema="output"` marks the output schema, absent
 * or `"input"` the input one. Two scripts for one role, or another `data-schema` value, is a problem.
 */
export function schemaTextsFromScripts(
  scripts: readonly SchemaScriptInfo[],
  name?: string | null,
): { inputSchemaText: string | null; outputSchemaText: string | null; problems: string[] } {
  const who = tagOf(name);
  const problems: string[] = [];
  const texts: { input: string | null; output: string | null } = { input: null, output: null };
  for (const script of scripts) {
    if (attr(script.type)?.toLowerCase() !== SCHEMA_SCRIPT_TYPE) continue;
    const role = attr(script.dataSchema) ?? 'input';
    if (role !== 'input' && role !== 'output') {
      problems.push(`${who} has a schema script with data-schema="${role}": use "output" or no data-schema`);
      continue;
    }
    if (texts[role] !== null) {
      problems.push(`${who} has more than one ${role} schema script: keep one`);
      continue;
    }
    texts[role] = script.text;
  }
  return { inputSchemaText: texts.input, outputSchemaText: texts.output, problems };
}
