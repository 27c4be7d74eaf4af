// `agent-surface mcp <module>` over stdio, driven by the SDK's Client spawning the command as a
// desktop client would: serveMcpStdio end to end, in a real child process.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { textJson } from './helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = ['--import', 'tsx', 'src/compiler/cli.ts', 'mcp'];
const moduleArg = 'test/mcp/fixtures/devices-module.ts';

const open: Client[] = [];
/** Children a test spawned itself: killed after it, should one outlive a failed test. */
const spawned: ChildProcess[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  for (const child of spawned.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
/** Children get 5 minutes (README, Tests): only a command that never ends reaches this. */
const CHILD_SAFETY_NET = { timeout: 300_000 };

async function start(extra: string[] = [], elicit?: 'accept' | 'decline') {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cli, moduleArg, ...extra],
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  transport.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiters.splice(0)) (stderr.includes(w.line) ? w.resolve : () => waiters.push(w))();
  });
  const client = new Client(
    { name: 'stdio-test', version: '1' },
    { capabilities: elicit ? { elicitation: {} } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, () =>
      elicit === 'accept' ? { action: 'accept', content: {} } : { action: 'decline' },
    );
  // The child compiles the CLI and the module through tsx before it can answer `initialize`: tens
  // of seconds on a loaded machine, past the SDK's 60 s default only when something is wrong.
  await client.connect(transport, { timeout: 300_000 });
  open.push(client);
  const stderrLine = (line: string) =>
    new Promise<void>((resolve) => (stderr.includes(line) ? resolve() : waiters.push({ line, resolve })));
  return { client, stderrLine };
}

describe('agent-surface mcp <module> (stdio)', () => {
  it('lists the module’s tools and calls one', async () => {
    const { client } = await start();
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('domain_devices__list') && names.includes('domain_devices__disable'));
    const result = await client.callTool({
      name: 'domain_devices__rename',
      arguments: { id: 'd1', name: 'Laser' },
    });
    assert.deepEqual(result.structuredContent, { id: 'd1', name: 'Laser' });
    const invalid = await client.callTool({ name: 'domain_devices__rename', arguments: {} });
    assert.equal(textJson(invalid).code, 'INVALID_INPUT');
    const unavailable = await client.callTool({ name: 'domain_devices__reboot', arguments: { id: 'd1' } });
    assert.equal(textJson(unavailable).code, 'CAPABILITY_NOT_AVAILABLE');
  });

  it('asks for a destructive call through elicitation: approved runs, declined is CONFIRMATION_INVALID', async () => {
    const yes = await start([], 'accept');
    const approved = await yes.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.deepEqual(textJson(approved), { disabled: true });
    await yes.stderrLine('invocation domain:devices.disable OK');
    const no = await start([], 'decline');
    const declined = await no.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(textJson(declined).code, 'CONFIRMATION_INVALID');
  });

  it('is two-phase without elicitation', async () => {
    const { client } = await start();
    const result = await client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(textJson(result).code, 'CONFIRMATION_REQUIRED');
  });

  it('cancels a running call', async () => {
    const { client, stderrLine } = await start();
    const controller = new AbortController();
    const call = client.callTool({ name: 'domain_devices__scan', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    // The call is running once the server has it; a ping after it is answered in order.
    await client.ping();
    controller.abort();
    await assert.rejects(call);
    await stderrLine('invocation domain:devices.scan CANCELLED');
  });

  it('sends list_changed after a registration', async () => {
    const { client } = await start();
    await client.listTools();
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await client.callTool({ name: 'domain_devices__addPing', arguments: {} });
    await changed;
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'domain_devices__ping'));
  });

  it('meta mode from the command line', async () => {
    const { client } = await start(['--mode', 'meta']);
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['surface_discover', 'surface_read', 'surface_act'],
    );
  });

  it('fails with a clear message for a module without a registry, or bad flags', async () => {
    for (const [args, pattern] of [
      [['package.json'], /exports no registry|Unknown file extension|must be of type/],
      [[moduleArg, '--port', '3000'], /--port applies to --http only/],
      [[moduleArg, '--mode', 'wide'], /--mode must be "direct" or "meta"/],
      [[], /no module given/],
      [[moduleArg, '--http', '--host', '0.0.0.0'], /not loopback: pass authorize/],
    ] as const) {
      const child = spawn(process.execPath, [...cli, ...args], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const [code] = await once(child, 'exit');
      assert.equal(code, 1, err);
      assert.match(err, pattern);
    }
  });

  it(
    'ends when the client closes its input, even while the module has work of its own going on',
    CHILD_SAFETY_NET,
    async () => {
      const child = spawn(process.execPath, [...cli, 'test/mcp/fixtures/busy-module.ts'], {
        cwd: root,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      spawned.push(child);
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'leaving', version: '1' },
        },
      };
      child.stdin.write(`${JSON.stringify(initialize)}\n`);
      await once(child.stdout, 'data');
      const exited = once(child, 'exit');
      // How a client ends a stdio server (the spec's shutdown: close its input, then wait for the exit).
      child.stdin.end();
      // Before, the module's timer kept the process running, deaf (it read no more input) and, having
      // answered SIGTERM by stopping the server, not ending on that signal either: only SIGKILL did.
      const [code, signal] = await exited;
      assert.equal(signal, null, err);
      assert.equal(code, 0, err);
    },
  );

  it('ends on SIGTERM while the module has work of its own going on (--http)', CHILD_SAFETY_NET, async () => {
    const child = spawn(
      process.execPath,
      [...cli, 'test/mcp/fixtures/busy-module.ts', '--http', '--port', '0'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        if (/MCP server on http/.test(err)) resolve();
      });
      child.once('exit', () => reject(new Error(`exited: ${err}`)));
    });
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.equal(signal, null, err);
    assert.equal(code, 0, err);
  });

  it('serves HTTP with --http on loopback and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [...cli, moduleArg, '--http', '--port', '0', '--token-env', 'TEST_MCP_TOKEN'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TEST_MCP_TOKEN: 'sesame' },
      },
    );
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /MCP server on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error(`exited: ${err}`)));
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example',
      },
      body: '{}',
    });
    assert.equal(res.status, 403);
    // --token-env: a bearer token is required, and the right one opens a session.
    const client = new Client({ name: 'http-cli-test', version: '1' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(url))), /401|Unauthorized/);
    const authorized = new Client({ name: 'http-cli-test', version: '1' });
    await authorized.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: 'Bearer sesame' } },
      }),
    );
    assert.ok((await authorized.listTools()).tools.length > 0);
    await authorized.close();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, err);
  });
});
