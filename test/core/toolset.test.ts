import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentToolset, renderCapabilityState } from '../../src/core/toolset.js';
import { toToolResult } from '../../src/core/tool-result.js';
import type { AgentToolset, AgentToolsetOptions, JsonObject } from '../../src/core/types.js';
import { createTestSurface } from '../../src/testing/index.js';

// devAuthority() warns once per capability id: expected here, noise in the output.
before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());
// Pending confirmations hold TTL timers: dispose every surface so the process can end.
const live: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const s of live.splice(0)) s.dispose();
});

const consumer = { id: 'panel', kind: 'embedded' } as const;
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const idSchema: JsonObject = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1 } },
  required: ['id'],
  additionalProperties: false,
};

function devices() {
  const surface = createTestSurface({ consumer });
  live.push(surface);
  const calls: string[] = [];
  const handles = {
    select: surface.action(
      'view:devices.table.selectRows',
      (input) => (calls.push(`select ${JSON.stringify(input)}`), { selected: 1 }),
      {
        instanceId: 'main',
        description: 'Select rows of the devices table.',
        inputSchema: {
          type: 'object',
          properties: { ids: { type: 'array', items: { type: 'string' } } },
          additionalProperties: false,
        },
      },
    ),
    disable: surface.action(
      'domain:devices.disable',
      (input) => (calls.push(`disable ${input.id}`), { disabled: input.id }),
      {
        effect: 'destructive',
        confirmation: 'required',
        description: 'Disable a device.',
        inputSchema: idSchema,
      },
    ),
    rename: surface.action('domain:devices.rename', () => ({ ok: true }), {
      effect: 'server-mutation',
      description: 'Rename a device.',
      inputSchema: idSchema,
      state: { available: false, unavailableReason: 'select exactly one device' },
    }),
    count: surface.observation('domain:devices.count', () => 3, {
      description: 'How many devices there are.',
    }),
    billing: surface.action('domain:billing.refund', () => ({}), {
      effect: 'server-mutation',
      description: 'Refund an invoice.',
    }),
  };
  return { surface, registry: surface.registry, handles, calls };
}

function toolset(
  registry: ReturnType<typeof devices>['registry'],
  options: Partial<AgentToolsetOptions> = {},
): AgentToolset {
  return createAgentToolset(registry, { consumer, topology: 'embedded', ...options } as AgentToolsetOptions);
}

describe('createAgentToolset options', () => {
  it('throws a clear error for each programmer mistake', () => {
    const { registry } = devices();
    const cases: Array<[unknown, RegExp]> = [
      [{ topology: 'embedded' }, /consumer must be \{ id, kind \}/],
      [{ consumer: { id: '', kind: 'x' }, topology: 'embedded' }, /consumer must be/],
      [{ consumer }, /topology "embedded".*or "remote".*confirmations "wait" \| "two-phase"/s],
      [{ consumer, topology: 'embedded', budget: { maxComponents: 5 } }, /budget applies to meta mode only/],
      [{ consumer, topology: 'embedded', mode: 'lazy' }, /unknown mode "lazy": use "direct" or "meta"/],
      [{ consumer, topology: 'cloud' }, /unknown topology "cloud"/],
      [{ consumer, confirmations: 'later' }, /unknown confirmations "later": use "wait" or "two-phase"/],
      [{ consumer, topology: 'embedded', scope: 'devices' }, /scope must be an array/],
      [{ consumer, topology: 'embedded', scope: [''] }, /"" is not a prefix/],
      [{ consumer, topology: 'embedded', scope: ['devices..table'] }, /is not a prefix/],
      [{ consumer, topology: 'embedded', scope: ['admin:devices'] }, /is not a prefix/],
      [{ consumer, topology: 'embedded', scope: [42] }, /is not a prefix/],
      [
        { consumer, mode: 'meta', topology: 'remote', budget: { maxComponents: -1 } },
        /options\.budget must be \{ maxComponents\?, maxBytes\? \} with non-negative integers/,
      ],
      [
        { consumer, mode: 'meta', topology: 'remote', budget: { maxTokens: 5 } },
        /options\.budget must be \{ maxComponents\?, maxBytes\? \}/,
      ],
      [{ consumer, topology: 'embedded', confirmation: 'wait' }, /unknown option "confirmation"/],
    ];
    for (const [options, message] of cases) {
      assert.throws(
        () => createAgentToolset(registry, options as AgentToolsetOptions),
        message,
        JSON.stringify(options),
      );
    }
    assert.throws(
      () => createAgentToolset({} as never, { consumer, topology: 'embedded' }),
      /registry from createAgentSurfaceRegistry/,
    );
    // Valid: scope in both modes, budget in meta, an explicit confirmation mode without topology.
    createAgentToolset(registry, {
      consumer,
      confirmations: 'wait',
      scope: ['devices', 'view:devices.table', 'domain:'],
    });
    createAgentToolset(registry, {
      consumer,
      mode: 'meta',
      topology: 'remote',
      scope: ['devices'],
      budget: { maxComponents: 3, maxBytes: 4096 },
    });
  });
});

