/**
 * `createAgentExposureGateway(authority)`: standalone provider tools, not backed by any element or
 * registry, that still obey the compiler's authority. A tool is exposed only when
 * `authority.admit(contract, token)` admits it; its input is checked like the registry checks it
 * (JSON, size, the authority's validator, INVALID_INPUT with JSON-pointer paths); its output must be
 * JSON and match the output schema; results have the registry's `AgentInvocationResult` shape.
 *
 * What it does not do: confirmations, policies, queues and idempotency are registry features. A
 * contract that requires confirmation is refused here; register it in a registry instead.
 */
import { checkJson } from './canonical-json.js';
import { AgentSurfaceDefinitionError, errorPayload, isAgentSurfaceError } from './errors.js';
import { callInvocationId, describeCapability, randomId } from './toolset.js';
import type {
  AgentConsumer,
  AgentErrorPayload,
  AgentExposureGateway,
  AgentInvocationResult,
  AgentSurfaceAuthority,
  AgentTool,
  AgentToolCall,
  ExposeToolOptions,
  ExposureGatewayOptions,
  JsonObject,
  JsonValue,
  ValidationIssue,
  ValueValidator,
} from './types.js';
import { encodeWireName } from './wire-names.js';

const DEFAULT_MAX_INPUT_BYTES = 64 * 1024;
const DEFAULT_MAX_OUTPUT_BYTES = 32 * 1024;
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

/** The registry's input rules: a missing or null input is `{}`; else a JSON object within the limits. */
function inputProblem(input: unknown, maxBytes: number): AgentErrorPayload | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input !== 'object' || Array.isArray(input)) {
    return errorPayload('INVALID_INPUT', 'The input must be a JSON object.', {
      issues: [{ path: '', message: 'must be an object' }],
    });
  }
  const check = checkJson(input, { maxBytes, maxDepth: MAX_INPUT_DEPTH });
  if (check.ok) return undefined;
  const lead = INPUT_PROBLEM_MESSAGES[check.code] ?? 'The input is not JSON';
  const details: JsonObject = { issues: [{ path: check.path, message: check.reason }] };
  if (check.code === 'too-large') details.maxBytes = maxBytes;
  return errorPayload('INVALID_INPUT', `${lead}: ${check.reason} at "${check.path}".`, details);
}

async function validate(validator: ValueValidator, value: JsonValue): Promise<ValidationIssue[] | undefined> {
  const outcome = await validator(value);
  return outcome.valid ? undefined : outcome.issues;
}

/**
 * A gateway for one authority. `expose` throws the authority's definition error
 * (`AgentSurfaceDefinitionError`, e.g. `UNAUTHORIZED_CONTRACT`) when the contract is not admitted.
 */
