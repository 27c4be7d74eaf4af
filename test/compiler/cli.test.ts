import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { COMMANDS, expandGlob, globToRegExp, jsonErrorPosition, parseArgs, suggestCommand } from '../../src/compiler/cli.js';
import { runCliIn } from './cli-helpers.js';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'src/compiler/cli.ts');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
let dir: string;

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [tsx, cli, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const runHere = (...args: string[]) => runCliIn(dir, args);

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
    assert.match(r.stderr, /^agent-surface: error: broken\.contracts\.json:1:3: invalid JSON: \S/m);
    assert.doesNotMatch(r.stderr, /at position/);
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
    assert.match(r.stderr, /unknown command "build"; the commands are compile/);
    r = await runHere('--help');
    assert.equal(r.status, 0);
    assert.match(r.stdout, /Usage: agent-surface <command>/);
    assert.match(r.stdout, /agent-surface compile <files or globs…> --out/);
  });

  it('names the command a typo meant, in one line', async () => {
    for (const typo of ['compil', 'complie', 'Compile', 'comp']) {
      const r = await runHere(typo, 'a.html', '--out', 'x.js');
      assert.equal(r.status, 1);
      assert.equal(r.stderr, `agent-surface: error: unknown command "${typo}"; did you mean compile? (agent-surface --help lists them)`);
    }
    assert.equal(suggestCommand('deploy'), undefined);
    const none = await runHere();
    assert.equal(none.status, 1);
    assert.match(none.stderr, /agent-surface: error: no command given$/);
  });

  it('--help lists every command and every option, each once', async () => {
    const r = await runHere('--help');
    for (const c of COMMANDS) {
      assert.match(r.stdout, new RegExp(`^  ${c.name} `, 'm'), c.name);
      for (const o of c.options) assert.ok(r.stdout.includes(o.flag), `${c.name} ${o.flag}`);
    }
    for (const flag of ['--out', '--write', '--check', '--help', '--version'])
      assert.ok(r.stdout.includes(flag), flag);
    assert.match(r.stdout, /npx -p agent-surface-kit agent-surface/);
    const sub = await runHere('compile', '--help');
    assert.equal(sub.status, 0);
    assert.match(sub.stdout, /^Usage: agent-surface compile <files or globs…> --out/);
    assert.match(sub.stdout, /x\.mjs -> x\.d\.mts/);
    const version = await runHere('--version');
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
  });

  it('gives line and column for bad JSON, and one prefix per message', async () => {
    writeFileSync(join(dir, 'comma.contracts.json'), '[\n  {"id": "domain:a",\n   "kind": "action",}\n]\n');
    writeFileSync(join(dir, 'cut.contracts.json'), '\uFEFF[{"id": "domain:a"');
    writeFileSync(
      join(dir, 'schema.contracts.json'),
      JSON.stringify([{ ...disable, id: 'domain:a', inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } }]),
    );
    const r = await runHere('compile', 'comma.contracts.json', 'cut.contracts.json', 'schema.contracts.json', '--out', 'gen/y.js');
    assert.equal(r.status, 1);
    const lines = r.stderr.split('\n');
    // The stray comma ends line 3 at column 20; V8 points at the `}` after it.
    assert.ok(lines.some((l) => l.startsWith('agent-surface: error: comma.contracts.json:3:21: invalid JSON: ')), r.stderr);
    // Cut short: the end of the text (a BOM is not counted).
    assert.ok(lines.some((l) => l.startsWith('agent-surface: error: cut.contracts.json:1:19: invalid JSON: ')), r.stderr);
    const schema = lines.find((l) => l.includes('schema.contracts.json'));
    assert.match(schema ?? '', /inputSchema is not a valid JSON Schema: #\/properties\/a\/type must be/);
    for (const line of lines) {
      assert.equal(line.match(/agent-surface: error: /g)?.length, 1, line);
      assert.doesNotMatch(line, /schema is invalid|: data\//, line);
    }
  });

  it('writes .mjs with .d.mts, and says when Node would load a .js module as CommonJS', async () => {
    const cjs = join(dir, 'cjs');
    mkdirSync(cjs, { recursive: true });
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-app', version: '1.0.0' }));
    const mjs = await runHere('compile', 'src/devices.contracts.json', '--out', 'cjs/manifest.mjs');
    assert.equal(mjs.status, 0, mjs.stderr);
    assert.ok(existsSync(join(cjs, 'manifest.mjs')) && existsSync(join(cjs, 'manifest.d.mts')));
    assert.equal(mjs.stderr, '');
    const js = await runHere('compile', 'src/devices.contracts.json', '--out', 'cjs/manifest.js');
    assert.equal(js.status, 0);
    assert.match(js.stderr, /Node loads cjs\/manifest\.js as CommonJS .* use --out cjs\/manifest\.mjs/);
  });
});

describe('cli helpers', () => {
  it('turns any JSON.parse offset into a line and column inside the text', () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.constantFrom('', '}', ',', 'x', '\n\n'), (json, cut, junk) => {
        const text = json.slice(0, cut % (json.length + 1)) + junk;
        let message: string;
        try {
          JSON.parse(text);
          return;
        } catch (error) {
          message = (error as Error).message;
        }
        const p = jsonErrorPosition(text, message);
        const lines = text.split('\n');
        assert.ok(p.line >= 1 && p.line <= lines.length, `${p.line} of ${lines.length}`);
        assert.ok(p.column >= 1 && p.column <= lines[p.line - 1].length + 1);
        assert.doesNotMatch(p.message, /position \d/);
        assert.ok(p.message.length > 0);
      }),
    );
  });

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
