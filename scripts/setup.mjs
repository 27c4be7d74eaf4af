// Prepares a checkout for `npm start` / `npm test`: installs npm packages from the lock file when
// they are missing or older than it, and (for the browser tests) finds or installs Chromium.
// Uses Node built-ins only: it runs before node_modules exists.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function log(message) {
  console.log(`[setup] ${message}`);
}

export function ensurePackages() {
  const lock = join(root, 'package-lock.json');
  const marker = join(root, 'node_modules', '.package-lock.json');
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(marker).mtimeMs < statSync(lock).mtimeMs);
  if (!stale) return;
  log('installing npm packages from package-lock.json (npm ci)');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm ci failed');
}

function which(command) {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

export function findBrowser() {
  if (process.env.CHROME_PATH && existsSync(process.env.CHROME_PATH)) return process.env.CHROME_PATH;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  return which('chromium') ?? which('google-chrome') ?? which('chromium-browser');
}

/** Returns a Chromium path, installing Debian's `chromium` as root when none is found. */
export function ensureBrowser() {
  let path = findBrowser();
  if (path) return path;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(
      'No Chromium found. Install Chromium or Chrome and point CHROME_PATH at it, e.g.\n' +
        '  CHROME_PATH=/path/to/chrome npm test',
    );
  }
  log('no browser found: installing Debian chromium with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  path = findBrowser();
  if (!path) throw new Error('apt-get installed chromium but no binary was found; set CHROME_PATH');
  return path;
}

export function setup({ browser = false } = {}) {
  ensurePackages();
  if (browser) process.env.CHROME_PATH = ensureBrowser();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    setup({ browser: process.argv.includes('--browser') });
    if (process.env.CHROME_PATH) log(`browser: ${process.env.CHROME_PATH}`);
  } catch (error) {
    console.error(`[setup] ${error.message}`);
    process.exit(1);
  }
}
