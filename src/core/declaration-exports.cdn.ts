// The CDN file exports no declaration helpers: see declaration-exports.ts. Types cost nothing.
export type { CapabilityDeclaration, DeclarationResult, SchemaScriptInfo } from './declaration.js';
