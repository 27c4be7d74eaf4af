// A `fetch` passed in that ignores the request's signal (a test double, a logging wrapper, a
// polyfill): Stop and the stall deadline still end the run, for every HTTP adapter and for the chat
// server's provider requests.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAnthropicAdapter, createCloudAdapter, createOpenAICompatibleAdapter } from '../../src/adapters/index.js';
import type { AgentAdapter, AgentStreamPart } from '../../src/chat/types.js';
import { createChatHandler } from '../../src/server/index.js';

const encoder = new TextEncoder();
const user = { id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] };
/** Without the fix these runs never end: a test fails after this long instead of hanging the suite. */
const guard = { timeout: 10_000 };
const sse = (events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');

/** A fetch that never looks at `init.signal`: its body sends `first`, then nothing, and never ends. */
const deafFetch = (first: string) => (async () =>
  new Response(new ReadableStream({ start: (c) => c.enqueue(encoder.encode(first)) }), { headers: { 'content-type': 'text/event-stream' } })) as unknown as typeof fetch;

const openAIFirst = sse([{ choices: [{ delta: { content: 'Hel' } }] }]);
const anthropicFirst = [
  `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: {} })}\n\n`,
  `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
  `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } })}\n\n`,
].join('');

const adapters = (extra: { fetch: typeof fetch; timeoutMs?: number }, anthropic = false): AgentAdapter =>
  anthropic
    ? createAnthropicAdapter({ model: 'claude-test', check: false, ...extra })
    : createOpenAICompatibleAdapter({ baseUrl: 'http://model.test/v1', model: 'm', check: false, ...extra });

/** Runs the adapter, pressing Stop at the first text delta when `stop` is set. */
async function run(adapter: AgentAdapter, stop = false): Promise<AgentStreamPart[]> {
  const ctl = new AbortController();
  const parts: AgentStreamPart[] = [];
  const req = { messages: [user], tools: [], signal: ctl.signal, callTool: async () => ({ content: [] }) };
  for await (const p of adapter.run(req)) {
    parts.push(p);
    if (stop && p.type === 'text-delta') ctl.abort();
  }
  return parts;
}

describe('a fetch that ignores the signal', () => {
  for (const [name, first, anthropic] of [['OpenAI-compatible', openAIFirst, false], ['Anthropic', anthropicFirst, true]] as const) {
    it(`${name}: Stop mid-stream ends the run as aborted`, guard, async () => {
      const parts = await run(adapters({ fetch: deafFetch(first) }, anthropic), true);
      assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'aborted' });
    });

    it(`${name}: a body that stalls fails as network after timeoutMs`, guard, async () => {
      const parts = await run(adapters({ fetch: deafFetch(first), timeoutMs: 50 }, anthropic));
      const last = parts.at(-1);
      assert.equal(last?.type === 'error' && last.code, 'network');
      assert.match(last?.type === 'error' ? last.error : '', /stalled/);
    });

    it(`${name}: a fetch that never answers fails as network after timeoutMs, and Stop ends it too`, guard, async () => {
      const never = (() => new Promise<Response>(() => {})) as unknown as typeof fetch;
      const parts = await run(adapters({ fetch: never, timeoutMs: 50 }, anthropic));
      assert.equal(parts.at(-1)?.type === 'error' && (parts.at(-1) as { code?: string }).code, 'network');
      const ctl = new AbortController();
      const stopped: AgentStreamPart[] = [];
      const req = { messages: [user], tools: [], signal: ctl.signal, callTool: async () => ({ content: [] }) };
      for await (const p of adapters({ fetch: never }, anthropic).run(req)) {
        stopped.push(p);
        if (p.type === 'message-start') ctl.abort();
      }
      assert.deepEqual(stopped.at(-1), { type: 'finish', reason: 'aborted' });
    });
  }

  it('the cloud pair: Stop ends the run although neither the page fetch nor the provider fetch honours the signal', guard, async () => {
    const handler = createChatHandler({
      provider: { kind: 'openai-compatible', baseUrl: 'http://model.test/v1', model: 'm', fetch: deafFetch(openAIFirst) },
      agents: [{ id: 'shop', instructions: 'Be brief.' }],
      onError: () => {},
    });
    // The page's fetch passes only the URL and body on: the request it hands the handler has no signal.
    const pageFetch = (async (url: string, init?: RequestInit) => handler(new Request(`http://app.test${url}`, { method: init?.method, headers: init?.headers, body: init?.body }))) as unknown as typeof fetch;
    const parts = await run(createCloudAdapter({ endpoint: '/api/chat', fetch: pageFetch, check: false, agent: 'shop' }), true);
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'aborted' });
  });
});
