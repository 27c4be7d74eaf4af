/**
 * agent-surface-kit core: contracts, authority, registry, toolset, wire names, errors and types.
 * Framework-free and DOM-free; runs in the browser and in Node.
 */
export type * from './core/types.js';
export { AgentSurfaceError, AgentSurfaceDefinitionError, DEFAULT_RETRY, errorPayload, isAgentSurfaceError } from './core/errors.js';

// -- contracts, canonical JSON, authority (issue 2) --
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
// devAuthority() and its interpreter validator: `agent-surface-kit/dev`.
export { createCompilerAuthority, MANIFEST_FORMAT } from './core/compiler-authority.js';
export type { CompilerAuthorityOptions, UnauthorizedReason } from './core/compiler-authority.js';

// -- registry (issue 3) --
export { createAgentSurfaceRegistry } from './core/registry.js';
export { DEFAULT_LIMITS } from './core/registry-core.js';
// Which projections markup may start, granted from script (README, Security model).
export { grantConsumers, type ConsumerGrant, type ConsumerGrants } from './core/consumer-grants.js';
export { matchesScope, compileScope } from './core/scope.js';
export type { ScopeMatcher } from './core/scope.js';

// -- tool projection (issue 4) --
export { encodeWireName, decodeWireName, assignWireNames, WIRE_NAME_PATTERN, WIRE_NAME_MAX_LENGTH } from './core/wire-names.js';
export type { WireNameEntry } from './core/wire-names.js';
export { createAgentToolset, describeCapability, renderCapabilityState } from './core/toolset.js';
export { META_TOOL_SCHEMAS, META_TOOL_DESCRIPTIONS } from './core/meta-tools.js';
export type { MetaToolName } from './core/meta-tools.js';
export { toToolResult } from './core/tool-result.js';
export { createAgentExposureGateway } from './core/gateway.js';

// The declaration rules the compiler and <agent-capability> share (`contractFromDeclaration` and the
// rest of core/declaration.ts) are exported by `agent-surface-kit/compiler`: in a page they are the
// markup reader's internals, so an app's bundle does not carry them through the core entry.
export type { CapabilityDeclaration, DeclarationResult, SchemaScriptInfo } from './core/declaration.js';
