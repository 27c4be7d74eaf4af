/** The contract compiler (Node): `compileContracts`, `computeContractToken`, and the CLI's pieces. */
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
export type * from '../core/types.js';
