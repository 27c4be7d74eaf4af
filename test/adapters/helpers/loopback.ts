/**
 * A loopback HTTP server (127.0.0.1, port 0) that plays scripted responses, one per request, and
 * records what it was sent. A response is a status, headers and a body given as chunks, each
 * written as its own network write; the body can stall (never end) or drop (socket destroyed).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  /** Body chunks, each written separately (strings are UTF-8; Buffers go as they are). */
  chunks?: (string | Buffer)[];
  /** After the chunks: keep the response open forever (until the client gives up). */
  stall?: boolean;
  /** After the chunks: destroy the socket mid-response. */
  drop?: boolean;
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  json(): unknown;
}

export type Handler = (req: Received, res: ServerResponse) => Scripted | void | Promise<Scripted | void>;

export interface Loopback {
  url: string;
  received: Received[];
  /** Responses still to play, in order; a request with none left gets a 500. */
  queue: (Scripted | Handler)[];
  /** Resolves when `n` requests have been received. */
  requests(n: number): Promise<void>;
  close(): Promise<void>;
}

/** SSE `data:` lines from JSON payloads (or raw strings such as `[DONE]`). */
export function sse(events: unknown[], named?: (e: unknown) => string | undefined): string {
  return events
    .map((e) => {
      const name = named?.(e);
      return `${name ? `event: ${name}\n` : ''}data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`;
    })
    .join('');
}

/** Splits bytes into chunks of `size` bytes: cuts land mid-line and mid-UTF-8 character. */
export function splitBytes(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

export async function startLoopback(fallback?: Handler): Promise<Loopback> {
  const received: Received[] = [];
  const queue: (Scripted | Handler)[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const body = Buffer.concat(parts).toString('utf8');
    const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json: () => JSON.parse(body) };
    received.push(r);
    for (const w of waiters.filter((w) => received.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    let next = queue.shift() ?? fallback;
    if (typeof next === 'function') next = (await next(r, res)) ?? undefined;
    if (res.headersSent || res.writableEnded) return;
    if (!next) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no scripted response"}}');
      return;
    }
    res.writeHead(next.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...next.headers });
    res.flushHeaders();
    for (const c of next.chunks ?? []) {
      await new Promise<void>((resolve, reject) => res.write(c, (e) => (e ? reject(e) : resolve())));
    }
    if (next.drop) res.socket?.destroy();
    else if (!next.stall) res.end();
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    queue,
    requests: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
