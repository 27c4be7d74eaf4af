/**
 * `agent-surface compile <inputs…> --out <module.js> [--check | --write]`
 * `agent-surface compile <pages…> --out-dir <folder> [--group-by file|dir] [--shared <files>] [--check | --write]`
 *
 * Inputs are `*.contracts.json` files (each an array of contracts), other files the declaration
 * scanner reads (HTML, lit templates: `./scan.ts`), or globs of them. Every error names the file
 * and the capability id; the exit code is 1 on any error. Ends with a one-line summary.
 */
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { canonicalJson } from '../core/canonical-json.js';
import { tryNormalizeContract } from '../core/contract.js';
import type { CapabilityContract } from '../core/types.js';
import { ContractCompileError, buildContractModule } from './compile.js';
import { MCP_COMMAND } from '../mcp/command.js';

// ---------------------------------------------------------------------------------------------
// Declarations

/** One contract and where it was declared. */
export interface Declaration {
  contract: CapabilityContract;
  file: string;
  /** `file#3` for the third contract of a contracts file, `file:line:column` for markup. */
  where: string;
}

export interface DeclarationError {
  file: string;
  where: string;
  capabilityId?: string;
  message: string;
}

/** What the markup scanner (`./scan.ts`) gives back for one file: the part the CLI relies on. */
export interface ScannedFile {
  file: string;
  text: string;
  declarations: Array<{
    id: string;
    contract: CapabilityContract;
    position: { file: string; line: number; column: number };
    token: { value: string | null; position: { file: string; line: number; column: number } };
  }>;
  problems: Array<{ file: string; line: number; column: number; message: string }>;
}

interface ScannerModule {
  scanFile(path: string): Promise<ScannedFile>;
  rewriteTokens?(result: ScannedFile, tokenOf: (id: string) => string | undefined): string;
}

export interface CollectedDeclarations {
  declarations: Declaration[];
  errors: DeclarationError[];
  /** Files read by the markup scanner, for `--check` and `--write`. */
  scanned: ScannedFile[];
}

export const CONTRACTS_FILE_SUFFIX = '.contracts.json';

/**
 * The hook for HTML and lit-template declarations: `./scan.js` handles every input that is not a
 * `*.contracts.json` file, as soon as it exports `scanFile(path)`. Loaded on demand, so compiling
 * contract files alone never needs parse5.
 */
