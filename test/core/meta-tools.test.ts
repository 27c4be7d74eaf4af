import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { utf8Length } from '../../src/core/canonical-json.js';
import { resetIssuedWarnings } from '../../src/core/dev.js';
import { META_TOOL_SCHEMAS, parseScopeEntry } from '../../src/core/meta-tools.js';
import { narrowScope } from '../../src/core/meta-calls.js';
import { toToolResult } from '../../src/core/tool-result.js';
import { createAgentToolset } from '../../src/core/toolset.js';
import type {
  AgentInvocationResult,
  AgentTool,
  AgentToolsetOptions,
  JsonObject,
} from '../../src/core/types.js';
import { createTestSurface } from '../../src/testing/index.js';

let warn: ReturnType<typeof mock.method>;
before(() => {
  warn = mock.method(console, 'warn', () => {});
});
after(() => mock.restoreAll());
const live: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const s of live.splice(0)) s.dispose();
});

const consumer = { id: 'remote-agent', kind: 'remote' } as const;

function surface() {
  const s = createTestSurface({ consumer });
  live.push(s);
  const calls: string[] = [];
  s.action(
    'view:devices.table.selectRows',
    (input) => (calls.push(`select ${JSON.stringify(input)}`), { selected: true }),
    {
      instanceId: 'main',
      description: 'Select rows.',
      inputSchema: {
        type: 'object',
        properties: { ids: { type: 'array', items: { type: 'string' } } },
        required: ['ids'],
        additionalProperties: false,
      },
    },
  );
  const side = s.action('view:devices.table.selectRows', () => ({ selected: true }), {
    instanceId: 'side',
    description: 'Select rows.',
    inputSchema: {
      type: 'object',
      properties: { ids: { type: 'array', items: { type: 'string' } } },
      required: ['ids'],
      additionalProperties: false,
    },
  });
  s.action('domain:devices.disable', (input) => (calls.push(`disable ${input.id}`), { disabled: input.id }), {
    effect: 'destructive',
    confirmation: 'required',
    description: 'Disable a device.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    },
  });
  const rename = s.action('domain:devices.rename', () => ({}), {
    effect: 'server-mutation',
    description: 'Rename a device.',
    state: { available: false, unavailableReason: 'select one device' },
  });
  s.observation('domain:devices.count', () => 3, { description: 'Count devices.' });
  s.action('domain:billing.refund', () => (calls.push('refund'), {}), {
    effect: 'server-mutation',
    description: 'Refund.',
  });
  return { s, registry: s.registry, calls, rename, side };
}

function meta(registry: ReturnType<typeof surface>['registry'], options: Partial<AgentToolsetOptions> = {}) {
  const ts = createAgentToolset(registry, {
    consumer,
    mode: 'meta',
    topology: 'remote',
    ...options,
  } as AgentToolsetOptions);
  const [discover, read, act] = ts.tools() as [AgentTool, AgentTool, AgentTool];
  return { ts, discover, read, act };
}

const output = (r: AgentInvocationResult) => {
  assert.equal(r.ok, true, JSON.stringify(r));
  return (r as { output: JsonObject }).output;
};
const errorOf = (r: AgentInvocationResult) => {
  assert.equal(r.ok, false, JSON.stringify(r));
  return (r as { error: { code: string; retry: string; details?: JsonObject } }).error;
};
const ids = (payload: JsonObject) =>
  (payload.capabilities as JsonObject[]).map((c) =>
    c.instanceId ? `${c.capabilityId}@${c.instanceId}` : c.capabilityId,
  );