describe('direct mode', () => {
  it('gives one tool per visible capability instance, with stable text and live state apart', () => {
    const { registry } = devices();
    const tools = toolset(registry).tools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'domain_billing__refund',
        'domain_devices__count',
        'domain_devices__disable',
        'domain_devices__rename',
        'view_devices__table__selectRows_at_main',
      ],
    );
    const disable = tools.find((t) => t.name === 'domain_devices__disable')!;
    assert.equal(
      disable.description,
      'Disable a device.\n[domain action · effect: destructive · confirmation: required (a person approves each call) · id: domain:devices.disable]',
    );
    assert.deepEqual(disable.inputSchema, idSchema);
    const rename = tools.find((t) => t.name === 'domain_devices__rename')!;
    assert.deepEqual(rename.state, { available: false, unavailableReason: 'select exactly one device' });
    assert.doesNotMatch(rename.description, /select exactly one/);
    const select = tools.find((t) => t.name.startsWith('view_'))!;
    assert.match(
      select.description,
      /^Select rows of the devices table\.\n\[view action · effect: local-state · confirmation: never · id: view:devices\.table\.selectRows · instance: "main"\]$/,
    );
    for (const tool of tools) {
      assert.ok(Object.isFrozen(tool));
      assert.equal(tool.inputSchema.type, 'object');
    }
  });

  it('keeps descriptions when availability changes and renders state in capabilityState()', () => {
    const { registry, handles } = devices();
    const ts = toolset(registry);
    const before = ts.tools().find((t) => t.name === 'domain_devices__rename')!;
    assert.equal(
      ts.capabilityState(),
      'Current capability state:\n- domain_devices__rename: unavailable: "select exactly one device"',
    );
    handles.rename.update({ available: true, note: 'device d7 selected' });
    handles.count.update({ available: false });
    const afterTools = ts.tools();
    const after = afterTools.find((t) => t.name === 'domain_devices__rename')!;
    assert.equal(after.description, before.description);
    assert.deepEqual(after.state, { available: true, note: 'device d7 selected' });
    assert.equal(
      ts.capabilityState(),
      'Current capability state:\n- domain_devices__count: unavailable: "not right now"\n- domain_devices__rename: note: "device d7 selected"',
    );
    handles.count.update({ available: true });
    handles.rename.update({ available: true, note: undefined });
    assert.equal(ts.capabilityState(), '');
    assert.equal(renderCapabilityState([]), '');
  });

  it('memoizes tools() on the surface version and reuses unchanged tool objects', () => {
    const { surface, registry, handles } = devices();
    const ts = toolset(registry);
    const first = ts.tools();
    assert.equal(ts.tools(), first, 'same array when nothing changed');
    handles.rename.update({ note: 'now' });
    const second = ts.tools();
    assert.notEqual(second, first);
    for (let i = 0; i < first.length; i++) {
      if (first[i]!.name === 'domain_devices__rename') assert.notEqual(second[i], first[i]);
      else assert.equal(second[i], first[i], `${first[i]!.name} reused`);
    }
    // An unrelated registration neither renames nor rebuilds the others.
    surface.action('domain:alerts.mute', () => null, { description: 'Mute alerts.' });
    const third = ts.tools();
    assert.equal(third.length, second.length + 1);
    for (const tool of second) assert.ok(third.includes(tool), tool.name);
  });

  it('follows scope and policies: hidden capabilities have no tool', () => {
    const { registry } = devices();
    assert.deepEqual(
      toolset(registry, { scope: ['devices'] })
        .tools()
        .map((t) => t.name),
      [
        'domain_devices__count',
        'domain_devices__disable',
        'domain_devices__rename',
        'view_devices__table__selectRows_at_main',
      ],
    );
    assert.deepEqual(
      toolset(registry, { scope: ['view:devices'] })
        .tools()
        .map((t) => t.name),
      ['view_devices__table__selectRows_at_main'],
    );
    registry.setPolicies([
      {
        name: 'no-billing',
        discover: ({ capability }) => !capability.capabilityId.startsWith('domain:billing'),
      },
    ]);
    assert.ok(
      !toolset(registry)
        .tools()
        .some((t) => t.name.includes('billing')),
    );
  });

  it('maps wire names back through wireNameMap() and wireTargets()', () => {
    const { surface, registry } = devices();
    surface.action('view:devices.table.selectRows', () => ({}), {
      instanceId: 'side.panel',
      description: 'Select rows of the devices table.',
      inputSchema: {
        type: 'object',
        properties: { ids: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    });
    const ts = toolset(registry);
    const names = ts.wireNameMap();
    assert.equal(names.size, ts.tools().length);
    assert.equal(names.get('domain_devices__disable'), 'domain:devices.disable');
    assert.equal(names.get('view_devices__table__selectRows_at_main'), 'view:devices.table.selectRows');
    const side = ts.tools().find((t) => t.name.includes('side_panel'))!;
    assert.match(side.name, /^view_devices__table__selectRows_at_side_panel-[0-9a-z]{8}$/);
    assert.deepEqual(ts.wireTargets().get(side.name), {
      capabilityId: 'view:devices.table.selectRows',
      instanceId: 'side.panel',
    });
    assert.deepEqual(ts.wireTargets().get('domain_devices__count'), { capabilityId: 'domain:devices.count' });
    assert.equal(ts.wireNameMap(), names, 'the same map while nothing changed');
  });

  it('executes through the registry with instance, registration and surface version', async () => {
    const { surface, registry, calls } = devices();
    const ts = toolset(registry);
    const select = ts.tools().find((t) => t.name === 'view_devices__table__selectRows_at_main')!;
    const ok = await select.execute({ ids: ['d1'] }, { toolCallId: 'call-1' });
    assert.equal(ok.ok, true);
    assert.equal(ok.invocationId, 'call-1');
    assert.deepEqual(calls, ['select {"ids":["d1"]}']);
    const audit = surface.eventsOf('invocation').at(-1)!;
    assert.equal(audit.consumer.id, 'panel');
    assert.equal(audit.instanceId, 'main');

    const bad = await select.execute({ ids: 'd1' });
    assert.equal(!bad.ok && bad.error.code, 'INVALID_INPUT');
    assert.deepEqual(toToolResult(bad).isError, true);

    const count = ts.tools().find((t) => t.name === 'domain_devices__count')!;
    const read = await count.execute({});
    assert.deepEqual(read.ok && read.output, 3);

    const rename = ts.tools().find((t) => t.name === 'domain_devices__rename')!;
    const unavailable = await rename.execute({ id: 'd1' });
    assert.equal(!unavailable.ok && unavailable.error.code, 'CAPABILITY_NOT_AVAILABLE');
  });

  it('fails closed when a tool was built before its capability changed', async () => {
    const { surface, registry, handles } = devices();
    const ts = toolset(registry);
    const old = ts.tools().find((t) => t.name === 'domain_devices__count')!;
    handles.count.unregister();
    surface.observation('domain:devices.count', () => 4, { description: 'How many devices there are.' });
    const stale = await old.execute({});
    assert.equal(!stale.ok && stale.error.code, 'STALE_CAPABILITY');
    assert.equal(!stale.ok && stale.error.retry, 'after-refresh');
    const fresh = ts.tools().find((t) => t.name === 'domain_devices__count')!;
    assert.notEqual(fresh, old);
    const now = await fresh.execute({});
    assert.deepEqual(now.ok && now.output, 4);
  });

  it('keeps a reused tool current across unrelated changes (no spurious STALE_CAPABILITY)', async () => {
    const { registry, handles } = devices();
    const ts = toolset(registry);
    const disable = ts.tools().find((t) => t.name === 'domain_devices__count')!;
    handles.rename.update({ note: 'one' });
    handles.count.update({ available: false });
    handles.count.update({ available: true });
    const tools = ts.tools();
    assert.ok(tools.includes(disable), 'unchanged descriptor: same tool object');
    const result = await disable.execute({});
    assert.equal(result.ok, true, JSON.stringify(result));
  });
});

