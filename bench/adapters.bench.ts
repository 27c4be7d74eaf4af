/**
 * Model adapter overhead per streamed delta (issue 15: ≤ 20 µs, parse + part): a recorded
 * 2 000-delta stream (the documented chunk shapes of each protocol) played from memory through
 * the adapter's whole path (SSE parsing, JSON, assembly, the tool loop's parts), minus the cost of
 * reading the same bytes alone. Median of 25 runs after warm-up, in wall-clock time and in this
 * process's CPU time (`process.cpuUsage`, which a loaded machine's preemption does not inflate).
 * Prints a markdown table.
 *
 *   npx tsx bench/adapters.bench.ts
 */
import { createAnthropicAdapter, createCloudAdapter, createOpenAICompatibleAdapter } from '../src/adapters/index.js';
import type { AgentAdapter } from '../src/chat/types.js';
import { chunk } from '../test/adapters/fixtures/openai-streams.js';

const DELTAS = 2000;
const RUNS = 25;
const words = 'the quick brown fox jumps over a lazy dog — ünïcödé 👋 '.split(' ');
const delta = (i: number) => `${words[i % words.length]} `;

const openai =
  [chunk({ role: 'assistant', content: '' }), ...Array.from({ length: DELTAS }, (_, i) => chunk({ content: delta(i) })), chunk({}, 'stop')]
    .map((e) => `data: ${JSON.stringify(e)}\n\n`)
    .join('') + 'data: [DONE]\n\n';
const anthropicEvents = [
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'c', stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ...Array.from({ length: DELTAS }, (_, i) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta(i) } })),
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: DELTAS } },
  { type: 'message_stop' },
];
const anthropic = anthropicEvents.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const cloud =
  [{ type: 'message-start', messageId: 'm' }, ...Array.from({ length: DELTAS }, (_, i) => ({ type: 'text-delta', messageId: 'm', delta: delta(i) })), { type: 'finish', reason: 'stop' }]
    .map((e) => `data: ${JSON.stringify(e)}\n\n`)
    .join('');

/** A Response whose body arrives in 16 KB network-sized chunks. */
function response(text: string): Response {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (at >= bytes.length) return c.close();
        c.enqueue(bytes.subarray(at, (at += 16_384)));
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
}

async function readOnly(text: string): Promise<void> {
  const reader = response(text).body!.getReader();
  const dec = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    dec.decode(value, { stream: true });
  }
}

async function runOnce(adapter: AgentAdapter): Promise<number> {
  let n = 0;
  const req = { messages: [{ id: 'u', role: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] }], tools: [], signal: new AbortController().signal, callTool: async () => ({ content: [] }) };
  for await (const p of adapter.run(req)) if (p.type === 'text-delta') n++;
  if (n !== DELTAS) throw new Error(`expected ${DELTAS} deltas, got ${n}`);
  return n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(name: string, text: string, make: (f: typeof fetch) => AgentAdapter) {
  const fetchIt = (async () => response(text)) as unknown as typeof fetch;
  const adapter = make(fetchIt);
  const full: number[] = [];
  const base: number[] = [];
  const fullCpu: number[] = [];
  const baseCpu: number[] = [];
  const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
  for (let i = 0; i < RUNS + 5; i++) {
    let t = performance.now();
    let c = process.cpuUsage();
    await runOnce(adapter);
    const a = performance.now() - t;
    const ac = cpuMs(process.cpuUsage(c));
    t = performance.now();
    c = process.cpuUsage();
    await readOnly(text);
    const b = performance.now() - t;
    const bc = cpuMs(process.cpuUsage(c));
    if (i >= 5) {
      full.push(a);
      base.push(b);
      fullCpu.push(ac);
      baseCpu.push(bc);
    }
  }
  const perDelta = ((median(full) - median(base)) * 1000) / DELTAS;
  const perDeltaCpu = ((median(fullCpu) - median(baseCpu)) * 1000) / DELTAS;
  const verdict = (us: number) => (us <= 20 ? 'met' : 'not met');
  return [
    name,
    `${(text.length / 1024).toFixed(0)} KB`,
    `${median(full).toFixed(1)} ms`,
    `${median(base).toFixed(1)} ms`,
    `${perDelta.toFixed(2)} µs ${verdict(perDelta)}`,
    `${perDeltaCpu.toFixed(2)} µs ${verdict(perDeltaCpu)}`,
  ];
}

const rows = [
  await measure('createOpenAICompatibleAdapter', openai, (f) => createOpenAICompatibleAdapter({ baseUrl: 'http://bench/v1', model: 'm', fetch: f, check: false })),
  await measure('createAnthropicAdapter', anthropic, (f) => createAnthropicAdapter({ model: 'm', fetch: f, check: false })),
  await measure('createCloudAdapter', cloud, (f) => createCloudAdapter({ endpoint: 'http://bench/api/chat', agent: 'a', fetch: f, check: false })),
];
console.log(`| adapter (${DELTAS}-delta stream) | stream | whole run | bytes read alone | overhead per delta, wall clock (target 20 µs) | overhead per delta, CPU time (target 20 µs) |`);
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
