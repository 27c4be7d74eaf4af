// A run request built by hand, by a consumer other than <agent-chat>: what it leaves out or gets
// wrong ends the run with an error part that names it, never an engine's TypeError thrown or quoted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAnthropicAdapter, createCloudAdapter, createLocalAdapter, createOpenAICompatibleAdapter } from '../../src/adapters/index.js';
import type { AgentRunRequest, AgentStreamPart } from '../../src/chat/types.js';

const unreachable = async (): Promise<Response> => {
  throw new Error('no request may be sent for a malformed run request');
};
const adapters = [
  createOpenAICompatibleAdapter({ baseUrl: 'http://model.test/v1', model: 'm', check: false, fetch: unreachable }),
  createAnthropicAdapter({ model: 'm', check: false, fetch: unreachable }),
  createCloudAdapter({ endpoint: 'http://app.test/api/chat', agent: 'a', check: false, fetch: unreachable }),
];
const whole = {
  messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  tools: [{ name: 't', description: '', inputSchema: { type: 'object' } }],
  signal: new AbortController().signal,
  callTool: async () => ({ content: [] }),
};

describe('the local adapter: a malformed run request', () => {
  const local = createLocalAdapter({
    models: [{ id: 'a', label: 'A', brief: 'b' }],
    engine: { check: async () => ({ state: 'cached' }), load: async () => ({ generate: async () => 'hello', dispose() {} }) },
  });

  it('no request, no messages, no signal or no callTool: one bad_request error part naming them', async () => {
    for (const req of [undefined, { ...whole, messages: undefined }, { ...whole, signal: undefined }, { ...whole, callTool: undefined }]) {
      const parts: AgentStreamPart[] = [];
      for await (const p of local.run(req as unknown as AgentRunRequest)) parts.push(p);
      assert.equal(parts.length, 1, JSON.stringify(parts));
      const [part] = parts as [Extract<AgentStreamPart, { type: 'error' }>];
      assert.equal(part.code, 'bad_request');
      assert.match(part.error, /^run\(req\): req\.messages, req\.signal and req\.callTool must be given/);
    }
  });

  it('tools that are not a list of tools end the run with a bad_request error part naming req.tools, not an engine TypeError', async () => {
    for (const tools of [undefined, [null], 'all']) {
      const parts: AgentStreamPart[] = [];
      for await (const p of local.run({ ...whole, tools } as unknown as AgentRunRequest)) parts.push(p);
      const last = parts.at(-1) as Extract<AgentStreamPart, { type: 'error' }>;
      assert.equal(last.type, 'error', JSON.stringify(parts));
      assert.equal(last.code, 'bad_request');
      assert.match(last.error, /^run\(req\): req\.tools .* is missing or malformed\.$/);
    }
  });
});

describe('HTTP adapters: a malformed run request', () => {
  const cases: [string, unknown, RegExp][] = [
    ['no request at all', undefined, /req\.messages/],
    ['no messages', { ...whole, messages: undefined }, /req\.messages/],
    ['a null message', { ...whole, messages: [null] }, /req\.messages/],
    ['no tools', { ...whole, tools: undefined }, /req\.tools/],
    ['a null tool', { ...whole, tools: [null] }, /req\.tools/],
    ['tools that are not an array', { ...whole, tools: 'all' }, /req\.tools/],
    ['no signal', { ...whole, signal: undefined }, /req\.signal/],
    ['no callTool', { ...whole, callTool: undefined }, /req\.callTool/],
    // Stopped already: still the mistake, not an abort.
    ['a null message and a signal already aborted', { ...whole, messages: [null], signal: AbortSignal.abort() }, /req\.messages/],
  ];
  for (const [name, req, words] of cases) {
    it(`${name}: one bad_request error part naming what is wrong, nothing sent`, async () => {
      for (const adapter of adapters) {
        let parts: AgentStreamPart[] = [];
        for await (const p of adapter.run(req as AgentRunRequest)) parts.push(p);
        // Tools are read as a step starts (a getter, read once per step): its message-start comes first.
        if (parts[0]?.type === 'message-start' && /tool/.test(name)) parts = parts.slice(1);
        assert.equal(parts.length, 1, `${adapter.id}: ${JSON.stringify(parts)}`);
        const [part] = parts as [Extract<AgentStreamPart, { type: 'error' }>];
        assert.equal(part.type, 'error');
        assert.equal(part.code, 'bad_request');
        assert.match(part.error, words);
        assert.doesNotMatch(part.error, /Cannot read|is not|undefined \(reading/);
        assert.deepEqual(adapter.status?.(), { state: 'ready' });
      }
    });
  }
});