describe('meta mode tools', () => {
  it('are three fixed tools whose schemas never change', () => {
    const { s, registry } = surface();
    const a = meta(registry);
    assert.deepEqual(
      a.ts.tools().map((t) => t.name),
      ['surface_discover', 'surface_read', 'surface_act'],
    );
    const before = a.ts.tools();
    const snapshotOfSchemas = JSON.stringify(before.map((t) => [t.description, t.inputSchema]));
    s.action('domain:alerts.mute', () => null, { description: 'Mute.' });
    assert.equal(a.ts.tools(), before);
    assert.equal(JSON.stringify(a.ts.tools().map((t) => [t.description, t.inputSchema])), snapshotOfSchemas);
    const b = meta(registry, { scope: ['devices'] });
    for (let i = 0; i < 3; i++)
      assert.equal(b.ts.tools()[i]!.inputSchema, before[i]!.inputSchema, 'identical objects across toolsets');
    assert.ok(Object.isFrozen(META_TOOL_SCHEMAS.surface_act.properties));
    assert.throws(() => {
      (META_TOOL_SCHEMAS.surface_act as unknown as { required: string[] }).required.push('x');
    });
    assert.equal(a.ts.capabilityState(), '');
    assert.equal(a.ts.wireNameMap().size, 0);
  });

  it('surface_discover lists capabilities with live state and echoes surfaceVersion', async () => {
    const { registry } = surface();
    const { discover } = meta(registry);
    const payload = output(await discover.execute({}));
    assert.equal(payload.surfaceVersion, registry.surfaceVersion);
    assert.deepEqual(ids(payload), [
      'domain:billing.refund',
      'domain:devices.count',
      'domain:devices.disable',
      'domain:devices.rename',
      'view:devices.table.selectRows@main',
      'view:devices.table.selectRows@side',
    ]);
    const rename = (payload.capabilities as JsonObject[]).find(
      (c) => c.capabilityId === 'domain:devices.rename',
    )!;
    assert.deepEqual(rename.state, { available: false, unavailableReason: 'select one device' });
    const disable = (payload.capabilities as JsonObject[]).find(
      (c) => c.capabilityId === 'domain:devices.disable',
    )!;
    assert.deepEqual(
      {
        kind: disable.kind,
        effect: disable.effect,
        confirmation: disable.confirmation,
        state: disable.state,
      },
      { kind: 'action', effect: 'destructive', confirmation: 'required', state: undefined },
    );
    assert.equal(payload.truncated, undefined);
    assert.equal(payload.scopeRejected, undefined);
  });

  it('applies the budget and says how much it dropped', async () => {
    const { registry } = surface();
    const byCount = output(await meta(registry, { budget: { maxComponents: 2 } }).discover.execute({}));
    assert.equal((byCount.capabilities as unknown[]).length, 2);
    assert.deepEqual(byCount.truncated, { droppedComponents: 4 });

    const full = toToolResult(await meta(registry).discover.execute({})).content[0]!.text;
    for (const maxBytes of [0, 200, 600, 900, utf8Length(full) - 1, utf8Length(full) + 200]) {
      const result = await meta(registry, { budget: { maxBytes } }).discover.execute({});
      const text = toToolResult(result).content[0]!.text;
      const payload = output(result);
      const kept = (payload.capabilities as unknown[]).length;
      if (kept > 0) assert.ok(utf8Length(text) <= maxBytes, `${utf8Length(text)} <= ${maxBytes}`);
      if (kept < 6) assert.deepEqual(payload.truncated, { droppedComponents: 6 - kept });
      else assert.equal(payload.truncated, undefined);
    }
  });

  it('treats configured scope as a floor the model may only narrow', async () => {
    const { registry } = surface();
    const { discover } = meta(registry, { scope: ['devices'] });
    assert.deepEqual(ids(output(await discover.execute({}))), [
      'domain:devices.count',
      'domain:devices.disable',
      'domain:devices.rename',
      'view:devices.table.selectRows@main',
      'view:devices.table.selectRows@side',
    ]);
    assert.equal(
      ids(output(await discover.execute({ scope: [] }))).length,
      5,
      'an empty array narrows nothing',
    );
    assert.deepEqual(ids(output(await discover.execute({ scope: ['view:devices.table'] }))), [
      'view:devices.table.selectRows@main',
      'view:devices.table.selectRows@side',
    ]);
    // Wider than the floor: cut down to it. Entirely outside: an empty surface and the refused prefixes.
    assert.equal(ids(output(await discover.execute({ scope: ['domain:'] }))).length, 3);
    const outside = output(await discover.execute({ scope: ['billing'] }));
    assert.deepEqual(outside.capabilities, []);
    assert.deepEqual(outside.scopeRejected, { prefixes: ['billing'] });
    assert.equal(outside.surfaceVersion, registry.surfaceVersion);
    const mixed = output(await discover.execute({ scope: ['billing', 'devices.count'] }));
    assert.deepEqual(ids(mixed), ['domain:devices.count']);
    assert.deepEqual(mixed.scopeRejected, { prefixes: ['billing'] });
  });

  it('checks envelopes before the registry sees anything', async () => {
    const { s, registry } = surface();
    const { discover, read, act } = meta(registry);
    const before = s.eventsOf('invocation').length;
    const cases: Array<[AgentTool, unknown, string[]]> = [
      [discover, { scope: ['devices'], limit: 3 }, ['/limit']],
      [discover, { scope: 'devices' }, ['/scope']],
      [discover, { scope: ['ok', ''] }, ['/scope/1']],
      [discover, 'scope=devices', ['']],
      [read, {}, ['/capabilityId']],
      [read, { capabilityId: 7 }, ['/capabilityId']],
      [act, { capabilityId: 'domain:devices.disable' }, ['/input']],
      [act, { input: {} }, ['/capabilityId']],
      [act, { capabilityId: 'domain:devices.disable', input: [] }, ['/input']],
      [
        act,
        { capabilityId: 'domain:devices.disable', input: { id: 'd1' }, registrationId: 'reg-1' },
        ['/registrationId'],
      ],
      [
        act,
        { capabilityId: 'domain:devices.disable', input: { id: 'd1' }, surfaceVersion: 3 },
        ['/surfaceVersion'],
      ],
      [
        act,
        { capabilityId: 'domain:devices.disable', input: { id: 'd1' }, instanceId: null },
        ['/instanceId'],
      ],
      [act, null, ['']],
    ];
    for (const [tool, args, paths] of cases) {
      const error = errorOf(await tool.execute(args));
      assert.equal(error.code, 'INVALID_INPUT', JSON.stringify(args));
      assert.deepEqual(
        (error.details!.issues as JsonObject[]).map((i) => i.path),
        paths,
        JSON.stringify(args),
      );
    }
    assert.equal(s.eventsOf('invocation').length, before, 'no registry call');
  });

  it('surface_read reads observations only', async () => {
    const { registry, calls } = surface();
    const { read } = meta(registry);
    assert.equal(output(await read.execute({ capabilityId: 'domain:devices.count' })), 3);
    const action = errorOf(await read.execute({ capabilityId: 'domain:billing.refund' }));
    assert.equal(action.code, 'INVALID_INPUT');
    assert.equal(
      errorOf(await read.execute({ capabilityId: 'domain:nothing.here' })).code,
      'CAPABILITY_NOT_FOUND',
    );
    assert.deepEqual(calls, []);
  });

  it('surface_act runs through the registry: ambiguity, staleness and scope', async () => {
    const { registry, calls, side } = surface();
    const { discover, act } = meta(registry, { scope: ['devices'] });
    const version = output(await discover.execute({})).surfaceVersion as string;

    const ambiguous = errorOf(
      await act.execute({ capabilityId: 'view:devices.table.selectRows', input: { ids: ['d1'] } }),
    );
    assert.equal(ambiguous.code, 'AMBIGUOUS_INSTANCE', 'left to the registry, no invented registrationId');
    const done = await act.execute({
      capabilityId: 'view:devices.table.selectRows',
      instanceId: 'main',
      input: { ids: ['d1'] },
      surfaceVersion: version,
    });
    assert.deepEqual(output(done), { selected: true });

    // Outside the floor: not reachable, even by a model that knows the id.
    assert.equal(
      errorOf(await act.execute({ capabilityId: 'domain:billing.refund', input: {} })).code,
      'CAPABILITY_NOT_FOUND',
    );
    assert.deepEqual(calls, ['select {"ids":["d1"]}']);

    // The page moved under the plan: the registry fails the call closed.
    side.update({ note: 'rows re-sorted' });
    const stale = errorOf(
      await act.execute({
        capabilityId: 'view:devices.table.selectRows',
        instanceId: 'side',
        input: { ids: ['d2'] },
        surfaceVersion: version,
      }),
    );
    assert.equal(stale.code, 'STALE_CAPABILITY');
    assert.equal(stale.retry, 'after-refresh');
    const foreign = errorOf(
      await act.execute({
        capabilityId: 'view:devices.table.selectRows',
        instanceId: 'main',
        input: { ids: ['d2'] },
        surfaceVersion: 'sv-from-another-page',
      }),
    );
    assert.equal(foreign.code, 'STALE_CAPABILITY');
    assert.deepEqual(calls, ['select {"ids":["d1"]}']);
  });

  it('repairs a JSON-string input only for an object schema, with a development warning', async () => {
    resetIssuedWarnings();
    warn.mock.resetCalls();
    const { registry, calls } = surface();
    const { act } = meta(registry);
    const repaired = await act.execute({
      capabilityId: 'view:devices.table.selectRows',
      instanceId: 'main',
      input: '{"ids":["d9"]}',
    });
    assert.deepEqual(output(repaired), { selected: true });
    assert.deepEqual(calls, ['select {"ids":["d9"]}']);
    assert.ok(warn.mock.calls.some((c) => /meta-input-string/.test(String(c.arguments[0]))));
    for (const text of ['["d9"]', 'ids=d9', '"x"']) {
      const error = errorOf(
        await act.execute({ capabilityId: 'view:devices.table.selectRows', instanceId: 'main', input: text }),
      );
      assert.equal(error.code, 'INVALID_INPUT', text);
    }
    assert.equal(
      errorOf(await act.execute({ capabilityId: 'domain:unknown.thing', input: '{}' })).code,
      'INVALID_INPUT',
    );
    assert.equal(calls.length, 1);
  });

  it('two-phase confirmation through surface_act with confirmationId', async () => {
    const { s, registry, calls } = surface();
    const { discover, act } = meta(registry);
    const version = output(await discover.execute({})).surfaceVersion as string;
    const first = errorOf(
      await act.execute(
        { capabilityId: 'domain:devices.disable', input: { id: 'd1' }, surfaceVersion: version },
        { toolCallId: 't1' },
      ),
    );
    assert.equal(first.code, 'CONFIRMATION_REQUIRED');
    const confirmationId = first.details!.confirmationId as string;
    assert.equal(first.details!.invocationId, 't1', 'the model sees what to echo');
    const text = toToolResult({
      ok: false,
      error: first as never,
      invocationId: 't1',
      surfaceVersion: version,
    }).content[0]!.text;
    assert.match(text, /"code":"CONFIRMATION_REQUIRED"/);
    assert.match(text, /"retry":"with-confirmation"/);
    registry.confirmations.approve(confirmationId);
    // The model echoes the confirmation but forgets the invocationId: the toolset remembers it.
    const done = await act.execute({
      capabilityId: 'domain:devices.disable',
      input: { id: 'd1' },
      confirmationId,
      surfaceVersion: version,
    });
    assert.deepEqual(output(done), { disabled: 'd1' });
    assert.deepEqual(calls, ['disable d1']);
    // Replaying the same evidence is idempotent, never a second run.
    const replay = await act.execute({
      capabilityId: 'domain:devices.disable',
      input: { id: 'd1' },
      confirmationId,
      invocationId: 't1',
      surfaceVersion: version,
    });
    assert.deepEqual(output(replay), { disabled: 'd1' });
    assert.deepEqual(calls, ['disable d1']);
    assert.equal(s.eventsOf('confirmation').filter((e) => e.action === 'created').length, 1);
  });

  it('two-phase confirmation of a read: the same surface_read again, once approved, reads', async () => {
    const { s, registry } = surface();
    let reads = 0;
    s.observation('domain:devices.audit', () => (reads++, { entries: 2 }), { description: 'The audit log.', confirmation: 'required' });
    const { read } = meta(registry);
    const first = errorOf(await read.execute({ capabilityId: 'domain:devices.audit' }, { toolCallId: 'r1' }));
    assert.equal(first.code, 'CONFIRMATION_REQUIRED');
    // The advice is one the model can follow: surface_read takes no ids.
    assert.match((first as unknown as { message: string }).message, /make the same call again\.$/);
    assert.equal(reads, 0);
    // Before the person decides, the same read asks nothing new and reads nothing.
    assert.equal(errorOf(await read.execute({ capabilityId: 'domain:devices.audit' })).code, 'CONFIRMATION_REQUIRED');
    assert.equal(s.eventsOf('confirmation').filter((e) => e.action === 'created').length, 1);
    registry.confirmations.approve(first.details!.confirmationId as string);
    // surface_read's schema has no slot for the ids: the toolset presents the approval it remembers.
    assert.deepEqual(output(await read.execute({ capabilityId: 'domain:devices.audit' })), { entries: 2 });
    assert.equal(reads, 1);
    // The approval was used once: a later read asks again.
    assert.equal(errorOf(await read.execute({ capabilityId: 'domain:devices.audit' })).code, 'CONFIRMATION_REQUIRED');
    assert.equal(reads, 1);
    assert.equal(s.eventsOf('confirmation').filter((e) => e.action === 'created').length, 2);
  });

  it('waits inside surface_act when confirmations are "wait"', async () => {
    const { s, registry, calls } = surface();
    const { act } = meta(registry, { topology: 'embedded' });
    const pending = act.execute({
      capabilityId: 'domain:devices.disable',
      input: { id: 'd4' },
      surfaceVersion: registry.surfaceVersion,
    });
    await s.approveNext();
    assert.deepEqual(output(await pending), { disabled: 'd4' });
    assert.deepEqual(calls, ['disable d4']);
  });

  it('subscribe fires when the scoped surface changes', async () => {
    const { registry, rename, s } = surface();
    const { ts } = meta(registry, { scope: ['devices'] });
    let fired = 0;
    ts.subscribe(() => fired++);
    s.action('domain:billing.void', () => null, { description: 'Void.' });
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(fired, 0);
    rename.update({ available: true });
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(fired, 1);
    ts.dispose();
    assert.deepEqual(ts.tools(), []);
  });
});

