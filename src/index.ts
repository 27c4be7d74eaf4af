/**
 * agent-surface-kit core: contracts, authority, registry, toolset, wire names, errors and types.
 * Framework-free and DOM-free; runs in the browser and in Node.
 */
export type * from './core/types.js';
export { AgentSurfaceError, AgentSurfaceDefinitionError, DEFAULT_RETRY, errorPayload, isAgentSurfaceError } from './core/errors.js';

// -- contracts, canonical JSON, authority (issue 2) --

// -- registry (issue 3) --

// -- tool projection (issue 4) --

// -- declarations shared by the elements and the compiler (issue 5) --
export {
  CONTRACT_ATTRIBUTES,
  SCHEMA_SCRIPT_TYPE,
  contractFromDeclaration,
  declarationId,
  normalizeDescription,
  schemaTextsFromScripts,
} from './core/declaration.js';
export type { CapabilityDeclaration, DeclarationResult, SchemaScriptInfo } from './core/declaration.js';
