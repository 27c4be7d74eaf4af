/**
 * `serveMcpHttp`: the registry over Streamable HTTP on Node's `http` server, with the SDK's
 * transport doing the protocol. What this module adds is the door: path, Host and Origin checks
 * (DNS-rebinding protection), `authorize`, a bounded body, a bounded number of sessions that expire
 * when idle, and a shutdown that closes every session and stream.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AgentConsumer, AgentSurfaceRegistry } from '../core/types.js';
import { createMemoryEventStore } from './event-store.js';
import { checkMcpOptions, createMcpProjection, type McpProjection } from './projection.js';
import { bindMcpServer, createMcpServer } from './server.js';
import type { McpHttpOptions, McpHttpServer, McpServerOptions } from './types.js';

const SERVER_KEYS = ['consumer', 'mode', 'scope', 'name', 'version', 'toolName', 'confirmations'] as const;
const HTTP_KEYS = [
  'port',
  'host',
  'path',
  'allowedOrigins',
  'allowedHosts',
  'authorize',
  'maxBodyBytes',
  'maxSessions',
  'sessionIdleMs',
  'stateless',
];
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
/** What a page on a listed origin may read of an answer: the session, the protocol, the auth challenge. */
const CORS_EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate';
/** The request headers the SDK's browser client sends, for a preflight that names none. */
const CORS_ALLOWED =
  'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id';

export const DEFAULT_HTTP_CONSUMER: AgentConsumer = Object.freeze({ id: 'mcp-http', kind: 'mcp' });

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  consumer: AgentConsumer;
  lastSeen: number;
  /** Requests (and streams) in progress: a session with any is not idle. */
  active: number;
}

function fail(message: string): never {
  throw new TypeError(`serveMcpHttp: ${message}`);
}

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** `host[:port]` → the lower-cased name (IPv6 keeps its brackets). */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

function normalizeOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

function isConsumer(value: unknown): value is AgentConsumer {
  const c = value as AgentConsumer;
  return (
    !!c && typeof c === 'object' && typeof c.id === 'string' && c.id !== '' && typeof c.kind === 'string'
  );
}

/** A JSON-RPC error without a request id, as the transport itself answers refused requests. */
function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = status === 413 ? -32600 : -32000,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

type Body = { ok: true; value: unknown } | { ok: false; status: number; message: string; code?: number };

function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    return Promise.resolve({ ok: false, status: 413, message: `request body over ${limit} bytes` });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (body: Body) => {
      if (done) return;
      done = true;
      resolve(body);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish({ ok: false, status: 413, message: `request body over ${limit} bytes` });
        // Stop reading; the refusal closes the connection.
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        finish({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        // JSON-RPC's parse error, as the SDK's transport answers a body it parses itself.
        finish({ ok: false, status: 400, message: 'Parse error: the body is not JSON', code: -32700 });
      }
    });
    req.on('error', () => finish({ ok: false, status: 400, message: 'the request body could not be read' }));
  });
}

const isInitialize = (body: unknown) =>
  Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);

/**
 * Serves `registry` as an MCP server over Streamable HTTP, on loopback by default. Resolves once
 * listening. Throws a `TypeError` for invalid options, and for a host that is not loopback
 * without `authorize`.
 */
