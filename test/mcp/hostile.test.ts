// createMcpServer / serveMcpHttp as a hostile or unlucky MCP client meets them, through the
// official SDK Client: arguments of any shape, names that are not tools, and a capability that
// goes away while its call waits for the person or while its handler runs.
import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_RETRY } from '../../src/core/errors.js';
import { createMcpServer, serveMcpHttp, type McpHttpServer } from '../../src/mcp/index.js';
import { createDevices } from './fixtures/devices.js';
import { connectHttp, connectMemory, textJson, type Elicit, type TestClient } from './helpers.js';

before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());

const consumer = { id: 'desktop', kind: 'mcp' } as const;
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(mode: 'direct' | 'meta' = 'direct', elicit?: Elicit) {
  const devices = createDevices();
  const client = await connectMemory(createMcpServer(devices.registry, { consumer, mode }), elicit ? { elicit } : {});
  cleanup.push(() => devices.surface.dispose(), () => client.close());
  return { ...devices, client };
}

// Every code of the contract but EXECUTION_FAILED, which would mean the kit itself failed.
const CODES = new Set(Object.keys(DEFAULT_RETRY).filter((c) => c !== 'EXECUTION_FAILED'));

/** A result the SDK accepted: content of text items; an error one names a known code. */
function assertResult(result: Awaited<ReturnType<TestClient['client']['callTool']>>, label: string): void {
  assert.ok(Array.isArray(result.content), label);
  if (!result.isError) return;
  const body = textJson(result);
  assert.ok(CODES.has(body.code), `${label}: ${JSON.stringify(body).slice(0, 300)}`);
  assert.equal(typeof body.message, 'string');
  assert.doesNotMatch(JSON.stringify(body), /\n\s+at |TypeError|node:internal/, label);
}

describe('MCP: hostile arguments', () => {
  for (const mode of ['direct', 'meta'] as const) {
    it(`${mode} mode: any arguments to any listed tool answer a tool result with a known code; nothing destructive runs without the person`, async () => {
      const { client, calls } = await setup(mode);
      const { tools } = await client.client.listTools();
      // Not the scan, which runs until it is cancelled.
      const names = tools.map((t) => t.name).filter((n) => n !== 'domain_devices__scan');
      // Not "constructor": the SDK's own request check (zod's record) refuses such an object with a
      // JSON-RPC error before any tool handler sees it (test below), so it is not ours to answer.
      const key = fc.oneof(
        fc.constantFrom('id', 'name', 'capabilityId', 'instanceId', 'input', 'confirmationId', 'invocationId', '__proto__'),
        fc.string({ maxLength: 8 }).filter((k) => k !== 'constructor'),
      );
      const value = fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom('domain:devices.disable', 'domain:devices.rename', 'd1', '', 'x'.repeat(70_000)),
        fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...names), fc.dictionary(key, value, { maxKeys: 5 }), async (name, args) => {
          const result = await client.client.callTool({ name, arguments: args });
          assertResult(result, `${name} ${JSON.stringify(args).slice(0, 120)}`);
        }),
        { numRuns: mode === 'direct' ? 200 : 150 },
      );
      assert.ok(!calls.some((c) => c.startsWith('disable')), `no destructive call ran: ${calls.join(', ')}`);
    });
  }

  it('deep nesting, huge strings and prototype keys in arguments are INVALID_INPUT, not a protocol error', async () => {
    const { client, calls } = await setup();
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const cases: Record<string, unknown>[] = [
      { id: 'd1', name: deep },
      { id: 'd1', name: 'n'.repeat(1_000_000) },
      JSON.parse('{"__proto__":{"id":"d1","name":"polluted"}}'),
    ];
    for (const [i, args] of cases.entries()) {
      const result = await client.client.callTool({ name: 'domain_devices__rename', arguments: args });
      assert.equal(result.isError, true, `case ${i}`);
      assert.equal(textJson(result).code, 'INVALID_INPUT');
    }
    assert.deepEqual(calls, []);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('names that are not tools answer CAPABILITY_NOT_FOUND, cut short, whatever they are', async () => {
    const { client } = await setup();
    for (const name of ['', '__proto__', 'constructor', 'toString', 'x'.repeat(100_000), 'domain_devices__list\u0000', 'domain:devices.list', '../../etc/passwd', '<script>']) {
      const result = await client.client.callTool({ name, arguments: {} });
      assert.equal(result.isError, true, name.slice(0, 20));
      const body = textJson(result);
      assert.equal(body.code, 'CAPABILITY_NOT_FOUND');
      assert.equal(body.retry, 'after-refresh');
      assert.ok(body.message.length < 300);
    }
  });

  it('over Streamable HTTP: a body nested 100 000 levels deep is answered, and the server keeps serving', async () => {
    const devices = createDevices();
    const server: McpHttpServer = await serveMcpHttp(devices.registry, {});
    cleanup.push(() => devices.surface.dispose(), () => server.close());
    const client = await connectHttp(server.url);
    cleanup.push(() => client.close());
    const { tools } = await client.client.listTools();
    const tool = tools.find((t) => t.name === 'domain_devices__rename')!;
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const transport = client.client.transport as StreamableHTTPClientTransport;
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
      },
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${tool.name}","arguments":{"id":"d1","name":${deep}}}}`,
    });
    const text = await res.text();
    assert.ok(res.status < 500, `status ${res.status}: ${text.slice(0, 200)}`);
    assert.match(text, /INVALID_INPUT|"error"/, text.slice(0, 300));
    assert.doesNotMatch(text, /\n\s+at |RangeError/);
    // Still serving.
    const after = await client.client.callTool({ name: 'domain_devices__list', arguments: {} });
    assert.notEqual(after.isError, true);
    assert.deepEqual(devices.calls, ['list']);
  });
});

