/**
 * The compiler authority (DESIGN section 2): the set of contracts a build approved, with a
 * validator each. `createCompilerAuthority({ manifest, validators })` admits a registration only
 * when its token is the manifest's token for that id and its contract equals the manifest's
 * contract exactly. It compares precomputed strings: no hashing and no schema compilation at run
 * time, and the validators are ajv standalone functions (no `new Function`, so `script-src 'self'`
 * works). The core entry reaches this module, never `authority.ts`, which adds `devAuthority()`
 * and the interpreter it validates with (`agent-surface-kit/dev`).
 */
import { canonicalJson, checkJson, jsonPointer } from './canonical-json.js';
import { MAX_VALIDATION_ISSUES, deepFreeze } from './util.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_TIMEOUT_MS,
  MODEL_VISIBLE_FIELDS,
  defaultInputSchema,
  invalidContractError,
  tryNormalizeContract,
} from './contract.js';
import { isContractToken } from './token.js';
import type {
  Admission,
  AdmittedContract,
  AgentSurfaceAuthority,
  AuthorityEntry,
  CapabilityContract,
  ContractManifest,
  ContractValidators,
  JsonObject,
  JsonValue,
  NormalizedContract,
  RefusedContract,
  StandaloneValidator,
  ValidationIssue,
  ValidationOutcome,
  ValueValidator,
} from './types.js';

export const MANIFEST_FORMAT = 'agent-surface-kit/manifest@1';

export type UnauthorizedReason =
  'missing-token' | 'unknown-token' | 'token-of-another-contract' | 'contract-differs';

const VALID: ValidationOutcome = Object.freeze({ valid: true });

/** An `UNAUTHORIZED_CONTRACT` refusal; every one says how to get a token. */
function refuse(
  id: string,
  problem: string,
  reason: UnauthorizedReason,
  details?: JsonObject,
  tail = '.',
): RefusedContract {
  return {
    ok: false,
    code: 'UNAUTHORIZED_CONTRACT',
    reason,
    error: {
      code: 'UNAUTHORIZED_CONTRACT',
      message: `Capability "${id}" ${problem}run \`agent-surface compile --write\` (in code: use the manifest's token)${tail}`,
      details: { capabilityId: id, reason, ...details },
    },
  };
}

/** @internal An `INVALID_CONTRACT` refusal (shared with `devAuthority`). */
export function invalid(contract: unknown, problems: Parameters<typeof invalidContractError>[1]): RefusedContract {
  return {
    ok: false,
    code: 'INVALID_CONTRACT',
    reason: 'invalid-contract',
    error: invalidContractError(contract, problems).toPayload(),
  };
}

// ---------------------------------------------------------------------------------------------
// ajv standalone validators → ValidationIssue

type AjvError = NonNullable<StandaloneValidator['errors']>[number];

/** ajv keywords whose error names a property: the param that holds it, and what is wrong with it. */
const AJV_PROPERTY_ERRORS: Readonly<Record<string, readonly [param: string, message: string]>> = {
  required: ['missingProperty', 'is required'],
  dependentRequired: ['missingProperty', 'is required'],
  dependencies: ['missingProperty', 'is required'],
  additionalProperties: ['additionalProperty', 'is not an allowed property'],
  unevaluatedProperties: ['unevaluatedProperty', 'is not an allowed property'],
  propertyNames: ['propertyName', 'is not an allowed property name'],
};

function ajvIssue(e: AjvError): ValidationIssue {
  const params = (e.params ?? {}) as Record<string, unknown>;
  const { keyword } = e;
  const path = e.instancePath ?? '';
  const named = Object.hasOwn(AJV_PROPERTY_ERRORS, keyword) && AJV_PROPERTY_ERRORS[keyword];
  const property = named && params[named[0]];
  if (typeof property === 'string')
    return { path: path + jsonPointer([property]), message: (named as readonly string[])[1]!, keyword };
  if (keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues.map((v) => JSON.stringify(v)).join(', ');
    return {
      path,
      message: `must be one of ${allowed.length > 200 ? allowed.slice(0, 200) + '…' : allowed}`,
      keyword,
    };
  }
  return { path, message: e.message ?? `fails "${keyword}"`, keyword };
}