async function loadScanner(): Promise<ScannerModule | undefined> {
  try {
    const mod = (await import('./scan.js')) as Partial<ScannerModule>;
    return typeof mod.scanFile === 'function' ? (mod as ScannerModule) : undefined;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

function display(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel.split(sep).join('/') : file;
}

/**
 * Line and column (1-based) of a `JSON.parse` error, from the offset V8 puts in its message, and the
 * message without that offset. Errors without an offset ("Unexpected end of JSON input") point at the end.
 */
export function jsonErrorPosition(text: string, message: string): { line: number; column: number; message: string } {
  const at = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  const offset = at ? Math.min(Number(at[1]), text.length) : text.length;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const clean = (at ? message.slice(0, at.index) + message.slice(at.index + at[0].length) : message)
    .replace(/\s*in JSON$/, '')
    .trim();
  return { line, column, message: clean || 'not JSON' };
}

async function readContractsFile(file: string, out: CollectedDeclarations): Promise<void> {
  const name = display(file);
  let parsed: unknown;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    out.errors.push({ file: name, where: name, message: `cannot read contracts: ${(error as Error).message}` });
    return;
  }
  try {
    // A BOM is not JSON, but editors write one: skip it.
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const { line, column, message } = jsonErrorPosition(text.replace(/^\uFEFF/, ''), (error as Error).message);
    out.errors.push({ file: name, where: `${name}:${line}:${column}`, message: `invalid JSON: ${message}` });
    return;
  }
  if (!Array.isArray(parsed)) {
    out.errors.push({ file: name, where: name, message: 'a contracts file holds a JSON array of contracts' });
    return;
  }
  parsed.forEach((contract: unknown, i) => {
    out.declarations.push({
      contract: contract as CapabilityContract,
      file: name,
      where: `${name}#${i + 1}`,
    });
  });
}

/** Reads every input file: contracts files here, everything else through the scanner hook. */
export async function collectDeclarations(files: readonly string[]): Promise<CollectedDeclarations> {
  const out: CollectedDeclarations = { declarations: [], errors: [], scanned: [] };
  let scanner: ScannerModule | undefined | null = null;
  for (const file of files) {
    if (file.endsWith(CONTRACTS_FILE_SUFFIX)) {
      await readContractsFile(file, out);
      continue;
    }
    if (scanner === null) scanner = await loadScanner();
    const name = display(file);
    if (!scanner) {
      out.errors.push({
        file: name,
        where: name,
        message: `cannot read this file: only *${CONTRACTS_FILE_SUFFIX} inputs are supported by this build`,
      });
      continue;
    }
    let scanned: ScannedFile;
    try {
      scanned = await scanner.scanFile(file);
    } catch (error) {
      out.errors.push({ file: name, where: name, message: (error as Error).message });
      continue;
    }
    out.scanned.push(scanned);
    for (const p of scanned.problems)
      out.errors.push({ file: name, where: `${display(p.file)}:${p.line}:${p.column}`, message: p.message });
    for (const d of scanned.declarations) {
      out.declarations.push({
        contract: d.contract,
        file: name,
        where: `${display(d.position.file)}:${d.position.line}:${d.position.column}`,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Globs (Node 20 has no fs.glob)

const GLOB_CHARS = /[*?[{]/;
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** `**` any directories, `*` and `?` within a name, `[abc]` classes, `{a,b}` alternatives. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:[^/]*/)*' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (ch === '{') {
      const end = glob.indexOf('}', i + 1);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(',')
          .map((alt) => globToRegExp(alt).source.slice(1, -1))
          .join('|')})`;
        i = end;
      }
    } else re += /[.+^$()|\\]/.test(ch) ? `\\${ch}` : ch;
  }
  return new RegExp(`^${re}$`);
}

/** Files matching `pattern` (relative to `cwd` or absolute), sorted; node_modules and .git skipped. */
export function expandGlob(pattern: string, cwd = process.cwd()): string[] {
  const posix = pattern.split(sep).join('/');
  const segments = posix.split('/');
  const firstGlob = segments.findIndex((s) => GLOB_CHARS.test(s));
  const base = segments.slice(0, firstGlob).join('/') || (posix.startsWith('/') ? '/' : '.');
  const root = resolve(cwd, base);
  const matcher = globToRegExp(resolve(cwd, posix).split(sep).join('/'));
  const found: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(full);
      } else if (entry.isFile() && matcher.test(full.split(sep).join('/'))) found.push(full);
    }
  };
  if (existsSync(root) && statSync(root).isDirectory()) walk(root);
  return found.sort();
}

// ---------------------------------------------------------------------------------------------
// Command line

export interface CliArgs {
  command?: string;
  inputs: string[];
  out?: string;
  /** One manifest per page (or per folder) into this folder, instead of `out`. */
  outDir?: string;
  /** With `outDir`: one manifest per file name (default) or per folder. */
  groupBy?: 'file' | 'dir';
  /** With `outDir`: files or globs whose declarations go into every manifest. */
  shared?: string[];
  /** With `outDir`: the manifests' extension (default `js`). */
  ext?: 'js' | 'mjs';
  check: boolean;
  write: boolean;
  help: boolean;
  version: boolean;
  errors: string[];
}

export function parseArgs(argv: readonly string[]): CliArgs {
  const args: CliArgs = { inputs: [], check: false, write: false, help: false, version: false, errors: [] };
  // `--flag value` or `--flag=value`; undefined (and an error) when the value is missing.
  const valueOf = (a: string, i: number, what: string): [string | undefined, number] => {
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) return [a.slice(eq + 1), i];
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('-')) {
      args.errors.push(`${a} needs ${what}`);
      return [undefined, i];
    }
    return [v, i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const flag = a.startsWith('--') ? a.split('=')[0] : a;
    if (a === '--out' || a === '-o') {
      const v = argv[++i];
      if (v === undefined || v.startsWith('-')) args.errors.push(`${a} needs a file name`);
      else args.out = v;
    } else if (a.startsWith('--out=')) args.out = a.slice('--out='.length);
    else if (flag === '--out-dir') {
      let v: string | undefined;
      [v, i] = valueOf(a, i, 'a folder name');
      if (v !== undefined) args.outDir = v;
    } else if (flag === '--group-by') {
      let v: string | undefined;
      [v, i] = valueOf(a, i, 'file or dir');
      if (v === 'file' || v === 'dir') args.groupBy = v;
      else if (v !== undefined) args.errors.push(`--group-by takes file or dir, not "${v}"`);
    } else if (flag === '--shared') {
      let v: string | undefined;
      [v, i] = valueOf(a, i, 'a file or glob');
      if (v !== undefined) (args.shared ??= []).push(v);
    } else if (flag === '--ext') {
      let v: string | undefined;
      [v, i] = valueOf(a, i, 'js or mjs');
      if (v === 'js' || v === 'mjs' || v === '.js' || v === '.mjs') args.ext = v.replace('.', '') as 'js' | 'mjs';
      else if (v !== undefined) args.errors.push(`--ext takes js or mjs, not "${v}"`);
    }
    else if (a === '--check') args.check = true;
    else if (a === '--write') args.write = true;
    else if (a === '--help' || a === '-h') args.help = true;
    else if (a === '--version' || a === '-v') args.version = true;
    else if (a.startsWith('-')) args.errors.push(`unknown option ${a}`);
    else if (args.command === undefined) args.command = a;
    else args.inputs.push(a);
  }
  if (args.check && args.write) args.errors.push('--check and --write exclude each other');
  if (args.out !== undefined && args.outDir !== undefined)
    args.errors.push('--out and --out-dir exclude each other (one manifest, or one per page)');
  if (args.outDir === undefined) {
    const pageOnly = argv.filter((a) => /^--(group-by|shared|ext)(=|$)/.test(a)).map((a) => a.split('=')[0]);
    for (const flag of new Set(pageOnly)) args.errors.push(`${flag} only applies with --out-dir`);
  }
  return args;
}

/** One command of the CLI. Add a command by adding an entry to `COMMANDS`: help, dispatch and
 * "did you mean" follow from the table. */
export interface CliCommand {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The arguments after the command name, e.g. `<files…> --out <module.js>`. */
  synopsis: string;
  /** Paragraphs shown by `agent-surface <command> --help`. */
  details?: string;
  options: ReadonlyArray<{ flag: string; help: string }>;
  run(argv: readonly string[]): Promise<number>;
}

const COMPILE_DETAILS = `Reads *.contracts.json files (each a JSON array of contracts) and <agent-capability> declarations
in HTML files and lit templates, checks every contract, and writes one ES module with no imports:
the manifest (contracts, tokens, hash) and an ajv standalone validator per contract, plus its types
beside it (x.js -> x.d.ts, x.mjs -> x.d.mts). Use --out x.mjs where Node itself imports the module
from a package without "type": "module"; bundlers and browsers take either.

With --out-dir, each page gets its own manifest, holding only the declarations of its files, so a
declaration written for one page is refused on another: compile pages/*.html --out-dir manifests/
writes manifests/devices.js for pages/devices.html, and so on; inputs named alike (devices.html,
devices.ts, devices.contracts.json) form one page, or, with --group-by dir, every file of a folder.`;

/** The global options, shown under every command list. */
const GLOBAL_OPTIONS = [
  { flag: '-h, --help', help: 'show this help (or a command\'s: agent-surface compile --help)' },
  { flag: '-v, --version', help: 'print the version of agent-surface-kit' },
];

export const COMMANDS: CliCommand[] = [
  {
    name: 'compile',
    summary: 'authorize the declared capabilities: write the manifest module (and tokens)',
    synopsis: '<files or globs…> --out <module.js|module.mjs> | --out-dir <folder> [--check | --write]',
    details: COMPILE_DETAILS,
    options: [
      { flag: '-o, --out <file>', help: 'the module to write: one manifest for every input' },
      {
        flag: '--out-dir <folder>',
        help: 'one manifest per page instead: pages/a.html -> <folder>/a.js (files named alike, a.html and a.ts, share one)',
      },
      { flag: '--group-by <file|dir>', help: 'with --out-dir: one manifest per file name (default) or per folder' },
      { flag: '--shared <file or glob>', help: 'with --out-dir: declarations that go into every manifest (repeatable)' },
      { flag: '--ext <js|mjs>', help: 'with --out-dir: the manifests\' extension (default js)' },
      { flag: '--write', help: 'also put the right token="…" attributes into the scanned sources' },
      {
        flag: '--check',
        help: 'write nothing; fail when a token in the sources or the --out module is missing or stale',
      },
    ],
    run: compileCommand,
  },
  MCP_COMMAND,
];

function optionLines(options: CliCommand['options']): string[] {
  const width = Math.max(...options.map((o) => o.flag.length));
  return options.map((o) => `  ${o.flag.padEnd(width)}  ${o.help}`);
}

/** The top-level help: every command with its synopsis, every option. */
export function usage(): string {
  const lines = ['Usage: agent-surface <command> [options]', '', 'Commands:'];
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  for (const c of COMMANDS) {
    lines.push(`  ${c.name.padEnd(width)}  ${c.summary}`);
    lines.push(`  ${' '.repeat(width)}  agent-surface ${c.name} ${c.synopsis}`);
  }
  for (const c of COMMANDS) {
    lines.push('', `Options of ${c.name}:`, ...optionLines(c.options));
  }
  lines.push('', 'Options:', ...optionLines(GLOBAL_OPTIONS));
  lines.push('', 'Outside a project that has agent-surface-kit installed, run it as');
  lines.push('  npx -p agent-surface-kit agent-surface <command> …');
  return lines.join('\n');
}

/** One command's help. */
export function commandUsage(command: CliCommand): string {
  return [
    `Usage: agent-surface ${command.name} ${command.synopsis}`,
    '',
    ...(command.details ? [command.details, ''] : []),
    'Options:',
    ...optionLines([...command.options, ...GLOBAL_OPTIONS]),
  ].join('\n');
}

/** @deprecated Kept for callers of 0.1: the top-level help text. */
export const USAGE = usage();

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/** The command a mistyped name most likely meant, if one is close. */
export function suggestCommand(name: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of COMMANDS) {
    const d = c.name.startsWith(name) || name.startsWith(c.name) ? 1 : distance(name, c.name);
    if (d <= Math.max(2, Math.floor(c.name.length / 3)) && (!best || d < best.d)) best = { name: c.name, d };
  }
  return best?.name;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function declarationsPath(out: string): string {
  return /\.mjs$/.test(out)
    ? out.replace(/\.mjs$/, '.d.mts')
    : /\.js$/.test(out)
      ? out.replace(/\.js$/, '.d.ts')
      : `${out}.d.ts`;
}

/** Whether Node loads `file` (a `.js` file) as CommonJS: the nearest package.json has no `"type": "module"`. */
function loadsAsCommonJs(file: string): boolean {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown }).type !== 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

const fail = (lines: readonly string[]): number => {
  for (const line of lines) console.error(`agent-surface: error: ${line}`);
  return 1;
};

/** Runs the command line; resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const name = argv.find((a) => !a.startsWith('-'));
  const command = COMMANDS.find((c) => c.name === name);
  const help = argv.includes('--help') || argv.includes('-h');
  if (command) {
    if (help) {
      console.log(commandUsage(command));
      return 0;
    }
    return command.run(argv.slice(argv.indexOf(command.name) + 1));
  }
  if (help || (name === 'help' && argv.length === 1)) {
    console.log(usage());
    return 0;
  }
  if (name === undefined && (argv.includes('--version') || argv.includes('-v'))) {
    const { compilerVersion } = await import('./compile.js');
    console.log(compilerVersion());
    return 0;
  }
  if (name === undefined) {
    console.error(usage());
    return fail([argv.length ? `unknown option ${argv[0]}: give a command first` : 'no command given']);
  }
  const suggestion = suggestCommand(name);
  const names = COMMANDS.map((c) => c.name).join(', ');
  return fail([
    `unknown command "${name}"; ${suggestion ? `did you mean ${suggestion}?` : `the commands are ${names}`} (agent-surface --help lists them)`,
  ]);
}

/** Files as given, globs expanded (leaving out what `skip` says is an output); each file once. */
function expandInputs(inputs: readonly string[], skip: (file: string) => boolean): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  for (const input of inputs) {
    if (GLOB_CHARS.test(input)) {
      const matched = expandGlob(input).filter((f) => !skip(f));
      if (!matched.length) missing.push(`no file matches ${input}`);
      files.push(...matched);
    } else if (!existsSync(input) || !statSync(input).isFile()) missing.push(`${input}: no such file`);
    else files.push(resolve(input));
  }
  return { files: [...new Set(files)], missing };
}

/** The folder every one of `files` is in (the deepest such). */
function commonFolder(files: readonly string[]): string {
  let base = dirname(files[0]);
  for (const f of files) while (base !== dirname(base) && !`${dirname(f)}${sep}`.startsWith(`${base}${sep}`)) base = dirname(base);
  return base;
}

/**
 * Pages: `pages/devices.html`, `pages/devices.ts` and `pages/devices.contracts.json` are page
 * `devices` (the file name up to its first dot, with its folder under the common one); with
 * `dir`, every file of one folder is one page, named after the folder.
 */
export function groupPages(files: readonly string[], groupBy: 'file' | 'dir'): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  if (!files.length) return groups;
  const base = commonFolder(files);
  for (const file of files) {
    const folder = relative(base, dirname(file)).split(sep).join('/');
    const key =
      groupBy === 'dir'
        ? folder || basename(base) || 'index'
        : [folder, basename(file).replace(/\..*$/, '') || basename(file)].filter(Boolean).join('/');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(file);
  }
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)));
}