describe('subscribe', () => {
  it('fires once per relevant change, coalesced, and not for changes outside its scope', async () => {
    const { surface, registry, handles } = devices();
    const ts = toolset(registry, { scope: ['devices'] });
    let fired = 0;
    const off = ts.subscribe(() => fired++);
    handles.billing.update({ note: 'outside the scope' });
    await tick();
    assert.equal(fired, 0);
    handles.rename.update({ available: true });
    handles.count.update({ note: 'three' });
    await tick();
    assert.equal(fired, 1);
    surface.action('domain:devices.reboot', () => null, { description: 'Reboot a device.' });
    await tick();
    assert.equal(fired, 2);
    assert.ok(ts.tools().some((t) => t.name === 'domain_devices__reboot'));
    off();
    handles.rename.update({ available: false });
    await tick();
    assert.equal(fired, 2);
  });

  it('lets one throwing listener not starve the others', async () => {
    const { registry, handles } = devices();
    const ts = toolset(registry);
    let heard = 0;
    const logged = mock.method(console, 'error', () => {});
    ts.subscribe(() => {
      throw new Error('listener bug');
    });
    ts.subscribe(() => heard++);
    handles.rename.update({ note: 'x' });
    await tick();
    logged.mock.restore();
    assert.equal(heard, 1);
    assert.equal((logged.mock.calls[0]?.arguments[1] as Error)?.message, 'listener bug');
  });
});

