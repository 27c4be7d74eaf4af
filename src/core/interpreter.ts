/**
 * `@cfworker/json-schema`, the interpreter `devAuthority()` and a ToolSource validate with where no
 * schema was compiled ahead of time, and our reading of its output. Loaded on first use by
 * `createInterpreterValidator` (authority.ts), so neither ships in a page that never needs them.
 */
import { Validator } from '@cfworker/json-schema';
import { jsonPointer } from './canonical-json.js';
import { MAX_VALIDATION_ISSUES } from './util.js';
import type { JsonSchema, JsonValue, ValidationIssue, ValidationOutcome } from './types.js';

const VALID: ValidationOutcome = Object.freeze({ valid: true });

interface CfOutputUnit {
  keyword: string;
  keywordLocation: string;
  instanceLocation: string;
  error: string;
}
interface CfValidator {
  validate(instance: unknown): { valid: boolean; errors: CfOutputUnit[] };
}
type CfDraft = '4' | '7' | '2019-09' | '2020-12';
type CfValidatorClass = new (schema: object, draft?: CfDraft, shortCircuit?: boolean) => CfValidator;

// Keywords that only report that a subschema failed; the subschema's own errors say where and why.
const CF_APPLICATORS = new Set(
  (
    'properties patternProperties additionalProperties unevaluatedProperties items prefixItems additionalItems ' +
    'unevaluatedItems allOf $ref $recursiveRef $dynamicRef dependentSchemas if then else'
  ).split(' '),
);
/** Keywords whose subschemas fail by design when the keyword itself fails. */
const CF_COMBINATORS = new Set(['anyOf', 'oneOf', 'not', 'contains']);

function cfPointer(location: string): string {
  const raw = location.startsWith('#') ? location.slice(1) : location;
  try {
    // cfworker encodes pointers with encodeURI (and `#` as %23): decodeURIComponent undoes exactly that.
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Issues from `@cfworker/json-schema` output units, reduced to the leaf errors ajv would report. */
export function issuesFromCfworkerErrors(errors: readonly CfOutputUnit[]): ValidationIssue[] {
  const disallowed = new Set<string>();
  const combinators: string[] = [];
  for (const e of errors) {
    if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') {
      const m = /^Property "(.*)" does not match/.exec(e.error);
      if (m) disallowed.add(cfPointer(e.instanceLocation) + jsonPointer([m[1]]));
    } else if (CF_COMBINATORS.has(e.keyword)) {
      combinators.push(e.keywordLocation + '/');
    }
  }
  const out: ValidationIssue[] = [];
  for (const e of errors) {
    const { keyword } = e;
    if (CF_APPLICATORS.has(keyword)) continue;
    // The branches of anyOf / oneOf / not all fail by design: the combinator's own error is the issue.
    if (combinators.some((prefix) => e.keywordLocation.startsWith(prefix))) continue;
    const path = cfPointer(e.instanceLocation);
    const dependent = keyword === 'dependentRequired' || keyword === 'dependencies';
    const missing =
      keyword === 'required'
        ? /required property "(.*)"\.?$/.exec(e.error)
        : dependent && /but does not have "(.*)"\.$/.exec(e.error);
    // "…does not match dependant schema": the subschema's own errors follow.
    if (!missing && dependent && /dependant schema/.test(e.error)) continue;
    out.push(
      missing
        ? { path: path + jsonPointer([missing[1]]), message: 'is required', keyword }
        : keyword !== 'false'
          ? { path, message: e.error, keyword }
          : disallowed.has(path)
            ? { path, message: 'is not an allowed property', keyword: 'additionalProperties' }
            : { path, message: 'is not allowed here', keyword },
    );
    if (out.length >= MAX_VALIDATION_ISSUES) break;
  }
  return out.length ? out : [{ path: '', message: 'does not match the schema' }];
}

function draftOf(schema: JsonSchema): CfDraft {
  const id = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (id.includes('draft-07')) return '7';
  if (id.includes('draft-04')) return '4';
  if (id.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/** Validates against `schema` with the interpreter, reporting issues as the compiled validators do. */
export function interpreterValidator(schema: JsonSchema): (value: JsonValue) => ValidationOutcome {
  let validator: CfValidator | undefined;
  return (value) => {
    try {
      // cfworker annotates the schema objects it is given: hand it a private copy.
      validator ??= new (Validator as unknown as CfValidatorClass)(JSON.parse(JSON.stringify(schema)) as object, draftOf(schema), false);
    } catch (error) {
      // A schema the interpreter cannot dereference (a bad $ref): fail closed, and say it is the schema.
      return {
        valid: false,
        issues: [
          {
            path: '',
            message: `the schema cannot be interpreted (${String((error as Error)?.message ?? error)})`,
            keyword: 'schema',
          },
        ],
      };
    }
    const result = validator.validate(value);
    return result.valid ? VALID : { valid: false, issues: issuesFromCfworkerErrors(result.errors) };
  };
}
