/**
 * Capability contracts (DESIGN section 2): definition-time checks, normalization (every default
 * filled in) and the canonical text that tokens are computed over. Schema validity as ajv sees it
 * is checked by the compiler, since ajv never ships to the browser.
 */
import { parseCapabilityId } from './capability-id.js';
import { canonicalCopy, canonicalJson, walkJson } from './canonical-json.js';
import { CAPABILITY_EFFECTS } from './effects.js';
import { AgentSurfaceDefinitionError } from './errors.js';
import { endSentence, isRecord as isObject } from './util.js';
import type {
  CapabilityConcurrency,
  CapabilityContract,
  CapabilityEffect,
  CapabilityKind,
  ConfirmationRequirement,
  JsonObject,
  JsonSchema,
  NormalizedContract,
} from './types.js';

export const CAPABILITY_KINDS: readonly CapabilityKind[] = Object.freeze(['action', 'observation']);
// In a module of its own: the approval UI's effect words read it without taking in the contract checks.
export { CAPABILITY_EFFECTS };
/** The effects an observation may have: it reads, it never writes. */
export const OBSERVATION_EFFECTS: readonly CapabilityEffect[] = Object.freeze(['read', 'server-query']);
export const CONFIRMATION_REQUIREMENTS: readonly ConfirmationRequirement[] = Object.freeze([
  'never',
  'optional',
  'required',
]);
export const CAPABILITY_CONCURRENCIES: readonly CapabilityConcurrency[] = Object.freeze([
  'serial',
  'parallel',
]);

export const MAX_DESCRIPTION_LENGTH = 300;
/** A title is a label: one line, at most this many characters. */
export const MAX_TITLE_LENGTH = 100;
const TITLE_RE = /^[^\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]{1,100}$/u;
/** Limit on each schema's canonical JSON, in UTF-8 bytes. */
export const MAX_SCHEMA_BYTES = 16 * 1024;
/**
 * Limit on each schema's nesting, counted over its JSON document: the schema object itself is
 * depth 1 and every object or array inside adds one. `{"type":"object","properties":{"a":
 * {"type":"string"}}}` is depth 3 (schema, `properties`, `a`); `"required":["a"]` adds a level too.
 */
export const MAX_SCHEMA_DEPTH = 8;

export const DEFAULT_TIMEOUT_MS: Readonly<Record<CapabilityKind, number>> = Object.freeze({
  action: 10_000,
  observation: 5_000,
});
export const DEFAULT_CONCURRENCY: Readonly<Record<CapabilityKind, CapabilityConcurrency>> = Object.freeze({
  action: 'serial',
  observation: 'parallel',
});

/** The fields an agent sees: a change to any of them changes the token (so do the others). */
export const MODEL_VISIBLE_FIELDS = Object.freeze([
  'id',
  'kind',
  'effect',
  'confirmation',
  'description',
  'title',
  'inputSchema',
  'outputSchema',
  'untrustedOutput',
] as const);

const CONTRACT_KEYS: readonly string[] = [...MODEL_VISIBLE_FIELDS, 'concurrency', 'timeoutMs'];

export interface ContractProblem {
  /** The contract field at fault (`""` for the contract as a whole). */
  field: string;
  message: string;
}

interface Inspection {
  problems: ContractProblem[];
  /** Present when there are no problems. */
  normalized?: NormalizedContract;
}

function oneOf(values: readonly string[]): string {
  return values.map((v) => `"${v}"`).join(', ');
}

function quote(v: unknown): string {
  return typeof v === 'string' || (v !== null && typeof v === 'object')
    ? (JSON.stringify(v) ?? typeof v)
    : String(v);
}

/** Quotes a value for "got …", naming arrays as such. */
function got(v: unknown): string {
  return Array.isArray(v) ? 'an array' : quote(v);
}

/** Reports a problem of `field`, its name written before what is wrong unless `named` is false. */
type Report = (field: string, message: string, named?: boolean) => void;