export async function serveMcpHttp(
  registry: AgentSurfaceRegistry,
  options: McpHttpOptions = {},
): Promise<McpHttpServer> {
  if (!options || typeof options !== 'object') fail('options must be an object');
  for (const key of Object.keys(options)) {
    if (!HTTP_KEYS.includes(key) && !(SERVER_KEYS as readonly string[]).includes(key))
      fail(`unknown option "${key}": use ${[...HTTP_KEYS, ...SERVER_KEYS].join(', ')}`);
  }
  const {
    port = 0,
    host = '127.0.0.1',
    path = '/mcp',
    allowedOrigins = [],
    allowedHosts,
    authorize,
    maxBodyBytes = 1024 * 1024,
    maxSessions = 64,
    sessionIdleMs = 30 * 60 * 1000,
    stateless = false,
  } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail('port must be an integer from 0 to 65535');
  if (typeof host !== 'string' || host === '') fail('host must be a non-empty string');
  if (typeof path !== 'string' || !path.startsWith('/')) fail('path must start with "/"');
  if (authorize !== undefined && typeof authorize !== 'function')
    fail('authorize must be a function (request) → boolean | consumer');
  if (!isLoopbackHost(host) && !authorize)
    fail(
      `host "${host}" is not loopback: pass authorize (a bearer token or session check) to serve beyond this machine`,
    );
  for (const [key, value] of [
    ['maxBodyBytes', maxBodyBytes],
    ['maxSessions', maxSessions],
    ['sessionIdleMs', sessionIdleMs],
  ] as const) {
    if (!Number.isInteger(value) || value < (key === 'sessionIdleMs' ? 0 : 1))
      fail(`${key} must be a positive integer`);
  }
  if (!Array.isArray(allowedOrigins))
    fail('allowedOrigins must be an array of origins such as "http://localhost:5173"');
  const origins = new Set<string>();
  for (const o of allowedOrigins) {
    const normal = typeof o === 'string' ? normalizeOrigin(o) : undefined;
    if (!normal)
      fail(`allowedOrigins: ${JSON.stringify(o)} is not an origin such as "http://localhost:5173"`);
    origins.add(normal);
  }
  if (
    allowedHosts !== undefined &&
    (!Array.isArray(allowedHosts) || allowedHosts.some((h) => typeof h !== 'string' || h === ''))
  )
    fail('allowedHosts must be an array of host names');

  const serverOptions: McpServerOptions = { consumer: options.consumer ?? DEFAULT_HTTP_CONSUMER };
  for (const key of SERVER_KEYS) {
    if (options[key] !== undefined) (serverOptions as unknown as Record<string, unknown>)[key] = options[key];
  }
  checkMcpOptions(serverOptions);
  if (!isConsumer(serverOptions.consumer)) fail('consumer must be { id, kind } with a non-empty id');

  const loopback = isLoopbackHost(host);
  // Off loopback without a list, authorize is the guard; on loopback the Host header must name it.
  const hosts =
    loopback || allowedHosts
      ? new Set([
          ...(loopback ? LOOPBACK_NAMES : []),
          hostName(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host),
          ...(allowedHosts ?? []).map(hostName),
        ])
      : undefined;

  const sessions = new Map<string, Session>();
  /** Sessions whose `initialize` is being answered (not yet in `sessions`), counted against the bound. */
  let opening = 0;
  /** Stateless mode: one projection per consumer, shared by that consumer's requests. */
  const shared = new Map<string, McpProjection>();
  let closing: Promise<void> | undefined;
  let boundPort = port;

  const ownOrigins = () =>
    new Set(
      [
        ...(loopback ? LOOPBACK_NAMES : []),
        host.includes(':') && !host.startsWith('[') ? `[${host}]` : host,
      ].map((name) => `http://${name}:${boundPort}`),
    );

  const closeSession = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    // Closing the server closes its transport and releases the projection.
    s.server.close().catch(() => {});
  };

  const projectionFor = (consumer: AgentConsumer): McpProjection => {
    let p = shared.get(consumer.id);
    if (p) {
      shared.delete(consumer.id);
      shared.set(consumer.id, p);
      return p;
    }
    p = createMcpProjection(registry, { ...serverOptions, consumer });
    shared.set(consumer.id, p);
    if (shared.size > maxSessions) {
      const [oldest, old] = shared.entries().next().value!;
      shared.delete(oldest);
      old.dispose();
    }
    return p;
  };

  const track = (session: Session, res: ServerResponse) => {
    session.active++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.active--;
      session.lastSeen = Date.now();
    });
  };

  const shuttingDown = (res: ServerResponse) =>
    refuse(res, 503, 'the server is shutting down', { connection: 'close' });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (closing) return shuttingDown(res);
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      return refuse(res, 400, 'bad request URL');
    }
    if (pathname !== path) return refuse(res, 404, `not found: the MCP endpoint is ${path}`);
    if (hosts) {
      const header = req.headers.host;
      if (typeof header !== 'string' || !hosts.has(hostName(header)))
        return refuse(res, 403, 'Forbidden: this Host is not allowed (DNS-rebinding protection)');
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const normal = normalizeOrigin(origin);
      if (!normal || !(origins.has(normal) || ownOrigins().has(normal)))
        return refuse(res, 403, 'Forbidden: this Origin is not allowed');
      // A listed origin is another site: its page gets the answers (and the session id) only when
      // they say so, and its browser asks first (a preflight, which carries no credentials, so it
      // comes before authorize) for a JSON POST, the MCP headers and DELETE.
      if (origins.has(normal)) {
        res.setHeader('access-control-allow-origin', origin);
        res.setHeader('access-control-expose-headers', CORS_EXPOSED);
        res.setHeader('vary', 'Origin');
        if (req.method === 'OPTIONS') {
          const asked = req.headers['access-control-request-headers'];
          res.writeHead(204, {
            'access-control-allow-methods': stateless ? 'POST' : 'GET, POST, DELETE',
            'access-control-allow-headers': typeof asked === 'string' && asked ? asked : CORS_ALLOWED,
            'access-control-max-age': '600',
          });
          res.end();
          return;
        }
      }
    }

    let consumer = serverOptions.consumer;
    if (authorize) {
      let verdict: unknown;
      try {
        verdict = await authorize(req);
      } catch (error) {
        console.error('[agent-surface-kit] serveMcpHttp: authorize threw; the request was refused', error);
        return refuse(res, 500, 'authorization failed');
      }
      if (isConsumer(verdict)) consumer = { id: verdict.id, kind: verdict.kind };
      else if (verdict !== true) return refuse(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer' });
    }

    if (stateless) {
      if (req.method !== 'POST')
        return refuse(res, 405, 'Method not allowed: this server is stateless', { allow: 'POST' });
      const body = await readBody(req, maxBodyBytes);
      if (!body.ok) return refuse(res, body.status, body.message, { connection: 'close' }, body.code);
      // close() may have run while authorize or the body was awaited: it released everything already.
      if (closing) return shuttingDown(res);
      const server = bindMcpServer(projectionFor(consumer), serverOptions, { notify: false, owns: false });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.once('close', () => {
        server.close().catch(() => {});
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body.value);
      return;
    }

    const sessionHeader = req.headers['mcp-session-id'];
    if (typeof sessionHeader === 'string') {
      const session = sessions.get(sessionHeader);
      if (!session) return refuse(res, 404, 'Session not found: initialize a new session');
      if (session.consumer.id !== consumer.id)
        return refuse(res, 403, 'Forbidden: this session belongs to another consumer');
      track(session, res);
      let body: unknown;
      if (req.method === 'POST') {
        const read = await readBody(req, maxBodyBytes);
        if (!read.ok) return refuse(res, read.status, read.message, { connection: 'close' }, read.code);
        body = read.value;
      }
      await session.transport.handleRequest(req, res, body);
      return;
    }

    if (req.method !== 'POST') return refuse(res, 400, 'Bad Request: no session (send initialize first)');
    const read = await readBody(req, maxBodyBytes);
    if (!read.ok) return refuse(res, read.status, read.message, { connection: 'close' }, read.code);
    // close() may have run while authorize or the body was awaited: a session opened now would
    // outlive it (its server subscribed to the registry, counted in sessionCount, never swept).
    if (closing) return shuttingDown(res);
    if (!isInitialize(read.value)) return refuse(res, 400, 'Bad Request: no session (send initialize first)');
    if (sessions.size + opening >= maxSessions) {
      // Clients often leave without ending their session: make room by closing the one idle the
      // longest (no request or stream open). Only when every session is busy is the new one refused.
      let idlest: [string, Session] | undefined;
      for (const entry of sessions)
        if (entry[1].active === 0 && (!idlest || entry[1].lastSeen < idlest[1].lastSeen)) idlest = entry;
      if (!idlest)
        return refuse(res, 503, `too many sessions (at most ${maxSessions}, all busy)`, {
          'retry-after': '5',
        });
      closeSession(idlest[0]);
    }

    opening++;
    let counted = true;
    const uncount = () => {
      if (counted) opening--;
      counted = false;
    };
    try {
      const server = createMcpServer(registry, { ...serverOptions, consumer });
      const session: Session = { server, transport: undefined!, consumer, lastSeen: Date.now(), active: 0 };
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // Resumable streams: a client that loses one reconnects with Last-Event-ID after this long.
        eventStore: createMemoryEventStore(),
        retryInterval: 1000,
        onsessioninitialized: (id) => {
          uncount();
          // Shut down while connecting: the transport, closed here, answers the initialize itself.
          if (closing) server.close().catch(() => {});
          else sessions.set(id, session);
        },
      });
      session.transport = transport;
      // The SDK chains this with its own close handling when the server connects.
      transport.onclose = () => {
        uncount();
        if (transport.sessionId !== undefined && sessions.get(transport.sessionId) === session)
          sessions.delete(transport.sessionId);
      };
      track(session, res);
      await server.connect(transport);
      await transport.handleRequest(req, res, read.value);
      // An initialize the transport refused opens nothing.
      if (transport.sessionId === undefined) {
        uncount();
        await server.close();
      }
    } finally {
      uncount();
    }
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('[agent-surface-kit] serveMcpHttp: a request failed', error);
      refuse(res, 500, 'Internal error');
    });
  });
  // Headers only: a slow client cannot hold a connection open forever before it asks anything.
  http.headersTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    http.once('error', onError);
    http.listen(port, host, () => {
      http.off('error', onError);
      resolve();
    });
  });
  boundPort = (http.address() as AddressInfo).port;

  const sweep =
    sessionIdleMs > 0
      ? setInterval(
          () => {
            const now = Date.now();
            for (const [id, s] of sessions)
              if (s.active === 0 && now - s.lastSeen >= sessionIdleMs) closeSession(id);
          },
          Math.min(sessionIdleMs, 60_000),
        )
      : undefined;
  sweep?.unref();

  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${boundPort}${path}`,
    port: boundPort,
    host,
    get sessionCount() {
      return sessions.size;
    },
    close() {
      closing ??= (async () => {
        if (sweep) clearInterval(sweep);
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => {})));
        sessions.clear();
        for (const p of shared.values()) p.dispose();
        shared.clear();
        // Streams the sessions did not own (a refused request mid-read) end here.
        http.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
