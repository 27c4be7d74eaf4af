// createChatHandler against DESIGN section 7's filter rule: an agent's `tools` list means the same on
// the server as in the page (`defineWebAgent` through filterTools): a wire name, or a capability id
// prefix by whole segments, with or without the plane. `tools: ['domain:dev']` must not let
// `domain:devices.wipe` reach the model, and `['devices']` must not hide `domain:devices.list`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { filterTools, type ChatTool } from '../../src/chat/tools.js';
import { encodeWireName } from '../../src/core/wire-names.js';
import { createChatHandler } from '../../src/server/index.js';
import * as F from '../adapters/fixtures/openai-streams.js';
import { sse } from '../adapters/helpers/loopback.js';
import { user } from '../adapters/helpers/run.js';

/** The tool names one request to the handler hands the provider, for an agent with `filter`. */
async function toolsSent(filter: readonly string[], ids: readonly string[]): Promise<string[]> {
  let sent: string[] = [];
  const handler = createChatHandler({
    provider: {
      kind: 'openai-compatible',
      baseUrl: 'http://provider.invalid/v1',
      model: 'm',
      apiKey: 'k',
      fetch: async (_url, init) => {
        const body = JSON.parse(String(init?.body)) as { tools?: { function: { name: string } }[] };
        sent = (body.tools ?? []).map((t) => t.function.name);
        return new Response(sse(F.text('ok')), { headers: { 'content-type': 'text/event-stream' } });
      },
    },
    agents: [{ id: 'a', instructions: 'x', tools: filter }],
  });
  const tools = ids.map((id) => ({ name: encodeWireName(id), description: id, inputSchema: { type: 'object' } }));
  const res = await handler(new Request('http://app/chat', { method: 'POST', body: JSON.stringify({ agent: 'a', messages: [user('hi')], tools }) }));
  assert.equal(res.status, 200);
  await res.text();
  return sent;
}

/** What the page's own filter keeps from the same tools. */
function pageKeeps(filter: readonly string[], ids: readonly string[]): string[] {
  const tools: ChatTool[] = ids.map((id) => ({
    descriptor: { name: encodeWireName(id), description: id, inputSchema: { type: 'object' } },
    capabilityId: id,
    title: id,
    untrustedOutput: false,
    call: async () => ({ content: [] }),
  }));
  return filterTools(tools, filter).map((t) => t.descriptor.name);
}

describe('createChatHandler: an agent\'s tools filter', () => {
  it('is by whole segments: "domain:dev" keeps nothing of domain:devices, "devices" keeps domain:devices.*', async () => {
    const ids = ['domain:devices.list', 'domain:devices.wipe', 'domain:devicesAdmin.wipe', 'view:devices.rows'];
    assert.deepEqual(await toolsSent(['domain:dev'], ids), []);
    assert.deepEqual(await toolsSent(['domain:devices'], ids), ['domain_devices__list', 'domain_devices__wipe']);
    assert.deepEqual(await toolsSent(['devices'], ids), ['domain_devices__list', 'domain_devices__wipe', 'view_devices__rows']);
    assert.deepEqual(await toolsSent(['view_devices__rows'], ids), ['view_devices__rows']);
  });

  it('fast-check: the server keeps exactly what the page\'s filter keeps', async () => {
    const segment = fc.constantFrom('devices', 'dev', 'devicesX', 'rows', 'wipe', 'list');
    const id = fc.tuple(fc.constantFrom('domain', 'view'), fc.array(segment, { minLength: 1, maxLength: 3 })).map(([plane, path]) => `${plane}:${path.join('.')}`);
    const entry = fc.oneof(
      id,
      id.map((i) => encodeWireName(i)),
      id.map((i) => i.slice(0, Math.max(1, i.length - 3))),
      fc.array(segment, { minLength: 1, maxLength: 2 }).map((p) => p.join('.')),
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(id, { minLength: 1, maxLength: 6 }), fc.array(entry, { minLength: 1, maxLength: 3 }), async (ids, filter) => {
        assert.deepEqual(await toolsSent(filter, ids), pageKeeps(filter, ids), JSON.stringify({ ids, filter }));
      }),
      { numRuns: 150 },
    );
  });
});

describe('createChatHandler: tools the page posts', () => {
  it('two tools with one name are bad_request in words, before the provider is called (a provider refuses them)', async () => {
    let called = 0;
    const handler = createChatHandler({
      provider: { kind: 'anthropic', model: 'm', apiKey: 'k', fetch: async () => (called++, new Response('{}', { status: 500 })) },
      agents: [{ id: 'a', instructions: 'x' }],
    });
    const tool = { name: 'view_devices__rows', description: 'd', inputSchema: { type: 'object' } };
    const res = await handler(new Request('http://app/chat', { method: 'POST', body: JSON.stringify({ agent: 'a', messages: [user('hi')], tools: [tool, { ...tool, description: 'another' }] }) }));
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { type: 'error', error: 'Bad tools: two tools are named "view_devices__rows".', code: 'bad_request' });
    assert.equal(called, 0);
  });
});