describe('MCP: what the SDK answers before the kit sees a call', () => {
  it('an arguments object with an own "constructor" key is a JSON-RPC error from the SDK\'s request check, not a tool result (recorded: not the kit\'s to change)', async () => {
    const { client, calls } = await setup();
    await assert.rejects(client.client.callTool({ name: 'domain_devices__list', arguments: { constructor: false } }), /expected record/);
    assert.deepEqual(calls, []);
    // The session goes on.
    assert.notEqual((await client.client.callTool({ name: 'domain_devices__list', arguments: {} })).isError, true);
  });
});

describe('MCP: a capability removed mid-call', () => {
  it('while the call waits for the person: the approval that comes after runs nothing and leaves no pending record', async () => {
    let answer!: (v: { action: 'accept' }) => void;
    let asked!: () => void;
    const question = new Promise<void>((r) => (asked = r));
    const { client, calls, handles, registry } = await setup('direct', () => {
      asked();
      return new Promise((r) => (answer = r));
    });
    const call = client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    await question;
    assert.equal(registry.confirmations.list().length, 1);
    handles.disable!.unregister();
    answer({ action: 'accept' });
    const result = await call;
    assert.equal(result.isError, true);
    assert.equal(textJson(result).code, 'CAPABILITY_NOT_FOUND');
    assert.deepEqual(calls, []);
    assert.deepEqual(registry.confirmations.list().filter((r) => r.status === 'pending'), []);
  });

  it('while its handler runs: the handler’s signal aborts, the call answers COMPONENT_UNMOUNTED with retry after-refresh, and the list changes', async () => {
    const { client, nextScan, handles } = await setup();
    const changed = client.nextListChanged();
    const call = client.client.callTool({ name: 'domain_devices__scan', arguments: {} });
    const signal = await nextScan();
    handles.scan!.unregister();
    const result = await call;
    assert.equal(signal.aborted, true);
    assert.equal(result.isError, true);
    const body = textJson(result);
    assert.equal(body.code, 'COMPONENT_UNMOUNTED');
    assert.equal(body.retry, 'after-refresh');
    await changed;
    const { tools } = await client.client.listTools();
    assert.ok(!tools.some((t) => t.name === 'domain_devices__scan'));
  });

  it('between list and call: the stale name answers CAPABILITY_NOT_FOUND; re-registered, the same name works again', async () => {
    const { client, handles, surface, calls } = await setup();
    await client.client.listTools();
    handles.rename!.unregister();
    const gone = await client.client.callTool({ name: 'domain_devices__rename', arguments: { id: 'd1', name: 'x' } });
    assert.equal(textJson(gone).code, 'CAPABILITY_NOT_FOUND');
    const relisted = client.nextListChanged();
    // The same capability mounted again (the page re-rendered it), with its contract.
    surface.action('domain:devices.rename', () => (calls.push('renamed again'), { id: 'd1', name: 'x' }), {
      effect: 'server-mutation',
      outputSchema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, required: ['id', 'name'] },
    });
    await relisted;
    await client.client.listTools();
    const back = await client.client.callTool({ name: 'domain_devices__rename', arguments: { id: 'd1', name: 'x' } });
    assert.notEqual(back.isError, true, JSON.stringify(back));
    assert.deepEqual(calls, ['renamed again']);
  });
});
