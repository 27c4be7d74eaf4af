// Per-page manifests, from the packed tarball in Chromium: `agent-surface compile "pages/*.html"
// --out-dir manifests/ --write` gives each page a manifest of its own declarations (plus a --shared
// header), and a page that loads its manifest refuses a declaration compiled only into another page's,
// even with that declaration's real token, while the other page admits the very same markup.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, extname, join, normalize, sep } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumArgs } from '../../scripts/chromium-args.mjs';
import { packedDir, projectFolder } from './packed.js';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

const page = (name: string, capability: string) => `<!doctype html>
<meta charset="utf-8">
<title>${name}</title>
<script type="module" src="../app.js"></script>
<body data-page="${name}">
<agent-surface>
  ${capability}
  <agent-capability name="help.open" effect="navigation" description="Open the help pages."></agent-capability>
</agent-surface>
</body>
`;
const DEVICES = `<agent-capability name="devices.disable" effect="destructive" confirmation="required"
    description="Disable devices so they can no longer sign in."></agent-capability>`;
const BILLING = `<agent-capability name="billing.refund" effect="server-mutation"
    description="Refund an invoice."></agent-capability>`;
// Each page gives its surface the authority of its own manifest.
const APP = `import { createCompilerAuthority } from '/node_modules/agent-surface-kit/dist/cdn/agent-surface.min.js';
const { manifest, validators } = await import(\`./manifests/\${document.body.dataset.page}.js\`);
const surface = document.querySelector('agent-surface');
surface.authority = createCompilerAuthority({ manifest, validators });
await surface.updateComplete;
window.tools = () => surface.toolset({ consumer: { id: 'test', kind: 'embedded' }, topology: 'embedded' }).tools().map((t) => t.name);
window.ready = true;
`;

let root: string;
let project: string;
let server: Server;
let origin: string;
let browser: Browser;

