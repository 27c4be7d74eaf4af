// `npm install agent-surface-kit` and nothing else: the CLI, the compiler API and a compile work from
// the packed tarball in a fresh folder (a package.json without "type": "module", as `npm init -y`
// writes), and none of the CLI's build-time libraries reaches a browser entry.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { packedDir, projectFolder } from './packed.js';

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
let kit: string;

function run(cwd: string, cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `npx --no`: the installed bin or a failure, never a download of some other package. */
const cli = (cwd: string, ...args: string[]) => run(cwd, npx, ['--no', '--', 'agent-surface', ...args]);
const node = (cwd: string, code: string) => run(cwd, process.execPath, ['--input-type=module', '-e', code]);

const disable = {
  id: 'domain:devices.disable',
  kind: 'action',
  effect: 'destructive',
  confirmation: 'required',
  description: 'Disable devices so they can no longer sign in.',
  inputSchema: {
    type: 'object',
    properties: { deviceIds: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    required: ['deviceIds'],
    additionalProperties: false,
  },
};

before(() => {
  kit = join(packedDir(), 'node_modules/agent-surface-kit');
  assert.ok(existsSync(join(kit, 'package.json')), 'the tarball is installed');
});

describe('the packed package, installed alone', () => {
  it('runs `npx agent-surface --help`, listing the commands', () => {
    const r = cli(projectFolder('help'), '--help');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Usage: agent-surface <command>/);
    assert.match(r.stdout, /^ {2}compile /m);
    assert.doesNotMatch(r.stderr, /ERR_MODULE_NOT_FOUND|Cannot find/);
  });

  it("imports 'agent-surface-kit/compiler' and compiles a contract whose validator works", () => {
    const dir = projectFolder('api');
    const r = node(
      dir,
      `import { compileContracts } from 'agent-surface-kit/compiler';
       import { createCompilerAuthority } from 'agent-surface-kit';
       const { manifest, validators } = await compileContracts([${JSON.stringify(disable)}]);
       const authority = createCompilerAuthority({ manifest, validators });
       const v = validators['domain:devices.disable'].input;
       console.log(JSON.stringify({ token: authority.contract('domain:devices.disable').token,
         ok: v({ deviceIds: ['a'] }), bad: v({ deviceIds: [] }) }));`,
    );
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { token: string; ok: boolean; bad: boolean };
    assert.match(out.token, /^sha256-[A-Za-z0-9_-]{43}$/);
    assert.equal(out.ok, true);
    assert.equal(out.bad, false);
  });

  it('compiles HTML declarations with --write, into an .mjs module Node imports from a CommonJS-default package', () => {
    const dir = projectFolder('compile');
    writeFileSync(
      join(dir, 'index.html'),
      `<!doctype html>\n<meta charset="utf-8">\n<agent-surface>\n  <agent-capability name="devices.disable" effect="destructive" confirmation="required"\n    description="${disable.description}">\n    <script type="application/schema+json">${JSON.stringify(disable.inputSchema)}</script>\n  </agent-capability>\n</agent-surface>\n`,
    );
    const r = cli(dir, 'compile', 'index.html', '--out', 'agent-manifest.mjs', '--write');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /compiled 1 contract from 1 file into agent-manifest\.mjs .*tokens updated in 1 file/);
    assert.ok(existsSync(join(dir, 'agent-manifest.d.mts')));
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    const token = /token="(sha256-[^"]+)"/.exec(html)?.[1];
    assert.ok(token, 'the token was written into the page');
    const imported = node(
      dir,
      `const { manifest, validators } = await import('./agent-manifest.mjs');
       console.log(JSON.stringify({ token: manifest.contracts['domain:devices.disable'].token,
         ok: validators['domain:devices.disable'].input({ deviceIds: ['x'] }) }));`,
    );
    assert.equal(imported.status, 0, imported.stderr);
    assert.deepEqual(JSON.parse(imported.stdout), { token, ok: true });
    const check = cli(dir, 'compile', 'index.html', '--out', 'agent-manifest.mjs', '--check');
    assert.equal(check.status, 0, check.stderr);
  });

  it('says in one line what to install when a library the CLI needs is missing', () => {
    // The package's files without its dependencies, in a folder outside any install.
    const bare = mkdtempSync(join(tmpdir(), 'agent-surface-bare-'));
    try {
      const copy = join(bare, 'node_modules/agent-surface-kit');
      cpSync(kit, copy, { recursive: true, filter: (src) => !src.startsWith(join(kit, 'node_modules')) });
      const r = run(bare, process.execPath, [join(copy, 'bin/agent-surface.js'), '--help']);
      assert.equal(r.status, 1);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(
        lines[0],
        /^agent-surface: error: cannot load "(ajv|ajv-formats|esbuild|parse5|@lit\/[a-z-]+|lit|@cfworker\/json-schema)", which the CLI needs: run `npm install agent-surface-kit` again \(or `npm install \1`\)$/,
      );
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('keeps ajv, esbuild, parse5 and Node built-ins out of every browser entry and the CDN file', () => {
    const pkg = JSON.parse(readFileSync(join(kit, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
    };
    const nodeOnly = new Set(['./compiler', './server', './mcp', './package.json', './custom-elements.json', './jsx']);
    const entries: string[] = [];
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (nodeOnly.has(subpath)) continue;
      if (typeof target === 'string') entries.push(target);
      else for (const [condition, file] of Object.entries(target)) if (condition !== 'types') entries.push(file);
    }
    assert.ok(entries.length >= 8, entries.join());
    const seen = new Set<string>();
    const forbidden: string[] = [];
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|__kitLoadChunk\(\s*|\bimport\s*)["'`]([^"'`]+)["'`]/g)) {
        const spec = m[1];
        if (spec.startsWith('.')) walk(resolve(dirname(file), spec.replace(/\?.*$/, '')));
        else if (/^(ajv|ajv-formats|esbuild|parse5)(\/|$)|^node:/.test(spec)) forbidden.push(`${file}: ${spec}`);
      }
    };
    for (const entry of entries) walk(join(kit, entry));
    assert.ok(seen.size > entries.length, 'the walk followed the entries into their chunks');
    assert.deepEqual(forbidden, []);
  });
});