/** `agent-surface compile …` (argv: what follows the command name). */
async function compileCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(['compile', ...argv]);
  if (!args.out && !args.outDir && !args.errors.some((e) => e.startsWith('--out')))
    args.errors.push('--out <file> is required (or --out-dir <folder>, for one manifest per page)');
  if (!args.inputs.length) args.errors.push('no input files given');
  if (args.errors.length) return fail(args.errors);

  if (args.out) {
    const out = resolve(args.out);
    const { files, missing } = expandInputs(args.inputs, (f) => f === out);
    if (missing.length) return fail(missing);
    return compileManifest(files, out, args);
  }

  // One manifest per page; what --shared names goes into each.
  const outDir = resolve(args.outDir!);
  const inOutDir = (f: string) => f.startsWith(`${outDir}${sep}`);
  const pages = expandInputs(args.inputs, inOutDir);
  const shared = expandInputs(args.shared ?? [], inOutDir);
  if (pages.missing.length || shared.missing.length) return fail([...pages.missing, ...shared.missing]);
  const sharedSet = new Set(shared.files);
  const pageFiles = pages.files.filter((f) => !sharedSet.has(f));
  if (!pageFiles.length) return fail(['no page files given (every input is --shared)']);
  let status = 0;
  const written = new Set<string>();
  for (const [name, files] of groupPages(pageFiles, args.groupBy ?? 'file')) {
    const out = join(outDir, `${name}.${args.ext ?? 'js'}`);
    written.add(out);
    status = Math.max(status, await compileManifest([...files, ...shared.files], out, args));
  }
  if (args.check) {
    // A manifest left from a page that was removed or renamed would still admit its declarations.
    const leftover = expandGlob(`${outDir.split(sep).join('/')}/**/*.${args.ext ?? 'js'}`).filter(
      (f) => !written.has(f) && readFileSync(f, 'utf8').startsWith('// Generated by `agent-surface compile`'),
    );
    if (leftover.length)
      status = Math.max(status, fail(leftover.map((f) => `${display(f)}: no page of this compile writes it any more: delete it`)));
  }
  return status;
}

