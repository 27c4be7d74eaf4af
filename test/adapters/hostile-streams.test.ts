// Each HTTP adapter against a server that answers 200 with any stream of events it likes (a broken
// proxy, a hostile endpoint, a server speaking another protocol): the run always ends with finish or
// an error part whose code is one of the seed's and whose words are the adapter's, never an
// engine's TypeError, and every call the stream reported is answered.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createAnthropicAdapter, createCloudAdapter, createOpenAICompatibleAdapter } from '../../src/adapters/index.js';
import type { AgentAdapter } from '../../src/chat/types.js';
import { assertContract, runAdapter, tool } from './helpers/run.js';

const CODES = ['chat_disabled', 'rate_limited', 'bad_request', 'network'];
const ENGINE_WORDS = /TypeError|Cannot read|is not a function|is not iterable|\[object Object\]|undefined/;
const any = fc.jsonValue({ maxDepth: 3 });
const loose = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) => fc.record(fields, { requiredKeys: [] });

const openAIEvent = fc.oneof(
  any,
  fc.constant('[DONE]'),
  loose({
    error: any,
    choices: fc.oneof(
      any,
      fc.array(
        fc.oneof(
          any,
          loose({
            finish_reason: any,
            delta: fc.oneof(
              any,
              loose({ content: any, reasoning_content: any, tool_calls: fc.oneof(any, fc.array(fc.oneof(any, fc.constant(null), loose({ index: any, id: any, function: any })))) }),
            ),
          }),
        ),
      ),
    ),
  }),
);
const anthropicEvent = fc.oneof(
  any,
  loose({
    type: fc.constantFrom('message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error'),
    index: fc.oneof(fc.constantFrom(0, 1), any),
    content_block: fc.oneof(any, loose({ type: fc.constantFrom('text', 'thinking', 'redacted_thinking', 'tool_use'), text: any, thinking: any, id: any, name: any, input: any, data: any })),
    delta: fc.oneof(any, loose({ text: any, partial_json: any, thinking: any, signature: any })),
    error: any,
  }),
);
const cloudEvent = fc.oneof(
  any,
  fc.record(
    {
      type: fc.constantFrom('message-start', 'text-delta', 'reasoning', 'tool-call', 'step-finish', 'finish', 'error'),
      delta: any,
      text: any,
      providerMetadata: any,
      id: any,
      name: fc.oneof(fc.constant('t'), any),
      input: any,
      invalid: any,
      reason: any,
      error: any,
      code: fc.oneof(fc.constantFrom(...CODES), any),
    },
    { requiredKeys: ['type'] },
  ),
);

/** The events as an SSE body: JSON payloads (strings too), `[DONE]` as it is, `event:` names sometimes. */
const body = (events: unknown[], named: boolean) =>
  events
    .map((e) => {
      const name = named && e && typeof e === 'object' && typeof (e as { type?: unknown }).type === 'string' ? `event: ${(e as { type: string }).type}\n` : '';
      return `${name}data: ${e === '[DONE]' ? e : JSON.stringify(e)}\n\n`;
    })
    .join('');

const adapters: [string, fc.Arbitrary<unknown>, (fetch: typeof globalThis.fetch) => AgentAdapter][] = [
  ['createOpenAICompatibleAdapter', openAIEvent, (fetch) => createOpenAICompatibleAdapter({ baseUrl: 'http://model.test/v1', model: 'm', check: false, fetch, maxSteps: 1 })],
  ['createAnthropicAdapter', anthropicEvent, (fetch) => createAnthropicAdapter({ model: 'm', check: false, fetch, maxSteps: 1 })],
  ['createCloudAdapter', cloudEvent, (fetch) => createCloudAdapter({ endpoint: 'http://app.test/api/chat', check: false, fetch, maxSteps: 1 })],
];

describe('HTTP adapters against any stream a server can send', () => {
  for (const [name, event, make] of adapters) {
    it(`${name}: ends with finish or an error in its own words, a seed code, every call answered`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(event, { maxLength: 8 }), fc.boolean(), async (events, named) => {
          const text = body(events, named);
          const adapter = make(async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }));
          const r = await runAdapter(adapter, { tools: [tool('t')] });
          assert.equal(assertContract(r.parts), undefined, text);
          const last = r.last!;
          if (last.type === 'error') {
            assert.ok(CODES.includes(last.code ?? ''), `code ${JSON.stringify(last.code)} for ${text}`);
            assert.equal(typeof last.error, 'string');
            assert.doesNotMatch(last.error, ENGINE_WORDS, text);
          }
          for (const p of r.parts) if (p.type === 'tool-error') assert.doesNotMatch(p.error, /TypeError|Cannot read|is not a function/, text);
        }),
        { numRuns: 600 },
      );
    });
  }
});

describe('HTTP adapters: block indexes that are object keys', () => {
  it('createAnthropicAdapter: an index of "__proto__" or "constructor" is a block like any other, not an engine error', async () => {
    const events = [
      { type: 'content_block_start', index: '__proto__', content_block: { type: 'text', text: 'x' } },
      { type: 'content_block_delta', index: 'text', delta: { type: 'text_delta', text: 'y' } },
      { type: 'content_block_delta', index: 'constructor', delta: { type: 'text_delta', text: 'z' } },
      { type: 'content_block_stop', index: '__proto__' },
      { type: 'message_stop' },
    ];
    const adapter = createAnthropicAdapter({ model: 'm', check: false, maxSteps: 1, fetch: async () => new Response(body(events, true), { headers: { 'content-type': 'text/event-stream' } }) });
    const r = await runAdapter(adapter, { tools: [tool('t')] });
    assert.equal(assertContract(r.parts), undefined);
    assert.deepEqual(r.last, { type: 'finish', reason: 'stop' });
    assert.deepEqual(r.parts.filter((p) => p.type === 'text-delta').map((p) => (p as { delta: string }).delta), ['x']);
  });
});

describe('HTTP adapters: an error response whose body never ends', () => {
  // A broken proxy or a hostile endpoint answers 500 and then streams its body without end. The
  // run must end with the status's error as soon as the start of the body is read, not hold the
  // body in memory until the deadline (the stream stops after 32 MB only so that the test ends).
  for (const [name, , make] of adapters)
    it(`${name}: reads only the start of the body and ends with a network error`, async () => {
      let sent = 0;
      const chunk = new TextEncoder().encode(`{"error":{"message":"${'x'.repeat(65_000)}`);
      const endless = () =>
        new ReadableStream<Uint8Array>({
          pull(c) {
            if (sent > 32e6) return c.close();
            sent += chunk.byteLength;
            c.enqueue(chunk);
          },
        });
      const adapter = make(async () => new Response(endless(), { status: 500, headers: { 'content-type': 'application/json' } }));
      const r = await runAdapter(adapter, { tools: [tool('t')] });
      assert.equal(assertContract(r.parts), undefined);
      assert.equal(r.last?.type === 'error' && r.last.code, 'network', JSON.stringify(r.last).slice(0, 300));
      assert.ok(sent < 1e6, `${sent} bytes of the error body were read`);
    });
});
