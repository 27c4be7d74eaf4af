/**
 * Capability contracts (DESIGN section 2): definition-time checks, normalization (every default
 * filled in) and the canonical text that tokens are computed over. Schema validity as ajv sees it
 * is checked by the compiler, since ajv never ships to the browser.
 */
import { parseCapabilityId } from './capability-id.js';
import { canonicalJson, checkJson, utf8Length } from './canonical-json.js';
import { AgentSurfaceDefinitionError } from './errors.js';
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
export const CAPABILITY_EFFECTS: readonly CapabilityEffect[] = Object.freeze([
  'read',
  'local-state',
  'navigation',
  'server-query',
  'server-mutation',
  'external-side-effect',
  'destructive',
]);
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

const CONTRACT_KEYS = new Set([
  'id',
  'kind',
  'effect',
  'confirmation',
  'description',
  'inputSchema',
  'outputSchema',
  'untrustedOutput',
  'concurrency',
  'timeoutMs',
]);

/** The fields an agent sees: a change to any of them changes the token (so do the others). */
export const MODEL_VISIBLE_FIELDS = Object.freeze([
  'id',
  'kind',
  'effect',
  'confirmation',
  'description',
  'inputSchema',
  'outputSchema',
  'untrustedOutput',
] as const);

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

function quote(v: unknown): string {
  return typeof v === 'string'
    ? JSON.stringify(v)
    : v === undefined
      ? 'undefined'
      : typeof v === 'object'
        ? (JSON.stringify(v) ?? typeof v)
        : String(v);
}

function oneOf(values: readonly string[]): string {
  return values.map((v) => `"${v}"`).join(', ');
}

/** Nesting depth of a JSON value as MAX_SCHEMA_DEPTH counts it. */
function jsonDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const d = jsonDepth(child);
    if (d > deepest) deepest = d;
  }
  return deepest + 1;
}

/** Checks one schema; returns its canonical text when it is acceptable. */
function inspectSchema(
  field: 'inputSchema' | 'outputSchema',
  schema: unknown,
  problems: ContractProblem[],
): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    problems.push({
      field,
      message: `${field} must be a JSON Schema object, got ${Array.isArray(schema) ? 'an array' : quote(schema)}`,
    });
    return undefined;
  }
  // The depth limit here is far above MAX_SCHEMA_DEPTH only to stop at cycles cheaply.
  const json = checkJson(schema, { maxDepth: 64 });
  if (!json.ok && json.code === 'too-deep') {
    problems.push({
      field,
      message: `${field} is nested more than 64 levels deep; the limit is ${MAX_SCHEMA_DEPTH}`,
    });
    return undefined;
  }
  if (!json.ok) {
    problems.push({
      field,
      message: `${field} is not JSON: ${json.reason} at ${json.path === '' ? '(root)' : json.path}`,
    });
    return undefined;
  }
  const depth = jsonDepth(schema);
  if (depth > MAX_SCHEMA_DEPTH) {
    problems.push({
      field,
      message: `${field} is nested ${depth} levels deep; the limit is ${MAX_SCHEMA_DEPTH} (flatten it or split the capability)`,
    });
  }
  const text = canonicalJson(schema);
  const bytes = utf8Length(text);
  if (bytes > MAX_SCHEMA_BYTES) {
    problems.push({ field, message: `${field} is ${bytes} bytes of JSON; the limit is ${MAX_SCHEMA_BYTES}` });
  }
  if (field === 'inputSchema' && (schema as JsonObject).type !== 'object') {
    problems.push({
      field,
      message: `inputSchema must have type "object" (tool arguments are an object), got type ${quote((schema as JsonObject).type)}`,
    });
  }
  return problems.length ? undefined : text;
}

