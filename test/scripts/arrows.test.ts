// The arrow check of `npm run check` (scripts/arrows.mjs), played on small source trees written for
// each case: it passes a tree that keeps the rules, and fails, naming the file and line, on every
// forbidden arrow issue 12 names (core → elements, webmcp, chat or compiler; webmcp → elements;
// compiler → elements), however the import is spelled, and on every import cycle.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const trees: string[] = [];
after(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** A layout that keeps the rules: elements wraps webmcp, both use core, the compiler uses core. */
const CLEAN: Record<string, string> = {
  'core/types.ts': 'export interface Contract { id: string }\n',
  'core/registry.ts': "import type { Contract } from './types.js';\nexport const register = (c: Contract) => c.id;\n",
  'webmcp/adapter.ts': "import { register } from '../core/registry.js';\nexport const start = () => register({ id: 'x' });\n",
  'elements/agent-webmcp.ts': "import { start } from '../webmcp/adapter.js';\nexport const connect = () => start();\n",
  'elements/agent-confirm.ts': "export const open = () => import('./confirm-dialog.js');\n",
  'elements/confirm-dialog.ts': "import { register } from '../core/registry.js';\nexport const show = () => register({ id: 'y' });\n",
  'compiler/compile.ts': "import type { Contract } from '../core/types.js';\nexport const compile = (c: Contract) => c;\n",
};

/** Runs the check on `CLEAN` with `changes` applied (a file set to `null` is left out). */
function check(changes: Record<string, string | null> = {}): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'arrows-'));
  trees.push(dir);
  for (const [file, text] of Object.entries({ ...CLEAN, ...changes })) {
    if (text === null) continue;
    mkdirSync(dirname(join(dir, 'src', file)), { recursive: true });
    writeFileSync(join(dir, 'src', file), text);
  }
  const run = spawnSync(process.execPath, [join(root, 'scripts/arrows.mjs'), '--src', join(dir, 'src')], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the arrow check (scripts/arrows.mjs)', () => {
  it('passes this repository', () => {
    const run = spawnSync(process.execPath, [join(root, 'scripts/arrows.mjs')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /no forbidden arrow, no cycle/);
  });

  it('passes a tree that keeps the rules', () => {
    const { status, output } = check();
    assert.equal(status, 0, output);
    assert.match(output, /7 modules, \d+ imports: no forbidden arrow, no cycle/);
  });

  const forbidden: [string, string, string, RegExp][] = [
    ['core → elements, static', 'core/registry.ts', "import { connect } from '../elements/agent-webmcp.js';\nexport const c = connect;\n", /src\/core\/registry\.ts:1: src\/core → src\/elements\/agent-webmcp\.ts \(static\)/],
    ['core → elements, types only', 'core/types.ts', "import type { connect } from '../elements/agent-webmcp.js';\nexport type C = typeof connect;\n", /src\/core → src\/elements\/agent-webmcp\.ts \(type\)/],
    ['core → webmcp, import()', 'core/registry.ts', "export const later = () => import('../webmcp/adapter.js');\n", /src\/core → src\/webmcp\/adapter\.ts \(dynamic\)/],
    ['core → webmcp, an import() type', 'core/types.ts', "export type A = import('../webmcp/adapter.js').Start;\n", /src\/core → src\/webmcp\/adapter\.ts \(type\)/],
    ['core → chat, a re-export', 'core/types.ts', "export * from '../chat/agent-chat.js';\n", /src\/core → src\/chat\/agent-chat\.ts \(static\)/],
    ['core → compiler, a named re-export', 'core/types.ts', "export { compile } from '../compiler/compile.js';\n", /src\/core → src\/compiler\/compile\.ts \(static\)/],
    ['webmcp → elements', 'webmcp/adapter.ts', "import '../elements/agent-webmcp.js';\nexport const start = () => 0;\n", /src\/webmcp\/adapter\.ts:1: src\/webmcp → src\/elements\/agent-webmcp\.ts/],
    ['compiler → elements', 'compiler/compile.ts', "import type { connect } from '../elements/agent-webmcp.js';\nexport type C = typeof connect;\n", /src\/compiler → src\/elements\/agent-webmcp\.ts/],
    ['core → elements through the package’s own name', 'core/registry.ts', "import { defineAgentElements } from 'agent-surface-kit/elements';\nexport const d = defineAgentElements;\n", /src\/core\/registry\.ts:1: .*agent-surface-kit\/elements/],
    ['core → elements through an import-equals', 'core/registry.ts', "import elements = require('../elements/agent-webmcp.js');\nexport const d = elements;\n", /src\/core → src\/elements\/agent-webmcp\.ts/],
    ['core → elements through a JavaScript module of core', 'core/registry.ts', "export { helper } from './helper.js';\n", /src\/core\/helper\.js:1: src\/core → src\/elements\/agent-webmcp\.ts/],
  ];
  for (const [what, file, text, message] of forbidden) {
    it(`fails on a forbidden arrow: ${what}`, () => {
      const extra: Record<string, string> = { 'chat/agent-chat.ts': 'export const chat = 1;\n' };
      if (what.includes('JavaScript')) extra['core/helper.js'] = "import { connect } from '../elements/agent-webmcp.js';\nexport const helper = connect;\n";
      const { status, output } = check({ ...extra, [file]: text });
      assert.equal(status, 1, output);
      assert.match(output, message);
    });
  }

  it('fails on an import cycle inside core, through static imports, types and import() alike', () => {
    for (const back of [
      "import { register } from './registry.js';\nexport const t = register;\n",
      "import type { register } from './registry.js';\nexport type T = typeof register;\n",
      "export const t = () => import('./registry.js');\n",
    ]) {
      const { status, output } = check({ 'core/types.ts': back });
      assert.equal(status, 1, output);
      assert.match(output, /import cycle among src\/core\/registry\.ts, src\/core\/types\.ts/);
    }
  });

  it('fails on a cycle between two elements (agent-confirm ↔ confirm-dialog) and on a file importing itself', () => {
    let run = check({ 'elements/confirm-dialog.ts': "import { open } from './agent-confirm.js';\nexport const show = open;\n" });
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /import cycle among src\/elements\/agent-confirm\.ts, src\/elements\/confirm-dialog\.ts/);
    run = check({ 'core/types.ts': "import type { X } from './types.js';\nexport type X = string;\nexport type Y = X;\n" });
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /import cycle among src\/core\/types\.ts/);
  });

  it('fails on a cycle that spans rooms (elements → webmcp → elements)', () => {
    const { status, output } = check({ 'webmcp/adapter.ts': "import { connect } from '../elements/agent-webmcp.js';\nexport const start = () => connect;\n" });
    assert.equal(status, 1, output);
    assert.match(output, /src\/webmcp → src\/elements\/agent-webmcp\.ts/);
    assert.match(output, /import cycle among src\/elements\/agent-webmcp\.ts, src\/webmcp\/adapter\.ts/);
  });
});