/** Issues from an ajv validator's `errors`; the bookkeeping errors ajv adds for `if` are dropped. */
export function issuesFromAjvErrors(errors: StandaloneValidator['errors']): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const e of errors ?? []) {
    if (e.keyword === 'if') continue;
    out.push(ajvIssue(e));
    if (out.length >= MAX_VALIDATION_ISSUES) break;
  }
  return out.length ? out : [{ path: '', message: 'does not match the schema' }];
}

/** Wraps an ajv standalone function as a synchronous `ValueValidator`. */
export function fromStandaloneValidator(validate: StandaloneValidator): ValueValidator {
  return (value: JsonValue): ValidationOutcome =>
    validate(value) ? VALID : { valid: false, issues: issuesFromAjvErrors(validate.errors) };
}

// ---------------------------------------------------------------------------------------------
// Compiler authority

export interface CompilerAuthorityOptions {
  manifest: ContractManifest;
  validators: Readonly<Record<string, ContractValidators>>;
}

interface PreparedEntry {
  entry: AuthorityEntry;
  canonical: string;
  admitted: AdmittedContract;
  /**
   * The immutable contract object last found equal to this entry's, at first the manifest's own.
   * Markup shares one frozen contract among every element that declares it (a table of a thousand
   * rows), so each row after the first is admitted by identity instead of comparing it again.
   */
  same: object;
}

/** @internal An admission with the validators that go with it (`validateOutput` only when there is one). */
export function admitted(
  contract: NormalizedContract,
  token: string,
  validateInput: ValueValidator,
  validateOutput: ValueValidator | undefined,
): AdmittedContract {
  const a: AdmittedContract = { ok: true, contract, token, validateInput };
  if (validateOutput) a.validateOutput = validateOutput;
  return a;
}

/**
 * Key-order-insensitive equality of plain JSON data, `b` being normalized (plain, no holes); anything
 * unusual in `a` compares unequal.
 */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || !a || !b) return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b) || (!isArray && Object.getPrototypeOf(a) !== Object.prototype)) return false;
  const ka = Object.keys(a);
  // An array's `length` too: a trailing hole leaves the keys alike.
  return (
    ka.length === Object.keys(b).length &&
    (!isArray || (a as unknown[]).length === (b as unknown[]).length) &&
    ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Fields)[k], (b as Fields)[k]))
  );
}

type Fields = Record<string, unknown>;

const DEFAULT_INPUT_SCHEMA = defaultInputSchema();

/**
 * Fast path of `admit`: is `c` literally the manifest's normalized contract, with absent optional
 * fields standing for their defaults? A contract equal to one the compiler checked needs no checks
 * of its own. Anything else (even a harmless difference) answers false and takes the full path,
 * which decides and explains.
 */
function sameAsManifest(c: object, n: NormalizedContract): boolean {
  if (c == null || Object.getPrototypeOf(c) !== Object.prototype) return false;
  const defaults: Fields = {
    confirmation: 'never',
    untrustedOutput: false,
    concurrency: DEFAULT_CONCURRENCY[n.kind],
    timeoutMs: DEFAULT_TIMEOUT_MS[n.kind],
    inputSchema: DEFAULT_INPUT_SCHEMA,
  };
  // Each field read as the full path reads it (`in`, then the value), a default only when absent.
  return (
    Object.keys(c).every((k) => Object.hasOwn(n, k)) &&
    Object.keys(n).every((k) => jsonEqual(k in c ? (c as Fields)[k] : defaults[k], (n as unknown as Fields)[k]))
  );
}

/**
 * Whether `value` can no longer change: frozen all the way down. (A getter on a frozen object could
 * still answer otherwise later, but whatever it says, what registers is the manifest's contract.)
 */
const immutable = (v: unknown): boolean => !v || typeof v !== 'object' || (Object.isFrozen(v) && Object.values(v).every(immutable));

/**
 * The authority a build approved. Throws a `TypeError` at once when `manifest` or `validators`
 * do not have the compiler's shape (a programmer's mistake); `admit` never throws.
 */
