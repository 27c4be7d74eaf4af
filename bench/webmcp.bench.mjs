// WebMCP adapter on Chromium's native host: 1 000 capabilities projected, then availability flips.
// `node bench/webmcp.bench.mjs` — bundles a page with esbuild, serves it on localhost (a secure
// context), drives /usr/bin/chromium --enable-features=WebMCP with puppeteer-core and watches the
// host from outside over the DevTools WebMCP domain. Prints a markdown table.
import { chromiumArgs } from '../scripts/chromium-args.mjs';
import { build } from 'esbuild';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CAPABILITIES = Number(process.env.WEBMCP_BENCH_CAPABILITIES ?? 1000);
const FLIPS = Number(process.env.WEBMCP_BENCH_FLIPS ?? 100);

// The page: a registry with N capabilities and the adapter on document.modelContext, instrumented.
const entry = `
import { createTestSurface } from './src/testing/index.ts';
import { createWebMcpAdapter } from './src/webmcp/index.ts';

console.warn = () => {}; // devAuthority() warns once per capability
const mc = document.modelContext;
// Count host calls: registerTool calls, and aborts of the signals handed to it.
// Time spent inside the host (registerTool's synchronous part, and abort() whose listeners are the
// host's unregistration) is the browser's work, not the adapter's: measured apart.
const hostCalls = [];
let hostMs = 0;
const register = mc.registerTool.bind(mc);
const signals = new WeakSet();
mc.registerTool = (tool, options) => {
  hostCalls.push('register ' + tool.name);
  if (options?.signal) {
    signals.add(options.signal);
    options.signal.addEventListener('abort', () => hostCalls.push('abort ' + tool.name), { once: true });
  }
  const t = performance.now();
  try { return register(tool, options); } finally { hostMs += performance.now() - t; }
};
const abort = AbortController.prototype.abort;
AbortController.prototype.abort = function (reason) {
  if (!signals.has(this.signal)) return abort.call(this, reason);
  const t = performance.now();
  try { return abort.call(this, reason); } finally { hostMs += performance.now() - t; }
};

const surface = createTestSurface();
const registry = surface.registry;
// Time the adapter's own work: its surface-changed listener, and the snapshot it takes inside.
let snapshotMs = 0;
const snapshot = registry.snapshot.bind(registry);
registry.snapshot = (ctx) => { const t = performance.now(); try { return snapshot(ctx); } finally { snapshotMs += performance.now() - t; } };
const listenerMs = [];
const on = registry.on.bind(registry);
registry.on = (type, listener) => on(type, type !== 'surface-changed' ? listener : (event) => {
  snapshotMs = 0;
  hostMs = 0;
  const t = performance.now();
  listener(event);
  listenerMs.push({ total: performance.now() - t, snapshot: snapshotMs, host: hostMs });
});

const handles = [];
const schema = { type: 'object', properties: { id: { type: 'string' }, level: { type: 'integer', minimum: 0 } }, required: ['id'], additionalProperties: false };
for (let i = 0; i < ${CAPABILITIES}; i++) {
  handles.push(surface.action('domain:bench.group' + (i % 20) + '.action' + i, (input) => ({ ok: input.id }), {
    effect: i % 3 === 0 ? 'server-mutation' : 'local-state', description: 'Benchmark action number ' + i + '.', inputSchema: schema,
  }));
}
const adapter = createWebMcpAdapter();
window.bench = {
  hostCalls, listenerMs, isolated: crossOriginIsolated,
  /** The host's own floor: the same number of raw registerTool calls, awaited one by one, then withdrawn. */
  async baseline() {
    const controllers = [];
    const t = performance.now();
    for (let i = 0; i < ${CAPABILITIES}; i++) {
      const c = new AbortController();
      controllers.push(c);
      await register({ name: 'raw_' + i, description: 'Benchmark action number ' + i + '.', inputSchema: schema, execute: async () => null }, { signal: c.signal });
    }
    const ms = performance.now() - t;
    for (const c of controllers) c.abort();
    return ms;
  },
  async start() {
    const t = performance.now();
    await adapter.start({ registry });
    return { startMs: performance.now() - t, registered: adapter.toolNames().length, hostCalls: hostCalls.length };
  },
  async flip(i, available) {
    const before = hostCalls.length;
    const listenersBefore = listenerMs.length;
    handles[i].update({ available });
    // The registry coalesces changes into one surface-changed per microtask.
    await new Promise((r) => setTimeout(r, 0));
    await adapter.settled();
    return { calls: hostCalls.slice(before), work: listenerMs.slice(listenersBefore), hostMsAfter: hostMs };
  },
  async stop() { const t = performance.now(); await adapter.stop(); return { stopMs: performance.now() - t, left: (await mc.getTools()).length }; },
};
`;

