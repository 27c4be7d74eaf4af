/**
 * The execution side of `createAgentExposureGateway`: what a standalone tool's `execute` runs (input
 * checks as the registry makes them, the handler under a deadline and the caller's signal, output
 * checks, result shaping). Loaded with the rest of the execution side by toolset-exec.ts (an
 * `import()` of tool-execution.ts). Admission and the tool objects are in gateway.ts.
 */
import { checkJson } from './canonical-json.js';
import { snapshotJson } from './json-snapshot.js';
import { errorPayload, isAgentSurfaceError } from './errors.js';
import { callInvocationId, failedCall } from './toolset-common.js';
import type {
  AgentConsumer,
  AgentErrorPayload,
  AgentInvocationResult,
  AgentToolCall,
  CapabilityHandler,
  JsonObject,
  JsonValue,
  NormalizedContract,
  ValidationIssue,
  ValueValidator,
} from './types.js';

/** One exposed tool, as gateway.ts admitted it. */
export interface GatewayToolSpec {
  readonly contract: NormalizedContract;
  readonly handler: CapabilityHandler;
  readonly validateInput: ValueValidator;
  readonly validateOutput: ValueValidator | undefined;
  readonly consumer: AgentConsumer;
  readonly maxInputBytes: number;
  readonly maxOutputBytes: number;
  /** Gateway tools never change once exposed: one version for the gateway's life. */
  readonly surfaceVersion: string;
}

// The registry's own bounds (invoke.ts), so both answer the same input the same way.
const MAX_INPUT_DEPTH = 64;
const MAX_ISSUES = 20;
const INPUT_PROBLEM_MESSAGES: Partial<Record<string, string>> = {
  'too-large': 'The input is too large',
  'too-deep': 'The input is nested too deeply',
  'proto-key': 'The input contains a "__proto__" key',
};

function schemaMismatch(capabilityId: string, raw: readonly ValidationIssue[]): AgentErrorPayload {
  const issues: JsonObject[] = raw.slice(0, MAX_ISSUES).map((i) => ({ path: i.path, message: i.message }));
  if (issues.length === 0) issues.push({ path: '', message: 'does not match the input schema' });
  const first = issues[0]!;
  const said = String(first.message).replace(/\.+$/, '');
  return errorPayload(
    'INVALID_INPUT',
    `The input does not match the input schema of "${capabilityId}": ${first.path === '' ? 'the input' : first.path} ${said}.`,
    { issues },
  );
}

/**
 * The registry's input rules: a missing or null input is `{}`; else a JSON object within the limits,
 * read once into a deep-frozen copy, which is all that validation and the handler ever see.
 */
function readInput(input: unknown, maxBytes: number): { input: JsonObject } | { error: AgentErrorPayload } {
  if (input === undefined || input === null) return { input: {} };
  const snap = snapshotJson(input, { maxBytes, maxDepth: MAX_INPUT_DEPTH });
  if (snap.ok) {
    const value = snap.value;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { input: value };
    return {
      error: errorPayload('INVALID_INPUT', 'The input must be a JSON object.', { issues: [{ path: '', message: 'must be an object' }] }),
    };
  }
  const lead = INPUT_PROBLEM_MESSAGES[snap.code] ?? 'The input is not JSON';
  const details: JsonObject = { issues: [{ path: snap.path, message: snap.reason }] };
  if (snap.code === 'too-large') details.maxBytes = maxBytes;
  return { error: errorPayload('INVALID_INPUT', `${lead}: ${snap.reason} at "${snap.path}".`, details) };
}

async function validate(validator: ValueValidator, value: JsonValue): Promise<ValidationIssue[] | undefined> {
  const outcome = await validator(value);
  return outcome.valid ? undefined : outcome.issues;
}

/** A gateway tool's call: never rejects; every failure is a structured result. */
export async function callGatewayTool(
  spec: GatewayToolSpec,
  input: unknown,
  call: AgentToolCall | undefined,
): Promise<AgentInvocationResult> {
  const { contract: c, surfaceVersion } = spec;
  const invocationId = callInvocationId(call);
  const fail = (error: AgentErrorPayload) => failedCall(error, invocationId, surfaceVersion);
  const read = readInput(input, spec.maxInputBytes);
  if ('error' in read) return fail(read.error);
  const value = read.input;
  const issues = await validate(spec.validateInput, value);
  if (issues) return fail(schemaMismatch(c.id, issues));

  const signal = call?.signal;
  if (signal?.aborted) return fail(errorPayload('CANCELLED', 'the call was cancelled before it ran'));
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // Settles with the handler's output, or `TIMEOUT` / `CANCELLED` first; a throw lands in catch.
    const outcome = await new Promise<{ output: unknown } | 'TIMEOUT' | 'CANCELLED'>((resolve, reject) => {
      timer = setTimeout(() => resolve('TIMEOUT'), c.timeoutMs);
      controller.signal.addEventListener('abort', () => resolve('CANCELLED'), { once: true });
      Promise.resolve()
        .then(() => spec.handler(value, { signal: controller.signal, invocationId, consumer: spec.consumer }))
        .then((output) => resolve({ output }), reject);
    });
    if (outcome === 'TIMEOUT') {
      controller.abort();
      return fail(errorPayload(outcome, `"${c.id}" did not finish in time.`, { timeoutMs: c.timeoutMs }));
    }
    if (outcome === 'CANCELLED') return fail(errorPayload(outcome, `"${c.id}" was cancelled by its caller.`));
    const output = outcome.output === undefined ? null : outcome.output;
    const outJson = checkJson(output, { maxBytes: spec.maxOutputBytes });
    if (!outJson.ok) {
      return fail(
        errorPayload('EXECUTION_FAILED', `"${c.id}" produced an output that cannot be returned.`, {
          reason: outJson.code === 'too-large' ? 'output-too-large' : 'output-not-json',
        }),
      );
    }
    if (spec.validateOutput && (await validate(spec.validateOutput, output as JsonValue))) {
      return fail(
        errorPayload('EXECUTION_FAILED', `"${c.id}" produced an output that does not match its output schema.`, {
          reason: 'output-invalid',
        }),
      );
    }
    return { ok: true, output: output as JsonValue, invocationId, surfaceVersion };
  } catch (error) {
    // A deliberate AgentSurfaceError reaches the agent; anything else stays private.
    if (isAgentSurfaceError(error)) return fail(error.toPayload());
    return fail(errorPayload('EXECUTION_FAILED', `"${c.id}" failed while running.`, { reason: 'handler-threw' }));
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
