/**
 * The contract compiler (Node): `compileContracts`, `computeContractToken`, the CLI's pieces, and the
 * declaration rules it shares with `<agent-capability>` (`contractFromDeclaration`, DOM-free).
 */
export {
  compileContracts,
  buildContractModule,
  computeContractToken,
  computeManifestHash,
  compilerVersion,
  findForbiddenCode,
  ContractCompileError,
} from './compile.js';
export type { CompileOptions, CompileResult, CompileProblem } from './compile.js';
export { main, collectDeclarations, expandGlob, parseArgs } from './cli.js';
export type { Declaration, DeclarationError, CollectedDeclarations, ScannedFile } from './cli.js';
// -- declaration scanning (issue 5) --
export {
  scanDeclarations,
  scanFile,
  scanLanguage,
  rewriteTokens,
  tokenIssues,
  formatPosition,
  findTemplateLiterals,
} from './scan.js';
export type {
  ScanResult,
  ScannedDeclaration,
  ScanProblem,
  SourcePosition,
  TokenSite,
  TokenIssue,
  ScanLanguage,
  TemplateLiteral,
} from './scan.js';
// -- the declaration rules the compiler shares with <agent-capability> (DOM-free; issue 5) --
export {
  CONTRACT_ATTRIBUTES,
  SCHEMA_SCRIPT_TYPE,
  contractFromDeclaration,
  declarationId,
  normalizeDescription,
  schemaTextsFromScripts,
} from '../core/declaration.js';
export type { CapabilityDeclaration, DeclarationResult, SchemaScriptInfo } from '../core/declaration.js';
export type * from '../core/types.js';
