// The package as a user gets it: `npm pack` (which builds, through `prepack`) and `npm install
// <tarball>` in a fresh folder outside this checkout, so nothing resolves from the repository's own
// node_modules. Installs are slow here, so a test run makes one and every packed-tarball test reuses
// it: `npm test` calls `preparePackedInstall()` once and hands the folder to the tests through
// AGENT_SURFACE_PACKED_DIR; a test file run on its own makes its own.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Packs this checkout and installs the tarball into a new folder (a `package.json` without
 * `"type": "module"`, as `npm init -y` writes). Returns the folder and the tarball's path.
 */
export function preparePackedInstall({ log = () => {} } = {}) {
  const packDir = join(root, '.tmp', `pack-${process.pid}`);
  rmSync(packDir, { recursive: true, force: true });
  mkdirSync(packDir, { recursive: true });
  log('npm pack (builds through prepack)');
  execFileSync(npm, ['pack', '--silent', '--pack-destination', packDir], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const tgz = readdirSync(packDir).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error('npm pack wrote no tarball');
  const tarball = join(packDir, tgz);
  const dir = mkdtempSync(join(tmpdir(), 'agent-surface-packed-'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'fresh-app', version: '1.0.0', private: true }, null, 2)}\n`);
  log(`npm install ${tgz} in ${dir}`);
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const cleanup = () => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(packDir, { recursive: true, force: true });
  };
  return { dir, tarball, cleanup };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { dir, tarball } = preparePackedInstall({ log: (m) => console.error(`[packed] ${m}`) });
  console.log(JSON.stringify({ dir, tarball }));
}