describe('confirmations', () => {
  it('wait (embedded default): one execute completes after approval, with one invocation', async () => {
    const { surface, registry, calls } = devices();
    const ts = toolset(registry);
    const disable = ts.tools().find((t) => t.name === 'domain_devices__disable')!;
    const pending = disable.execute({ id: 'd1' }, { toolCallId: 'c-1' });
    const request = await surface.approveNext();
    assert.equal(request.invocationId, 'c-1');
    assert.deepEqual(request.input, { id: 'd1' });
    const result = await pending;
    assert.deepEqual(result.ok && result.output, { disabled: 'd1' });
    assert.equal(result.invocationId, 'c-1');
    assert.deepEqual(calls, ['disable d1']);
    assert.equal(surface.eventsOf('confirmation').filter((e) => e.action === 'created').length, 1);
  });

  it('wait: a denial comes back as CONFIRMATION_INVALID and nothing runs', async () => {
    const { surface, registry, calls } = devices();
    const disable = toolset(registry)
      .tools()
      .find((t) => t.name === 'domain_devices__disable')!;
    const pending = disable.execute({ id: 'd1' });
    await surface.denyNext('not that one');
    const result = await pending;
    assert.equal(!result.ok && result.error.code, 'CONFIRMATION_INVALID');
    assert.equal(!result.ok && result.error.details?.reason, 'denied');
    assert.deepEqual(calls, []);
  });

  it('wait: an expiry comes back as CONFIRMATION_INVALID', async () => {
    const surface = createTestSurface({ consumer, limits: { confirmationTtlMs: 30 } });
    live.push(surface);
    let ran = 0;
    surface.action('domain:devices.wipe', () => ++ran, {
      effect: 'destructive',
      confirmation: 'required',
      description: 'Wipe.',
    });
    const tool = createAgentToolset(surface.registry, { consumer, confirmations: 'wait' }).tools()[0]!;
    const result = await tool.execute({});
    assert.equal(!result.ok && result.error.code, 'CONFIRMATION_INVALID');
    assert.equal(!result.ok && result.error.details?.reason, 'expired');
    assert.equal(ran, 0);
  });

  it('wait: dispose() or the call signal ends the wait with CONFIRMATION_REQUIRED, withdraws the request, and nothing runs', async () => {
    const { surface, registry, calls } = devices();
    const ts = toolset(registry);
    const disable = ts.tools().find((t) => t.name === 'domain_devices__disable')!;
    const controller = new AbortController();
    const byCaller = disable.execute({ id: 'd1' }, { signal: controller.signal });
    const first = await surface.nextConfirmation();
    controller.abort();
    const r1 = await byCaller;
    assert.equal(!r1.ok && r1.error.code, 'CONFIRMATION_REQUIRED');
    // Nobody will retry it: the person no longer sees it, and approving it now does nothing.
    assert.deepEqual(registry.confirmations.list(), []);
    assert.equal(registry.confirmations.approve(first.confirmationId), false);

    const byDispose = disable.execute({ id: 'd2' });
    const second = await surface.nextConfirmation();
    ts.dispose();
    const r2 = await byDispose;
    assert.equal(!r2.ok && r2.error.code, 'CONFIRMATION_REQUIRED');
    assert.deepEqual(registry.confirmations.list(), []);
    registry.confirmations.approve(second.confirmationId);
    await tick();
    assert.deepEqual(calls, []);
    assert.deepEqual(ts.tools(), []);
    const late = await disable.execute({ id: 'd3' });
    assert.equal(!late.ok && late.error.code, 'CANCELLED');
  });

  it('two-phase (remote default): CONFIRMATION_REQUIRED, then the same call after approval runs exactly once', async () => {
    const { surface, registry, calls } = devices();
    const ts = toolset(registry, { topology: 'remote' });
    const disable = () => ts.tools().find((t) => t.name === 'domain_devices__disable')!;
    const first = await disable().execute({ id: 'd1' }, { toolCallId: 'turn1' });
    assert.equal(!first.ok && first.error.code, 'CONFIRMATION_REQUIRED');
    assert.equal(!first.ok && first.error.retry, 'with-confirmation');
    // The tool's schema has no slot for ids: the advice is to make the same call again.
    assert.match(!first.ok ? first.error.message : '', /approve, make the same call again\.$/);
    const confirmationId = !first.ok ? (first.error.details!.confirmationId as string) : '';
    // Still pending: asking again gives the same confirmation, no second record.
    const again = await disable().execute({ id: 'd1' }, { toolCallId: 'turn2' });
    assert.equal(!again.ok && again.error.details?.confirmationId, confirmationId);
    registry.confirmations.approve(confirmationId);
    // Same input, keys in another order, a new tool call id: it is the approved request.
    const done = await disable().execute({ id: 'd1' }, { toolCallId: 'turn3' });
    assert.deepEqual(done.ok && done.output, { disabled: 'd1' });
    assert.equal(done.invocationId, 'turn1');
    assert.deepEqual(calls, ['disable d1']);
    // A later identical call is a new request: a new confirmation.
    const later = await disable().execute({ id: 'd1' }, { toolCallId: 'turn4' });
    assert.equal(!later.ok && later.error.code, 'CONFIRMATION_REQUIRED');
    assert.notEqual(!later.ok && later.error.details?.confirmationId, confirmationId);
    assert.deepEqual(calls, ['disable d1']);
    assert.equal(surface.eventsOf('confirmation').filter((e) => e.action === 'created').length, 2);
  });

  it('two-phase: another input asks anew; a denial is reported once, then forgotten', async () => {
    const { registry, calls } = devices();
    const ts = toolset(registry, { confirmations: 'two-phase' });
    const disable = ts.tools().find((t) => t.name === 'domain_devices__disable')!;
    const a = await disable.execute({ id: 'd1' });
    const b = await disable.execute({ id: 'd2' });
    const idOf = (r: typeof a) => (!r.ok ? r.error.details?.confirmationId : undefined);
    assert.notEqual(idOf(a), idOf(b));
    registry.confirmations.deny(idOf(a) as string, 'no');
    const denied = await disable.execute({ id: 'd1' });
    assert.equal(!denied.ok && denied.error.code, 'CONFIRMATION_INVALID');
    assert.equal(!denied.ok && denied.error.details?.reason, 'denied');
    const fresh = await disable.execute({ id: 'd1' });
    assert.equal(!fresh.ok && fresh.error.code, 'CONFIRMATION_REQUIRED');
    assert.deepEqual(calls, []);
  });
});