export function createAgentExposureGateway(
  authority: AgentSurfaceAuthority,
  options: ExposureGatewayOptions = {},
): AgentExposureGateway {
  if (!authority || typeof authority.admit !== 'function') {
    throw new TypeError(
      'createAgentExposureGateway: pass an authority from createCompilerAuthority() (or devAuthority() while developing)',
    );
  }
  const consumer: AgentConsumer = options.consumer ?? { id: 'exposure-gateway', kind: 'embedded' };
  const maxInputBytes = options.limits?.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const maxOutputBytes = options.limits?.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // Gateway tools never change once exposed: one version for the gateway's life.
  const surfaceVersion = `gateway:${randomId()}`;
  const exposed = new Map<string, { tool: AgentTool; capabilityId: string }>();

  const expose = ({ contract, token, handler }: ExposeToolOptions): AgentTool => {
    if (typeof handler !== 'function') {
      throw new AgentSurfaceDefinitionError(
        'INVALID_REGISTRATION',
        'gateway.expose: a standalone tool needs a handler(input, ctx)',
      );
    }
    const admission = authority.admit(contract, token);
    if (!admission.ok) {
      const { code, message, details } = admission.error;
      throw new AgentSurfaceDefinitionError(code, message, details);
    }
    const c = admission.contract;
    if (c.confirmation === 'required') {
      throw new AgentSurfaceDefinitionError(
        'INVALID_REGISTRATION',
        `gateway.expose: "${c.id}" requires confirmation, which needs a registry and a person's UI; register it in a registry instead`,
        { capabilityId: c.id },
      );
    }
    const name = encodeWireName(c.id);
    if (exposed.has(name)) {
      throw new AgentSurfaceDefinitionError(
        'DUPLICATE_REGISTRATION',
        `gateway.expose: "${c.id}" is already exposed as "${name}"`,
        {
          capabilityId: c.id,
        },
      );
    }
    const { validateInput, validateOutput } = admission;

    const execute = async (input: unknown, call?: AgentToolCall): Promise<AgentInvocationResult> => {
      const invocationId = callInvocationId(call);
      const fail = (error: AgentErrorPayload): AgentInvocationResult => ({
        ok: false,
        error,
        invocationId,
        surfaceVersion,
      });
      const problem = inputProblem(input, maxInputBytes);
      if (problem) return fail(problem);
      const value = (input ?? {}) as JsonObject;
      const issues = await validate(validateInput, value);
      if (issues) return fail(schemaMismatch(c.id, issues));

      const signal = call?.signal;
      if (signal?.aborted) return fail(errorPayload('CANCELLED', 'the call was cancelled before it ran'));
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        // Settles with the handler's output, or `TIMEOUT` / `CANCELLED` first; a throw lands in catch.
        const outcome = await new Promise<{ output: unknown } | 'TIMEOUT' | 'CANCELLED'>(
          (resolve, reject) => {
            timer = setTimeout(() => resolve('TIMEOUT'), c.timeoutMs);
            controller.signal.addEventListener('abort', () => resolve('CANCELLED'), { once: true });
            Promise.resolve()
              .then(() => handler(value, { signal: controller.signal, invocationId, consumer }))
              .then((output) => resolve({ output }), reject);
          },
        );
        if (outcome === 'TIMEOUT') {
          controller.abort();
          return fail(errorPayload(outcome, `"${c.id}" did not finish in time.`, { timeoutMs: c.timeoutMs }));
        }
        if (outcome === 'CANCELLED')
          return fail(errorPayload(outcome, `"${c.id}" was cancelled by its caller.`));
        const output = outcome.output === undefined ? null : outcome.output;
        const outJson = checkJson(output, { maxBytes: maxOutputBytes });
        if (!outJson.ok) {
          return fail(
            errorPayload('EXECUTION_FAILED', `"${c.id}" produced an output that cannot be returned.`, {
              reason: outJson.code === 'too-large' ? 'output-too-large' : 'output-not-json',
            }),
          );
        }
        if (validateOutput && (await validate(validateOutput, output as JsonValue))) {
          return fail(
            errorPayload(
              'EXECUTION_FAILED',
              `"${c.id}" produced an output that does not match its output schema.`,
              { reason: 'output-invalid' },
            ),
          );
        }
        return { ok: true, output: output as JsonValue, invocationId, surfaceVersion };
      } catch (error) {
        // A deliberate AgentSurfaceError reaches the agent; anything else stays private.
        if (isAgentSurfaceError(error)) return fail(error.toPayload());
        return fail(
          errorPayload('EXECUTION_FAILED', `"${c.id}" failed while running.`, { reason: 'handler-threw' }),
        );
      } finally {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    };

    const tool: AgentTool = Object.freeze({
      name,
      description: describeCapability({
        ...c,
        capabilityId: c.id,
        plane: c.id.startsWith('view:') ? 'view' : 'domain',
      }),
      inputSchema: c.inputSchema,
      state: Object.freeze({ available: true }),
      execute,
    });
    exposed.set(name, { tool, capabilityId: c.id });
    return tool;
  };

  return Object.freeze({
    expose,
    tools: () => [...exposed.values()].map((e) => e.tool),
    wireNameMap: () => new Map([...exposed].map(([name, e]) => [name, e.capabilityId])),
    withdraw(name: string): boolean {
      return exposed.delete(name);
    },
  });
}
