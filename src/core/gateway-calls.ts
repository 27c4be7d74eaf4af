/**
 * The execution side of `createAgentExposureGateway`: what a standalone tool's `execute` runs (input
 * checks as the registry makes them, the handler under a deadline and the caller's signal, output
 * checks, result shaping). Loaded with the rest of the execution side by toolset-exec.ts (an
 * `import()` of tool-execution.ts). Admission and the tool objects are in gateway.ts.
 */
import { ABORT_MESSAGES, checkOutput, inputMismatch, readInput, thrownPayload } from './call-checks.js';
import { errorPayload } from './errors.js';
import { callInvocationId, failedCall } from './toolset-common.js';
import type {
  AgentConsumer,
  AgentErrorPayload,
  AgentInvocationResult,
  AgentToolCall,
  CapabilityHandler,
  JsonValue,
  NormalizedContract,
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

/** A gateway tool's call: never rejects; every failure is a structured result. */
export async function callGatewayTool(
  spec: GatewayToolSpec,
  input: unknown,
  call: AgentToolCall | undefined,
): Promise<AgentInvocationResult> {
  const { contract: c, surfaceVersion } = spec;
  const invocationId = callInvocationId(call);
  const fail = (error: AgentErrorPayload) => failedCall(error, invocationId, surfaceVersion);
  // The registry's input rules and messages (call-checks.ts): one read into a frozen copy.
  const read = readInput(input, spec.maxInputBytes);
  if (!read.ok) return fail(read.error);
  const value = read.value;
  const mismatch = inputMismatch(c.id, await spec.validateInput(value));
  if (mismatch) return fail(mismatch);

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
    if (typeof outcome === 'string') {
      const timedOut = outcome === 'TIMEOUT';
      if (timedOut) controller.abort();
      return fail(errorPayload(outcome, `"${c.id}" ${ABORT_MESSAGES[outcome]}.`, timedOut ? { timeoutMs: c.timeoutMs } : undefined));
    }
    const output = outcome.output === undefined ? null : outcome.output;
    const refused = await checkOutput(c.id, output, spec.maxOutputBytes, spec.validateOutput);
    if (refused) return fail(refused.error);
    return { ok: true, output: output as JsonValue, invocationId, surfaceVersion };
  } catch (error) {
    // A deliberate AgentSurfaceError reaches the agent; anything else stays private.
    return fail(thrownPayload(c.id, error, spec.maxOutputBytes));
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
