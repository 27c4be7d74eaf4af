// `npm run check`: lint, type-check, import arrows and cycles, custom-elements.json and jsx types freshness, size budget. Runs every step and
// exits 1 if any failed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from './setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
setup();

const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status === 0;

function manifestFresh() {
  const out = join(root, '.tmp', 'cem');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const pkg = readFileSync(join(root, 'package.json'), 'utf8');
  const ok = run('npx', ['cem', 'analyze', '--config', 'custom-elements-manifest.config.mjs', '--outdir', '.tmp/cem', '--quiet']);
  // The analyzer may touch package.json; keep the committed one.
  if (readFileSync(join(root, 'package.json'), 'utf8') !== pkg) {
    console.error('[check] the analyzer changed package.json');
  }
  if (!ok) return false;
  const committed = join(root, 'custom-elements.json');
  if (!existsSync(committed)) {
    console.error('[check] custom-elements.json is missing: run `npm run analyze` and commit it');
    return false;
  }
  const fresh = readFileSync(join(out, 'custom-elements.json'), 'utf8');
  if (fresh !== readFileSync(committed, 'utf8')) {
    console.error('[check] custom-elements.json is stale: run `npm run analyze` and commit it');
    return false;
  }
  return true;
}

const steps = [
  ['lint', () => run('npx', ['eslint', 'src', 'test', 'scripts', 'bench'])],
  ['typecheck', () => run('npx', ['tsc', '-p', 'tsconfig.json'])],
  ['arrows', () => run(process.execPath, [join(root, 'scripts/arrows.mjs')])],
  ['types build', () => run('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', '.tmp/types'])],
  ['custom-elements.json', manifestFresh],
  // agent-surface-kit/jsx's element table is generated from custom-elements.json.
  ['jsx types', () => run(process.execPath, [join(root, 'scripts/jsx-types.mjs'), '--check'])],
  ['size', () => run(process.execPath, [join(root, 'scripts/size.mjs')])],
];

const failed = [];
for (const [name, step] of steps) {
  console.log(`\n[check] ${name}`);
  if (!step()) failed.push(name);
}
if (failed.length) {
  console.error(`\n[check] failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log('\n[check] all passed');
