// `npm test`: sets up, runs the Node suite (node:test through tsx) and the browser suite
// (web-test-runner in Chromium), then prints one line `N passed, N failed` over both.
// Arguments narrow the run: `--node-only`, `--browser-only`, or test file paths.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { preparePackedInstall } from './packed.mjs';
import { setup } from './setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));
const nodeOnly = args.includes('--node-only');
const browserOnly = args.includes('--browser-only');

// Node tests: everything under the Node folders but `*.browser.test.ts`, and any `*.node.test.ts`
// (a DOM-free part of a browser folder, such as the chat reducer). Browser tests: the rest.
const NODE_DIRS = ['test/core', 'test/compiler', 'test/package', 'test/adapters', 'test/server', 'test/mcp', 'test/chat', 'test/browser', 'test/scripts'];
const BROWSER_DIRS = ['test/elements', 'test/webmcp', 'test/chat', 'test/adapters', 'test/browser'];
const NODE_FOLDER = /^test\/(core|compiler|package|adapters|server|mcp|scripts)\//;
const isNodeTest = (file) =>
  /\.node\.test\.(ts|mjs|js)$/.test(file) || (NODE_FOLDER.test(file) && !/\.browser\.test\.(ts|mjs|js)$/.test(file));

function listTests(dirs) {
  const out = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/\.test\.(ts|mjs|js)$/.test(entry.name)) out.push(relative(root, p));
    }
  };
  for (const d of dirs) walk(join(root, d));
  return out.sort();
}

function pick(all) {
  if (!files.length) return all;
  return all.filter((f) => files.some((want) => f.includes(want)));
}

const tmp = join(root, '.tmp');
mkdirSync(tmp, { recursive: true });

let passed = 0;
let failed = 0;
let broken = false;

setup({ browser: !nodeOnly });

const nodeFiles = browserOnly ? [] : pick(listTests(NODE_DIRS).filter(isNodeTest));
// test/package/ runs against the packed tarball installed in a fresh folder: one install for the run.
let packed;
if (nodeFiles.some((f) => f.startsWith('test/package/'))) {
  try {
    packed = preparePackedInstall({ log: (m) => console.log(`[test] ${m}`) });
  } catch (error) {
    console.error(`[test] packing or installing the tarball failed: ${error.message}`);
    broken = true;
  }
}
if (nodeFiles.length) {
  const tap = join(tmp, `node-tests-${process.pid}.tap`);
  rmSync(tap, { force: true });
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      // A safety net against a hang, not a measure: tests and suites that set no timeout of their own
      // (node:test's default is none at all) fail after 20 minutes instead of holding the run forever.
      '--test-timeout=1200000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...nodeFiles,
    ],
    { cwd: root, stdio: 'inherit', env: packed ? { ...process.env, AGENT_SURFACE_PACKED_DIR: packed.dir } : process.env },
  );
  packed?.cleanup();
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  rmSync(tap, { force: true });
  const pass = Number(/^# pass (\d+)/m.exec(text)?.[1] ?? NaN);
  const fail = Number(/^# fail (\d+)/m.exec(text)?.[1] ?? NaN);
  if (Number.isNaN(pass) || Number.isNaN(fail)) {
    console.error('[test] the Node test runner reported no totals');
    broken = true;
  } else {
    passed += pass;
    failed += fail;
    if (result.status !== 0 && fail === 0) broken = true;
  }
}

const browserFiles = nodeOnly ? [] : pick(listTests(BROWSER_DIRS).filter((f) => !isNodeTest(f)));
// The CDN test loads the built file as a page without a build step would: build dist/ first.
if (browserFiles.some((f) => f.endsWith('cdn.test.ts'))) {
  const built = spawnSync(process.execPath, [join(root, 'node_modules/rollup/dist/bin/rollup'), '-c', '--silent'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) {
    console.error('[test] the build (rollup -c) failed: the CDN test cannot run');
    broken = true;
  }
}
/**
 * A port the system has just handed out (listen on 0), for the test runner's server. Left to
 * itself, web-test-runner asks for 8000 or the next free port, and two runs that start together
 * both see 8000 free: the second then fails to listen. A port from the system's ephemeral range
 * is not handed to anyone else in the moment before the runner takes it.
 */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

if (browserFiles.length) {
  const summary = join(tmp, `wtr-summary-${process.pid}.json`);
  rmSync(summary, { force: true });
  const port = String(await freePort());
  const result = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/@web/test-runner/dist/bin.js'),
      '--config',
      'web-test-runner.config.mjs',
      '--port',
      port,
      ...browserFiles.flatMap((f) => ['--files', f]),
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, WTR_SUMMARY: summary } },
  );
  if (!existsSync(summary)) {
    console.error('[test] web-test-runner wrote no summary');
    broken = true;
  } else {
    const s = JSON.parse(readFileSync(summary, 'utf8'));
    rmSync(summary, { force: true });
    passed += s.passed;
    failed += s.failed;
    if (result.status !== 0 && s.failed === 0) {
      console.error('[test] web-test-runner failed outside the tests (a file failed to load or run)');
      failed += s.fileErrors || 1;
    }
  }
}

if (broken) failed += 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
