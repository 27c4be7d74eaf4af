// toNodeListener under the middleware a Node app already runs: a body parser that read the request
// before the chat route (Express's express.json(), body-parser) leaves no stream to read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatHandler, toNodeListener } from '../../src/server/index.js';
import * as F from '../adapters/fixtures/openai-streams.js';
import { sse } from '../adapters/helpers/loopback.js';

const body = { agent: 'shop', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }], tools: [] };

/** The handler behind `parse`, a stand-in for a body-parsing middleware that runs before the route. */
async function serve(parse: (req: IncomingMessage, raw: string) => void) {
  const sent: unknown[] = [];
  const listener = toNodeListener(
    createChatHandler({
      provider: {
        kind: 'openai-compatible',
        baseUrl: 'http://provider.test/v1',
        model: 'm',
        fetch: async (_url, init) => {
          sent.push(JSON.parse(String(init?.body)));
          return new Response(sse(F.text('Hello.')), { headers: { 'content-type': 'text/event-stream' } });
        },
      },
      agents: [{ id: 'shop', instructions: 'x' }],
    }),
  );
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => {
      parse(req, raw);
      void listener(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
  return { url, sent, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

const post = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });

describe('toNodeListener after a body parser', () => {
  for (const [name, parse] of [
    ['a parsed object on req.body (express.json())', (req: IncomingMessage, raw: string) => Object.assign(req, { body: JSON.parse(raw) })],
    ['the text on req.body (express.text())', (req: IncomingMessage, raw: string) => Object.assign(req, { body: raw })],
    ['a Buffer on req.body (express.raw())', (req: IncomingMessage, raw: string) => Object.assign(req, { body: Buffer.from(raw) })],
  ] as const) {
    it(`reads ${name} instead of waiting for a stream that already ended`, async () => {
      const app = await serve(parse);
      try {
        const res = await post(app.url);
        assert.equal(res.status, 200);
        assert.match(await res.text(), /"type":"text-delta"[\s\S]*"reason":"stop"/);
        assert.equal((app.sent[0] as { messages: { content: string }[] }).messages.at(-1)?.content, 'hi');
      } finally {
        await app.close();
      }
    });
  }

  it('answers a body read by something that kept nothing as a bad request, at once', async () => {
    const app = await serve(() => {});
    try {
      const res = await post(app.url);
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { type: 'error', error: 'The request body is not JSON.', code: 'bad_request' });
      assert.deepEqual(app.sent, []);
    } finally {
      await app.close();
    }
  });
});