const bundle = await build({
  stdin: { contents: entry, resolveDir: root, loader: 'js', sourcefile: 'bench-entry.js' },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  write: false,
  define: { AGENT_SURFACE_PROD: 'true' },
  logLevel: 'silent',
});
const script = bundle.outputFiles[0].text;

// Cross-origin isolation gives performance.now() 5 µs resolution instead of 100 µs.
const isolation = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const server = createServer((req, res) => {
  if (req.url === '/bench.js') {
    res.writeHead(200, { 'content-type': 'text/javascript', ...isolation });
    res.end(script);
  } else {
    res.writeHead(200, { 'content-type': 'text/html', ...isolation });
    res.end('<!doctype html><meta charset="utf-8"><title>webmcp bench</title><script type="module" src="/bench.js"></script>');
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://localhost:${server.address().port}/`;

const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [...chromiumArgs, '--enable-features=WebMCP'],
});

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const p95 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] : NaN;
};
const ms = (x) => `${x.toFixed(x < 10 ? 3 : 1)} ms`;

try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.bench !== undefined);
  const cdp = await page.createCDPSession();
  const events = [];
  let added = 0;
  let allAddedAt = 0;
  cdp.on('WebMCP.toolsAdded', ({ tools }) => {
    added += tools.length;
    events.push(...tools.map((t) => `+${t.name}`));
    if (added >= CAPABILITIES && !allAddedAt) allAddedAt = performance.now();
  });
  cdp.on('WebMCP.toolsRemoved', ({ tools }) => events.push(...tools.map((t) => `-${t.name}`)));
  await cdp.send('WebMCP.enable');

  const baselineMs = await page.evaluate(() => window.bench.baseline());
  await new Promise((r) => setTimeout(r, 200));
  events.length = 0;
  added = 0;
  allAddedAt = 0;

  const t0 = performance.now();
  const started = await page.evaluate(() => window.bench.start());
  while (added < CAPABILITIES && performance.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 5));
  const hostSeenMs = allAddedAt ? allAddedAt - t0 : NaN;

  // Availability flips, spread over the catalog: each should be one host call, one DevTools event.
  const perFlip = [];
  for (let k = 0; k < FLIPS; k++) {
    const i = (k * 37) % CAPABILITIES;
    for (const available of [false, true]) {
      const mark = events.length;
      const r = await page.evaluate((i, available) => window.bench.flip(i, available), i, available);
      await new Promise((res) => setTimeout(res, 2));
      const sum = (key) => r.work.reduce((a, w) => a + w[key], 0);
      perFlip.push({ calls: r.calls.length, work: sum('total'), snapshot: sum('snapshot'), host: sum('host'), events: events.length - mark });
    }
  }
  await new Promise((r) => setTimeout(r, 50));
  const stopped = await page.evaluate(() => window.bench.stop());

  const work = perFlip.map((f) => f.work);
  const adapterOnly = perFlip.map((f) => f.work - f.snapshot - f.host);
  const isolated = await page.evaluate(() => window.bench.isolated);
  const callCounts = new Set(perFlip.map((f) => f.calls));
  console.log(`WebMCP adapter, ${CAPABILITIES} capabilities, Chromium ${(await browser.version()).replace(/^\D+/, '')} native host (--enable-features=WebMCP)\n`);
  console.log('| measure | value |');
  console.log('|---|---|');
  console.log(`| start() until all ${started.registered} tools registered (in page) | ${ms(started.startMs)} |`);
  console.log(`| host floor: ${CAPABILITIES} raw registerTool calls awaited one by one (no adapter) | ${ms(baselineMs)} |`);
  console.log(`| until the DevTools agent saw all ${CAPABILITIES} (from Node) | ${ms(hostSeenMs)} |`);
  console.log(`| host calls for the initial set | ${started.hostCalls} |`);
  console.log(`| availability flips measured | ${perFlip.length} |`);
  console.log(`| host calls per flip | ${[...callCounts].join(', ')} |`);
  console.log(`| DevTools events per flip (max) | ${Math.max(...perFlip.map((f) => f.events))} |`);
  console.log(`| surface-changed listener per flip, median / p95 (all synchronous work) | ${ms(median(work))} / ${ms(p95(work))} |`);
  console.log(`| of which registry.snapshot, median | ${ms(median(perFlip.map((f) => f.snapshot)))} |`);
  console.log(`| of which inside the host (registerTool / abort), median | ${ms(median(perFlip.map((f) => f.host)))} |`);
  console.log(`| adapter's own work per flip, median / p95 | ${ms(median(adapterOnly))} / ${ms(p95(adapterOnly))} |`);
  console.log(`| timer resolution | ${isolated ? '5 µs (cross-origin isolated)' : '100 µs'} |`);
  console.log(`| stop() withdrawing all | ${ms(stopped.stopMs)} (${stopped.left} left on the host) |`);
} finally {
  await browser.close();
  server.close();
}
