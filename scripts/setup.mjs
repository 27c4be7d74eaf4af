// Prepares a checkout for `npm start` / `npm test`: installs npm packages from the lock file when
// they are missing or older than it, and (for the browser tests) finds or installs Chromium.
// Uses Node built-ins only: it runs before node_modules exists.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function log(message) {
  console.log(`[setup] ${message}`);
}

/** The lock file's digest, written beside node_modules after an install from it. */
function lockDigest(lock) {
  return createHash('sha256').update(readFileSync(lock)).digest('hex');
}

function packagesStale(lock, marker, stamp) {
  if (!existsSync(marker)) return true;
  if (!existsSync(lock)) return false;
  // The digest decides once there is one: mtimes move with checkouts and copies, contents do not.
  if (existsSync(stamp)) return readFileSync(stamp, 'utf8').trim() !== lockDigest(lock);
  return statSync(marker).mtimeMs < statSync(lock).mtimeMs;
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Installs from the lock file when node_modules is missing or was installed from another lock
 * file. Two runs at once (parallel test commands) must not both run `npm ci`, which empties
 * node_modules first: the second waits for the first, then looks again.
 */
export function ensurePackages() {
  const lock = join(root, 'package-lock.json');
  const marker = join(root, 'node_modules', '.package-lock.json');
  const stamp = join(root, 'node_modules', '.agent-surface-kit-lock-digest');
  if (!packagesStale(lock, marker, stamp)) return;
  const mutex = join(root, '.tmp', 'npm-ci.lock');
  mkdirSync(dirname(mutex), { recursive: true });
  for (;;) {
    try {
      mkdirSync(mutex);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A lock left by a run that died: an install never takes this long here.
      if (Date.now() - statSync(mutex).mtimeMs > 15 * 60_000) rmSync(mutex, { recursive: true, force: true });
      else sleep(500);
    }
  }
  try {
    if (!packagesStale(lock, marker, stamp)) return;
    log('installing npm packages from package-lock.json (npm ci)');
    const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) throw new Error('npm ci failed');
    writeFileSync(stamp, `${lockDigest(lock)}\n`);
  } finally {
    rmSync(mutex, { recursive: true, force: true });
  }
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

/** The oldest Chromium whose native WebMCP host the browser tests are written against (README, below "The current draft's additions"). */
export const MIN_CHROMIUM = 156;

/** The browser's major version, from `--version` ("Chromium 156.0.8078.114 built on …"), or undefined. */
function majorVersion(path) {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const m = /(\d+)\.\d+\.\d+/.exec(result.stdout ?? '');
  return m ? Number(m[1]) : undefined;
}

function aptInstallChromium() {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Package lists can be older than the security archive's Chromium: read them first. Two test
  // runs at once wait for each other's dpkg lock instead of failing.
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  execFileSync('apt-get', [...lock, 'update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', [...lock, 'install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
}

/**
 * Returns a Chromium path, installing Debian's `chromium` as root when none is found, and
 * upgrading Debian's own when it is older than MIN_CHROMIUM (an image whose package lists were
 * never updated installs an older one).
 */
export function ensureBrowser() {
  let path = findBrowser();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (path) {
    const major = path === '/usr/bin/chromium' && !process.env.CHROME_PATH ? majorVersion(path) : undefined;
    if (major === undefined || major >= MIN_CHROMIUM) return path;
    if (!isRoot || !which('apt-get')) {
      log(`Chromium ${major} is older than ${MIN_CHROMIUM}: the native WebMCP host tests expect ${MIN_CHROMIUM} or newer`);
      return path;
    }
    log(`Chromium ${major} is older than ${MIN_CHROMIUM}: upgrading Debian chromium with apt-get`);
    aptInstallChromium();
    return findBrowser() ?? path;
  }
  if (!isRoot) {
    throw new Error(
      'No Chromium found. Install Chromium or Chrome and point CHROME_PATH at it, e.g.\n' +
        '  CHROME_PATH=/path/to/chrome npm test',
    );
  }
  log('no browser found: installing Debian chromium with apt-get');
  aptInstallChromium();
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