/** Reports the problems of one schema. */
function inspectSchema(field: 'inputSchema' | 'outputSchema', schema: unknown, bad: Report): void {
  if (!isObject(schema)) return bad(field, `must be a JSON Schema object, got ${got(schema)}`);
  // The depth limit here is far above MAX_SCHEMA_DEPTH only to stop at cycles cheaply.
  const { problem, depth, bytes } = walkJson(schema, false, 64);
  if (problem)
    return bad(
      field,
      problem.code === 'too-deep'
        ? `is nested more than 64 levels deep; the limit is ${MAX_SCHEMA_DEPTH}`
        : `is not JSON: ${problem.reason} at ${problem.path || '(root)'}`,
    );
  if (depth > MAX_SCHEMA_DEPTH)
    bad(
      field,
      `is nested ${depth} levels deep; the limit is ${MAX_SCHEMA_DEPTH} (flatten it or split the capability)`,
    );
  // The walk measures the JSON text; the canonical text only orders keys, so it has the same size.
  if (bytes > MAX_SCHEMA_BYTES) bad(field, `is ${bytes} bytes of JSON; the limit is ${MAX_SCHEMA_BYTES}`);
  if (field === 'inputSchema' && schema.type !== 'object')
    bad(field, `must have type "object" (tool arguments are an object), got type ${quote(schema.type)}`);
}

/** Every problem with `contract`, in field order, and with `normalize` (and no problems) its normalized copy. */
function inspectContract(contract: unknown, normalize = true): Inspection {
  const problems: ContractProblem[] = [];
  const bad: Report = (field, message, named = true) =>
    void problems.push({ field, message: named ? `${field} ${message}` : message });
  if (!isObject(contract)) {
    bad('', `a contract must be an object, got ${got(contract)}`, false);
    return { problems };
  }
  const c = contract;
  /** Whether the field holds one of `values` (absent counts when it is optional). */
  const choice = (field: string, values: readonly string[], optional?: boolean): boolean => {
    const value = c[field];
    if ((optional && value === undefined) || values.includes(value as string)) return true;
    bad(field, `must be one of ${oneOf(values)}, got ${quote(value)}`);
    return false;
  };

  for (const key of Object.keys(c)) {
    if (!CONTRACT_KEYS.includes(key))
      bad(key, `unknown field "${key}" (a contract has ${CONTRACT_KEYS.join(', ')})`, false);
  }

  const parsed = parseCapabilityId(c.id);
  if (!parsed.ok) bad('id', `bad id: ${parsed.reason}`, false);

  const { kind, effect, description, timeoutMs } = c;
  choice('kind', CAPABILITY_KINDS);
  if (
    choice('effect', CAPABILITY_EFFECTS) &&
    kind === 'observation' &&
    !OBSERVATION_EFFECTS.includes(effect as CapabilityEffect)
  ) {
    bad(
      'effect',
      `an observation only reads: its effect must be ${oneOf(OBSERVATION_EFFECTS)}, got "${String(effect)}" (make it an action)`,
      false,
    );
  }
  choice('confirmation', CONFIRMATION_REQUIREMENTS, true);

  if (typeof description !== 'string') bad('description', `must be a string, got ${quote(description)}`);
  else if (!description.trim())
    bad(
      'description',
      'is empty: say what the capability does, for the model and for the person approving it',
    );
  else if (description.length > MAX_DESCRIPTION_LENGTH)
    bad('description', `is ${description.length} characters long; the limit is ${MAX_DESCRIPTION_LENGTH}`);

  const { title } = c;
  // A label shown in browser and client UI: up to 100 characters (code points) on one line, with no
  // control or bidi-override characters that could make it read as something else.
  if (title !== undefined && !(typeof title === 'string' && title.trim() && TITLE_RE.test(title)))
    bad('title', `must be 1 to ${MAX_TITLE_LENGTH} characters on one line, got ${quote(title)}`);

  if (c.inputSchema !== undefined) inspectSchema('inputSchema', c.inputSchema, bad);
  if (c.outputSchema !== undefined) inspectSchema('outputSchema', c.outputSchema, bad);

  if (c.untrustedOutput !== undefined && typeof c.untrustedOutput !== 'boolean')
    bad('untrustedOutput', `must be true or false, got ${quote(c.untrustedOutput)}`);
  choice('concurrency', CAPABILITY_CONCURRENCIES, true);
  if (timeoutMs !== undefined && !(Number.isSafeInteger(timeoutMs) && (timeoutMs as number) > 0))
    bad('timeoutMs', `must be a positive integer of milliseconds, got ${quote(timeoutMs)}`);

  if (problems.length || !normalize) return { problems };

  const k = kind as CapabilityKind;
  // A fresh copy in canonical key order: later changes to the author's objects cannot leak in.
  const normalized: NormalizedContract = {
    id: c.id as string,
    kind: k,
    effect: effect as CapabilityEffect,
    confirmation: (c.confirmation as ConfirmationRequirement | undefined) ?? 'never',
    description: description as string,
    ...(title === undefined ? {} : { title: title as string }),
    inputSchema:
      c.inputSchema === undefined ? defaultInputSchema() : canonicalCopy(c.inputSchema as JsonSchema),
    // Absent stays absent (no key at all), so the canonical text has no `outputSchema` either.
    ...(c.outputSchema === undefined ? {} : { outputSchema: canonicalCopy(c.outputSchema as JsonSchema) }),
    untrustedOutput: (c.untrustedOutput as boolean | undefined) ?? false,
    concurrency: (c.concurrency as CapabilityConcurrency | undefined) ?? DEFAULT_CONCURRENCY[k],
    timeoutMs: (timeoutMs as number | undefined) ?? DEFAULT_TIMEOUT_MS[k],
  };
  return { problems, normalized };
}

