// The README's quick start, as written, from the packed tarball: its HTML, its compile command and its
// script are taken from the README.md inside the package, run in a fresh folder, and the page is
// opened in Chromium over HTTP. The only change is the one the README names for a local copy: the
// unpkg URL becomes the node_modules path. A call then reaches each handler (the destructive one after
// a real click on Approve), and the page's own line logs every tool right after `await
// surface.updateComplete` (readiness in the CDN build).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, extname, join, normalize, sep } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { packedDir, projectFolder, sectionBlocks } from './packed.js';

const CDN_URL = 'https://unpkg.com/agent-surface-kit/dist/cdn/agent-surface.min.js';
const LOCAL_URL = '/node_modules/agent-surface-kit/dist/cdn/agent-surface.min.js';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
};

let root: string;
let project: string;
let server: Server;
let origin: string;
let browser: Browser;
const disabled: unknown[] = [];
/** Pages served with a charset header other than UTF-8 (see the charset test). */
const latin1 = new Set<string>();

before(async () => {
  root = packedDir();
  project = projectFolder('quick-start');
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/api/devices/disable') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        disabled.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      return;
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const file = normalize(join(root, decodeURIComponent(url.pathname)));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const type = latin1.has(url.pathname) ? 'text/html; charset=windows-1252' : (TYPES[extname(file)] ?? 'application/octet-stream');
    res.writeHead(200, { 'content-type': type });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-setuid-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

interface Opened {
  page: Page;
  logs: unknown[][];
  errors: string[];
  /** Resolves once `test()` holds, checked after each console message (rejects after 60 s: a safety net). */
  until(test: () => boolean, what: string): Promise<void>;
}

async function open(path: string): Promise<Opened> {
  const page = await browser.newPage();
  // Playwright's waits give up after 30 s by default; a loaded machine only ever gets a safety net.
  page.setDefaultTimeout(120_000);
  const logs: unknown[][] = [];
  const errors: string[] = [];
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const w of waiters) w();
  };
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
    void Promise.all(msg.args().map((a) => a.jsonValue().catch(() => String(a)))).then((args) => {
      logs.push(args);
      changed();
    });
  });
  page.on('pageerror', (error) => {
    errors.push(String(error));
    changed();
  });
  const until = (test: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!test()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}: ${JSON.stringify({ logs, errors })}`));
      }, 60_000);
      waiters.add(check);
      check();
    });
  await page.goto(`${origin}${path}`);
  return { page, logs, errors, until };
}

describe('README quick start, from the packed tarball', () => {
  let page: Page;
  let logs: unknown[][];
  let errors: string[];
  let opened: Opened;

  it('builds the page with the README own steps', async () => {
    const readme = readFileSync(join(root, 'node_modules/agent-surface-kit/README.md'), 'utf8');
    const blocks = sectionBlocks(readme, '### Quick start: plain HTML, no build step');
    const html = blocks.filter((b) => b.lang === 'html');
    const sh = blocks.filter((b) => b.lang === 'sh');
    const js = blocks.filter((b) => b.lang === 'js');
    assert.equal(html.length, 1, 'one HTML block');
    assert.equal(sh.length, 1, 'one command block');
    assert.equal(js.length, 1, 'one script block');
    assert.match(html[0].code, /<meta charset="utf-8">/);
    writeFileSync(join(project, 'index.html'), html[0].code);
    assert.ok(js[0].code.includes(CDN_URL), 'the script imports the CDN file by the URL the README gives');
    writeFileSync(join(project, 'app.js'), js[0].code.replace(CDN_URL, LOCAL_URL));
    for (const line of sh[0].code.split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
      const [cmd, ...args] = line.trim().split(/\s+/);
      assert.equal(cmd, 'npx', line);
      // `npx --no`: the installed bin, never a download.
      const r = spawnSync('npx', ['--no', '--', ...args], { cwd: project, encoding: 'utf8', timeout: 300_000 });
      assert.equal(r.status, 0, `${line}\n${r.stderr}`);
    }
    assert.match(readFileSync(join(project, 'index.html'), 'utf8'), /token="sha256-[A-Za-z0-9_-]{43}"/);
    assert.ok(existsSync(join(project, 'agent-manifest.js')));

    opened = await open(`/${basename(project)}/index.html`);
    ({ page, logs, errors } = opened);
    // The page's last line: the tool names, logged right after `await surface.updateComplete`.
    await opened.until(() => logs.some((l) => Array.isArray(l[0])) || errors.length > 0, 'the tool names');
    const names = logs.find((l) => Array.isArray(l[0]))?.[0];
    assert.deepEqual(names, ['domain_devices__disable', 'view_devices__selectRows'], JSON.stringify({ logs, errors }));
    assert.deepEqual(errors, []);
  });

  it('an agent-invoke listener answers a call', async () => {
    assert.ok(page, 'the page was built');
    const result = await page.evaluate(async () => {
      const surface = document.querySelector('agent-surface')!;
      const toolset = surface.toolset({ consumer: { id: 'readme-test', kind: 'embedded' }, topology: 'embedded' });
      const tool = toolset.tools().find((t) => t.name === 'view_devices__selectRows')!;
      const r = await tool.execute({ ids: ['d1'] });
      toolset.dispose();
      return { r, selected: [...document.querySelectorAll('tr[aria-selected]')].map((tr) => (tr as HTMLElement).dataset.id) };
    });
    assert.equal(result.r.ok, true, JSON.stringify(result.r));
    assert.deepEqual((result.r as { output: unknown }).output, { selected: 1 });
    assert.deepEqual(result.selected, ['d1']);
    // The README's audit line.
    await opened.until(() => logs.some((l) => l[0] === 'view:devices.selectRows'), 'the audit line');
    assert.ok(logs.some((l) => l[0] === 'view:devices.selectRows' && l[1] === 'OK'), JSON.stringify(logs));
  });

  it('the handler runs after the person approves with a real click', async () => {
    assert.ok(page, 'the page was built');
    await page.evaluate(() => {
      const surface = document.querySelector('agent-surface')!;
      const toolset = surface.toolset({ consumer: { id: 'readme-test', kind: 'embedded' }, topology: 'embedded' });
      const tool = toolset.tools().find((t) => t.name === 'domain_devices__disable')!;
      (window as unknown as { call: Promise<unknown> }).call = tool.execute({ deviceIds: ['d2'] });
    });
    // Approve takes a trusted click once its activation delay is over.
    const approve = page.locator('agent-confirm [part~="approve"][aria-disabled="false"]');
    await approve.click({ timeout: 60_000 });
    const result = (await page.evaluate(() => (window as unknown as { call: Promise<unknown> }).call)) as {
      ok: boolean;
      output?: unknown;
    };
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(result.output, { disabled: 1 });
    assert.deepEqual(disabled, [{ deviceIds: ['d2'] }]);
    await page.close();
  });

  it("a refusal caused by the page's charset says so", async () => {
    // The quick start with a non-ASCII description, compiled as UTF-8, then served as windows-1252.
    const dir = projectFolder('charset');
    const readme = readFileSync(join(root, 'node_modules/agent-surface-kit/README.md'), 'utf8');
    const blocks = sectionBlocks(readme, '### Quick start: plain HTML, no build step');
    const html = blocks
      .find((b) => b.lang === 'html')!
      .code.replace('<meta charset="utf-8">\n', '')
      .replace('Select rows of the devices table by id.', 'Select rows of the devices table by id … or by name.');
    writeFileSync(join(dir, 'index.html'), html);
    writeFileSync(join(dir, 'app.js'), blocks.find((b) => b.lang === 'js')!.code.replace(CDN_URL, LOCAL_URL));
    const r = spawnSync('npx', ['--no', '--', 'agent-surface', 'compile', 'index.html', '--out', 'agent-manifest.js', '--write'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const path = `/${basename(dir)}/index.html`;
    latin1.add(path);
    const latin = await open(path);
    // The page's last line comes after every registration settled, refusals included.
    await latin.until(() => latin.logs.some((l) => Array.isArray(l[0])), 'the tool names');
    assert.deepEqual(latin.logs.find((l) => Array.isArray(l[0]))?.[0], ['domain_devices__disable']);
    assert.equal(await latin.page.evaluate(() => document.characterSet), 'windows-1252');
    assert.equal(latin.errors.length, 1, latin.errors.join('\n'));
    assert.match(latin.errors[0], /UNAUTHORIZED_CONTRACT.*\(page charset windows-1252, not UTF-8: add <meta charset="utf-8">\)/);
    await latin.page.close();
  });
});