/** Compiles `unique` (files) into the manifest module `out` and its .d.ts; --check and --write as asked. */
async function compileManifest(unique: readonly string[], out: string, args: CliArgs): Promise<number> {
  const collected = await collectDeclarations(unique);
  const errors = collected.errors.map(
    (e) => `${e.where}${e.capabilityId ? ` (${e.capabilityId})` : ''}: ${e.message}`,
  );

  // Contract checks and duplicates here, where each declaration's file is known.
  const firstById = new Map<string, { where: string; canonical: string }>();
  const accepted: Declaration[] = [];
  for (const d of collected.declarations) {
    const raw = d.contract as unknown as { id?: unknown };
    const id = raw !== null && typeof raw === 'object' && typeof raw.id === 'string' ? raw.id : undefined;
    const checked = tryNormalizeContract(d.contract);
    if (!checked.ok) {
      errors.push(`${d.where}${id ? ` (${id})` : ''}: ${checked.problems.map((p) => p.message).join('; ')}`);
      continue;
    }
    const canonical = canonicalJson(checked.contract);
    const first = firstById.get(checked.contract.id);
    if (first) {
      if (first.canonical !== canonical) {
        errors.push(
          `${d.where} (${checked.contract.id}): declared with a different contract at ${first.where}; one id, one contract`,
        );
      }
      continue;
    }
    firstById.set(checked.contract.id, { where: d.where, canonical });
    accepted.push(d);
  }

  // Compile what passed, even when something else failed: schema errors are reported in the same run.
  let built: Awaited<ReturnType<typeof buildContractModule>> | undefined;
  try {
    built = await buildContractModule(accepted.map((d) => d.contract));
  } catch (error) {
    if (!(error instanceof ContractCompileError)) throw error;
    for (const p of error.problems) {
      const origin = accepted[p.index];
      errors.push(origin ? `${origin.where} (${p.capabilityId ?? '?'}): ${p.message}` : p.message);
    }
  }
  if (errors.length || !built) return fail(errors);
  const { manifest, source, declarations } = built;
  const tokenOf = (id: string): string | undefined => manifest.contracts[id]?.token;
  const dts = declarationsPath(out);
  const count = Object.keys(manifest.contracts).length;
  const summary = `${count} contract${count === 1 ? '' : 's'} from ${unique.length} file${unique.length === 1 ? '' : 's'}`;

  if (args.check) {
    const problems: string[] = [];
    for (const scanned of collected.scanned) {
      for (const d of scanned.declarations) {
        const expected = tokenOf(d.id);
        if (expected === undefined || d.token.value === expected) continue;
        const p = d.token.position;
        problems.push(
          `${display(p.file)}:${p.line}:${p.column} (${d.id}): token ${d.token.value === null ? 'is missing' : 'is stale'}: run agent-surface compile --write`,
        );
      }
    }
    const current = existsSync(out) ? await readFile(out, 'utf8') : undefined;
    if (current !== source)
      problems.push(
        `${display(out)} is ${current === undefined ? 'missing' : 'out of date'}: run agent-surface compile`,
      );
    const currentTypes = existsSync(dts) ? await readFile(dts, 'utf8') : undefined;
    if (current === source && currentTypes !== declarations)
      problems.push(
        `${display(dts)} is ${currentTypes === undefined ? 'missing' : 'out of date'}: run agent-surface compile`,
      );
    if (problems.length) return fail(problems);
    console.log(`agent-surface: ${summary}: ${display(out)} and every token are up to date`);
    return 0;
  }

  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, source);
  await writeFile(dts, declarations);
  let rewritten = 0;
  if (args.write) {
    const scanner = collected.scanned.length ? await loadScanner() : undefined;
    for (const scanned of collected.scanned) {
      if (!scanner?.rewriteTokens) return fail(['--write: the scanner cannot rewrite tokens in this build']);
      const text = scanner.rewriteTokens(scanned, tokenOf);
      if (text !== scanned.text) {
        await writeFile(scanned.file, text);
        rewritten++;
      }
    }
  }
  if (/\.js$/.test(out) && loadsAsCommonJs(out)) {
    // Not an error (bundlers and browsers read it as ESM), but `import()` from Node would fail with a syntax error.
    console.warn(
      `agent-surface: note: Node loads ${display(out)} as CommonJS (its package.json has no "type": "module"); bundlers and browsers don't mind, but to import it from Node use --out ${display(out).replace(/\.js$/, '.mjs')}`,
    );
  }
  const bytes = Buffer.byteLength(source);
  const gz = gzipSync(source, { level: 9 }).length;
  const tokens = args.write ? `; tokens updated in ${rewritten} file${rewritten === 1 ? '' : 's'}` : '';
  console.log(
    `agent-surface: compiled ${summary} into ${display(out)} (${kb(bytes)}, ${kb(gz)} gzip)${tokens}`,
  );
  return 0;
}

function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return (
      pathToFileURL(realpathSync(entry)).href ===
      pathToFileURL(realpathSync(fileURLToPath(import.meta.url))).href
    );
  } catch {
    return false;
  }
}

// `npx tsx src/compiler/cli.ts compile …` in the repository; bin/agent-surface.js calls main itself.
if (invokedDirectly()) {
  process.exitCode = await main(process.argv.slice(2));
}
