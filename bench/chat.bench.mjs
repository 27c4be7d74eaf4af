// <agent-chat> in Chromium: streamed Markdown and opening a long conversation. `node bench/chat.bench.mjs`
// Bundles a production page with esbuild (lit and the kit, DEV_MODE off), serves it with
// @web/dev-server and drives /usr/bin/chromium with puppeteer-core. Prints markdown tables.
//
// 1. A 20 KB Markdown reply streamed in 2 000 deltas, one delta per task (as a network stream arrives):
//    main-thread time spent rendering (the element's update, which feeds the Markdown parser), the
//    longest task, and the cost of a delta early in the message against one 10 000 characters in.
// 2. A stored conversation of 500 messages with 200 tool cards: from inserting the element (which
//    loads it from sessionStorage) to its first render done.
// Exits 1 if a figure misses its target: total ≤ 250 ms, no long task over 50 ms, late/early delta
// cost ≤ 2, open ≤ 100 ms (medians over rounds).
import { startDevServer } from '@web/dev-server';
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, '.tmp', 'bench-chat');
const ROUNDS = Number(process.env.CHAT_BENCH_ROUNDS ?? 7);
mkdirSync(out, { recursive: true });

await build({
  stdin: {
    contents: `
      import { AgentChatElement, defineAgentChat } from '../../src/chat/index.ts';
      defineAgentChat();
      const tick = () => new Promise((r) => setTimeout(r, 0));

      // ~20 KB of varied Markdown: headings, lists, emphasis, code, links, tables.
      function reply(size) {
        const blocks = [
          '## Devices report\\n\\n',
          'The **lobby camera** is online; the *roof sensor* has been offline since \`09:14\`. See [the runbook](https://example.com/runbook).\\n\\n',
          '- Lobby camera: online\\n- Roof sensor: **offline**\\n- Gate lock: online\\n\\n',
          '| id | status |\\n|---|---|\\n| d1 | online |\\n| d2 | offline |\\n\\n',
          '\`\`\`js\\nconst offline = rows.filter((r) => r.status === "offline");\\n\`\`\`\\n\\n',
          '> Disabled devices must be re-enabled on site.\\n\\n',
        ];
        let text = '';
        for (let i = 0; text.length < size; i++) text += blocks[i % blocks.length];
        return text.slice(0, size);
      }

      window.bench = {
        async stream(total, deltas) {
          const text = reply(total);
          const size = Math.ceil(text.length / deltas);
          const chat = document.createElement('agent-chat');
          let release;
          const adapter = {
            id: 'bench',
            label: 'bench',
            async *run() {
              yield { type: 'message-start', messageId: 'm' };
              for (let i = 0; i < text.length; i += size) {
                await tick();
                yield { type: 'text-delta', messageId: 'm', delta: text.slice(i, i + size) };
              }
              yield { type: 'finish', reason: 'stop' };
            },
          };
          chat.adapters = adapter;
          document.body.append(chat);
          await chat.updateComplete;
          // Time inside the element's update (render, Markdown parsing, DOM): the rendering work.
          const times = [];
          const update = chat.update;
          const lengths = [];
          chat.update = function (changed) {
            const m = chat.session.messages[1];
            lengths.push(m && m.parts[0] && m.parts[0].type === 'text' ? m.parts[0].text.length : 0);
            const t = performance.now();
            try { return update.call(this, changed); } finally { times.push(performance.now() - t); }
          };
          const longTasks = [];
          const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
          observer.observe({ type: 'longtask' });
          const started = performance.now();
          chat.send('report');
          while (chat.session.status === 'running') await new Promise((r) => chat.addEventListener('agent-chat-change', r, { once: true }));
          await chat.updateComplete;
          const wall = performance.now() - started;
          await tick();
          observer.disconnect();
          const md = chat.shadowRoot.querySelector('[part~="markdown"]');
          const rendered = md ? md.textContent.length : 0;
          chat.remove();
          return { times, lengths, longTasks, wall, rendered, chars: text.length, size };
        },

        async open(messages, cards) {
          const list = [];
          let tools = 0;
          for (let i = 0; i < messages / 2; i++) {
            list.push({ id: 'u' + i, role: 'user', parts: [{ type: 'text', text: 'Which devices are offline in building ' + i + '?' }] });
            const parts = [{ type: 'text', text: 'Checking **building ' + i + '**: see [the list](https://example.com/' + i + ').' }];
            // 200 tool cards spread over the replies.
            if (tools < cards) {
              tools++;
              parts.push({ type: 'tool', id: 't' + i, name: 'view_devices__rows', input: { building: i }, state: 'done',
                output: { content: [{ type: 'text', text: JSON.stringify([{ id: 'd' + i, status: 'offline' }]) }] } });
              parts.push({ type: 'text', text: '- d' + i + ': offline\\n- d' + (i + 1) + ': online' });
            }
            list.push({ id: 'a' + i, role: 'assistant', parts });
          }
          sessionStorage.setItem('agent-chat:bench', JSON.stringify(list));
          const chat = document.createElement('agent-chat');
          chat.id = 'bench';
          chat.setAttribute('persist', 'session');
          const t = performance.now();
          document.body.append(chat);
          await chat.updateComplete;
          const ms = performance.now() - t;
          const shown = chat.shadowRoot.querySelectorAll('[part~="message"]').length;
          const shownCards = chat.shadowRoot.querySelectorAll('[part~="tool"]').length;
          chat.remove();
          sessionStorage.removeItem('agent-chat:bench');
          return { ms, shown, shownCards };
        },
      };
    `,
    resolveDir: out,
    loader: 'ts',
  },
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  conditions: ['production'],
  define: { AGENT_SURFACE_PROD: 'true' },
  outfile: join(out, 'page.js'),
  logLevel: 'error',
});
writeFileSync(
  join(out, 'index.html'),
  '<!doctype html><meta charset="utf-8"><title>chat bench</title><script type="module" src="./page.js"></script>',
);

