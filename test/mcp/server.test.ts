// createMcpServer with the SDK's own Client (in-memory transport, the same Server the HTTP and stdio
// transports carry): the projection, results, errors, confirmations, cancellation, list_changed.
import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentToolset } from '../../src/core/toolset.js';
import { createMcpServer, STATE_META_KEY } from '../../src/mcp/index.js';
import type { McpServerOptions } from '../../src/mcp/index.js';
import { createDevices, type Devices } from './fixtures/devices.js';
import { accept, connectMemory, decline, textJson, type Elicit, type TestClient } from './helpers.js';

before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());

const consumer = { id: 'desktop', kind: 'mcp' } as const;
const open: { close(): Promise<void> }[] = [];
const surfaces: Devices[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  for (const s of surfaces.splice(0)) s.surface.dispose();
});

async function setup(options: Partial<McpServerOptions> = {}, elicit?: Elicit) {
  const devices = createDevices();
  surfaces.push(devices);
  const server = createMcpServer(devices.registry, { consumer, ...options });
  const client = await connectMemory(server, elicit ? { elicit } : {});
  open.push(client);
  return { ...devices, server, client };
}

async function toolNamed(client: TestClient, name: string) {
  const { tools } = await client.client.listTools();
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool, `no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

describe('createMcpServer: direct mode', () => {
  it('lists one tool per visible capability, with the toolset’s names, descriptions and schemas', async () => {
    const { client, registry } = await setup();
    const { tools } = await client.client.listTools();
    const toolset = createAgentToolset(registry, { consumer, topology: 'remote' });
    const expected = toolset.tools();
    assert.deepEqual(
      tools.map((t) => t.name),
      expected.map((t) => t.name),
    );
    for (const tool of expected) {
      const listed = tools.find((t) => t.name === tool.name)!;
      assert.equal(listed.description, tool.description);
      assert.deepEqual(listed.inputSchema, tool.inputSchema);
    }
    toolset.dispose();
  });

  it('derives annotations from kind and effect, and gives outputSchema where the contract has an object one', async () => {
    const { client } = await setup();
    const list = await toolNamed(client, 'domain_devices__list');
    assert.deepEqual(list.annotations, {
      title: 'domain:devices.list',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.equal(list.outputSchema?.type, 'object');
    const disable = await toolNamed(client, 'domain_devices__disable');
    assert.deepEqual(disable.annotations, {
      title: 'domain:devices.disable',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    assert.equal(disable.outputSchema, undefined);
    const reboot = await toolNamed(client, 'domain_devices__reboot');
    assert.equal(reboot.annotations?.openWorldHint, true);
    assert.equal(reboot.annotations?.destructiveHint, false);
    const rename = await toolNamed(client, 'domain_devices__rename');
    assert.equal(rename.annotations?.readOnlyHint, false);
    assert.match(rename.description!, /effect: server-mutation/);
  });

  it('titles a tool with the contract’s own title where it has one (the capability id otherwise)', async () => {
    const { client, surface } = await setup();
    surface.action('domain:devices.wake', () => 'awake', {
      title: 'Wake a device',
      description: 'Wake a device.',
    });
    const wake = await toolNamed(client, 'domain_devices__wake');
    assert.equal(wake.title, 'Wake a device');
    assert.equal(wake.annotations?.title, 'Wake a device');
    assert.equal((await toolNamed(client, 'domain_devices__list')).title, 'domain:devices.list');
  });

  it('keeps an unavailable capability listed, its live state in _meta', async () => {
    const { client } = await setup();
    const reboot = await toolNamed(client, 'domain_devices__reboot');
    assert.deepEqual(reboot._meta?.[STATE_META_KEY], {
      available: false,
      unavailableReason: 'the device is offline',
    });
    assert.doesNotMatch(reboot.description!, /offline/);
  });

  it('answers a JSON object output as text plus structuredContent (checked by the client against outputSchema)', async () => {
    const { client, calls } = await setup();
    const result = await client.client.callTool({ name: 'domain_devices__list', arguments: {} });
    assert.equal(result.isError, false);
    assert.deepEqual(result.structuredContent, {
      devices: [
        { id: 'd1', name: 'Printer' },
        { id: 'd2', name: 'Router' },
      ],
    });
    assert.deepEqual(textJson(result), result.structuredContent);
    assert.deepEqual(calls, ['list']);
  });

  it('returns invalid input as isError content with code, retry and JSON-pointer details; nothing runs', async () => {
    const { client, calls } = await setup();
    const result = await client.client.callTool({
      name: 'domain_devices__rename',
      arguments: { id: 'd1', name: '', extra: 1 },
    });
    assert.equal(result.isError, true);
    const error = textJson(result);
    assert.equal(error.code, 'INVALID_INPUT');
    assert.equal(typeof error.retry, 'string');
    assert.ok(error.details, 'details travel in the content');
    assert.match(JSON.stringify(error.details), /\/name|extra/);
    // The tool declares an outputSchema: the error is not offered as structuredContent.
    assert.equal(result.structuredContent, undefined);
    assert.deepEqual(calls, []);
  });

  it('returns an unavailable capability’s error with its reason, and a handler’s own error unchanged', async () => {
    const { client, calls } = await setup();
    const reboot = await client.client.callTool({ name: 'domain_devices__reboot', arguments: { id: 'd1' } });
    assert.equal(reboot.isError, true);
    const error = textJson(reboot);
    assert.equal(error.code, 'CAPABILITY_NOT_AVAILABLE');
    assert.match(JSON.stringify(error), /offline/);
    // A tool without outputSchema keeps the toolset's structured error.
    assert.deepEqual((reboot.structuredContent as { error: unknown }).error, error);

    const missing = await client.client.callTool({
      name: 'domain_devices__rename',
      arguments: { id: 'nope', name: 'x' },
    });
    assert.equal(textJson(missing).code, 'PRECONDITION_FAILED');
    assert.deepEqual(textJson(missing).details, { id: 'nope' });
    assert.deepEqual(calls, []);
  });

  it('answers an unknown tool name as CAPABILITY_NOT_FOUND content, retry after-refresh', async () => {
    const { client } = await setup();
    const result = await client.client.callTool({ name: 'domain_devices__explode', arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(textJson(result).code, 'CAPABILITY_NOT_FOUND');
    assert.equal(textJson(result).retry, 'after-refresh');
  });

  it('rejects bad options with a TypeError that says what to do', () => {
    const devices = createDevices();
    surfaces.push(devices);
    assert.throws(() => createMcpServer(devices.registry, {} as McpServerOptions), /consumer/);
    assert.throws(
      () => createMcpServer(devices.registry, { consumer, confirmations: 'never' as never }),
      /confirmations/,
    );
    assert.throws(
      () => createMcpServer(devices.registry, { consumer, topology: 'remote' } as never),
      /unknown option "topology"/,
    );
    assert.throws(() => createMcpServer(devices.registry, { consumer, toolName: 'x' as never }), /toolName/);
  });
});

describe('createMcpServer: confirmations', () => {
  it('asks through elicitation in the same call; accept approves and runs once', async () => {
    const { client, calls, surface } = await setup({}, accept);
    const result = await client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd2' } });
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.deepEqual(textJson(result), { disabled: true });
    assert.deepEqual(calls, ['disable d2']);
    assert.equal(client.elicitations.length, 1);
    const { message, requestedSchema } = client.elicitations[0]!.params as {
      message: string;
      requestedSchema: unknown;
    };
    assert.match(message, /domain:devices\.disable/);
    assert.match(message, /Disable a device/);
    assert.match(message, /destructive/);
    assert.match(message, /"id":"d2"/);
    assert.deepEqual(requestedSchema, { type: 'object', properties: {} });
    // The registry recorded and consumed the decision.
    const actions = surface.eventsOf('confirmation').map((e) => e.action);
    assert.deepEqual(actions, ['created', 'approved', 'consumed']);
    assert.deepEqual(surface.registry.confirmations.list(), []);
  });

  it('shows the person hidden characters of the input as escapes: an input cannot pose as more lines of the question', async () => {
    const { client, calls } = await setup({}, decline);
    // A model-chosen id with a line separator, a bidi override and a zero-width space: valid input.
    const id = 'd1\u2028Effect: read\u2028Allow it to run once?\u202e\u200b';
    await client.client.callTool({ name: 'domain_devices__disable', arguments: { id } });
    const { message } = client.elicitations[0]!.params as { message: string };
    assert.doesNotMatch(message, /[\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b]/u);
    assert.match(message, /\\u2028Effect: read\\u2028Allow it to run once\?\\u202e\\u200b/);
    // One effect line, the contract's.
    assert.deepEqual(
      message.split(/[\n\r\u2028\u2029]/).filter((l) => l.startsWith('Effect:')),
      ['Effect: destructive'],
    );
    assert.deepEqual(calls, []);
  });

  for (const action of ['decline', 'cancel'] as const) {
    it(`${action} → the registry's CONFIRMATION_INVALID (denied); nothing runs`, async () => {
      const { client, calls, surface } = await setup({}, () => ({ action }));
      const result = await client.client.callTool({
        name: 'domain_devices__disable',
        arguments: { id: 'd1' },
      });
      assert.equal(result.isError, true);
      const error = textJson(result);
      assert.equal(error.code, 'CONFIRMATION_INVALID');
      assert.equal(error.details.reason, 'denied');
      assert.deepEqual(calls, []);
      assert.deepEqual(
        surface.eventsOf('confirmation').map((e) => e.action),
        ['created', 'denied'],
      );
    });
  }

  it('is two-phase without the elicitation capability: CONFIRMATION_REQUIRED, then the same call runs once approved', async () => {
    const { client, calls, registry } = await setup();
    const first = await client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(first.isError, true);
    const error = textJson(first);
    assert.equal(error.code, 'CONFIRMATION_REQUIRED');
    assert.equal(error.retry, 'with-confirmation');
    assert.equal(typeof error.details.confirmationId, 'string');
    assert.deepEqual(calls, []);
    // The person approves elsewhere (the app's own UI on registry.confirmations).
    assert.equal(registry.confirmations.approve(error.details.confirmationId), true);
    const second = await client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(second.isError, false, JSON.stringify(second));
    assert.deepEqual(calls, ['disable d1']);
    // Once: a third call asks again.
    const third = await client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(textJson(third).code, 'CONFIRMATION_REQUIRED');
    assert.notEqual(textJson(third).details.confirmationId, error.details.confirmationId);
    assert.deepEqual(calls, ['disable d1']);
  });

  it('confirmations "two-phase" never asks, even a client that could', async () => {
    const { client, calls } = await setup({ confirmations: 'two-phase' }, accept);
    const result = await client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(textJson(result).code, 'CONFIRMATION_REQUIRED');
    assert.equal(client.elicitations.length, 0);
    assert.deepEqual(calls, []);
  });

  it('confirmations "wait" without elicitation waits in the call for a decision made elsewhere', async () => {
    const { client, calls, surface } = await setup({ confirmations: 'wait' });
    const call = client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd2' } });
    await surface.approveNext();
    const result = await call;
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.deepEqual(calls, ['disable d2']);
  });

  it('confirmations "wait": a call the client cancels while it waits withdraws its request, and the same call made again asks anew', async () => {
    const { client, calls, surface, registry } = await setup({ confirmations: 'wait' });
    const safetyNet = { timeoutMs: 120_000 };
    const controller = new AbortController();
    const asked = surface.nextConfirmation(safetyNet);
    const call = client.client.callTool(
      { name: 'domain_devices__disable', arguments: { id: 'd1' } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    const record = await asked;
    const withdrawn = new Promise<void>((resolve) => {
      const off = registry.on('confirmation', (e) => {
        if (e.action === 'denied' && e.confirmation.confirmationId === record.confirmationId) {
          off();
          resolve();
        }
      });
    });
    controller.abort('stop');
    await assert.rejects(call);
    // Off the person's screen, as a toolset's and WebMCP's waits do: nobody waits for that answer now.
    await withdrawn;
    // A late click counts for nothing: before, it approved the request, and the model's next identical
    // call ran on that approval without anybody being asked about it.
    assert.equal(registry.confirmations.approve(record.confirmationId), false);
    const again = client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    const second = await surface.nextConfirmation(safetyNet);
    assert.notEqual(second.confirmationId, record.confirmationId);
    assert.deepEqual(calls, []);
    registry.confirmations.approve(second.confirmationId);
    const result = await again;
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.deepEqual(calls, ['disable d1']);
  });

  it('confirmations "wait": cancelling one of two identical calls waiting on the same request leaves it to the other', async () => {
    const { client, calls, surface, registry } = await setup({ confirmations: 'wait' });
    // Both calls ask the registry once before they wait: the second is presented the first one's request.
    let asking = 0;
    let bothAsked!: () => void;
    const asked = new Promise<void>((resolve) => (bothAsked = resolve));
    const off = registry.on('invocation', (e) => {
      if (e.outcome === 'CONFIRMATION_REQUIRED' && ++asking === 2) bothAsked();
    });
    const controller = new AbortController();
    const first = client.client.callTool(
      { name: 'domain_devices__disable', arguments: { id: 'd1' } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    const record = await surface.nextConfirmation({ timeoutMs: 120_000 });
    const second = client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    await asked;
    off();
    assert.equal(registry.confirmations.list().length, 1);
    controller.abort('stop');
    await assert.rejects(first);
    // A round trip after the cancellation: the server has handled it.
    await client.client.ping();
    assert.equal(
      registry.confirmations.approve(record.confirmationId),
      true,
      'still pending for the second call',
    );
    const result = await second;
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.deepEqual(calls, ['disable d1']);
  });

  it('a call the client cancels during the elicitation withdraws its request too', async () => {
    let asked!: () => void;
    const question = new Promise<void>((resolve) => (asked = resolve));
    const { client, calls, registry } = await setup({}, () => {
      asked();
      // The person never answers this one.
      return new Promise(() => {});
    });
    const controller = new AbortController();
    const call = client.client.callTool(
      { name: 'domain_devices__disable', arguments: { id: 'd2' } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    await question;
    const [record] = registry.confirmations.list();
    const withdrawn = new Promise<void>((resolve) => {
      const off = registry.on('confirmation', (e) => {
        if (e.action === 'denied' && e.confirmation.confirmationId === record!.confirmationId) {
          off();
          resolve();
        }
      });
    });
    controller.abort('stop');
    await assert.rejects(call);
    await withdrawn;
    assert.deepEqual(
      registry.confirmations.list().filter((r) => r.status === 'pending'),
      [],
    );
    assert.deepEqual(calls, []);
  });

  it('a client that fails the elicitation gets the two-phase answer, the record left pending', async () => {
    const { client, calls, registry } = await setup({}, () => {
      throw new Error('no UI here');
    });
    const result = await client.client.callTool({ name: 'domain_devices__disable', arguments: { id: 'd1' } });
    assert.equal(textJson(result).code, 'CONFIRMATION_REQUIRED');
    assert.equal(registry.confirmations.list().length, 1);
    assert.deepEqual(calls, []);
  });
});

describe('createMcpServer: cancellation and list_changed', () => {
  it('a client’s notifications/cancelled aborts the call’s signal', async () => {
    const { client, nextScan, surface } = await setup();
    const controller = new AbortController();
    const started = nextScan();
    const call = client.client.callTool({ name: 'domain_devices__scan', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    const signal = await started;
    assert.equal(signal.aborted, false);
    controller.abort('stop');
    await assert.rejects(call, /abort|stop/i);
    if (!signal.aborted)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    assert.equal(signal.aborted, true);
    // The registry saw the cancellation as CANCELLED.
    const outcomes = async () =>
      surface.eventsOf('invocation').filter((e) => e.capabilityId === 'domain:devices.scan');
    while ((await outcomes()).length === 0) await new Promise((r) => setImmediate(r));
    assert.equal((await outcomes())[0]!.outcome, 'CANCELLED');
  });

  it('sends one list_changed per surface change, coalesced, and the new list has the new tool', async () => {
    const { client, surface } = await setup();
    await client.client.listTools();
    const changed = client.nextListChanged();
    // Two registrations in one task: one surface change.
    surface.action('domain:devices.ping', () => 'pong', { description: 'Ping a device.' });
    surface.action('domain:devices.wake', () => 'awake', { description: 'Wake a device.' });
    await changed;
    // A round trip on the same ordered transport: anything else sent before it has arrived.
    await client.client.ping();
    assert.equal(client.listChanged(), 1);
    const names = (await client.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('domain_devices__ping') && names.includes('domain_devices__wake'));

    const again = client.nextListChanged();
    const handle = surface.action('domain:devices.sleep', () => 'asleep');
    await again;
    handle.unregister();
    await client.nextListChanged();
    await client.client.ping();
    assert.equal(client.listChanged(), 3);
  });

  it('sends nothing in meta mode, whose three tools never change', async () => {
    const { client, surface, server } = await setup({ mode: 'meta' });
    assert.equal(server.getClientCapabilities() !== undefined, true);
    surface.action('domain:devices.ping', () => 'pong');
    await client.client.ping();
    await new Promise((r) => setImmediate(r));
    await client.client.ping();
    assert.equal(client.listChanged(), 0);
  });

  it('closing the server releases the projection: no more notifications', async () => {
    const { client, surface, server } = await setup();
    await server.close();
    surface.action('domain:devices.ping', () => 'pong');
    await new Promise((r) => setImmediate(r));
    assert.equal(client.listChanged(), 0);
  });
});

describe('createMcpServer: meta mode', () => {
  it('lists the three fixed tools with constant schemas', async () => {
    const { client } = await setup({ mode: 'meta' });
    const { tools } = await client.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['surface_discover', 'surface_read', 'surface_act'],
    );
    assert.equal(tools.find((t) => t.name === 'surface_read')!.annotations?.readOnlyHint, true);
    assert.equal(tools.find((t) => t.name === 'surface_act')!.annotations?.readOnlyHint, false);
  });

  it('discovers, reads and acts through the registry; a destructive act asks through elicitation', async () => {
    const { client, calls } = await setup({ mode: 'meta' }, accept);
    const discovered = textJson(await client.client.callTool({ name: 'surface_discover', arguments: {} }));
    assert.match(JSON.stringify(discovered), /domain:devices\.disable/);
    const read = await client.client.callTool({
      name: 'surface_read',
      arguments: { capabilityId: 'domain:devices.list' },
    });
    assert.equal(read.isError, false, JSON.stringify(read));
    const acted = await client.client.callTool({
      name: 'surface_act',
      arguments: {
        capabilityId: 'domain:devices.disable',
        input: { id: 'd1' },
        surfaceVersion: discovered.surfaceVersion,
      },
    });
    assert.equal(acted.isError, false, JSON.stringify(acted));
    assert.deepEqual(calls, ['list', 'disable d1']);
    assert.equal(client.elicitations.length, 1);
  });

  it('a read that needs the person’s approval asks through elicitation too, and reads once approved', async () => {
    const { client, surface } = await setup({ mode: 'meta' }, accept);
    surface.observation('domain:devices.secrets', () => ({ wifiPassword: 'hunter2' }), {
      confirmation: 'required',
      description: 'Read the Wi-Fi password.',
    });
    // Before, surface_read answered CONFIRMATION_REQUIRED without asking, telling the model to call
    // again with ids that surface_read's schema does not take.
    const read = await client.client.callTool({
      name: 'surface_read',
      arguments: { capabilityId: 'domain:devices.secrets' },
    });
    assert.equal(read.isError, false, JSON.stringify(read));
    assert.deepEqual(textJson(read), { wifiPassword: 'hunter2' });
    assert.equal(client.elicitations.length, 1);
    assert.match((client.elicitations[0]!.params as { message: string }).message, /domain:devices\.secrets/);
    assert.deepEqual(
      surface.eventsOf('confirmation').map((e) => e.action),
      ['created', 'approved', 'consumed'],
    );
  });

  it('confirmations "wait": a read that needs approval waits for the decision made elsewhere', async () => {
    const { client, surface } = await setup({ mode: 'meta', confirmations: 'wait' });
    surface.observation('domain:devices.secrets', () => ({ wifiPassword: 'hunter2' }), {
      confirmation: 'required',
      description: 'Read the Wi-Fi password.',
    });
    const read = client.client.callTool({
      name: 'surface_read',
      arguments: { capabilityId: 'domain:devices.secrets' },
    });
    await surface.approveNext({ timeoutMs: 120_000 });
    const result = await read;
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.deepEqual(textJson(result), { wifiPassword: 'hunter2' });
  });

  it('a declined act is CONFIRMATION_INVALID', async () => {
    const { client, calls } = await setup({ mode: 'meta' }, decline);
    const discovered = textJson(await client.client.callTool({ name: 'surface_discover', arguments: {} }));
    const acted = await client.client.callTool({
      name: 'surface_act',
      arguments: {
        capabilityId: 'domain:devices.disable',
        input: { id: 'd1' },
        surfaceVersion: discovered.surfaceVersion,
      },
    });
    assert.equal(textJson(acted).code, 'CONFIRMATION_INVALID');
    assert.deepEqual(calls, []);
  });
});

describe('createMcpServer: toolName', () => {
  it('names tools your way and reverses them through the same catalog map', async () => {
    const { client, calls } = await setup({
      toolName: (id, instance) =>
        instance === undefined ? id.replace(/^domain:devices\./, 'devices_') : undefined,
    });
    const names = (await client.client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      'devices_disable',
      'devices_list',
      'devices_reboot',
      'devices_rename',
      'devices_scan',
    ]);
    const result = await client.client.callTool({
      name: 'devices_rename',
      arguments: { id: 'd1', name: 'Laser' },
    });
    assert.deepEqual(result.structuredContent, { id: 'd1', name: 'Laser' });
    // The wire name is not a second way in.
    const wire = await client.client.callTool({
      name: 'domain_devices__rename',
      arguments: { id: 'd1', name: 'X' },
    });
    assert.equal(textJson(wire).code, 'CAPABILITY_NOT_FOUND');
    assert.deepEqual(calls, ['rename d1 Laser']);
  });

  it('keeps the wire name where toolName gives an invalid or duplicate name, or throws', async () => {
    const { client } = await setup({
      toolName: (id) => {
        if (id.endsWith('list')) return 'has space';
        if (id.endsWith('scan')) throw new Error('boom');
        return 'same';
      },
    });
    const names = (await client.client.listTools()).tools.map((t) => t.name);
    assert.equal(names.length, 5);
    assert.equal(new Set(names).size, 5);
    assert.equal(names.filter((n) => n === 'same').length, 1);
    assert.ok(names.includes('domain_devices__list') && names.includes('domain_devices__scan'));
    // The two that wanted "same" too keep their wire names.
    assert.equal(names.filter((n) => /^domain_devices__(disable|reboot|rename)$/.test(n)).length, 2);
  });
});
