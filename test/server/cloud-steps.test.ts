// The cloud pair's step limit is the server's: the agents' config (and `limits.maxSteps`) lives on
// the server, and the seed has the cloud adapter send only the page agent's id. The page's own
// default of 8 cut short a run the server's agent allowed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCloudAdapter } from '../../src/adapters/index.js';
import type { AgentStreamPart, WebAgent } from '../../src/chat/types.js';
import { createChatHandler } from '../../src/server/index.js';

const sse = (events: unknown[]) => events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');
const callStep = (n: number) => sse([{ choices: [{ delta: { tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: 'count', arguments: '{}' } }] } }] }, { choices: [{ delta: {}, finish_reason: 'tool_calls' }] }, '[DONE]']);
const textStep = sse([{ choices: [{ delta: { content: 'done' } }] }, { choices: [{ delta: {}, finish_reason: 'stop' }] }, '[DONE]']);

/** A provider whose model calls `count` `calls` times, then answers in text; the page runs every call. */
async function run(calls: number, serverSteps: { agent?: number; limit?: number }, page: { agent?: Partial<WebAgent>; maxSteps?: number } = {}) {
  let requests = 0;
  const provider = (async () => new Response(++requests <= calls ? callStep(requests) : textStep, { headers: { 'content-type': 'text/event-stream' } })) as unknown as typeof fetch;
  const handler = createChatHandler({
    provider: { kind: 'openai-compatible', baseUrl: 'http://model.test/v1', model: 'm', fetch: provider },
    agents: [{ id: 'ops', instructions: 'Count.', maxSteps: serverSteps.agent }],
    limits: { maxSteps: serverSteps.limit, requestsPerMinute: 1000 },
    onError: () => {},
  });
  const fetch = (async (url: string, init?: RequestInit) => handler(new Request(url, init))) as unknown as typeof globalThis.fetch;
  const cloud = createCloudAdapter({ endpoint: 'http://app.test/api/chat', fetch, check: false, maxSteps: page.maxSteps });
  const parts: AgentStreamPart[] = [];
  const req = {
    messages: [{ id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'count' }] }],
    tools: [{ name: 'count', description: 'Counts.', inputSchema: { type: 'object' as const } }],
    signal: new AbortController().signal,
    callTool: async () => ({ content: [{ type: 'text' as const, text: 'ok' }] }),
    agent: { id: 'ops', instructions: '', ...page.agent } as WebAgent,
  };
  for await (const p of cloud.run(req)) parts.push(p);
  return { requests, last: parts.at(-1) };
}

describe('createCloudAdapter + createChatHandler: the step limit is the server’s', () => {
  it("a run of more than 8 steps that the server's agent allows finishes with stop", async () => {
    const r = await run(9, { agent: 12, limit: 12 });
    assert.deepEqual(r.last, { type: 'finish', reason: 'stop' });
    assert.equal(r.requests, 10);
  });

  it("the server's limit still ends a run with max-steps", async () => {
    const r = await run(20, { agent: 12, limit: 3 });
    assert.deepEqual(r.last, { type: 'finish', reason: 'max-steps' });
    assert.equal(r.requests, 3);
  });

  it("the page agent's maxSteps is not read (only its id is sent); the adapter's own maxSteps option cuts a run shorter", async () => {
    assert.deepEqual((await run(9, { agent: 12, limit: 12 }, { agent: { maxSteps: 2 } })).last, { type: 'finish', reason: 'stop' });
    const r = await run(9, { agent: 12, limit: 12 }, { maxSteps: 2 });
    assert.deepEqual(r.last, { type: 'finish', reason: 'max-steps' });
    assert.equal(r.requests, 2);
  });
});
