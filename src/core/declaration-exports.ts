/**
 * Seam (see rollup.config.js): the declaration helpers the package entry exports. The CDN file
 * leaves them out (declaration-exports.cdn.ts): in a page they are only the markup reader's
 * internals, which load as a chunk with the first `<agent-capability>`.
 */
export {
  CONTRACT_ATTRIBUTES,
  SCHEMA_SCRIPT_TYPE,
  contractFromDeclaration,
  declarationId,
  normalizeDescription,
  schemaTextsFromScripts,
} from './declaration.js';
export type { CapabilityDeclaration, DeclarationResult, SchemaScriptInfo } from './declaration.js';
