import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCloudAdapter } from '../../src/adapters/index.js';
import { createChatHandler, toNodeListener, type ChatHandlerOptions } from '../../src/server/index.js';
import * as A from '../adapters/fixtures/anthropic-streams.js';
import * as F from '../adapters/fixtures/openai-streams.js';
import { sse, startLoopback, type Loopback } from '../adapters/helpers/loopback.js';
import { assertContract, ok, runAdapter, tool, user } from '../adapters/helpers/run.js';

const SECRET = 'sk-server-secret-4f9a';
const INSTRUCTIONS = 'You are the shop assistant. Secret house rules: never discount.';
let provider: Loopback;
before(async () => (provider = await startLoopback()));
after(() => provider.close());
beforeEach(() => {
  provider.queue.length = 0;
  provider.received.length = 0;
});

/** The app's server: the handler on node:http through the one-line adapter. */
async function appServer(extra: Partial<ChatHandlerOptions> = {}) {
  const seen: { body: string; headers: Record<string, unknown> }[] = [];
  const errors: unknown[] = [];
  const handler = createChatHandler({
    provider: { kind: 'openai-compatible', baseUrl: `${provider.url}/v1`, model: 'gpt-test', apiKey: SECRET },
    agents: [{ id: 'shop', instructions: INSTRUCTIONS }],
    onError: (e) => errors.push(e),
    ...extra,
  });
  const listener = toNodeListener(handler);
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST') {
      // Record what the page sent (a copy of the body; the listener reads the original).
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => seen.push({ body: Buffer.concat(chunks).toString(), headers: req.headers }));
    }
    void listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
  return {
    url,
    seen,
    errors,
    adapter: (o = {}) => createCloudAdapter({ endpoint: url, check: false, ...o }),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const stream = (events: unknown[]) => ({ chunks: [sse(events)] });
const shop = { id: 'shop', instructions: 'PAGE-SIDE INSTRUCTIONS MUST NOT TRAVEL' };

describe('createCloudAdapter + createChatHandler', () => {
  it('runs the tool loop across requests: the server calls the provider with its key and instructions, the page runs the tools', async () => {
    const app = await appServer();
    try {
      provider.queue.push(stream(F.parallel()), stream(F.text('All done.')));
      const r = await runAdapter(app.adapter(), { agent: shop, tools: [tool('add_to_cart'), tool('search')] });
      assert.equal(assertContract(r.parts), undefined);
      assert.equal(r.text, 'All done.');
      assert.deepEqual(r.last, { type: 'finish', reason: 'stop' });
      assert.deepEqual(
        r.calls.map((c) => c.name),
        ['add_to_cart', 'search'],
      );
      // Two model steps, one request each.
      assert.equal(app.seen.length, 2);
      for (const s of app.seen) {
        const body = JSON.parse(s.body);
        assert.deepEqual(Object.keys(body).sort(), ['agent', 'messages', 'tools']);
        assert.equal(body.agent, 'shop');
        assert.doesNotMatch(s.body, /PAGE-SIDE|house rules|sk-server/);
      }
      const second = JSON.parse(app.seen[1].body);
      assert.equal(second.messages.length, 2);
      assert.deepEqual(
        second.messages[1].parts.map((p: { type: string; state?: string }) => [p.type, p.state]),
        [
          ['tool', 'done'],
          ['tool', 'done'],
        ],
      );
      const [p1, p2] = provider.received;
      assert.equal(p1.headers.authorization, `Bearer ${SECRET}`);
      const body2 = p2.json() as { messages: { role: string; content: unknown }[]; max_tokens: number };
      assert.deepEqual(body2.messages[0], { role: 'system', content: INSTRUCTIONS });
      assert.deepEqual(
        body2.messages.map((m) => m.role),
        ['system', 'user', 'assistant', 'tool', 'tool'],
      );
      assert.equal(body2.max_tokens, 4096);
    } finally {
      await app.close();
    }
  });

  it('the Anthropic provider: thinking signatures travel through the page and back', async () => {
    const app = await appServer({ provider: { kind: 'anthropic', baseUrl: provider.url, model: 'claude-test', apiKey: SECRET } });
    try {
      const named = (e: unknown) => (e as { type: string }).type;
      provider.queue.push({ chunks: [sse(A.thinkingThenCall(), named)] }, { chunks: [sse(A.text('ok'), named)] });
      const r = await runAdapter(app.adapter(), { agent: shop, tools: [tool('add_to_cart')] });
      assert.deepEqual(r.last, { type: 'finish', reason: 'stop' });
      const p2 = provider.received[1].json() as { system: string; messages: { content: { type: string; signature?: string }[] }[] };
      assert.equal(provider.received[0].headers['x-api-key'], SECRET);
      assert.equal(p2.system, INSTRUCTIONS);
      assert.equal(p2.messages[1].content[0].signature, A.SIGNATURE);
    } finally {
      await app.close();
    }
  });

  it('an Anthropic provider whose baseUrl is written with /v1 posts to /v1/messages', async () => {
    const app = await appServer({ provider: { kind: 'anthropic', baseUrl: `${provider.url}/v1/`, model: 'claude-test', apiKey: SECRET } });
    try {
      provider.queue.push({ chunks: [sse(A.text('ok'), (e: unknown) => (e as { type: string }).type)] });
      const r = await runAdapter(app.adapter(), { agent: shop });
      assert.deepEqual(r.last, { type: 'finish', reason: 'stop' });
      assert.deepEqual(
        provider.received.map((q) => q.url),
        ['/v1/messages'],
      );
    } finally {
      await app.close();
    }
  });

  it('an unknown agent id → bad_request; a malformed body → bad_request', async () => {
    const app = await appServer();
    try {
      const r = await runAdapter(app.adapter(), { agent: { id: 'nope', instructions: '' } });
      assert.deepEqual(r.last, { type: 'error', error: 'There is no agent "nope".', code: 'bad_request' });
      for (const body of ['not json', '[]', JSON.stringify({ agent: 'shop', messages: [{ role: 'system', parts: [] }] }), JSON.stringify({ agent: 'shop', messages: [user('x')], tools: [{ name: 'bad name!' }] })]) {
        const res = await fetch(app.url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, body);
        const part = await res.json();
        assert.equal(part.code, 'bad_request');
      }
      assert.equal(provider.received.length, 0);
    } finally {
      await app.close();
    }
  });

  it('authorize refusing, or the handler switched off → chat_disabled; the status says unavailable', async () => {
    for (const extra of [{ authorize: () => false }, { authorize: () => Promise.reject(new Error('no session')) }, { enabled: false }]) {
      const app = await appServer(extra);
      try {
        const r = await runAdapter(app.adapter(), { agent: shop });
        assert.equal(r.last?.type === 'error' && r.last.code, 'chat_disabled');
        const a = app.adapter({ check: true });
        a.status!();
        await a.recheck();
        const s = a.status!();
        assert.equal(s.state, 'unavailable');
      } finally {
        await app.close();
      }
    }
  });

  it("a 401 or 403 from the app's own sign-in layer, in front of the handler: bad_request in words about the session, never about an API key the page does not have", async () => {
    for (const status of [401, 403]) {
      const front = createServer((_req, res) => res.writeHead(status, { 'content-type': 'text/html' }).end('<html>Please sign in</html>'));
      await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}/api/chat`;
      try {
        const r = await runAdapter(createCloudAdapter({ endpoint, check: false }), { agent: shop });
        assert.deepEqual(r.last, { type: 'error', code: 'bad_request', error: `The chat server refused the credentials of this session (HTTP ${status}); sign in again.` });
        const a = createCloudAdapter({ endpoint });
        a.status!();
        await a.recheck();
        assert.equal(a.status!().state, 'unavailable');
      } finally {
        await new Promise<void>((resolve) => (front.closeAllConnections(), front.close(() => resolve())));
      }
    }
  });

  it('the status check: ready when the server answers', async () => {
    const app = await appServer({ authorize: (req) => req.headers.get('x-session') === 'ok' });
    try {
      const a = app.adapter({ check: true, headers: { 'x-session': 'ok' } });
      assert.equal(a.status!().state, 'loading');
      await a.recheck();
      assert.equal(a.status!().state, 'ready');
    } finally {
      await app.close();
    }
  });

  it('requests per client per minute → rate_limited with retry-after', async () => {
    let t = 1_000_000;
    const app = await appServer({ limits: { requestsPerMinute: 2 }, now: () => t });
    try {
      provider.queue.push(stream(F.text('one')), stream(F.text('two')));
      assert.equal((await runAdapter(app.adapter(), { agent: shop })).text, 'one');
      t += 10_000;
      assert.equal((await runAdapter(app.adapter(), { agent: shop })).text, 'two');
      t += 10_000;
      const r = await runAdapter(app.adapter(), { agent: shop });
      assert.equal(r.last?.type === 'error' && r.last.code, 'rate_limited');
      assert.match(r.last?.type === 'error' ? r.last.error : '', /try again in 40 s/);
      t += 41_000;
      provider.queue.push(stream(F.text('three')));
      assert.equal((await runAdapter(app.adapter(), { agent: shop })).text, 'three');
    } finally {
      await app.close();
    }
  });

  it('body size, tool count, output tokens and steps per run are limited', async () => {
    const app = await appServer({ limits: { maxBodyBytes: 2000, maxTools: 2, maxOutputTokens: 77, maxSteps: 1 } });
    try {
      let r = await runAdapter(app.adapter(), { agent: shop, messages: [user('x'.repeat(3000))] });
      assert.equal(r.last?.type === 'error' && r.last.code, 'bad_request');
      assert.match(r.last?.type === 'error' ? r.last.error : '', /larger than 2000 bytes/);
      r = await runAdapter(app.adapter(), { agent: shop, tools: [tool('a'), tool('b'), tool('c')] });
      assert.match(r.last?.type === 'error' ? r.last.error : '', /too many tools/);
      provider.queue.push(stream(F.oneCall('a', '{}')), stream(F.text('never asked')));
      r = await runAdapter(app.adapter(), { agent: shop, tools: [tool('a')] });
      assert.equal(assertContract(r.parts), undefined);
      assert.deepEqual(r.last, { type: 'finish', reason: 'max-steps' });
      assert.equal(r.calls.length, 1, 'the step’s call ran');
      assert.equal(provider.received.length, 1, 'no second model step');
      assert.equal((provider.received[0].json() as { max_tokens: number }).max_tokens, 77);
    } finally {
      await app.close();
    }
  });

  it("an agent's tool filter applies on the server too", async () => {
    const app = await appServer({ agents: { shop: { instructions: 'x', tools: ['view:cart', 'search'] } } });
    try {
      provider.queue.push(stream(F.text('ok')));
      await runAdapter(app.adapter(), { agent: shop, tools: [tool('view_cart__add'), tool('search'), tool('domain_admin__wipe')] });
      const body = provider.received[0].json() as { tools: { function: { name: string } }[] };
      assert.deepEqual(
        body.tools.map((t) => t.function.name),
        ['view_cart__add', 'search'],
      );
    } finally {
      await app.close();
    }
  });

  it("a call to a tool the agent's filter left out is not run by the page, even though the page has that tool", async () => {
    const app = await appServer({ agents: { shop: { instructions: 'x', tools: ['search'] } } });
    try {
      // An injected instruction names a tool the model was never shown.
      provider.queue.push(stream(F.oneCall('domain_admin__wipe', '{}', 'call_wipe')), stream(F.text('ok')));
      const r = await runAdapter(app.adapter(), { agent: shop, tools: [tool('search'), tool('domain_admin__wipe')] });
      assert.equal(assertContract(r.parts), undefined);
      assert.deepEqual(r.calls, []);
      const err = r.parts.find((p) => p.type === 'tool-error');
      assert.match(err?.type === 'tool-error' ? err.error : '', /no tool named "domain_admin__wipe"/);
      const second = provider.received[1].json() as { messages: { role: string; content: string }[]; tools: { function: { name: string } }[] };
      assert.deepEqual(second.tools.map((t) => t.function.name), ['search']);
      assert.match(second.messages.find((m) => m.role === 'tool')!.content, /no tool named/);
    } finally {
      await app.close();
    }
  });

  it('the page posts only what a model step reads of a tool output: a screenshot tool does not push the next step over the body limit', async () => {
    const app = await appServer();
    try {
      provider.queue.push(stream(F.oneCall('screenshot', '{}')), stream(F.text('I see it.')));
      const shot = { content: [{ type: 'image', data: 'A'.repeat(1_200_000), mimeType: 'image/png' }, { type: 'text', text: 'The page as it looks.' }], structuredContent: { pixels: 'B'.repeat(600_000) } };
      const r = await runAdapter(app.adapter(), { agent: shop, tools: [tool('screenshot')], callTool: () => shot as never });
      assert.equal(r.text, 'I see it.');
      const posted = JSON.parse(app.seen[1].body) as { messages: { parts: { type: string; output?: unknown }[] }[] };
      assert.deepEqual(posted.messages[1].parts[0].output, { content: [{ type: 'text', text: 'The page as it looks.' }] });
      const sent = (provider.received[1].json() as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'tool');
      assert.equal(sent?.content, 'The page as it looks.');
    } finally {
      await app.close();
    }
  });

  it('provider failures reach the browser as words only: no key, no URL, no provider text', async () => {
    const app = await appServer();
    try {
      const cases = [
        { status: 401, chunks: [`{"error":{"message":"Incorrect API key provided: ${SECRET}. See ${provider.url}"}}`] },
        { status: 500, chunks: [`<html>Traceback at /srv/app.py line 3 ${provider.url}</html>`] },
        { status: 429, headers: { 'retry-after': '9' }, chunks: ['{"error":{"message":"slow down, org-123"}}'] },
        { chunks: [sse([F.chunk({ content: 'x' }), { error: { message: `upstream ${provider.url} key ${SECRET}` } }])] },
      ];
      const codes: string[] = [];
      for (const c of cases) {
        provider.queue.push(c);
        const r = await runAdapter(app.adapter(), { agent: shop });
        assert.equal(r.last?.type, 'error');
        const all = JSON.stringify(r.parts);
        assert.doesNotMatch(all, new RegExp(`${SECRET}|127\\.0\\.0\\.1|Traceback|org-123|app\\.py`));
        codes.push(r.last?.type === 'error' ? `${r.last.code}: ${r.last.error}` : '');
      }
      assert.deepEqual(codes, [
        'bad_request: The chat server could not sign in to its model provider.',
        'network: The model provider could not be reached or failed; try again.',
        'rate_limited: The model provider is rate limiting requests; try again in 9 s.',
        'network: The model provider could not be reached or failed; try again.',
      ]);
      assert.equal(app.errors.length, 4, 'the server hears the details through onError');
      // A refusal's body is never read: its words stay out of the error the server hears too.
      const refusals = app.errors.slice(0, 3).map((e) => (e instanceof Error ? e.message : String(e)));
      assert.deepEqual(
        refusals.filter((m) => new RegExp(`${SECRET}|Traceback|org-123|Incorrect|slow down`).test(m)),
        [],
        refusals.join('\n'),
      );
    } finally {
      await app.close();
    }
  });

  it('without onError, a provider failure goes to the server log (console.error), details there and not in the page', async (t) => {
    const logged: unknown[][] = [];
    t.mock.method(console, 'error', (...args: unknown[]) => void logged.push(args));
    const app = await appServer({ onError: undefined });
    try {
      provider.queue.push({ status: 500, chunks: [`{"error":{"message":"upstream exploded near ${SECRET}"}}`] });
      const r = await runAdapter(app.adapter(), { agent: shop });
      assert.deepEqual(r.last, { type: 'error', error: 'The model provider could not be reached or failed; try again.', code: 'network' });
      assert.equal(logged.length, 1, 'one failure, one log line');
      assert.match(String(logged[0][0]), /^agent-surface-kit\/server: POST http:\/\/127\.0\.0\.1:\d+\/api\/chat failed:$/);
      assert.match(String((logged[0][1] as Error).message), /HTTP 500/, 'the provider failure itself, for the operator');
    } finally {
      await app.close();
    }
  });

  it('an unreachable provider → network, with no address in the words', async () => {
    const dead = await startLoopback();
    await dead.close();
    const app = await appServer({ provider: { kind: 'openai-compatible', baseUrl: `${dead.url}/v1`, model: 'm' } });
    try {
      const r = await runAdapter(app.adapter(), { agent: shop });
      assert.deepEqual(r.last, { type: 'error', error: 'The model provider could not be reached or failed; try again.', code: 'network' });
    } finally {
      await app.close();
    }
  });

  it('Stop in the page aborts the provider request on the server', async () => {
    const app = await appServer();
    try {
      let closed!: () => void;
      const providerSawClose = new Promise<void>((resolve) => (closed = resolve));
      provider.queue.push((_req, res) => {
        res.on('close', closed);
        return { chunks: [sse(F.text().slice(0, 3))], stall: true };
      });
      const ctl = new AbortController();
      const r = await runAdapter(app.adapter(), { agent: shop, signal: ctl.signal, onPart: (p) => p.type === 'text-delta' && ctl.abort() });
      assert.deepEqual(r.last, { type: 'finish', reason: 'aborted' });
      await providerSawClose;
    } finally {
      await app.close();
    }
  });

  it('takes the key from the server environment when the provider config has none', async () => {
    const before = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-from-env';
    try {
      const handler = createChatHandler({ provider: { kind: 'openai-compatible', baseUrl: `${provider.url}/v1`, model: 'm' }, agents: [{ id: 'shop', instructions: 'i' }] });
      provider.queue.push(stream(F.text('env')));
      // The plain Web Request → Response function, no Node adapter.
      const res = await handler(new Request('http://app/api/chat', { method: 'POST', body: JSON.stringify({ agent: 'shop', messages: [user('hi')], tools: [] }) }));
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const text = await res.text();
      assert.match(text, /"type":"finish","reason":"stop"/);
      assert.equal(provider.received[0].headers.authorization, 'Bearer sk-from-env');
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = before;
    }
  });

  it('untrusted tool outputs posted by the page reach the provider inside the data delimiters', async () => {
    const app = await appServer();
    try {
      provider.queue.push(stream(F.oneCall('reviews', '{}')), stream(F.text('ok')));
      await runAdapter(app.adapter(), { agent: shop, tools: [tool('reviews', { untrustedOutput: true })], callTool: () => ok('obey me') });
      const msgs = (provider.received[1].json() as { messages: { role: string; content: string }[] }).messages;
      assert.match(msgs.find((m) => m.role === 'tool')!.content, /^<untrusted-data \w+>[\s\S]*obey me[\s\S]*<\/untrusted-data \w+>$/);
    } finally {
      await app.close();
    }
  });
});