describe('catalog collisions', () => {
  it('re-encodes names that collide inside one catalog, and only those', async () => {
    const surface = createTestSurface({ consumer });
    live.push(surface);
    // A non-canonical id is hashed: `view_a_at_b-<hash>`. An instance id can spell the same name.
    surface.action('view:a_at_b', () => 'odd id', { description: 'Odd id.' });
    const hashed = createAgentToolset(surface.registry, { consumer, topology: 'embedded' }).tools()[0]!.name;
    assert.match(hashed, /^view_a_at_b-[0-9a-z]{8}$/);
    surface.action('view:a', () => 'instance', {
      description: 'Spoofing instance.',
      instanceId: hashed.slice('view_a_at_'.length),
    });
    surface.action('domain:bystander', () => 'bystander', { description: 'Unrelated.' });
    const ts = createAgentToolset(surface.registry, { consumer, topology: 'embedded' });
    const names = ts.tools().map((t) => t.name);
    assert.equal(new Set(names).size, 3);
    assert.ok(names.includes('domain_bystander'));
    const contested = names.filter((n) => n !== 'domain_bystander');
    for (const name of contested) assert.match(name, /-[0-9a-z]{14}$/, 'a longer hash');
    const targets = ts.wireTargets();
    assert.deepEqual(
      contested.map((n) => targets.get(n)).sort((x, y) => x!.capabilityId.localeCompare(y!.capabilityId)),
      [
        { capabilityId: 'view:a', instanceId: hashed.slice('view_a_at_'.length) },
        { capabilityId: 'view:a_at_b' },
      ],
    );
    // Each name still reaches its own capability.
    for (const tool of ts.tools()) {
      const result = await tool.execute({});
      const expected =
        { domain_bystander: 'bystander' }[tool.name as 'domain_bystander'] ??
        (targets.get(tool.name)!.instanceId ? 'instance' : 'odd id');
      assert.deepEqual(result.ok && result.output, expected);
    }
  });
});

