/**
 * `createAgentExposureGateway(authority)`: standalone provider tools, not backed by any element or
 * registry, that still obey the compiler's authority. A tool is exposed only when
 * `authority.admit(contract, token)` admits it; its input is checked like the registry checks it
 * (JSON, size, the authority's validator, INVALID_INPUT with JSON-pointer paths); its output must be
 * JSON and match the output schema; results have the registry's `AgentInvocationResult` shape.
 *
 * What it does not do: confirmations, policies, queues and idempotency are registry features. A
 * contract that requires confirmation is refused here; register it in a registry instead.
 *
 * Admission and the tool objects are here; what `execute` runs is in gateway-calls.ts, reached through
 * toolset-exec.ts, which loads it with `import()` when the first gateway or toolset is created.
 */
import { AgentSurfaceDefinitionError } from './errors.js';
import type { GatewayToolSpec } from './gateway-calls.js';
import { describeCapability } from './toolset.js';
import { randomId } from './toolset-common.js';
import { execute, prepareToolExecution } from './toolset-exec.js';
import type {
  AgentExposureGateway,
  AgentSurfaceAuthority,
  AgentTool,
  AgentToolCall,
  DefinitionErrorCode,
  ExposeToolOptions,
  ExposureGatewayOptions,
  JsonObject,
} from './types.js';
import { encodeWireName } from './wire-names.js';

function refuse(code: DefinitionErrorCode, message: string, details?: JsonObject): never {
  throw new AgentSurfaceDefinitionError(code, message, details);
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
      'createAgentExposureGateway: pass an authority from createCompilerAuthority() or devAuthority()',
    );
  }
  // What every tool's calls share. Gateway tools never change once exposed: one version for the gateway's life.
  const shared = {
    consumer: options.consumer ?? { id: 'exposure-gateway', kind: 'embedded' },
    maxInputBytes: options.limits?.maxInputBytes ?? 64 * 1024,
    maxOutputBytes: options.limits?.maxOutputBytes ?? 32 * 1024,
    surfaceVersion: `gateway:${randomId()}`,
  } satisfies Partial<GatewayToolSpec>;
  /** Wire name → [tool, capability id]. */
  const exposed = new Map<string, [AgentTool, string]>();
  // The first call rarely waits for the execution chunk of the CDN file (a no-op when linked).
  prepareToolExecution();

  const expose = ({ contract, token, handler }: ExposeToolOptions): AgentTool => {
    if (typeof handler !== 'function')
      refuse('INVALID_REGISTRATION', 'gateway.expose: a standalone tool needs a handler(input, ctx)');
    const admission = authority.admit(contract, token);
    if (!admission.ok) {
      const { code, message, details } = admission.error;
      refuse(code, message, details);
    }
    const c = admission.contract;
    const id = { capabilityId: c.id };
    if (c.confirmation === 'required') {
      refuse(
        'INVALID_REGISTRATION',
        `gateway.expose: "${c.id}" requires confirmation: register it in a registry, which asks a person`,
        id,
      );
    }
    const name = encodeWireName(c.id);
    if (exposed.has(name))
      refuse('DUPLICATE_REGISTRATION', `gateway.expose: "${c.id}" is already exposed as "${name}"`, id);
    const spec: GatewayToolSpec = {
      ...shared,
      contract: c,
      handler,
      validateInput: admission.validateInput,
      validateOutput: admission.validateOutput,
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
      execute: (input: unknown, call?: AgentToolCall) => execute('callGatewayTool', () => spec.surfaceVersion, spec, input, call),
    });
    exposed.set(name, [tool, c.id]);
    return tool;
  };

  return Object.freeze({
    expose,
    tools: () => [...exposed.values()].map((e) => e[0]),
    wireNameMap: () => new Map([...exposed].map(([name, e]) => [name, e[1]])),
    withdraw: (name: string): boolean => exposed.delete(name),
  });
}
