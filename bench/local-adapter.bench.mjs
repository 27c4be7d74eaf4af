// createLocalAdapter on the real WebAssembly engine (@wllama/wllama) in Chromium, with the generated
// tiny GGUF (scripts/tiny-gguf.mjs): time to first token and tokens per second.
// `node bench/local-adapter.bench.mjs` — bundles a page with esbuild, serves it on localhost,
// drives /usr/bin/chromium (headless, no GPU: the CPU path) with puppeteer-core. Prints markdown.
import { build } from 'esbuild';
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { tinyGguf } from '../scripts/tiny-gguf.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.LOCAL_BENCH_RUNS ?? 5);
const out = join(root, '.tmp/bench-local');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The adapter's sizes (its own code, engines excluded) are in `npm run size` (scripts/size.mjs).

// --- speed: a page that prepares the model and times each step at the engine.
const entry = `
import { createLocalAdapter, wasmEngine } from './src/adapters/local/index.ts';
const timings = [];
const real = wasmEngine({ wasmUrl: '/wllama.wasm', cacheName: 'bench-' + Math.random() });
const engine = {
  check: (m) => real.check(m),
  async load(m, o) {
    const s = await real.load(m, o);
    return {
      dispose: () => s.dispose(),
      async generate(req) {
        const t0 = performance.now();
        let first, last, n = 0;
        const onText = req.onText;
        const text = await s.generate({ ...req, onText(d) { last = performance.now(); first ??= last; n++; onText(d); } });
        timings.push({ ttft: first - t0, tokens: n, chars: text.length, streamMs: last - first });
        return text;
      },
    };
  },
};
const adapter = createLocalAdapter({
  models: [{ id: 'tiny', label: 'Tiny', brief: '', url: '/model.gguf' }],
  engine, toolChoice: 'required', maxTokens: 400,
});
const tools = [{ name: 'save_numbers', description: 'Saves numbers.', inputSchema: { type: 'object', properties: { numbers: { type: 'array', items: { enum: [0,1,2,3,4,5,6,7,8,9] }, minItems: 120, maxItems: 120 } }, required: ['numbers'], additionalProperties: false } }];
window.bench = async (runs) => {
  const t = performance.now();
  await adapter.prepare();
  const prepareMs = performance.now() - t;
  for (let i = 0; i < runs; i++) {
    for await (const _ of adapter.run({ messages: [{ id: 'u' + i, role: 'user', parts: [{ type: 'text', text: 'Numbers, please.' }] }], tools, signal: new AbortController().signal, callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }), agent: { id: 'b', instructions: 'Count.', maxSteps: 1 } }));
  }
  return { prepareMs, timings, threads: crossOriginIsolated };
};
`;
const page = join(out, 'page');
await build({ stdin: { contents: entry, resolveDir: root, loader: 'js' }, bundle: true, splitting: true, format: 'esm', outdir: page, logLevel: 'error' });
const model = Buffer.from(tinyGguf());
const wasm = readFileSync(join(root, 'node_modules/@wllama/wllama/esm/wasm/wllama.wasm'));
const files = Object.fromEntries(readdirSync(page).map((f) => [`/${f}`, readFileSync(join(page, f))]));
const html = '<!doctype html><meta charset="utf-8"><script type="module" src="/stdin.js"></script>';

const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  const body = path === '/' ? html : path === '/model.gguf' ? model : path === '/wllama.wasm' ? wasm : files[path];
  if (!body) return res.writeHead(404).end();
  const type = { '.js': 'text/javascript', '.wasm': 'application/wasm' }[extname(path)] ?? (path === '/' ? 'text/html' : 'application/octet-stream');
  res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://localhost:${server.address().port}/`;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const tab = await browser.newPage();
  await tab.goto(url);
  await tab.waitForFunction(() => typeof window.bench === 'function');
  const result = await tab.evaluate((runs) => window.bench(runs), RUNS);
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const ttft = result.timings.map((t) => t.ttft);
  const rate = result.timings.map((t) => ((t.tokens - 1) / t.streamMs) * 1000);
  console.log(`| tiny GGUF (${(model.length / 1e6).toFixed(2)} MB, 4 layers, 64 dim) in Chromium, wllama, 1 thread, ${RUNS} runs | median | min | max |`);
  console.log('|---|---|---|---|');
  console.log(`| prepare (download from localhost + load), once | ${result.prepareMs.toFixed(0)} ms | | |`);
  console.log(`| time to first token (system prompt with one tool, grammar-forced call) | ${median(ttft).toFixed(0)} ms | ${Math.min(...ttft).toFixed(0)} ms | ${Math.max(...ttft).toFixed(0)} ms |`);
  console.log(`| tokens per second while streaming | ${median(rate).toFixed(0)} | ${Math.min(...rate).toFixed(0)} | ${Math.max(...rate).toFixed(0)} |`);
  console.log(`| tokens per run | ${median(result.timings.map((t) => t.tokens))} | | |`);
} finally {
  await browser.close();
  server.close();
}