export function createCompilerAuthority(options: CompilerAuthorityOptions): AgentSurfaceAuthority {
  const { manifest, validators } = (options ?? {}) as Partial<CompilerAuthorityOptions>;
  const fail = (problem: string): never => {
    throw new TypeError(
      `createCompilerAuthority: ${problem}; pass the \`manifest\` and \`validators\` \`agent-surface compile\` wrote.`,
    );
  };
  const isObject = (v: unknown): v is object => v !== null && typeof v === 'object';
  if (!isObject(manifest)) fail('`manifest` is missing');
  if (manifest!.format !== MANIFEST_FORMAT)
    fail(`manifest.format is ${JSON.stringify(manifest!.format)}, expected "${MANIFEST_FORMAT}"`);
  if (!isObject(manifest!.contracts)) fail('manifest.contracts is missing');
  if (!isObject(validators)) fail('`validators` is missing');

  const byId = new Map<string, PreparedEntry>();
  const idByToken = new Map<string, string>();
  for (const [id, raw] of Object.entries(manifest!.contracts)) {
    const where = `manifest.contracts[${JSON.stringify(id)}]`;
    if (!isObject(raw)) fail(`${where} is not an entry`);
    const { contract, token } = raw;
    if (!isContractToken(token)) fail(`${where}.token is not a contract token`);
    const normalized = tryNormalizeContract(contract);
    if (!normalized.ok)
      return fail(`${where}.contract is not a valid contract (${normalized.problems.map((p) => p.message).join('; ')})`);
    const c = normalized.contract;
    const canonical = canonicalJson(c);
    // checkJson first: a hand-edited entry may hold undefined, which canonicalJson would throw on.
    if (!checkJson(contract).ok || canonical !== canonicalJson(contract)) fail(`${where}.contract is not normalized`);
    if (c.id !== id) fail(`${where} holds the contract of ${JSON.stringify(c.id)}`);
    const other = idByToken.get(token);
    if (other !== undefined) fail(`${where} has the same token as ${JSON.stringify(other)}`);
    const v = validators![id];
    const which = `validators[${JSON.stringify(id)}]`;
    if (typeof v?.input !== 'function') fail(`${which}.input is missing`);
    if ((c.outputSchema !== undefined) !== (typeof v.output === 'function'))
      fail(`${which}.output does not match the contract's outputSchema`);
    const frozen = deepFreeze(c);
    byId.set(id, {
      entry: Object.freeze({ contract: frozen, token }),
      same: frozen,
      canonical,
      admitted: Object.freeze(
        admitted(frozen, token, fromStandaloneValidator(v.input), v.output && fromStandaloneValidator(v.output)),
      ),
    });
    idByToken.set(token, id);
  }
  return Object.freeze({
    kind: 'compiler' as const,
    contract(id: string): AuthorityEntry | undefined {
      return byId.get(id)?.entry;
    },
    admit(contract: CapabilityContract, token: string | undefined | null): Admission {
      if (typeof token === 'string') {
        // (No id is undefined: an unknown token finds no entry.)
        const hit = byId.get(idByToken.get(token)!);
        // The immutable object compared last (at first the manifest's own, as code registers it)
        // needs no comparison.
        if (
          hit &&
          (contract === hit.same ||
            (sameAsManifest(contract, hit.entry.contract) && (!immutable(contract) || !!(hit.same = contract))))
        )
          return hit.admitted;
      }
      const normalized = tryNormalizeContract(contract);
      if (!normalized.ok) return invalid(contract, normalized.problems);
      const id = normalized.contract.id;
      const known = byId.get(id);
      if (token === undefined || token === null || token === '')
        return refuse(id, 'has no token: ', 'missing-token', {}, ' (or use devAuthority() while developing).');
      const tokenOwner = idByToken.get(token);
      if (tokenOwner === undefined) {
        return refuse(
          id,
          known
            ? 'carries a token this build did not issue: '
            : "is not in this build's manifest: add its file to the compile and ",
          'unknown-token',
          { inManifest: known !== undefined },
        );
      }
      if (tokenOwner !== id) {
        return refuse(
          id,
          `carries the token of "${tokenOwner}": `,
          'token-of-another-contract',
          { tokenOf: tokenOwner },
        );
      }
      // known is defined: the token belongs to this id.
      if (canonicalJson(normalized.contract) !== known!.canonical) {
        // The top-level fields where the two differ, model-visible ones first: they are the ones that
        // matter to a reviewer.
        const x = normalized.contract as unknown as JsonObject;
        const y = known!.entry.contract as unknown as JsonObject;
        const visible = MODEL_VISIBLE_FIELDS as readonly string[];
        const fields = [...new Set([...Object.keys(x), ...Object.keys(y)])]
          .filter((f) => !jsonEqual(x[f], y[f]))
          .sort((p, q) => +visible.includes(q) - +visible.includes(p));
        return refuse(
          id,
          `differs from the authorized contract (${fields.join(', ')}): `,
          'contract-differs',
          { fields },
        );
      }
      return known!.admitted;
    },
  });
}