before(async () => {
  root = packedDir();
  project = projectFolder('per-page');
  mkdirSync(join(project, 'pages'));
  writeFileSync(join(project, 'pages/devices.html'), page('devices', DEVICES));
  writeFileSync(join(project, 'pages/billing.html'), page('billing', BILLING));
  // The pages' script sits beside the manifests folder, so `./manifests/…` is relative to it.
  writeFileSync(join(project, 'app.js'), APP);
  server = createServer((req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (!path.startsWith(root + sep) || !existsSync(path) || !statSync(path).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** The page at `path`, once its surface is ready; console errors collected. */
async function open(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  // Playwright's waits give up after 30 s by default; a loaded machine only ever gets a safety net.
  page.setDefaultTimeout(120_000);
  const errors: string[] = [];
  page.on('console', (msg) => void (msg.type() === 'error' && errors.push(msg.text())));
  page.on('pageerror', (error) => void errors.push(String(error)));
  await page.goto(`${origin}${path}`);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, { timeout: 60_000 });
  return { page, errors };
}

/** Adds `markup` (one `<agent-capability>`) to the page's surface; resolves with what happened to it. */
function inject(page: Page, markup: string) {
  return page.evaluate(async (html) => {
    const surface = document.querySelector('agent-surface')!;
    const holder = document.createElement('div');
    holder.innerHTML = html;
    const element = holder.firstElementChild!;
    const refused = new Promise<{ code: string; reason: unknown; message: string }>((resolve) =>
      element.addEventListener('agent-capability-refused', (e) => {
        const { error } = (e as CustomEvent & { detail: { error: { code: string; message: string; details?: { reason?: unknown } } } }).detail;
        resolve({ code: error.code, reason: error.details?.reason, message: error.message });
      }),
    );
    surface.append(element);
    await (surface as unknown as { updateComplete: Promise<unknown> }).updateComplete;
    const outcome = await Promise.race([refused, Promise.resolve(null)]);
    return {
      refused: outcome,
      registered: Boolean((element as unknown as { registrationId?: string }).registrationId),
      tools: (window as unknown as { tools(): string[] }).tools(),
    };
  }, markup);
}

/** The `<agent-capability …>…</agent-capability>` for `name` in a page, as --write left it. */
function declaration(file: string, name: string): string {
  const text = readFileSync(join(project, file), 'utf8');
  const m = new RegExp(`<agent-capability name="${name.replace('.', '\\.')}"[\\s\\S]*?</agent-capability>`).exec(text);
  assert.ok(m, `${file} declares ${name}`);
  assert.match(m[0], /token="sha256-[A-Za-z0-9_-]{43}"/, 'the declaration carries its token');
  return m[0];
}

describe('per-page manifests (compile --out-dir), in Chromium', () => {
  it('compiles one manifest per page with the packed CLI', () => {
    writeFileSync(join(project, 'header.html'), '<agent-capability name="help.open" effect="navigation" description="Open the help pages."></agent-capability>\n');
    const r = spawnSync(
      'npx',
      ['--no', '--', 'agent-surface', 'compile', 'pages/*.html', '--out-dir', 'manifests/', '--shared', 'header.html', '--write'],
      { cwd: project, encoding: 'utf8', timeout: 300_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /into manifests\/billing\.js/);
    assert.match(r.stdout, /into manifests\/devices\.js/);
    const ids = (file: string) =>
      Object.keys((JSON.parse(/export const manifest = (\{[\s\S]*\});/.exec(readFileSync(join(project, file), 'utf8'))![1]) as { contracts: object }).contracts);
    assert.deepEqual(ids('manifests/devices.js'), ['domain:devices.disable', 'domain:help.open']);
    assert.deepEqual(ids('manifests/billing.js'), ['domain:billing.refund', 'domain:help.open']);
    assert.ok(existsSync(join(project, 'manifests/devices.d.ts')));
    // The page's own copy of the shared declaration got its token too.
    assert.match(readFileSync(join(project, 'pages/devices.html'), 'utf8'), /name="help\.open"[^>]*token="sha256-/);
  });

  it("a page refuses a declaration compiled only into another page's manifest, and that page admits it", async () => {
    const billing = declaration('pages/billing.html', 'billing.refund');
    const devices = declaration('pages/devices.html', 'devices.disable');
    const dir = basename(project);

    const a = await open(`/${dir}/pages/devices.html`);
    assert.deepEqual(await a.page.evaluate(() => (window as unknown as { tools(): string[] }).tools()), ['domain_devices__disable', 'domain_help__open']);
    const onDevices = await inject(a.page, billing);
    assert.equal(onDevices.registered, false);
    assert.ok(onDevices.refused, 'agent-capability-refused fired');
    assert.equal(onDevices.refused.code, 'UNAUTHORIZED_CONTRACT');
    assert.equal(onDevices.refused.reason, 'unknown-token');
    assert.match(onDevices.refused.message, /domain:billing\.refund/);
    assert.deepEqual(onDevices.tools, ['domain_devices__disable', 'domain_help__open']);
    assert.ok(a.errors.some((e) => e.includes('domain:billing.refund')), 'the refusal is logged');
    await a.page.close();

    const b = await open(`/${dir}/pages/billing.html`);
    assert.deepEqual(b.errors, []);
    assert.deepEqual(await b.page.evaluate(() => (window as unknown as { tools(): string[] }).tools()), ['domain_billing__refund', 'domain_help__open']);
    // The same markup is a valid declaration: removed and added again on its own page, it registers.
    await b.page.evaluate(() => document.querySelector('agent-capability[name="billing.refund"]')!.remove());
    const onBilling = await inject(b.page, billing);
    assert.equal(onBilling.refused, null);
    assert.equal(onBilling.registered, true);
    assert.deepEqual(onBilling.tools, ['domain_billing__refund', 'domain_help__open']);
    // And the other way round.
    const devicesOnBilling = await inject(b.page, devices);
    assert.equal(devicesOnBilling.registered, false);
    assert.equal(devicesOnBilling.refused?.code, 'UNAUTHORIZED_CONTRACT');
    await b.page.close();
  });
});
