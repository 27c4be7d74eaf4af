/**
 * The MCP projection over Streamable HTTP on loopback: tool calls per second through `serveMcpHttp`
 * with the SDK's client, one session and ten concurrent sessions, beside a bare SDK server (the same
 * transport, one `Server` per session) whose `tools/call` runs the same handler directly. The ratio
 * is what the projection and the registry's pipeline cost. Then the heap each idle session holds.
 * Prints a markdown table.
 *
 *   node --expose-gc --import tsx bench/mcp.bench.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { compileContracts } from '../src/compiler/compile.js';
import { createCompilerAuthority } from '../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../src/core/registry.js';
import type { CapabilityContract, JsonObject } from '../src/core/types.js';
import { serveMcpHttp } from '../src/mcp/index.js';

// The SDK's client transport adds an abort listener per request to one long-lived signal (client
// side, not the servers measured): Node's leak warning would bury the table.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning' && /abort listeners/.test(warning.message)) return;
  console.warn(warning);
});

const ROUNDS = 3;
const CALLS_ONE = 1000;
const CALLS_PER_SESSION = 200;
const SESSIONS = 10;
const IDLE_SESSIONS = 200;

const inputSchema = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1 }, note: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
} as const;

/** The handler both servers run. */
const handler = (input: JsonObject) => ({ ok: input.id as string, at: 1 });

interface Target {
  name: string;
  url: string;
  tool: string;
  close(): Promise<void>;
}

async function kitServer(): Promise<Target> {
  const contract: CapabilityContract = {
    id: 'domain:bench.records.update',
    kind: 'action',
    effect: 'local-state',
    description: 'Update a record.',
    concurrency: 'parallel',
    inputSchema: inputSchema as unknown as JsonObject,
  };
  const { manifest, validators } = await compileContracts([contract]);
  const authority = createCompilerAuthority({ manifest, validators });
  const registry = createAgentSurfaceRegistry({ authority });
  const e = authority.contract(contract.id)!;
  registry.register({ contract: e.contract, token: e.token, handler });
  const served = await serveMcpHttp(registry, { maxSessions: 1000 });
  return {
    name: 'serveMcpHttp (registry, direct mode)',
    url: served.url,
    tool: 'domain_bench__records__update',
    close: async () => {
      await served.close();
      registry.dispose();
    },
  };
}

/** The SDK's documented session pattern on node:http, with the handler called directly. */
async function bareServer(): Promise<Target> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const makeServer = () => {
    const server = new Server({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'update', description: 'Update a record.', inputSchema: inputSchema as never }],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const output = handler((request.params.arguments ?? {}) as JsonObject);
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    });
    return server;
  };
  const readJson = (req: IncomingMessage) =>
    new Promise<unknown>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
    });
  const http = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (typeof id === 'string') {
      const t = sessions.get(id);
      if (!t) return void res.writeHead(404).end();
      return t.handleRequest(req, res, body);
    }
    if (!isInitializeRequest(body)) return void res.writeHead(400).end();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await makeServer().connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    name: 'bare SDK Server, same handler',
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    tool: 'update',
    close: async () => {
      for (const t of sessions.values()) await t.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function callLoop(client: Client, tool: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const result = await client.callTool({ name: tool, arguments: { id: `r${i}`, note: 'hello' } });
    if (result.isError) throw new Error(`bench: call failed ${JSON.stringify(result.content)}`);
  }
}

/** Calls per second: one session, then ten at once (each a client of its own). */
async function throughput(target: Target): Promise<{ one: number; ten: number }> {
  const single = await connect(target.url);
  await callLoop(single, target.tool, 200); // warm-up
  let t0 = performance.now();
  await callLoop(single, target.tool, CALLS_ONE);
  const one = CALLS_ONE / ((performance.now() - t0) / 1000);
  await single.close();

  const clients = await Promise.all(Array.from({ length: SESSIONS }, () => connect(target.url)));
  await Promise.all(clients.map((c) => callLoop(c, target.tool, 50)));
  t0 = performance.now();
  await Promise.all(clients.map((c) => callLoop(c, target.tool, CALLS_PER_SESSION)));
  const ten = (SESSIONS * CALLS_PER_SESSION) / ((performance.now() - t0) / 1000);
  await Promise.all(clients.map((c) => c.close()));
  return { one, ten };
}

const gc = (globalThis as { gc?: () => void }).gc;
function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** Heap per idle session: raw initialize + initialized, no client object kept on this side. */
async function idleSessionBytes(target: Target): Promise<number> {
  const open = async () => {
    const init = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'idle', version: '1' },
        },
      }),
    });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const note = await fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await note.text();
  };
  for (let i = 0; i < 10; i++) await open(); // warm-up: code paths and lazy caches
  const before = heap();
  for (let i = 0; i < IDLE_SESSIONS; i++) await open();
  const after = heap();
  return (after - before) / IDLE_SESSIONS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (!gc) console.warn('run with --expose-gc for the memory figure');
  const targets = [await bareServer(), await kitServer()];
  const runs = new Map(targets.map((t) => [t, { one: [] as number[], ten: [] as number[] }]));
  // Rounds alternate which server goes first, so warm-up and load drift fall on both alike.
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const { one, ten } = await throughput(target);
      runs.get(target)!.one.push(one);
      runs.get(target)!.ten.push(ten);
    }
  }
  const idle = new Map<Target, number>();
  for (const target of targets) idle.set(target, await idleSessionBytes(target));
  for (const target of targets) await target.close();

  console.log('| server | calls/s, 1 session | calls/s, 10 sessions | heap per idle session |');
  console.log('|---|---:|---:|---:|');
  const figures = targets.map((t) => ({
    one: median(runs.get(t)!.one),
    ten: median(runs.get(t)!.ten),
    idle: idle.get(t)!,
  }));
  targets.forEach((t, i) => {
    const f = figures[i]!;
    console.log(
      `| ${t.name} | ${Math.round(f.one)} | ${Math.round(f.ten)} | ${(f.idle / 1024).toFixed(1)} KB |`,
    );
  });
  const [bare, kit] = figures as [(typeof figures)[number], (typeof figures)[number]];
  console.log(
    `| ratio kit / bare | ${(kit.one / bare.one).toFixed(2)} | ${(kit.ten / bare.ten).toFixed(2)} | ${(kit.idle / bare.idle).toFixed(2)} |`,
  );
  console.log(
    `\nMedians of ${ROUNDS} alternating rounds: ${CALLS_ONE} sequential calls in one session; ${SESSIONS} sessions × ${CALLS_PER_SESSION} calls at once. Heap after gc over ${IDLE_SESSIONS} idle sessions (initialized, no stream open).`,
  );
}

await main();