/** The input schema of a contract that declares none: no arguments at all. */
export function defaultInputSchema(): JsonSchema {
  return { type: 'object', properties: {}, additionalProperties: false };
}

/** Every problem with `contract`, or `[]`. Never throws. */
export function checkContract(contract: unknown): ContractProblem[] {
  return inspectContract(contract, false).problems;
}

/** The message and details of an `INVALID_CONTRACT` error for `problems`. */
export function invalidContractError(
  contract: unknown,
  problems: readonly ContractProblem[],
): AgentSurfaceDefinitionError {
  const id = isObject(contract) ? contract.id : undefined;
  const details: JsonObject = { problems: problems.map(({ field, message }) => ({ field, message })) };
  if (typeof id === 'string') details.capabilityId = id;
  return new AgentSurfaceDefinitionError(
    'INVALID_CONTRACT',
    endSentence(
      `Invalid capability contract ${id && typeof id === 'string' ? `"${id}"` : '(without a valid id)'}: ${problems.map((p) => p.message).join('; ')}`,
    ),
    details,
  );
}

/** Throws `AgentSurfaceDefinitionError('INVALID_CONTRACT')` naming the capability id and every problem. */
export function assertContract(contract: unknown): asserts contract is CapabilityContract {
  const problems = checkContract(contract);
  if (problems.length) throw invalidContractError(contract, problems);
}

/** Checks a contract where it is written and returns it unchanged, typed. */
export function defineContract<const T extends CapabilityContract>(contract: T): T {
  assertContract(contract);
  return contract;
}

/**
 * The contract with every default filled in, keys in canonical order and schemas copied: what
 * tokens are computed over. Throws `INVALID_CONTRACT` for a contract that fails the checks.
 */
export function normalizeContract(contract: CapabilityContract): NormalizedContract {
  const { problems, normalized } = inspectContract(contract);
  if (!normalized) throw invalidContractError(contract, problems);
  return normalized;
}

/** Checks and normalizes without throwing. */
export function tryNormalizeContract(
  contract: unknown,
): { ok: true; contract: NormalizedContract } | { ok: false; problems: ContractProblem[] } {
  const { problems, normalized } = inspectContract(contract);
  return normalized ? { ok: true, contract: normalized } : { ok: false, problems };
}

/** The text a contract's token is the SHA-256 of: the canonical JSON of the normalized contract. */
export function contractCanonicalJson(contract: CapabilityContract): string {
  return canonicalJson(normalizeContract(contract));
}
