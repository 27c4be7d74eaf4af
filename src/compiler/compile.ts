/**
 * The contract compiler (Node): checks contracts, computes their tokens, compiles one ajv standalone
 * validator per schema and bundles everything into ONE ES module with no imports, which a page with
 * `Content-Security-Policy: script-src 'self'` can load (no `new Function`, no `eval`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv as AjvDraft07, type Options as AjvOptions } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { build, type Plugin } from 'esbuild';
import { canonicalJson } from '../core/canonical-json.js';
import { tryNormalizeContract } from '../core/contract.js';
import { MANIFEST_FORMAT } from '../core/authority.js';
import { CONTRACT_TOKEN_PREFIX } from '../core/token.js';
import { schemaToType } from './schema-types.js';
import type {
  CapabilityContract,
  ContractManifest,
  ContractValidators,
  JsonSchema,
  ManifestEntry,
  NormalizedContract,
} from '../core/types.js';

// ajv and ajv-formats are CommonJS: their default export arrives wrapped under ESM interop.
type StandaloneCode = (ajv: AjvInstance, refsOrFuncs: Record<string, string>) => string;
const standaloneCode: StandaloneCode =
  (standaloneCodeModule as unknown as { default?: StandaloneCode }).default ??
  (standaloneCodeModule as unknown as StandaloneCode);
type AddFormats = (ajv: AjvInstance) => unknown;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

type AjvInstance = InstanceType<typeof Ajv2020> | InstanceType<typeof AjvDraft07>;

export interface CompileOptions {
  /** Defaults to this package's version. */
  compilerVersion?: string;
  /** Minify the validators (default `true`). The manifest stays readable either way. */
  minify?: boolean;
  /** Extra ajv options (merged over the compiler's). `code` cannot be changed. */
  ajv?: Omit<AjvOptions, 'code'>;
}

export interface CompileResult {
  manifest: ContractManifest;
  /** The validators of the emitted module, loaded in this process. */
  validators: Record<string, ContractValidators>;
  /** The ES module: `export const manifest`, `export const validators`. No imports. */
  source: string;
  /** A declaration file for `source` (what the CLI writes next to it as `.d.ts`). */
  declarations: string;
}

export interface CompileProblem {
  /** Position of the contract in the input array. */
  index: number;
  capabilityId?: string;
  /** `inputSchema`, `outputSchema`, `id`...; absent for the contract as a whole. */
  field?: string;
  message: string;
}

/** Thrown by `compileContracts` with every problem found, each naming its contract. */
export class ContractCompileError extends Error {
  readonly problems: readonly CompileProblem[];

  constructor(problems: CompileProblem[]) {
    const lines = problems.map((p) => `  ${p.capabilityId ?? `contract #${p.index + 1}`}: ${p.message}`);
    super(
      `agent-surface compile: ${problems.length} error${problems.length === 1 ? '' : 's'}\n${lines.join('\n')}`,
    );
    this.name = 'ContractCompileError';
    this.problems = problems;
  }
}

// ---------------------------------------------------------------------------------------------
// Tokens and hashes

function sha256Token(text: string): string {
  return CONTRACT_TOKEN_PREFIX + createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** `sha256-<base64url>` of the canonical JSON of the normalized contract. Throws INVALID_CONTRACT. */
export function computeContractToken(contract: CapabilityContract): string {
  const checked = tryNormalizeContract(contract);
  if (!checked.ok) {
    const id =
      typeof (contract as { id?: unknown })?.id === 'string' ? `"${contract.id}"` : '(without a valid id)';
    throw new TypeError(
      `computeContractToken: contract ${id} is invalid: ${checked.problems.map((p) => p.message).join('; ')}`,
    );
  }
  return sha256Token(canonicalJson(checked.contract));
}

/** The manifest hash: `sha256-<base64url>` of the canonical JSON of its `contracts` map. */
export function computeManifestHash(contracts: Record<string, ManifestEntry>): string {
  return sha256Token(canonicalJson(contracts));
}

let cachedVersion: string | undefined;

/** This package's version, read from its package.json (found upward from this module). */
export function compilerVersion(): string {
  if (cachedVersion) return cachedVersion;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agent-surface-kit' && pkg.version) return (cachedVersion = pkg.version);
    }
    dir = dirname(dir);
  }
  return (cachedVersion = '0.0.0');
}

// ---------------------------------------------------------------------------------------------
// ajv

type Draft = '2020-12' | '2019-09' | 'draft-07';

