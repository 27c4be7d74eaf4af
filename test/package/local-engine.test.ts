// The local adapter's engine as an npm user gets it: `npm install agent-surface-kit` and nothing else
// brings @wllama/wllama (a dependency), a bundler (esbuild, from the same install) resolves the
// adapter's lazy import of it into a chunk of its own, and that bundle, with the wasm file copied from
// the installed package into the app's static files as the README says, prepares the generated tiny
// model and finishes a run in Chromium. The README's CDN address of the wasm names the installed version.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { chromiumArgs } from '../../scripts/chromium-args.mjs';
import { tinyGguf } from '../../scripts/tiny-gguf.mjs';
import { packedDir, projectFolder } from './packed.js';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
const WASM = 'node_modules/@wllama/wllama/esm/wasm/wllama.wasm';

let root: string;
let project: string;
let server: Server;
let origin: string;
let browser: Browser | undefined;
let modelBytes: number;

before(async () => {
  root = packedDir();
  project = projectFolder('local-engine');
  const model = tinyGguf() as Uint8Array;
  modelBytes = model.length;
  writeFileSync(join(project, 'tiny.gguf'), model);
  writeFileSync(
    join(project, 'app.js'),
    `import { createLocalAdapter } from 'agent-surface-kit/adapters';
const adapter = createLocalAdapter({
  models: [{ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/tiny.gguf', bytes: ${modelBytes} }],
  engine: 'wasm',
  wasm: { wasmUrl: '/assets/wllama.wasm' },
  toolChoice: 'required',
  maxTokens: 64,
});
window.run = async () => {
  await adapter.prepare();
  const parts = [];
  for await (const part of adapter.run({
    messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Pick one.' }] }],
    tools: [{ name: 'pick', description: 'Picks a number.', inputSchema: { type: 'object', properties: { n: { enum: [1, 2, 3] } }, required: ['n'], additionalProperties: false } }],
    signal: new AbortController().signal,
    callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    agent: { id: 'picker', instructions: 'Pick.', maxSteps: 1 },
  })) parts.push(part);
  await adapter.unload();
  return parts;
};
`,
  );
  writeFileSync(join(project, 'index.html'), '<!doctype html>\n<meta charset="utf-8">\n<title>local engine</title>\n<script type="module" src="./out/app.js"></script>\n');
  server = createServer((req, res) => {
    const path = normalize(join(project, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (!path.startsWith(project + sep) || !existsSync(path) || !statSync(path).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('the local adapter engine from the packed tarball', () => {
  it('installs @wllama/wllama with the kit, within the range the kit asks for, wasm file included', () => {
    const kit = JSON.parse(readFileSync(join(root, 'node_modules/agent-surface-kit/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const range = kit.dependencies['@wllama/wllama'];
    assert.ok(range, 'the kit depends on @wllama/wllama');
    const engine = JSON.parse(readFileSync(join(root, 'node_modules/@wllama/wllama/package.json'), 'utf8')) as { version: string };
    assert.match(range, /^\^\d+\.\d+\.\d+$/);
    const [major, minor] = range.slice(1).split('.').map(Number);
    const [hasMajor, hasMinor] = engine.version.split('.').map(Number);
    assert.ok(hasMajor === major && hasMinor! >= minor!, `${engine.version} satisfies ${range}`);
    assert.ok(statSync(join(root, WASM)).size > 1_000_000, 'the wasm file is in the installed package');
  });

  it('a bundler resolves the lazy engine import: its own chunk, not in the entry', () => {
    const r = spawnSync('npx', ['--no', '--', 'esbuild', 'app.js', '--bundle', '--splitting', '--format=esm', '--outdir=out', '--metafile=meta.json', '--log-level=warning'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 300_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /Could not resolve|wllama/);
    const meta = JSON.parse(readFileSync(join(project, 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown>; entryPoint?: string }> };
    const engineIn = (out: { inputs: Record<string, unknown> }) => Object.keys(out.inputs).some((i) => i.includes('node_modules/@wllama/wllama/esm/index.js'));
    const entry = Object.values(meta.outputs).find((o) => o.entryPoint === 'app.js')!;
    assert.ok(entry, 'the entry was built');
    assert.equal(engineIn(entry), false, 'the engine is not in the entry chunk');
    assert.equal(Object.values(meta.outputs).filter(engineIn).length, 1, 'the engine is in one lazy chunk');
  });

  it('that bundle, with the installed wasm served as a static file, prepares the model and finishes a run in Chromium', async () => {
    assert.ok(existsSync(join(project, 'out/app.js')), 'the bundle was built');
    mkdirSync(join(project, 'assets'), { recursive: true });
    copyFileSync(join(root, WASM), join(project, 'assets/wllama.wasm'));
    browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
    const page = await browser.newPage();
    page.setDefaultTimeout(150_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => void errors.push(String(error)));
    await page.goto(`${origin}/index.html`);
    await page.waitForFunction(() => typeof (window as unknown as { run?: unknown }).run === 'function');
    const parts = (await page.evaluate(() => (window as unknown as { run(): Promise<Array<{ type: string; input?: { n: number } }>> }).run())) as Array<{ type: string; input?: { n: number } }>;
    assert.deepEqual(errors, []);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['message-start', 'tool-call', 'tool-result', 'step-finish', 'finish'],
    );
    assert.ok([1, 2, 3].includes(parts[1]!.input!.n));
  });

  it("the README's CDN address of the wasm is the installed engine's own", () => {
    const readme = readFileSync(join(root, 'node_modules/agent-surface-kit/README.md'), 'utf8');
    const urls = [...readme.matchAll(/https:\/\/cdn\.jsdelivr\.net\/npm\/@wllama\/wllama@[\d.]+\/esm\/wasm\/wllama\.wasm/g)].map((m) => m[0]);
    assert.ok(urls.length > 0, 'the README gives the CDN address');
    const own = readFileSync(join(root, 'node_modules/@wllama/wllama/esm/wasm-from-cdn.js'), 'utf8');
    for (const url of urls) assert.ok(own.includes(`"${url}"`), `${url} is what @wllama/wllama itself names for its version`);
  });
});
