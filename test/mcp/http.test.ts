// serveMcpHttp with the SDK's Client over Streamable HTTP on loopback, and raw requests for what a
// client would never send (a foreign Origin or Host, no token, a huge body).
import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { serveMcpHttp, type McpHttpOptions, type McpHttpServer } from '../../src/mcp/index.js';
import { createDevices, type Devices } from './fixtures/devices.js';
import { accept, connectHttp, decline, textJson, type Elicit } from './helpers.js';

before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());

const servers: McpHttpServer[] = [];
const clients: { close(): Promise<void> }[] = [];
const surfaces: Devices[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of servers.splice(0)) await s.close();
  for (const s of surfaces.splice(0)) s.surface.dispose();
});

async function serve(options: McpHttpOptions = {}) {
  const devices = createDevices();
  surfaces.push(devices);
  const server = await serveMcpHttp(devices.registry, options);
  servers.push(server);
  return { ...devices, server };
}

async function client(url: string, options: { elicit?: Elicit; headers?: Record<string, string> } = {}) {
  const c = await connectHttp(url, options);
  clients.push(c);
  return c;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST (undici's fetch refuses to set Host; node:http does not). */
function post(
  url: string,
  headers: Record<string, string>,
  body = INITIALIZE,
  method = 'POST',
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
        // An SSE answer stays open: the status is all these tests need.
        if (String(res.headers['content-type']).includes('text/event-stream')) {
          resolve({ status: res.statusCode!, body: '', headers: res.headers });
          res.destroy();
        }
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('serveMcpHttp: the SDK client over Streamable HTTP', () => {
  it('listens on 127.0.0.1 by default, lists and calls', async () => {
    const { server, calls } = await serve();
    assert.equal(server.host, '127.0.0.1');
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const c = await client(server.url);
    const { tools } = await c.client.listTools();
    assert.ok(tools.some((t) => t.name === 'domain_devices__list'));
    const result = await c.client.callTool({
      name: 'domain_devices__rename',
      arguments: { id: 'd2', name: 'Modem' },
    });
    assert.deepEqual(result.structuredContent, { id: 'd2', name: 'Modem' });
    const invalid = await c.client.callTool({ name: 'domain_devices__rename', arguments: { id: 'd2' } });
    assert.equal(textJson(invalid).code, 'INVALID_INPUT');
    const unavailable = await c.client.callTool({ name: 'domain_devices__reboot', arguments: { id: 'd2' } });
    assert.equal(textJson(unavailable).code, 'CAPABILITY_NOT_AVAILABLE');
    assert.deepEqual(calls, ['rename d2 Modem']);
    assert.equal(server.sessionCount, 1);
  });

  it('asks for a destructive call through elicitation on the call’s stream: approved runs once, declined does not', async () => {
    const { server, calls } = await serve();
    const yes = await client(server.url, { elicit: accept });
    const approved = await yes.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(approved.isError, false, JSON.stringify(approved));
    const no = await client(server.url, { elicit: decline });
    const declined = await no.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd2' } });
    assert.equal(textJson(declined).code, 'CONFIRMATION_INVALID');
    assert.deepEqual(calls, ['disable d1']);
  });

  it('is two-phase for a client without elicitation', async () => {
    const { server, calls, registry } = await serve();
    const c = await client(server.url);
    const first = textJson(
      await c.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } }),
    );
    assert.equal(first.code, 'CONFIRMATION_REQUIRED');
    registry.confirmations.approve(first.details.confirmationId);
    const second = await c.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(second.isError, false, JSON.stringify(second));
    assert.deepEqual(calls, ['disable d1']);
  });

  it('cancels: the client’s abort reaches the handler’s signal', async () => {
    const { server, nextScan } = await serve();
    const c = await client(server.url);
    const controller = new AbortController();
    const started = nextScan();
    const call = c.client.callTool({ name: 'domain_devices__scan', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    const signal = await started;
    controller.abort();
    await assert.rejects(call);
    if (!signal.aborted)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    assert.equal(signal.aborted, true);
  });

  it('sends list_changed on the session’s stream after a registration', async () => {
    const { server, surface } = await serve();
    const c = await client(server.url);
    await c.client.listTools();
    const changed = c.nextListChanged();
    // The client opens its GET stream after initialize; a change must reach it once it is there.
    let n = 0;
    let handle = surface.action('domain:devices.ping', () => 'pong');
    const timer = setInterval(() => {
      // Re-announce until the stream is up: each re-registration is a surface change of its own.
      handle.unregister();
      handle = surface.action(`domain:devices.ping${++n}`, () => 'pong');
    }, 50);
    try {
      await changed;
    } finally {
      clearInterval(timer);
    }
    const names = (await c.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.some((name) => name.startsWith('domain_devices__ping')));
  });

  it('close() while a request is still being authorized: that request opens no session when it goes on', async () => {
    const devices = createDevices();
    surfaces.push(devices);
    // Counts what subscribes to the registry: each session's server does, as it is created.
    let listening = 0;
    const on = devices.registry.on.bind(devices.registry);
    devices.registry.on = ((type: 'surface-changed', listener: () => void) => {
      listening++;
      const off = on(type, listener);
      return () => {
        listening--;
        off();
      };
    }) as typeof devices.registry.on;
    let held!: (req: IncomingMessage) => void;
    const arrived = new Promise<IncomingMessage>((resolve) => (held = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = await serveMcpHttp(devices.registry, {
      authorize: async (req) => {
        held(req);
        await released;
        return true;
      },
    });
    // The initialize's body is all sent; its answer never comes (close() ends the connection).
    post(server.url, {}).catch(() => {});
    const req = await arrived;
    await server.close();
    assert.equal(server.sessionCount, 0);
    release();
    await once(req, 'end');
    // The handler runs on synchronously from the body's end to where a session's server subscribes.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(listening, 0, 'a session server was made after close()');
    assert.equal(server.sessionCount, 0);
  });

  it('closes cleanly: sessions end, the port is free, close() can run twice', async () => {
    const { server } = await serve();
    const c = await client(server.url);
    await c.client.listTools();
    await server.close();
    await server.close();
    assert.equal(server.sessionCount, 0);
    await assert.rejects(fetch(server.url, { method: 'POST', body: INITIALIZE }));
  });
});

describe('serveMcpHttp: the door', () => {
  it('refuses a foreign Origin with 403 and lets listed origins and the server’s own through', async () => {
    const { server } = await serve({ allowedOrigins: ['http://localhost:5173'] });
    assert.equal((await post(server.url, { origin: 'http://evil.example' })).status, 403);
    assert.equal((await post(server.url, { origin: 'null' })).status, 403);
    assert.equal((await post(server.url, { origin: 'http://localhost:5173' })).status, 200);
    assert.equal((await post(server.url, { origin: `http://127.0.0.1:${server.port}` })).status, 200);
    // The SDK client itself sends no Origin.
    const c = await client(server.url);
    assert.ok((await c.client.listTools()).tools.length > 0);
  });

  it('answers a listed origin with CORS headers, its preflight before authorize; other origins and desktop clients get none', async () => {
    const page = 'http://localhost:5173';
    const { server } = await serve({
      allowedOrigins: [page],
      authorize: (req) => req.headers.authorization === 'Bearer sesame',
    });
    // The browser's preflight for the SDK client's POST carries no Authorization: it is answered anyway.
    const preflight = await post(
      server.url,
      {
        origin: page,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
      '',
      'OPTIONS',
    );
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], page);
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
    assert.match(String(preflight.headers['access-control-allow-methods']), /DELETE/);
    assert.match(String(preflight.headers['access-control-allow-headers']), /mcp-protocol-version/);
    // The answers themselves: the page may read them, the session id and the auth challenge too.
    const opened = await post(server.url, { origin: page, authorization: 'Bearer sesame' });
    assert.equal(opened.status, 200);
    assert.equal(opened.headers['access-control-allow-origin'], page);
    assert.match(String(opened.headers['access-control-expose-headers']), /mcp-session-id/);
    const refused = await post(server.url, { origin: page });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['access-control-allow-origin'], page);
    assert.match(String(refused.headers['access-control-expose-headers']), /www-authenticate/);
    // Nobody else is told anything.
    const foreign = await post(
      server.url,
      { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
      '',
      'OPTIONS',
    );
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    const desktop = await post(server.url, { authorization: 'Bearer sesame' });
    assert.equal(desktop.status, 200);
    assert.equal(desktop.headers['access-control-allow-origin'], undefined);
    // Without Origin an OPTIONS is no preflight: authorize decides, as for any request.
    assert.equal((await post(server.url, {}, '', 'OPTIONS')).status, 401);
  });

  it('refuses a Host that is not loopback (DNS rebinding) with 403', async () => {
    const { server } = await serve();
    assert.equal((await post(server.url, { host: `evil.example:${server.port}` })).status, 403);
    assert.equal((await post(server.url, { host: `localhost:${server.port}` })).status, 200);
  });

  it('refuses an unauthorized request with 401 and binds a session to the consumer authorize named', async () => {
    const seen: string[] = [];
    const { server, registry } = await serve({
      authorize: (req) => {
        const auth = req.headers.authorization;
        if (auth === 'Bearer alice') return { id: 'alice', kind: 'mcp' };
        if (auth === 'Bearer bob') return { id: 'bob', kind: 'mcp' };
        return false;
      },
    });
    registry.on('invocation', (e) => seen.push(e.consumer.id));
    const refused = await post(server.url, {});
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['www-authenticate'], 'Bearer');
    await assert.rejects(
      client(server.url, { headers: { authorization: 'Bearer mallory' } }),
      /401|Unauthorized/,
    );

    const alice = await client(server.url, { headers: { authorization: 'Bearer alice' } });
    await alice.client.callTool({ name: 'domain_devices__list', arguments: {} });
    assert.deepEqual(seen, ['alice']);

    // Bob presenting Alice's session id is refused.
    const sessionId = (alice.client.transport as { sessionId?: string }).sessionId!;
    const hijack = await post(
      server.url,
      { authorization: 'Bearer bob', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    );
    assert.equal(hijack.status, 403);
  });

  it('refuses a body over maxBodyBytes with 413, bad JSON with 400, other paths with 404', async () => {
    const { server } = await serve({ maxBodyBytes: 1024 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { pad: 'x'.repeat(4096) },
    });
    assert.equal((await post(server.url, {}, big)).status, 413);
    // Not JSON: JSON-RPC's parse error (-32700), as the SDK's transport answers it, with or without a session.
    const notJson = await post(server.url, {}, '{not json');
    assert.equal(notJson.status, 400);
    assert.equal(JSON.parse(notJson.body).error.code, -32700);
    const session = String((await post(server.url, {})).headers['mcp-session-id']);
    const inSession = await post(
      server.url,
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      '[{"jsonrpc"',
    );
    assert.equal(inSession.status, 400);
    assert.equal(JSON.parse(inSession.body).error.code, -32700);
    assert.equal((await post(server.url.replace(/\/mcp$/, '/other'), {})).status, 404);
    // A request without a session that is not initialize.
    assert.equal(
      (await post(server.url, {}, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).status,
      400,
    );
  });

  it('bounds concurrent sessions with 503; a closed session frees its place', async () => {
    const { server } = await serve({ maxSessions: 1 });
    const first = await client(server.url);
    assert.equal((await post(server.url, {})).status, 503);
    await (first.client.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
    await first.close();
    clients.splice(clients.indexOf(first), 1);
    const second = await client(server.url);
    assert.ok((await second.client.listTools()).tools.length > 0);
  });

  it('at the bound, a new session replaces the one idle the longest', async () => {
    const { server } = await serve({ maxSessions: 2 });
    // Raw initializes: sessions that nobody uses afterwards (no stream, no request).
    const a = await post(server.url, {});
    const b = await post(server.url, {});
    assert.equal(server.sessionCount, 2);
    const c = await client(server.url);
    assert.ok((await c.client.listTools()).tools.length > 0);
    assert.equal(server.sessionCount, 2);
    const listA = await post(
      server.url,
      { 'mcp-session-id': String(a.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    assert.equal(listA.status, 404, 'the idlest session was closed');
    assert.ok(b.headers['mcp-session-id']);
  });

  it('answers an unknown session id with 404', async () => {
    const { server } = await serve();
    const res = await post(
      server.url,
      { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    assert.equal(res.status, 404);
  });

  it('refuses unsafe or invalid options', async () => {
    const devices = createDevices();
    surfaces.push(devices);
    await assert.rejects(serveMcpHttp(devices.registry, { host: '0.0.0.0' }), /not loopback: pass authorize/);
    await assert.rejects(
      serveMcpHttp(devices.registry, { allowedOrigins: ['not an origin'] }),
      /allowedOrigins/,
    );
    await assert.rejects(serveMcpHttp(devices.registry, { port: -1 }), /port/);
    await assert.rejects(serveMcpHttp(devices.registry, { topology: 'remote' } as never), /unknown option/);
  });
});

describe('serveMcpHttp: stateless', () => {
  it('serves without sessions; two-phase confirmation works across requests', async () => {
    const { server, calls, registry } = await serve({ stateless: true });
    const c = await client(server.url, { elicit: accept });
    assert.ok((await c.client.listTools()).tools.length > 0);
    assert.equal(server.sessionCount, 0);
    // No server-to-client requests without a session: the confirmation is two-phase.
    const first = textJson(
      await c.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } }),
    );
    assert.equal(first.code, 'CONFIRMATION_REQUIRED');
    registry.confirmations.approve(first.details.confirmationId);
    const second = await c.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(second.isError, false, JSON.stringify(second));
    assert.deepEqual(calls, ['disable d1']);
  });
});
