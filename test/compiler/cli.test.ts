import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expandGlob, globToRegExp, main, parseArgs } from '../../src/compiler/cli.js';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'src/compiler/cli.ts');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
let dir: string;

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [tsx, cli, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** main() in this process (cheaper than a spawn): exit code and captured output. */
async function runHere(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const cwd = process.cwd();
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  process.chdir(dir);
  try {
    const status = await main(args);
    return { status, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    process.chdir(cwd);
    Object.assign(console, { log, error });
  }
}

const disable = {
  id: 'domain:devices.disable',
  kind: 'action',
  effect: 'destructive',
  confirmation: 'required',
  description: 'Disable the given devices.',
  inputSchema: {
    type: 'object',
    properties: { ids: { type: 'array', items: { type: 'string' } } },
    required: ['ids'],
    additionalProperties: false,
  },
};
const rows = {
  id: 'view:devices.table.rows',
  kind: 'observation',
  effect: 'read',
  description: 'The visible rows.',
};

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-surface-cli-'));
  mkdirSync(join(dir, 'src/nested'), { recursive: true });
  writeFileSync(join(dir, 'src/devices.contracts.json'), JSON.stringify([disable]));
  writeFileSync(join(dir, 'src/nested/table.contracts.json'), JSON.stringify([rows, disable]));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('agent-surface compile', () => {
  it('compiles contracts files and globs into one module, a .d.ts and a one-line summary', async () => {
    const r = run('compile', 'src/**/*.contracts.json', '--out', 'gen/manifest.js');
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout.trim(),
      /^agent-surface: compiled 2 contracts from 2 files into gen\/manifest\.js \(\d+\.\d KB, \d+\.\d KB gzip\)$/,
    );
    assert.equal(r.stdout.trim().split('\n').length, 1);
    const source = readFileSync(join(dir, 'gen/manifest.js'), 'utf8');
    assert.doesNotMatch(source, /\bimport\b|require\(|new Function|eval\(/);
    const mod = await import(`data:text/javascript,${encodeURIComponent(source)}`);
    assert.deepEqual(Object.keys(mod.manifest.contracts), [
      'domain:devices.disable',
      'view:devices.table.rows',
    ]);
    assert.equal(mod.validators['domain:devices.disable'].input({ ids: ['a'] }), true);
    assert.equal(mod.validators['domain:devices.disable'].input({}), false);
    assert.match(
      readFileSync(join(dir, 'gen/manifest.d.ts'), 'utf8'),
      /readonly "view:devices\.table\.rows": ContractValidators;/,
    );

    const check = await runHere(
      'compile',
      'src/devices.contracts.json',
      'src/nested/table.contracts.json',
      '--out',
      'gen/manifest.js',
      '--check',
    );
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stdout, /up to date/);
  });

  it('--check fails when the module is stale, and writes nothing', async () => {
    const r = await runHere('compile', 'src/devices.contracts.json', '--out', 'gen/stale.js', '--check');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /gen\/stale\.js is missing: run agent-surface compile/);
    assert.equal(existsSync(join(dir, 'gen/stale.js')), false);
  });

  it('names the file and the contract id for every error and exits 1', () => {
    writeFileSync(
      join(dir, 'bad.contracts.json'),
      JSON.stringify([
        { ...rows, effect: 'destructive' },
        { ...disable, description: 'Something else.' },
        {
          id: 'domain:schema',
          kind: 'action',
          effect: 'read',
          description: 'Bad schema.',
          inputSchema: { type: 'object', properties: { a: { type: 'strng' } } },
        },
        { ...rows, id: 'domain:extra', extra: true },
      ]),
    );
    const r = run('compile', 'src/devices.contracts.json', 'bad.contracts.json', '--out', 'gen/bad.js');
    assert.equal(r.status, 1);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 4, r.stderr);
    assert.ok(
      lines.some((l) =>
        /^agent-surface: error: bad\.contracts\.json#1 \(view:devices\.table\.rows\): an observation only reads/.test(
          l,
        ),
      ),
      r.stderr,
    );
    assert.ok(
      lines.some((l) =>
        /^agent-surface: error: bad\.contracts\.json#2 \(domain:devices\.disable\): declared with a different contract at src\/devices\.contracts\.json#1/.test(
          l,
        ),
      ),
      r.stderr,
    );
    assert.ok(
      lines.some((l) =>
        /^agent-surface: error: bad\.contracts\.json#3 \(domain:schema\): inputSchema is not a valid JSON Schema/.test(
          l,
        ),
      ),
      r.stderr,
    );
    assert.ok(
      lines.some((l) =>
        /^agent-surface: error: bad\.contracts\.json#4 \(domain:extra\): unknown field "extra"/.test(l),
      ),
      r.stderr,
    );
    assert.equal(existsSync(join(dir, 'gen/bad.js')), false);
  });

  it('reports unreadable inputs, missing files, empty globs and usage errors', async () => {
    writeFileSync(join(dir, 'broken.contracts.json'), '{ not json');
    writeFileSync(join(dir, 'object.contracts.json'), '{}');
    let r = await runHere('compile', 'broken.contracts.json', 'object.contracts.json', '--out', 'gen/x.js');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /broken\.contracts\.json: cannot read contracts: .*JSON/);
    assert.match(r.stderr, /object\.contracts\.json: a contracts file holds a JSON array of contracts/);
    r = await runHere('compile', 'nope.contracts.json', 'none/*.contracts.json', '--out', 'gen/x.js');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /nope\.contracts\.json: no such file/);
    assert.match(r.stderr, /no file matches none\/\*\.contracts\.json/);
    r = await runHere('compile', 'src/devices.contracts.json');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--out <file> is required/);
    r = await runHere('build');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unknown command "build"/);
    r = await runHere('--help');
    assert.equal(r.status, 0);
    assert.match(r.stdout, /Usage: agent-surface compile/);
  });
});

describe('cli helpers', () => {
  it('parses flags', () => {
    assert.deepEqual(parseArgs(['compile', 'a.json', '--out=x.js', '--write', 'b.html']), {
      command: 'compile',
      inputs: ['a.json', 'b.html'],
      out: 'x.js',
      check: false,
      write: true,
      help: false,
      version: false,
      errors: [],
    });
    assert.deepEqual(parseArgs(['compile', '--check', '--write', '--bogus', '-o']).errors, [
      'unknown option --bogus',
      '-o needs a file name',
      '--check and --write exclude each other',
    ]);
  });

  it('matches globs like a shell', () => {
    assert.ok(globToRegExp('src/**/*.contracts.json').test('src/a.contracts.json'));
    assert.ok(globToRegExp('src/**/*.contracts.json').test('src/x/y/a.contracts.json'));
    assert.ok(!globToRegExp('src/*.json').test('src/x/a.json'));
    assert.ok(globToRegExp('src/*.{html,ts}').test('src/a.ts'));
    assert.ok(globToRegExp('src/[ab].ts').test('src/b.ts'));
    assert.ok(!globToRegExp('src/?.ts').test('src/ab.ts'));
    const found = expandGlob('src/**/*.contracts.json', dir).map((f) =>
      f
        .slice(dir.length + 1)
        .split('\\')
        .join('/'),
    );
    assert.deepEqual(found, ['src/devices.contracts.json', 'src/nested/table.contracts.json']);
  });
});
