// The main thread stays responsive while the model loads and generates: a Long Tasks observer
// (tasks over 50 ms) sees none while the adapter downloads, loads and generates on the real
// WebAssembly engine. wllama runs the model in its worker; the page only relays messages.
import { expect } from '@open-wc/testing';
import { createLocalAdapter } from '../../src/adapters/local/index.js';
import type { AgentStreamPart } from '../../src/chat/types.js';
import { freshCacheName, modelInfo, WASM_URL } from './helpers-local.js';

function observeLongTasks(): { entries: PerformanceEntry[]; stop(): void } {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ type: 'longtask', buffered: false });
  return { entries, stop: () => observer.disconnect() };
}

describe('createLocalAdapter: the main thread stays responsive (wllama, generated model)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);

  it('no long task while the model downloads, loads and generates', async () => {
    expect(PerformanceObserver.supportedEntryTypes).to.include('longtask');
    const sizes = await modelInfo();
    const adapter = createLocalAdapter({
      models: [{ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes: sizes['tiny.gguf'] }],
      engine: 'wasm',
      wasm: { wasmUrl: WASM_URL },
      cacheName: await freshCacheName(),
      maxTokens: 400,
      // A forced call with a long string argument: at least 150 tokens generated while observed.
      toolChoice: 'required',
    });
    const observed = observeLongTasks();
    await adapter.prepare(); // download, then the engine's first import, then the load
    const parts: AgentStreamPart[] = [];
    for await (const part of adapter.run({
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Write a long story.' }] }],
      tools: [{ name: 'save_story', description: 'Saves a story.', inputSchema: { type: 'object', properties: { story: { type: 'string', minLength: 150, maxLength: 200 } }, required: ['story'], additionalProperties: false } }],
      signal: new AbortController().signal,
      callTool: async () => ({ content: [{ type: 'text', text: 'saved' }] }),
      agent: { id: 'writer', instructions: 'Write.', maxSteps: 1 },
    })) {
      parts.push(part);
    }
    // Entries are delivered after the task that ran long: give the observer a turn of the event loop.
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
    observed.stop();
    expect(parts.at(-1), JSON.stringify(parts.at(-1))).to.deep.include({ type: 'finish' });
    expect(observed.entries.map((e) => `${e.name} ${Math.round(e.duration)} ms`)).to.deep.equal([]);
    await adapter.unload();
    // It did generate while we watched: the forced argument alone is 150 characters or more.
    const call = parts.find((p) => p.type === 'tool-call') as { input: { story: string } };
    expect(call.input.story.length).to.be.at.least(150);
  });
});