function inspectContract(contract: unknown): Inspection {
  const problems: ContractProblem[] = [];
  if (contract === null || typeof contract !== 'object' || Array.isArray(contract)) {
    problems.push({
      field: '',
      message: `a contract must be an object, got ${Array.isArray(contract) ? 'an array' : quote(contract)}`,
    });
    return { problems };
  }
  const c = contract as Record<string, unknown>;

  for (const key of Object.keys(c)) {
    if (!CONTRACT_KEYS.has(key)) {
      problems.push({
        field: key,
        message: `unknown field "${key}" (a contract has ${[...CONTRACT_KEYS].join(', ')})`,
      });
    }
  }

  const parsed = parseCapabilityId(c.id);
  if (!parsed.ok) problems.push({ field: 'id', message: `bad id: ${parsed.reason}` });

  const kind = c.kind;
  if (!CAPABILITY_KINDS.includes(kind as CapabilityKind)) {
    problems.push({
      field: 'kind',
      message: `kind must be one of ${oneOf(CAPABILITY_KINDS)}, got ${quote(kind)}`,
    });
  }
  const effect = c.effect;
  if (!CAPABILITY_EFFECTS.includes(effect as CapabilityEffect)) {
    problems.push({
      field: 'effect',
      message: `effect must be one of ${oneOf(CAPABILITY_EFFECTS)}, got ${quote(effect)}`,
    });
  } else if (kind === 'observation' && !OBSERVATION_EFFECTS.includes(effect as CapabilityEffect)) {
    problems.push({
      field: 'effect',
      message: `an observation only reads: its effect must be ${oneOf(OBSERVATION_EFFECTS)}, got "${String(effect)}" (make it an action)`,
    });
  }
  if (
    c.confirmation !== undefined &&
    !CONFIRMATION_REQUIREMENTS.includes(c.confirmation as ConfirmationRequirement)
  ) {
    problems.push({
      field: 'confirmation',
      message: `confirmation must be one of ${oneOf(CONFIRMATION_REQUIREMENTS)}, got ${quote(c.confirmation)}`,
    });
  }

  const description = c.description;
  if (typeof description !== 'string') {
    problems.push({
      field: 'description',
      message: `description must be a string, got ${quote(description)}`,
    });
  } else if (description.trim().length === 0) {
    problems.push({
      field: 'description',
      message:
        'description is empty: say what the capability does, for the model and for the person approving it',
    });
  } else if (description.length > MAX_DESCRIPTION_LENGTH) {
    problems.push({
      field: 'description',
      message: `description is ${description.length} characters long; the limit is ${MAX_DESCRIPTION_LENGTH}`,
    });
  }

  const schemaProblems: ContractProblem[] = [];
  if (c.inputSchema !== undefined) inspectSchema('inputSchema', c.inputSchema, schemaProblems);
  if (c.outputSchema !== undefined) inspectSchema('outputSchema', c.outputSchema, schemaProblems);
  problems.push(...schemaProblems);

  if (c.untrustedOutput !== undefined && typeof c.untrustedOutput !== 'boolean') {
    problems.push({
      field: 'untrustedOutput',
      message: `untrustedOutput must be true or false, got ${quote(c.untrustedOutput)}`,
    });
  }
  if (
    c.concurrency !== undefined &&
    !CAPABILITY_CONCURRENCIES.includes(c.concurrency as CapabilityConcurrency)
  ) {
    problems.push({
      field: 'concurrency',
      message: `concurrency must be one of ${oneOf(CAPABILITY_CONCURRENCIES)}, got ${quote(c.concurrency)}`,
    });
  }
  if (
    c.timeoutMs !== undefined &&
    !(typeof c.timeoutMs === 'number' && Number.isSafeInteger(c.timeoutMs) && c.timeoutMs > 0)
  ) {
    problems.push({
      field: 'timeoutMs',
      message: `timeoutMs must be a positive integer of milliseconds, got ${quote(c.timeoutMs)}`,
    });
  }

  if (problems.length) return { problems };

  const k = kind as CapabilityKind;
  // A fresh copy in canonical key order: later changes to the author's objects cannot leak in.
  const normalized: NormalizedContract = {
    id: c.id as string,
    kind: k,
    effect: effect as CapabilityEffect,
    confirmation: (c.confirmation as ConfirmationRequirement | undefined) ?? 'never',
    description: description as string,
    inputSchema:
      c.inputSchema === undefined
        ? defaultInputSchema()
        : (JSON.parse(canonicalJson(c.inputSchema)) as JsonSchema),
    // Absent stays absent (no key at all), so the canonical text has no `outputSchema` either.
    ...(c.outputSchema === undefined
      ? {}
      : { outputSchema: JSON.parse(canonicalJson(c.outputSchema)) as JsonSchema }),
    untrustedOutput: (c.untrustedOutput as boolean | undefined) ?? false,
    concurrency: (c.concurrency as CapabilityConcurrency | undefined) ?? DEFAULT_CONCURRENCY[k],
    timeoutMs: (c.timeoutMs as number | undefined) ?? DEFAULT_TIMEOUT_MS[k],
  };
  return { problems, normalized };
}

/** The input schema of a contract that declares none: no arguments at all. */
export function defaultInputSchema(): JsonSchema {
  return { type: 'object', properties: {}, additionalProperties: false };
}

/** Every problem with `contract`, or `[]`. Never throws. */
export function checkContract(contract: unknown): ContractProblem[] {
  return inspectContract(contract).problems;
}

function contractIdForMessage(contract: unknown): string {
  const id =
    contract !== null && typeof contract === 'object' ? (contract as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id.length > 0 ? `"${id}"` : '(without a valid id)';
}

/** The message and details of an `INVALID_CONTRACT` error for `problems`. */
export function invalidContractError(
  contract: unknown,
  problems: readonly ContractProblem[],
): AgentSurfaceDefinitionError {
  const id =
    contract !== null && typeof contract === 'object' ? (contract as { id?: unknown }).id : undefined;
  const message = `Invalid capability contract ${contractIdForMessage(contract)}: ${problems.map((p) => p.message).join('; ')}.`;
  const details: JsonObject = { problems: problems.map((p) => ({ field: p.field, message: p.message })) };
  if (typeof id === 'string') details.capabilityId = id;
  return new AgentSurfaceDefinitionError('INVALID_CONTRACT', message, details);
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