const server = await startDevServer({
  config: { rootDir: out, port: 0, hostname: '127.0.0.1' },
  readCliArgs: false,
  readFileConfig: false,
  logStartMessage: false,
});
const port = server.server.address().port;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-setuid-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run'],
});

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const ms = (x) => x.toFixed(1);
let failed = false;
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('[page]', e.message));
  await page.goto(`http://127.0.0.1:${port}/index.html`);
  await page.waitForFunction(() => window.bench);

  // ---- 1. streaming
  const streams = [];
  await page.evaluate(() => window.bench.stream(20000, 2000)); // warm-up
  for (let r = 0; r < ROUNDS; r++) streams.push(await page.evaluate(() => window.bench.stream(20000, 2000)));
  const rows = streams.map((s) => {
    // Cost per delta: an update's time over the deltas it rendered (one frame may carry several).
    // Early: updates within the first 1 000 characters; late: those between 9 500 and 10 500.
    const perDelta = (from, to) => {
      let time = 0;
      let deltas = 0;
      for (let i = 1; i < s.times.length; i++) {
        const len = s.lengths[i];
        const grew = (len - s.lengths[i - 1]) / s.size;
        if (len > from && len <= to && grew > 0) {
          time += s.times[i];
          deltas += grew;
        }
      }
      return time / deltas;
    };
    const early = perDelta(0, 1000);
    const late = perDelta(9500, 10500);
    return { total: sum(s.times), longestUpdate: Math.max(...s.times), longest: Math.max(0, ...s.longTasks), longCount: s.longTasks.filter((d) => d > 50).length, early, late, wall: s.wall, updates: s.times.length, ok: s.rendered > 0.9 * s.chars };
  });
  const total = median(rows.map((r) => r.total));
  const longest = Math.max(...rows.map((r) => r.longest));
  const longestUpdate = Math.max(...rows.map((r) => r.longestUpdate));
  const ratio = median(rows.map((r) => r.late / r.early));
  console.log(`20 KB reply in 2 000 deltas (${streams[0].size} characters each), ${ROUNDS} rounds, Chromium headless, production build\n`);
  console.log('| round | rendering time, total | updates (one per frame) | longest update | long tasks > 50 ms on the page | longest | per delta, first 1 000 chars | per delta, ~10 000th char | wall time |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  rows.forEach((r, i) =>
    console.log(`| ${i + 1} | ${ms(r.total)} ms | ${r.updates} | ${ms(r.longestUpdate)} ms | ${r.longCount} | ${r.longest ? ms(r.longest) + ' ms' : 'none'} | ${(r.early * 1000).toFixed(0)} µs | ${(r.late * 1000).toFixed(0)} µs | ${ms(r.wall)} ms |`),
  );
  console.log(`\nmedian total ${ms(total)} ms (target ≤ 250), longest update of the element ${ms(longestUpdate)} ms and longest task on the page ${longest ? ms(longest) + ' ms' : 'none over 50 ms'} (target none over 50), late/early delta cost ${ratio.toFixed(2)}× (target ≤ 2×)\n`);
  // The element's own work fails the run; a long task elsewhere on a shared machine is reported.
  if (!(total <= 250) || longestUpdate > 50 || !(ratio <= 2) || rows.some((r) => !r.ok)) failed = true;

  // ---- 2. opening a long conversation
  const opens = [];
  await page.evaluate(() => window.bench.open(500, 200));
  for (let r = 0; r < ROUNDS; r++) opens.push(await page.evaluate(() => window.bench.open(500, 200)));
  const open = median(opens.map((o) => o.ms));
  console.log('| conversation | rounds | median open (insert → first render) | slowest | messages shown | tool cards |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| 500 messages, 200 tool cards, from sessionStorage | ${ROUNDS} | ${ms(open)} ms | ${ms(Math.max(...opens.map((o) => o.ms)))} ms | ${opens[0].shown} | ${opens[0].shownCards} |`);
  console.log(`\ntarget ≤ 100 ms\n`);
  if (!(open <= 100) || opens.some((o) => o.shown !== 500 || o.shownCards !== 200)) failed = true;
} finally {
  await browser.close();
  await server.stop();
}
process.exit(failed ? 1 : 0);
