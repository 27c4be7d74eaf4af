/**
 * The rules an agent's call meets wherever it runs: the registry's invoke pipeline (invoke.ts) and
 * the exposure gateway's standalone tools (gateway-calls.ts). One copy, so both answer the same
 * input, the same output and the same thrown error the same way.
 */
import { checkJson } from './canonical-json.js';
import { snapshotJson } from './json-snapshot.js';
import { AgentSurfaceError, DEFAULT_RETRY, errorPayload } from './errors.js';
import { isRecord } from './util.js';
import type { AgentErrorPayload, JsonObject, JsonValue, ValidationIssue, ValidationOutcome, ValueValidator } from './types.js';

/** Nesting allowed in an input or output; schemas are at most 8 deep, so real values are far shallower. */
const MAX_DEPTH = 64;
/** Validation issues returned to the agent. */
const MAX_ISSUES = 20;

/** What a call that did not finish on its own was: the end of its message. */
export const ABORT_MESSAGES = {
  TIMEOUT: 'did not finish in time',
  CANCELLED: 'was cancelled by its caller',
  COMPONENT_UNMOUNTED: 'was removed from the page while the call ran',
} as const;

export type InputRead = { ok: true; value: JsonObject } | { ok: false; error: AgentErrorPayload };

const NO_INPUT: InputRead = Object.freeze({ ok: true, value: Object.freeze({}) });

/**
 * Reads an agent's input once, into a deep-frozen JSON copy: getters, proxies and later changes to
 * the caller's object cannot make what runs differ from what was checked (and approved). It must be
 * a JSON object within `maxBytes`; a missing (or null) input is `{}`.
 */
export function readInput(input: unknown, maxBytes: number): InputRead {
  if (input === undefined || input === null) return NO_INPUT;
  const snap = snapshotJson(input, { maxBytes, maxDepth: MAX_DEPTH });
  if (snap.ok) {
    if (isRecord(snap.value)) return snap as InputRead;
    return { ok: false, error: errorPayload('INVALID_INPUT', 'The input must be a JSON object.', { issues: [{ path: '', message: 'must be an object' }] }) };
  }
  const details: JsonObject = { issues: [{ path: snap.path, message: snap.reason }] };
  if (snap.code === 'too-large') details.maxBytes = maxBytes;
  // The reason says what is wrong: "larger than 65536 bytes of JSON", "a function is not JSON", …
  return { ok: false, error: errorPayload('INVALID_INPUT', `The input cannot be used: ${snap.reason} at "${snap.path}".`, details) };
}

/** `INVALID_INPUT` with JSON-pointer paths when the validator refused the input, else `undefined`. */
export function inputMismatch(capabilityId: string, outcome: ValidationOutcome): AgentErrorPayload | undefined {
  if (outcome !== null && typeof outcome === 'object' && outcome.valid === true) return undefined;
  // Validators are the page's code: whatever they return, the agent gets well-formed issues.
  const raw: ValidationIssue[] = Array.isArray((outcome as { issues?: unknown })?.issues) ? (outcome as { issues: ValidationIssue[] }).issues : [];
  const issues: JsonObject[] = [];
  for (let i = 0; i < raw.length && issues.length < MAX_ISSUES; i++) {
    const issue = raw[i];
    issues.push({ path: typeof issue?.path === 'string' ? issue.path : '', message: typeof issue?.message === 'string' ? issue.message : 'is invalid' });
  }
  if (issues.length === 0) issues.push({ path: '', message: 'does not match the input schema' });
  const first = issues[0];
  const said = String(first.message).replace(/\.+$/, '');
  return errorPayload(
    'INVALID_INPUT',
    `The input does not match the input schema of "${capabilityId}": ${first.path === '' ? 'the input' : first.path} ${said}.`,
    { issues },
  );
}

/** Why an output cannot be returned: the agent's error, and the cause the page's audit sees. */
export interface OutputRefusal {
  error: AgentErrorPayload;
  cause: Error;
}

/** The output validator refused (`problem`: its issues) or threw (`problem`: the error). */
export function outputMismatch(capabilityId: string, problem: unknown): OutputRefusal {
  return {
    error: errorPayload('EXECUTION_FAILED', `"${capabilityId}" produced an output that does not match its output schema.`, {
      reason: 'output-invalid',
    }),
    cause:
      problem instanceof Error
        ? problem
        : Object.assign(new TypeError(`The output of "${capabilityId}" does not match its outputSchema`), { issues: problem }),
  };
}

/** The refusal of a validator's verdict on an output, or `undefined` when it passed. */
function outputVerdict(capabilityId: string, outcome: ValidationOutcome): OutputRefusal | undefined {
  return outcome?.valid === true ? undefined : outputMismatch(capabilityId, (outcome as { issues?: unknown } | null)?.issues);
}

/**
 * Why an output cannot be returned (not JSON within `maxBytes`, refused by the output validator, or
 * the validator threw), else `undefined`. A promise only while an asynchronous validator decides.
 */
export function checkOutput(
  capabilityId: string,
  value: unknown,
  maxBytes: number,
  validate: ValueValidator | undefined,
): OutputRefusal | undefined | PromiseLike<OutputRefusal | undefined> {
  // Not JSON within `maxBytes` (`undefined` stands for null).
  const check = snapshotJson(value, { maxBytes, maxDepth: MAX_DEPTH });
  if (!check.ok) {
    return {
      error: errorPayload('EXECUTION_FAILED', `"${capabilityId}" produced an output that cannot be returned.`, {
        reason: check.code === 'too-large' ? 'output-too-large' : 'output-not-json',
      }),
      cause: new TypeError(`The output of "${capabilityId}" is not usable: ${check.reason} at "${check.path}"`),
    };
  }
  if (validate === undefined) return undefined;
  let outcome: ValidationOutcome | PromiseLike<ValidationOutcome>;
  try {
    outcome = validate(value as JsonValue);
  } catch (error) {
    return outputMismatch(capabilityId, error);
  }
  return isThenable(outcome)
    ? outcome.then(
        (o) => outputVerdict(capabilityId, o),
        (error: unknown) => outputMismatch(capabilityId, error),
      )
    : outputVerdict(capabilityId, outcome);
}

/** Whether `value` is a promise (or any thenable) rather than a value. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<T>).then === 'function';
}

const RETRIES: ReadonlySet<string> = new Set(Object.values(DEFAULT_RETRY));

/**
 * What the agent learns of a handler's throw: a deliberate `AgentSurfaceError` passes its payload
 * (when its code, retry and details are well-formed); anything else is a generic failure without
 * internal messages or stacks.
 */
export function thrownPayload(capabilityId: string, error: unknown, maxBytes: number): AgentErrorPayload {
  // Also accept errors from another copy of this module (a CDN bundle next to the npm package).
  if (error instanceof AgentSurfaceError || (error instanceof Error && error.name === 'AgentSurfaceError')) {
    const e = error as AgentSurfaceError;
    if (Object.hasOwn(DEFAULT_RETRY, e.code) && typeof e.message === 'string') {
      const retry = RETRIES.has(e.retry) ? e.retry : DEFAULT_RETRY[e.code];
      const details = e.details !== undefined && checkJson(e.details, { maxBytes }).ok && isRecord(e.details) ? (e.details as JsonObject) : undefined;
      return errorPayload(e.code, e.message, details, retry);
    }
  }
  return errorPayload('EXECUTION_FAILED', `"${capabilityId}" failed while running.`, { reason: 'handler-threw' });
}
