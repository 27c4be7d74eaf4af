// Stop while the real WebAssembly engine generates (the generated tiny GGUF): the run ends
// promptly as `aborted`, the engine stops generating, and the same loaded model answers the next
// run, as a person pressing Stop and then sending another message meets it. And a GGUF that
// carries no chat template still runs: llama.cpp renders the turns in ChatML.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter, wasmEngine, type LocalEngine } from '../../src/adapters/local/index.js';
import type { AgentRunRequest, AgentStreamPart } from '../../src/chat/types.js';
import { freshCacheName, modelInfo, WASM_URL } from './helpers-local.js';

/** The real engine, counting the tokens' text each step streams. */
function counting(real: LocalEngine, deltas: number[]): LocalEngine {
  return {
    check: (model) => real.check(model),
    async load(model, options) {
      const session = await real.load(model, options);
      return {
        generate(req) {
          deltas.push(0);
          return session.generate({ ...req, onText: (d) => (deltas[deltas.length - 1]++, req.onText(d)) });
        },
        dispose: () => session.dispose(),
      };
    },
  };
}

// A forced call with a long argument of digits: hundreds of tokens, far more than Stop lets through.
const tools = [
  {
    name: 'save_numbers',
    description: 'Saves numbers.',
    inputSchema: { type: 'object', properties: { numbers: { type: 'array', items: { enum: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] }, minItems: 150, maxItems: 160 } }, required: ['numbers'], additionalProperties: false },
  },
];

describe('createLocalAdapter: Stop during generation (wllama, generated model)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(300000);

  it('Stop ends the run promptly as aborted, the engine stops, and the next run on the same model finishes', async () => {
    const sizes = await modelInfo();
    const deltas: number[] = [];
    const adapter = createLocalAdapter({
      models: [{ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes: sizes['tiny.gguf'] }],
      engine: counting(wasmEngine({ wasmUrl: WASM_URL, cacheName: await freshCacheName() }), deltas),
      toolChoice: 'required',
      maxTokens: 600,
      temperature: 1,
    });
    await adapter.prepare();
    const request = (signal: AbortSignal): AgentRunRequest => ({
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Save many numbers.' }] }],
      tools,
      signal,
      callTool: async () => ({ content: [{ type: 'text', text: 'saved' }] }),
      agent: { id: 'counter', instructions: 'Count.', maxSteps: 1 },
    });

    const stop = new AbortController();
    const parts: AgentStreamPart[] = [];
    let stoppedAt = 0;
    let endedAt = 0;
    const run = (async () => {
      for await (const p of adapter.run(request(stop.signal))) parts.push(p);
      endedAt = performance.now();
    })();
    await waitUntil(() => (deltas[0] ?? 0) >= 10, 'the engine never streamed', { timeout: 60000 });
    stop.abort();
    stoppedAt = performance.now();
    await run;
    const streamed = deltas[0]!;
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'aborted' });
    expect(parts.some((p) => p.type === 'tool-call' || p.type === 'error'), JSON.stringify(parts)).to.equal(false);
    expect(endedAt - stoppedAt, 'the run ended that long after Stop').to.be.below(2000);
    expect(streamed).to.be.below(150);

    // The same loaded model answers the next message.
    const next = [];
    for await (const p of adapter.run(request(new AbortController().signal))) next.push(p);
    expect(next.map((p) => p.type)).to.deep.equal(['message-start', 'tool-call', 'tool-result', 'step-finish', 'finish']);
    expect((next[1] as { input: { numbers: number[] } }).input.numbers.length).to.be.at.least(150);
    expect(deltas).to.have.length(2);
    // The engine stopped too: nothing more of the stopped step streamed while the next one ran.
    expect(deltas[0]).to.equal(streamed);
    await adapter.unload();
  });

  it('a GGUF without a chat template: the prompt format still runs, a forced call goes through', async () => {
    const adapter = createLocalAdapter({
      models: [{ id: 'plain', label: 'Plain', brief: 'No chat template.', url: '/__models/notemplate.gguf' }],
      engine: 'wasm',
      wasm: { wasmUrl: WASM_URL },
      cacheName: await freshCacheName(),
      toolChoice: 'required',
      maxTokens: 64,
    });
    await adapter.prepare();
    const parts: AgentStreamPart[] = [];
    for await (const p of adapter.run({
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Pick one.' }] }],
      tools: [{ name: 'pick', description: 'Picks.', inputSchema: { type: 'object', properties: { n: { enum: [1, 2] } }, required: ['n'], additionalProperties: false } }],
      signal: new AbortController().signal,
      callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
      agent: { id: 'picker', instructions: 'Pick.', maxSteps: 1 },
    }))
      parts.push(p);
    await adapter.unload();
    expect(parts.map((p) => p.type)).to.deep.equal(['message-start', 'tool-call', 'tool-result', 'step-finish', 'finish']);
    expect([1, 2]).to.include((parts[1] as { input: { n: number } }).input.n);
  });
});