function draftOf(schema: JsonSchema): Draft | { unsupported: string } {
  const id = schema.$schema;
  if (id === undefined) return '2020-12';
  if (typeof id !== 'string') return { unsupported: String(id) };
  if (/json-schema\.org\/draft\/2020-12\/schema#?$/.test(id)) return '2020-12';
  if (/json-schema\.org\/draft\/2019-09\/schema#?$/.test(id)) return '2019-09';
  if (/json-schema\.org\/draft-07\/schema#?$/.test(id)) return 'draft-07';
  return { unsupported: id };
}

function createAjv(draft: Draft, extra: Omit<AjvOptions, 'code'> | undefined): AjvInstance {
  const options: AjvOptions = {
    // Every issue at once: an agent fixes its input in one round trip. Inputs are size-limited.
    allErrors: true,
    // Unknown keywords and formats are errors (they are typos that silently validate nothing);
    // type and tuple strictness only produce noise for valid schemas.
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    logger: false,
    ...extra,
    code: { source: true, esm: true, lines: false },
  };
  const ajv =
    draft === 'draft-07'
      ? new AjvDraft07(options)
      : draft === '2019-09'
        ? new Ajv2019(options)
        : new Ajv2020(options);
  addFormats(ajv);
  return ajv;
}

// ---------------------------------------------------------------------------------------------
// Forbidden code

export type LiteralKind = 'code' | 'string' | 'template' | 'regex' | 'comment';

/**
 * Splits JavaScript into code and literal spans (strings, template text, regular expressions,
 * comments) so a search for `eval(` finds code, not an author's description. A lexer, not a
 * parser: `/` after `)`, `]`, `}` or a name is division, as in every minifier's output.
 */
export function splitLiterals(src: string): Array<{ kind: LiteralKind; text: string }> {
  const spans: Array<{ kind: LiteralKind; text: string }> = [];
  const templateDepths: number[] = []; // brace depth at each open `${`
  let depth = 0;
  let i = 0;
  let codeStart = 0;
  let last = ''; // last significant code character
  let lastWord = '';
  const n = src.length;

  const flushCode = (end: number): void => {
    if (end > codeStart) spans.push({ kind: 'code', text: src.slice(codeStart, end) });
  };
  const literal = (kind: LiteralKind, start: number, end: number): void => {
    flushCode(start);
    spans.push({ kind, text: src.slice(start, end) });
    codeStart = end;
  };
  // From just after a backtick or the `}` closing `${…}` to the closing backtick or the next `${`.
  const templateText = (start: number): void => {
    while (i < n) {
      const ch = src[i];
      if (ch === '\\') i += 2;
      else if (ch === '`') {
        i++;
        literal('template', start, i);
        last = '"';
        return;
      } else if (ch === '$' && src[i + 1] === '{') {
        i += 2;
        literal('template', start, i);
        templateDepths.push(depth);
        depth++;
        last = '{';
        return;
      } else i++;
    }
    literal('template', start, n);
  };
  const regexAllowed = (): boolean => {
    if (last === '' || '([{,;:=!&|?+-*%<>~^'.includes(last)) return true;
    if (/[\w$]/.test(last))
      return /^(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/.test(
        lastWord,
      );
    return false;
  };

  while (i < n) {
    const start = i;
    const ch = src[i];
    if (ch === '"' || ch === "'") {
      i++;
      while (i < n && src[i] !== ch) i += src[i] === '\\' ? 2 : 1;
      i++;
      literal('string', start, Math.min(i, n));
      last = '"';
      lastWord = '';
    } else if (ch === '`') {
      i++;
      templateText(start);
      lastWord = '';
    } else if (ch === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      literal('comment', start, i);
    } else if (ch === '/' && src[i + 1] === '*') {
      const close = src.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
      literal('comment', start, i);
    } else if (ch === '/' && regexAllowed()) {
      i++;
      let inClass = false;
      while (i < n) {
        const c = src[i];
        if (c === '\\') {
          i += 2;
          continue;
        }
        if ((c === '/' && !inClass) || c === '\n') break;
        if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        i++;
      }
      i++;
      while (i < n && /[a-z]/i.test(src[i])) i++; // flags
      literal('regex', start, Math.min(i, n));
      last = ')';
      lastWord = '';
    } else if (
      ch === '}' &&
      templateDepths.length &&
      templateDepths[templateDepths.length - 1] === depth - 1
    ) {
      templateDepths.pop();
      depth--;
      i++;
      flushCode(start);
      codeStart = start;
      templateText(start);
      lastWord = '';
    } else {
      if (ch === '{') depth++;
      else if (ch === '}') depth--;
      if (/[\w$]/.test(ch)) {
        lastWord = /[\w$]/.test(last) ? lastWord + ch : ch;
        last = ch;
      } else if (!/\s/.test(ch)) {
        last = ch;
        lastWord = '';
      }
      i++;
    }
  }
  flushCode(n);
  return spans;
}

/** `src` with every literal and comment replaced by an empty placeholder: the code alone. */
export function codeOutsideLiterals(src: string): string {
  const placeholder: Record<LiteralKind, string> = {
    code: '',
    string: '""',
    template: '``',
    regex: '/r/',
    comment: ' ',
  };
  return splitLiterals(src)
    .map((s) => (s.kind === 'code' ? s.text : placeholder[s.kind]))
    .join('');
}

/**
 * Escapes, inside quoted string literals only, the character sequences a naive scan takes for
 * forbidden code (`eval(` becomes `eval\x28`): the same strings at run time, a cleaner audit.
 */
function escapeLookalikes(src: string): string {
  return splitLiterals(src)
    .map((s) => (s.kind === 'string' ? escapeLookalikeText(s.text, '\\x28', '\\x20') : s.text))
    .join('');
}

function escapeLookalikeText(text: string, paren: string, space: string): string {
  return text
    .replace(/\b(require|eval|import)\(/g, `$1${paren}`)
    .replace(/\b(new|Dynamic) (Function|require)\b/g, `$1${space}$2`);
}

const FORBIDDEN_CODE: Array<[RegExp, string]> = [
  [/(?<![.\w$])require\b/, 'require('],
  [/(?<![.\w$])eval\b/, 'eval('],
  [/(?<![.\w$])new\s+Function\b/, 'new Function'],
  [/(?<![.\w$])Function\s*\(/, 'new Function'],
  [/(?<![.\w$])import\b/, 'an import'],
  [/(?<![.\w$])from\s*["'`]/, 'an import'],
];

/** What in `source` would break under a strict CSP or outside a bundler; `[]` when nothing. */
export function findForbiddenCode(source: string): string[] {
  const found = new Set<string>();
  // esbuild's shim for a require it could not resolve: never acceptable, wherever it appears.
  if (source.includes('Dynamic require')) found.add('Dynamic require');
  const code = codeOutsideLiterals(source);
  for (const [pattern, name] of FORBIDDEN_CODE) if (pattern.test(code)) found.add(name);
  return [...found];
}

/** The readable manifest part of the module, with the same look-alike escapes (`\u0028` is `(`). */
function manifestLiteral(value: unknown): string {
  return escapeLookalikeText(JSON.stringify(value, null, 2), '\\u0028', '\\u0020');
}

// ---------------------------------------------------------------------------------------------
// compileContracts

interface SchemaJob {
  id: string;
  draft: Draft;
  index: number;
  field: 'inputSchema' | 'outputSchema';
  schema: JsonSchema;
  exportName: string;
}

const VIRTUAL = 'agent-surface-validators';

/**
 * ajv's runtime helpers carry `helper.code = 'require("ajv/dist/runtime/…")'`, the text ajv's own
 * code generator splices in. Standalone code never reads it; dropping it keeps `require(` out of
 * the module entirely.
 */
const stripAjvCodeStrings: Plugin = {
  name: 'agent-surface-strip-ajv-code',
  setup(b) {
    b.onLoad({ filter: /[\\/]ajv[\\/]dist[\\/]runtime[\\/][^\\/]+\.js$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/^\s*[\w$.]+\.code = '[^'\n]*';[ \t]*$/gm, ''),
      loader: 'js',
    }));
  },
};

/**
 * Compiles contracts into `{ manifest, validators, source, declarations }`. Throws a
 * `ContractCompileError` listing every problem (contract checks, invalid JSON Schema as ajv
 * reports it, one id with two different contracts), each naming its capability id.
 * The same contract given twice (a component used in two files) counts once.
 */
export async function compileContracts(
  contracts: Iterable<CapabilityContract>,
  options: CompileOptions = {},
): Promise<CompileResult> {
  const { manifest, source, declarations } = await buildContractModule(contracts, options);
  const mod = (await import(
    `data:text/javascript;base64,${Buffer.from(source, 'utf8').toString('base64')}`
  )) as {
    validators: Record<string, ContractValidators>;
  };
  return { manifest, validators: mod.validators, source, declarations };
}

/** Like `compileContracts` without loading the module (what the CLI needs). */
export async function buildContractModule(
  contracts: Iterable<CapabilityContract>,
  options: CompileOptions = {},
): Promise<Omit<CompileResult, 'validators'>> {
  const problems: CompileProblem[] = [];
  const accepted = new Map<string, { contract: NormalizedContract; canonical: string; index: number }>();

  let index = 0;
  for (const raw of contracts) {
    const i = index++;
    const id = raw !== null && typeof raw === 'object' && typeof raw.id === 'string' ? raw.id : undefined;
    const checked = tryNormalizeContract(raw);
    if (!checked.ok) {
      for (const p of checked.problems)
        problems.push({ index: i, capabilityId: id, field: p.field || undefined, message: p.message });
      continue;
    }
    const canonical = canonicalJson(checked.contract);
    const prior = accepted.get(checked.contract.id);
    if (prior) {
      if (prior.canonical !== canonical) {
        problems.push({
          index: i,
          capabilityId: checked.contract.id,
          message: `declared twice with different contracts (contracts #${prior.index + 1} and #${i + 1}); one id, one contract`,
        });
      }
      continue;
    }
    accepted.set(checked.contract.id, { contract: checked.contract, canonical, index: i });
  }

  // Compile every schema, one ajv instance per draft; keys stay private to the compiler.
  const ajvs = new Map<Draft, AjvInstance>();
  const jobs: SchemaJob[] = [];
  const ids = [...accepted.keys()].sort();
  ids.forEach((id, n) => {
    const { contract, index: i } = accepted.get(id)!;
    for (const field of ['inputSchema', 'outputSchema'] as const) {
      const schema = contract[field];
      if (schema === undefined) continue;
      const exportName = `v${n}_${field === 'inputSchema' ? 'input' : 'output'}`;
      const draft = draftOf(schema);
      if (typeof draft === 'object') {
        problems.push({
          index: i,
          capabilityId: id,
          field,
          message: `${field} declares an unsupported $schema "${draft.unsupported}" (use 2020-12, 2019-09 or draft-07)`,
        });
        continue;
      }
      let ajv = ajvs.get(draft);
      if (!ajv) ajvs.set(draft, (ajv = createAjv(draft, options.ajv)));
      try {
        ajv.addSchema(schema, exportName);
        ajv.getSchema(exportName); // compiles: strict-mode errors surface here
        jobs.push({ id, draft, index: i, field, schema, exportName });
      } catch (error) {
        ajv.removeSchema(exportName);
        problems.push({
          index: i,
          capabilityId: id,
          field,
          message: `${field} is not a valid JSON Schema: ${schemaErrorText((error as Error).message)}`,
        });
      }
    }
  });

  if (problems.length) throw new ContractCompileError(problems.sort((a, b) => a.index - b.index));

  // The manifest, keys in canonical order.
  const entries: Record<string, ManifestEntry> = {};
  for (const id of ids) {
    const { contract, canonical } = accepted.get(id)!;
    entries[id] = { contract, token: sha256Token(canonical) };
  }
  const manifest: ContractManifest = {
    format: MANIFEST_FORMAT,
    compilerVersion: options.compilerVersion ?? compilerVersion(),
    hash: computeManifestHash(entries),
    contracts: entries,
  };

  // One virtual module per draft with its standalone code; the entry maps ids to functions.
  const modules = new Map<string, string>();
  const entryImports: string[] = [];
  for (const [draft, ajv] of ajvs) {
    const names = jobs.filter((j) => j.draft === draft).map((j) => j.exportName);
    if (!names.length) continue;
    const refs = Object.fromEntries(names.map((name) => [name, name]));
    modules.set(draft, standaloneCode(ajv, refs));
    entryImports.push(`import { ${names.join(', ')} } from "${VIRTUAL}/${draft}";`);
  }
  const table = ids
    .map((id) => {
      const fields = jobs
        .filter((j) => j.id === id)
        .map((j) => `${j.field === 'inputSchema' ? 'input' : 'output'}: ${j.exportName}`);
      return `  ${JSON.stringify(id)}: { ${fields.join(', ')} },`;
    })
    .join('\n');
  const entry = `${entryImports.join('\n')}\nexport const validators = {\n${table}\n};\n`;

  const resolveDir = dirname(fileURLToPath(import.meta.url));
  const virtualPlugin: Plugin = {
    name: 'agent-surface-validators',
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${VIRTUAL}/`) }, (args) => ({
        path: args.path,
        namespace: VIRTUAL,
      }));
      b.onLoad({ filter: /.*/, namespace: VIRTUAL }, (args) => ({
        contents: modules.get(args.path.slice(VIRTUAL.length + 1)),
        loader: 'js',
        // Resolve ajv's runtime helpers (`require("ajv/dist/runtime/…")`) from where the compiler is installed.
        resolveDir,
      }));
    },
  };
  const bundled = await build({
    stdin: { contents: entry, loader: 'js', resolveDir, sourcefile: 'agent-surface-validators.js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    minify: options.minify ?? true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    plugins: [virtualPlugin, stripAjvCodeStrings],
  });
  const code = escapeLookalikes(bundled.outputFiles[0].text.trim());

  const forbidden = findForbiddenCode(code);
  if (forbidden.length) {
    throw new ContractCompileError([
      {
        index: -1,
        message: `the bundled validators still contain ${forbidden.join(', ')}: they would not run under a strict CSP or without a bundler (report this with the schema that caused it)`,
      },
    ]);
  }

  const header = `// Generated by \`agent-surface compile\` (agent-surface-kit ${manifest.compilerVersion}). Do not edit: recompile.\n`;
  const source = `${header}${code}\nexport const manifest = ${manifestLiteral(manifest)};\n`;
  return { manifest, source, declarations: declarationsFor(ids, entries) };
}

/**
 * ajv's message for a bad schema without its own prefix ("schema is invalid: ") and with JSON-pointer
 * paths from the schema's root (ajv says `data/properties/a`), so our prefix is the only one.
 */
function schemaErrorText(message: string): string {
  return message
    .replace(/^schema is invalid:\s*/, '')
    .replace(/(^|,\s*)data(?=\/|\s)/g, (_, sep: string) => `${sep}#`)
    .replace(/(^|,\s*)#\s/g, '$1the schema ');
}

/**
 * The `.d.ts` of the manifest module: each capability's input and output type from its schemas, its
 * token as a string literal, and the same map merged into agent-surface-kit's `CapabilityTypeMap`, so
 * `agent-surface-kit/jsx` types the `handler` of an `<agent-capability>` given that token.
 */
function declarationsFor(ids: readonly string[], entries: Record<string, ManifestEntry>): string {
  const types = ids.map((id) => {
    const { contract, token } = entries[id];
    return [
      `${docLine(contract.description, '  ')}  ${JSON.stringify(id)}: {`,
      `    input: ${schemaToType(contract.inputSchema, '    ')};`,
      `    output: ${schemaToType(contract.outputSchema, '    ')};`,
      `    token: ${JSON.stringify(token)};`,
      '  };',
    ].join('\n');
  });
  const validatorLines = ids.map((id) => `  readonly ${JSON.stringify(id)}: ContractValidators;`);
  const body = types.join('\n');
  const jsonTypes = ['JsonObject', 'JsonValue'].filter((name) => new RegExp(`\\b${name}\\b`).test(body));
  const imported = ['ContractManifest', 'ContractValidators', ...jsonTypes, 'NormalizedContract'];
  return [
    '// Generated by `agent-surface compile`. Do not edit: recompile.',
    `import type { ${imported.join(', ')} } from 'agent-surface-kit';`,
    '',
    '/** Each capability of this manifest: its input and output types (from its JSON Schemas) and its token. */',
    `export interface ManifestCapabilities {\n${body}\n}`,
    '',
    "declare module 'agent-surface-kit' {",
    '  // agent-surface-kit/jsx types a handler\'s input from here, picked by the token an element is given.',
    '  interface CapabilityTypeMap extends ManifestCapabilities {}',
    '}',
    '',
    'export declare const manifest: ContractManifest & {',
    '  readonly contracts: {',
    '    readonly [Id in keyof ManifestCapabilities]: {',
    '      readonly contract: NormalizedContract & { readonly id: Id };',
    "      readonly token: ManifestCapabilities[Id]['token'];",
    '    };',
    '  };',
    '};',
    `export declare const validators: {\n${validatorLines.join('\n')}\n};`,
    '',
  ].join('\n');
}

function docLine(text: string, indent: string): string {
  const clean = text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim();
  return clean ? `${indent}/** ${clean} */\n` : '';
}
