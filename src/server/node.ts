/**
 * `toNodeListener`: a Web `Request → Response` handler as a `node:http` request listener, so a
 * Node ≥ 20 server mounts the chat handler in one line:
 * `createServer(toNodeListener(createChatHandler({ … })))`, or under Express
 * `app.post('/api/chat', toNodeListener(handler))`. The socket address becomes the rate limit's
 * client id; a client that goes away aborts the provider request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatRequestContext } from './handler.js';

export function toNodeListener(handler: (request: Request, context?: ChatRequestContext) => Promise<Response>) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const host = req.headers.host ?? 'localhost';
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    // A body a middleware read first (Express's express.json(), body-parser) ends no stream again:
    // the handler gets the value it left on `req.body`, as the JSON the page sent.
    const parsed = (req as { body?: unknown }).body;
    const already = req.readableEnded ? (typeof parsed === 'string' || parsed instanceof Uint8Array ? parsed : parsed === undefined ? '' : JSON.stringify(parsed)) : undefined;
    const answer = (status: number, error: string, code: string, headers?: Record<string, string>) =>
      void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ type: 'error', error, code }));
    // Methods a Web Request cannot carry (CONNECT, TRACE, TRACK): the handler's own answer to a method it does not take.
    if (/^(connect|trace|track)$/i.test(req.method ?? '')) return answer(405, 'Use POST.', 'bad_request', { allow: 'GET, POST' });
    let request: Request;
    try {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
      }
      request = new Request(`http://${host}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        signal: abort.signal,
        // No node:stream import (workers without Node compatibility load this entry too).
        ...(hasBody
          ? {
              body:
                already ??
                new ReadableStream<Uint8Array>({
                  start(c) {
                    req.on('data', (d: Buffer) => c.enqueue(new Uint8Array(d)));
                    req.on('end', () => c.close());
                    req.on('error', (e) => c.error(e));
                  },
                }),
              duplex: 'half',
            }
          : {}),
      } as RequestInit);
    } catch {
      // A Host header or target no URL parses (`Host: a b`): the client's fault, and never a
      // rejected promise, which would end the Node process.
      return answer(400, 'The request has a Host header or target that is not a URL.', 'bad_request');
    }
    let response: Response;
    try {
      response = await handler(request, { clientId: req.socket.remoteAddress });
    } catch {
      return answer(500, 'The chat server failed.', 'network');
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders();
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    abort.signal.addEventListener('abort', () => reader.cancel().catch(() => {}), { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    } catch {
      res.destroy();
    }
  };
}