describe('toToolResult', () => {
  it('keeps output, code, retry and details in the MCP shape', () => {
    assert.deepEqual(toToolResult({ ok: true, output: { a: 1 }, invocationId: 'i', surfaceVersion: 'v' }), {
      content: [{ type: 'text', text: '{"a":1}' }],
      isError: false,
      structuredContent: { a: 1 },
    });
    assert.deepEqual(toToolResult({ ok: true, output: [1, 'x'], invocationId: 'i', surfaceVersion: 'v' }), {
      content: [{ type: 'text', text: '[1,"x"]' }],
      isError: false,
    });
    assert.deepEqual(
      toToolResult({ ok: true, output: null, invocationId: 'i', surfaceVersion: 'v' }).content[0]!.text,
      'null',
    );
    const error = {
      code: 'CONFIRMATION_REQUIRED' as const,
      message: 'needs the person',
      retry: 'with-confirmation' as const,
      details: { confirmationId: 'c1', expiresAt: 5 },
    };
    const failed = toToolResult({ ok: false, error, invocationId: 'i', surfaceVersion: 'v' });
    assert.equal(failed.isError, true);
    assert.deepEqual(JSON.parse(failed.content[0]!.text), error);
    assert.deepEqual(failed.structuredContent, { error });
    const bare = toToolResult({
      ok: false,
      error: { code: 'TIMEOUT', message: 't', retry: 'yes' },
      invocationId: 'i',
      surfaceVersion: 'v',
    });
    assert.deepEqual(JSON.parse(bare.content[0]!.text), { code: 'TIMEOUT', message: 't', retry: 'yes' });
  });
});
