/**
 * The CDN entry: everything browser-side (core, elements, WebMCP, dev), lit bundled, the chat apart.
 * It runs the very modules the npm entries do and exports exactly what they export:
 * `test/core/entries.test.ts` holds this list to the npm entries' lists, so an export added there
 * and forgotten here fails a test.
 */
export type * from './core/types.js';
export { AgentSurfaceError, AgentSurfaceDefinitionError, DEFAULT_RETRY, errorPayload, isAgentSurfaceError } from './core/errors.js';
export { parseCapabilityId, isCanonicalCapabilityId, isCapabilityId, MAX_CAPABILITY_ID_LENGTH } from './core/capability-id.js';
export type { CapabilityIdParse, CapabilityIdProblem } from './core/capability-id.js';
export { canonicalJson, checkJson, isJsonValue, jsonPointer, CanonicalJsonError } from './core/canonical-json.js';
export type { JsonCheck, JsonCheckOptions, JsonProblem, JsonProblemCode } from './core/canonical-json.js';
export {
  normalizeContract,
  tryNormalizeContract,
  checkContract,
  assertContract,
  defineContract,
  contractCanonicalJson,
  defaultInputSchema,
  CAPABILITY_KINDS,
  CAPABILITY_EFFECTS,
  OBSERVATION_EFFECTS,
  CONFIRMATION_REQUIREMENTS,
  CAPABILITY_CONCURRENCIES,
  MAX_DESCRIPTION_LENGTH,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
} from './core/contract.js';
export type { ContractProblem } from './core/contract.js';
export { isContractToken, CONTRACT_TOKEN_PREFIX } from './core/token.js';
export { createCompilerAuthority, MANIFEST_FORMAT } from './core/compiler-authority.js';
export type { CompilerAuthorityOptions, UnauthorizedReason } from './core/compiler-authority.js';
// What `agent-surface-kit/dev` exports: the interpreter it validates with is a lazy chunk.
export { devAuthority, createInterpreterValidator, DEV_TOKEN } from './dev/index.js';
export { createAgentSurfaceRegistry } from './core/registry.js';
export { DEFAULT_LIMITS } from './core/registry-core.js';
export { grantConsumers, type ConsumerGrant, type ConsumerGrants } from './core/consumer-grants.js';
export { matchesScope, compileScope } from './core/scope.js';
export type { ScopeMatcher } from './core/scope.js';
export { encodeWireName, decodeWireName, assignWireNames, WIRE_NAME_PATTERN, WIRE_NAME_MAX_LENGTH } from './core/wire-names.js';
export type { WireNameEntry } from './core/wire-names.js';
export { createAgentToolset, describeCapability, renderCapabilityState } from './core/toolset.js';
export { META_TOOL_SCHEMAS, META_TOOL_DESCRIPTIONS } from './core/meta-tools.js';
export type { MetaToolName } from './core/meta-tools.js';
export { toToolResult } from './core/tool-result.js';
export { createAgentExposureGateway } from './core/gateway.js';
export type { CapabilityDeclaration, DeclarationResult, SchemaScriptInfo } from './core/declaration.js';
// The elements (define.ts defines them on import), their events and contexts.
export { defineAgentElements } from './elements/define.js';
export { AgentSurfaceElement } from './elements/agent-surface.js';
export { AgentViewElement } from './elements/agent-view.js';
export { AgentCapabilityElement } from './elements/agent-capability.js';
export { AgentConfirmElement } from './elements/agent-confirm.js';
export { allowFramedApprovals } from './elements/approval-config.js';
export { AgentWebMcpElement, type AgentWebMcpStatus } from './elements/agent-webmcp.js';
export { registryContext, viewContext, type AgentViewContextValue } from './elements/context.js';
export {
  AgentCapabilityRefusedEvent,
  AgentConfirmationEvent,
  AgentInvocationEvent,
  AgentInvokeEvent,
  AgentSurfaceChangedEvent,
  type AgentInvokeDetail,
} from './elements/events.js';
// For custom approval UIs.
export { formatInput, describeEffect, formatRemaining, type FormattedEntry, type FormattedInput } from './elements/format-input.js';

// Everything `agent-surface-kit/webmcp` exports: the very same modules, whose work loads on first
// use (adapter-run.ts on the first start, source-engine.ts on the first discovery).
export * from './webmcp/index.js';