describe('scope algebra', () => {
  const parse = (list: string[]) => list.map((t) => parseScopeEntry(t)!);
  it('parses the registry syntax and refuses typos', () => {
    assert.deepEqual(parseScopeEntry('devices.table'), { path: ['devices', 'table'] });
    assert.deepEqual(parseScopeEntry('view:devices'), { plane: 'view', path: ['devices'] });
    assert.deepEqual(parseScopeEntry('view:'), { plane: 'view', path: [] });
    assert.deepEqual(parseScopeEntry('devices.*'), { path: ['devices'] });
    for (const bad of ['', ' ', '*', 'x:devices', 'a..b', 'a:b:c', 3])
      assert.equal(parseScopeEntry(bad), undefined, String(bad));
  });
  it('narrows, cuts down and rejects', () => {
    assert.deepEqual(narrowScope(undefined, parse(['devices'])), { scope: ['devices'], rejected: [] });
    assert.deepEqual(narrowScope(parse(['devices']), undefined), { scope: ['devices'], rejected: [] });
    assert.deepEqual(narrowScope(parse(['devices', 'alerts']), parse(['view:'])), {
      scope: ['view:devices', 'view:alerts'],
      rejected: [],
    });
    assert.deepEqual(narrowScope(parse(['view:devices']), parse(['domain:devices', 'devices.table'])), {
      scope: ['view:devices.table'],
      rejected: ['domain:devices'],
    });
  });
});
