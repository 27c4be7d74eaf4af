import { before, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createCompilerAuthority } from '../../src/core/authority.js';
import { AgentSurfaceError } from '../../src/core/errors.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceAuthority, InvocationContext, InvocationEvent, InvokeRequest } from '../../src/core/types.js';
import { compileContracts } from '../../src/compiler/compile.js';
import { createTestSurface, type TestSurface } from '../../src/testing/index.js';
import { contract, deferred, errorCode, errorOf, idSchema, quietConsole, sleep, tick } from './registry-helpers.js';

const consumer = { id: 'agent', kind: 'test' };
let surface: TestSurface;

beforeEach(() => {
  quietConsole();
});

function request(patch: Partial<InvokeRequest> = {}): InvokeRequest {
  return { capabilityId: 'domain:a.run', invocationId: `i-${Math.random()}`, consumer, ...patch };
}

describe('invoke: the request envelope', () => {
  it('never throws or rejects, whatever the request', async () => {
    surface = createTestSurface();
    surface.action('domain:a.run', () => 'ok');
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    const getter = Object.defineProperty({ capabilityId: 'domain:a.run', consumer }, 'invocationId', {
      get() {
        throw new Error('getter');
      },
    });
    const cases: unknown[] = [
      undefined,
      null,
      42,
      'domain:a.run',
      [],
      {},
      hostile,
      getter,
      { capabilityId: 'domain:a.run', consumer },
      { capabilityId: 'domain:a.run', invocationId: '', consumer },
      { capabilityId: 'domain:a.run', invocationId: 'x'.repeat(10_000), consumer },
      { capabilityId: 'domain:a.run', invocationId: 7, consumer },
      { capabilityId: 'domain:a.run', invocationId: 'i' },
      { capabilityId: 'domain:a.run', invocationId: 'i', consumer: { id: '', kind: 'test' } },
      { capabilityId: 'domain:a.run', invocationId: 'i', consumer: { id: 'a' } },
      { capabilityId: 'domain:a.run', invocationId: 'i', consumer: 'agent' },
      { capabilityId: 42, invocationId: 'i', consumer },
      { capabilityId: 'domain:a.run', invocationId: 'i', consumer, instanceId: 3 },
      { capabilityId: 'domain:a.run', invocationId: 'i', consumer, surfaceVersion: {} },
      { capabilityId: 'domain:a.run', invocationId: 'i', consumer, confirmationId: ['x'] },
      { capabilityId: 'domain:a.run', invocationId: 'i', consumer, signal: { aborted: 'no' } },
    ];
    for (const [i, r] of cases.entries()) {
      const result = await surface.registry.invoke(r as InvokeRequest);
      assert.equal(result.ok, false, `request #${i} must fail`);
      const e = errorOf(result);
      assert.equal(e.code, 'INVALID_INPUT', `request #${i} → ${e.code}`);
      assert.equal(typeof e.message, 'string');
      assert.equal(typeof result.invocationId, 'string');
      assert.equal(result.surfaceVersion, surface.registry.surfaceVersion);
    }
    // The registry still works.
    assert.equal(errorCode(await surface.invoke('domain:a.run')), 'OK');
    surface.dispose();
  });

  it('names the faulty field in details', async () => {
    surface = createTestSurface();
    const r = await surface.registry.invoke({ capabilityId: 'domain:a.run', invocationId: 'i' } as InvokeRequest);
    assert.deepEqual(errorOf(r).details, { field: 'consumer' });
    surface.dispose();
  });
});

describe('invoke step 2: resolution', () => {
  it('CAPABILITY_NOT_FOUND for an unknown capability or instance', async () => {
    surface = createTestSurface();
    surface.action('view:devices.table.select', () => null, { instanceId: 'left' });
    const unknown = errorOf(await surface.invoke('domain:nope.run'));
    assert.equal(unknown.code, 'CAPABILITY_NOT_FOUND');
    assert.equal(unknown.retry, 'after-refresh');
    const instance = errorOf(await surface.invoke('view:devices.table.select', {}, { instanceId: 'right' }));
    assert.equal(instance.code, 'CAPABILITY_NOT_FOUND');
    assert.deepEqual(instance.details, { instances: ['left'] });
    surface.dispose();
  });

  it('AMBIGUOUS_INSTANCE lists the instances when several exist and none is named', async () => {
    surface = createTestSurface();
    const seen: (string | undefined)[] = [];
    const left = surface.action('view:devices.table.select', (_i, ctx) => seen.push(ctx.instanceId), { instanceId: 'left' });
    surface.action('view:devices.table.select', (_i, ctx) => seen.push(ctx.instanceId), { instanceId: 'right' });
    const e = errorOf(await surface.invoke('view:devices.table.select'));
    assert.equal(e.code, 'AMBIGUOUS_INSTANCE');
    assert.deepEqual(e.details, { instances: ['left', 'right'], count: 2 });
    assert.equal(errorCode(await surface.invoke('view:devices.table.select', {}, { instanceId: 'right' })), 'OK');
    // A registrationId alone also says which one.
    assert.equal(errorCode(await surface.invoke('view:devices.table.select', {}, { registrationId: left.registrationId })), 'OK');
    assert.deepEqual(seen, ['right', 'left']);
    // One instance left: no instanceId needed, and ctx still names it.
    left.unregister();
    assert.equal(errorCode(await surface.invoke('view:devices.table.select')), 'OK');
    assert.equal(seen.at(-1), 'right');
    surface.dispose();
  });

  it('STALE_CAPABILITY when the registrationId is no longer current', async () => {
    surface = createTestSurface();
    const first = surface.action('domain:a.run', () => 'old');
    first.unregister();
    const second = surface.action('domain:a.run', () => 'new');
    const e = errorOf(await surface.invoke('domain:a.run', {}, { registrationId: first.registrationId }));
    assert.equal(e.code, 'STALE_CAPABILITY');
    assert.equal(e.retry, 'after-refresh');
    const ok = await surface.invoke('domain:a.run', {}, { registrationId: second.registrationId });
    assert.equal(ok.ok && ok.output, 'new');
    surface.dispose();
  });
});

describe('invoke step 3: staleness', () => {
  it('STALE_CAPABILITY when the surfaceVersion predates the capability’s last change', async () => {
    surface = createTestSurface();
    const handle = surface.action('domain:a.run', () => 'ran');
    const other = surface.action('domain:b.run', () => 'ran');
    const seen = surface.registry.surfaceVersion;
    other.update({ note: 'unrelated change' });
    assert.equal(errorCode(await surface.invoke('domain:a.run', {}, { surfaceVersion: seen })), 'OK', 'other capabilities changing is fine');
    handle.update({ note: 'changed' });
    assert.equal(errorCode(await surface.invoke('domain:a.run', {}, { surfaceVersion: seen })), 'STALE_CAPABILITY');
    assert.equal(errorCode(await surface.invoke('domain:a.run', {}, { surfaceVersion: surface.registry.surfaceVersion })), 'OK');
    surface.dispose();
  });

  it('STALE_CAPABILITY for a version of another registry, a future version or garbage', async () => {
    surface = createTestSurface();
    const elsewhere = createTestSurface();
    surface.action('domain:a.run', () => 'ran');
    const current = surface.registry.surfaceVersion;
    const future = current.replace(/\d+$/, (n) => String(Number(n) + 5));
    for (const surfaceVersion of [elsewhere.registry.surfaceVersion, future, 'v1', '', current + 'x', current.replace(/-\d+$/, '-1e3')]) {
      const e = errorOf(await surface.invoke('domain:a.run', {}, { surfaceVersion }));
      assert.equal(e.code, 'STALE_CAPABILITY', `version ${JSON.stringify(surfaceVersion)}`);
      assert.equal(e.details?.surfaceVersion, current);
    }
    surface.dispose();
    elsewhere.dispose();
  });

  it('destructive and external-side-effect capabilities require a surfaceVersion (fail closed)', async () => {
    surface = createTestSurface();
    surface.action('domain:a.wipe', () => 'wiped', { effect: 'destructive' });
    surface.action('domain:a.mail', () => 'sent', { effect: 'external-side-effect' });
    surface.action('domain:a.save', () => 'saved', { effect: 'server-mutation' });
    for (const id of ['domain:a.wipe', 'domain:a.mail']) {
      const e = errorOf(await surface.invoke(id, {}, { surfaceVersion: undefined }));
      assert.equal(e.code, 'STALE_CAPABILITY');
      assert.match(e.message, /surfaceVersion/);
      assert.equal(errorCode(await surface.invoke(id)), 'OK', 'with the current version it runs');
    }
    assert.equal(errorCode(await surface.invoke('domain:a.save', {}, { surfaceVersion: undefined })), 'OK');
    surface.dispose();
  });
});

describe('invoke step 4: availability', () => {
  it('CAPABILITY_NOT_AVAILABLE with the reason, and nothing runs', async () => {
    surface = createTestSurface();
    let runs = 0;
    const handle = surface.action('domain:a.run', () => ++runs, { state: { available: false, unavailableReason: 'Select a row first' } });
    const e = errorOf(await surface.invoke('domain:a.run'));
    assert.equal(e.code, 'CAPABILITY_NOT_AVAILABLE');
    assert.match(e.message, /Select a row first/);
    assert.deepEqual(e.details, { reason: 'Select a row first' });
    handle.update({ available: true });
    assert.equal(errorCode(await surface.invoke('domain:a.run')), 'OK');
    assert.equal(runs, 1);
    surface.dispose();
  });
});

describe('invoke step 5: policy', () => {
  it('NOT_AUTHORIZED when a policy denies, with the policy and its reason', async () => {
    surface = createTestSurface({
      policies: [
        { name: 'allow-all', authorize: () => true },
        { name: 'no-remote-wipe', authorize: ({ consumer: c, capability, input }) => (c.kind === 'remote' && capability.effect === 'destructive' && input?.force !== true ? { deny: 'remote agents may not wipe' } : true) },
      ],
    });
    let runs = 0;
    surface.action('domain:a.wipe', () => ++runs, { effect: 'destructive', inputSchema: { type: 'object', properties: { force: { type: 'boolean' } } } });
    const remote = { id: 'r', kind: 'remote' };
    const e = errorOf(await surface.invoke('domain:a.wipe', {}, { consumer: remote }));
    assert.equal(e.code, 'NOT_AUTHORIZED');
    assert.equal(e.retry, 'no');
    assert.deepEqual(e.details, { policy: 'no-remote-wipe', reason: 'remote agents may not wipe' });
    assert.equal(errorCode(await surface.invoke('domain:a.wipe', { force: true }, { consumer: remote })), 'OK');
    assert.equal(errorCode(await surface.invoke('domain:a.wipe')), 'OK');
    assert.equal(runs, 2);
    surface.dispose();
  });

  it('a policy that throws or answers nonsense refuses (fail closed)', async () => {
    for (const authorize of [() => { throw new Error('boom'); }, () => undefined, () => false, () => ({ maybe: true })]) {
      surface = createTestSurface({ policies: [{ name: 'odd', authorize: authorize as never }] });
      surface.action('domain:a.run', () => 'ran');
      assert.equal(errorCode(await surface.invoke('domain:a.run')), 'NOT_AUTHORIZED');
      surface.dispose();
    }
  });

  it('a capability hidden by discover cannot be invoked by that consumer', async () => {
    surface = createTestSurface({ policies: [{ name: 'hide', discover: ({ consumer: c }) => c.kind !== 'remote' }] });
    surface.action('domain:a.run', () => 'ran');
    assert.equal(errorCode(await surface.invoke('domain:a.run', {}, { consumer: { id: 'r', kind: 'remote' } })), 'CAPABILITY_NOT_FOUND');
    assert.equal(errorCode(await surface.invoke('domain:a.run')), 'OK');
    surface.dispose();
  });

  it('reports in pipeline order: availability before policy, policy before validation', async () => {
    surface = createTestSurface({ policies: [{ name: 'deny', authorize: () => ({ deny: 'no' }) }] });
    const h = surface.action('domain:a.run', () => 'ran', { inputSchema: idSchema, state: { available: false } });
    assert.equal(errorCode(await surface.invoke('domain:a.run', { id: 5 })), 'CAPABILITY_NOT_AVAILABLE');
    h.update({ available: true });
    assert.equal(errorCode(await surface.invoke('domain:a.run', { id: 5 })), 'NOT_AUTHORIZED');
    assert.equal(errorCode(await surface.invoke('domain:a.run', [1, 2])), 'NOT_AUTHORIZED');
    surface.dispose();
  });
});

describe('invoke step 6: validation', () => {
  it('INVALID_INPUT with JSON-pointer issues from the validator', async () => {
    surface = createTestSurface();
    surface.action('domain:a.run', (input) => input.id, { inputSchema: idSchema });
    const missing = errorOf(await surface.invoke('domain:a.run', {}));
    assert.equal(missing.code, 'INVALID_INPUT');
    assert.equal(missing.retry, 'with-changes');
    assert.deepEqual(missing.details?.issues, [{ path: '/id', message: 'is required' }]);
    const extra = errorOf(await surface.invoke('domain:a.run', { id: 'x', other: 1 }));
    assert.deepEqual(extra.details?.issues, [{ path: '/other', message: 'is not an allowed property' }]);
    const wrongType = errorOf(await surface.invoke('domain:a.run', { id: 5 }));
    assert.equal((wrongType.details?.issues as { path: string }[])[0].path, '/id');
    const ok = await surface.invoke('domain:a.run', { id: 'x' });
    assert.equal(ok.ok && ok.output, 'x');
    surface.dispose();
  });

  it('a missing or null input is {}; anything but a JSON object is INVALID_INPUT', async () => {
    surface = createTestSurface();
    const got: unknown[] = [];
    surface.action('domain:a.run', (input) => got.push(input), { inputSchema: { type: 'object' } });
    assert.equal(errorCode(await surface.invoke('domain:a.run', undefined)), 'OK');
    assert.equal(errorCode(await surface.invoke('domain:a.run', null)), 'OK');
    assert.deepEqual(got, [{}, {}]);
    for (const input of [[], 'text', 5, true, '{"id":"x"}']) {
      const e = errorOf(await surface.invoke('domain:a.run', input));
      assert.equal(e.code, 'INVALID_INPUT');
      assert.deepEqual(e.details?.issues, [{ path: '', message: 'must be an object' }]);
    }
    surface.dispose();
  });

  it('non-JSON values are INVALID_INPUT with the path, never a throw', async () => {
    surface = createTestSurface();
    surface.action('domain:a.run', () => 'ran', { inputSchema: { type: 'object' } });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const cases: [unknown, string][] = [
      [{ f: () => 1 }, '/f'],
      [{ d: new Date(0) }, '/d'],
      [{ n: Number.NaN }, '/n'],
      [{ n: Infinity }, '/n'],
      [{ u: undefined }, '/u'],
      [{ b: 10n }, '/b'],
      [{ s: Symbol('s') }, '/s'],
      [{ deep: { list: [1, , 3] } }, '/deep/list/1'],
      [cyclic, '/self'],
      [{ m: new Map() }, '/m'],
    ];
    for (const [input, path] of cases) {
      const e = errorOf(await surface.invoke('domain:a.run', input));
      assert.equal(e.code, 'INVALID_INPUT');
      assert.equal((e.details?.issues as { path: string }[])[0].path, path, `${path}: ${e.message}`);
    }
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) deep = { d: deep };
    assert.equal(errorCode(await surface.invoke('domain:a.run', deep)), 'INVALID_INPUT');
    surface.dispose();
  });

  it('input over the size limit is INVALID_INPUT', async () => {
    surface = createTestSurface({ limits: { maxInputBytes: 1024 } });
    surface.action('domain:a.run', () => 'ran', { inputSchema: { type: 'object' } });
    assert.equal(errorCode(await surface.invoke('domain:a.run', { text: 'x'.repeat(900) })), 'OK');
    const e = errorOf(await surface.invoke('domain:a.run', { text: 'x'.repeat(1100) }));
    assert.equal(e.code, 'INVALID_INPUT');
    assert.equal(e.details?.maxBytes, 1024);
    // Near the limit the exact size decides: 1000 escaped quotes are 2000 bytes of JSON.
    assert.equal(errorCode(await surface.invoke('domain:a.run', { text: '"'.repeat(600) })), 'INVALID_INPUT');
    assert.equal(errorCode(await surface.invoke('domain:a.run', { text: 'é'.repeat(450) })), 'OK');
    const huge = await surface.invoke('domain:a.run', { text: 'x'.repeat(5_000_000) });
    assert.equal(errorCode(huge), 'INVALID_INPUT');
    surface.dispose();
  });

  it('rejects __proto__ keys and never pollutes prototypes; constructor/prototype are plain data', async () => {
    surface = createTestSurface();
    const got: unknown[] = [];
    surface.action('domain:a.strict', () => 'ran', { inputSchema: idSchema });
    surface.action('domain:a.open', (input) => got.push({ ...input }), { inputSchema: { type: 'object' } });
    const proto = JSON.parse('{"id":"x","__proto__":{"polluted":true}}');
    const nested = JSON.parse('{"a":{"b":{"__proto__":{"polluted":true}}}}');
    for (const id of ['domain:a.strict', 'domain:a.open']) {
      const e = errorOf(await surface.invoke(id, proto));
      assert.equal(e.code, 'INVALID_INPUT');
      assert.equal((e.details?.issues as { path: string }[])[0].path, '/__proto__');
    }
    assert.equal((errorOf(await surface.invoke('domain:a.open', nested)).details?.issues as { path: string }[])[0].path, '/a/b/__proto__');
    const ctor = JSON.parse('{"constructor":{"prototype":{"polluted":true}}}');
    assert.equal(errorCode(await surface.invoke('domain:a.strict', ctor)), 'INVALID_INPUT', 'the schema refuses unknown keys');
    assert.equal(errorCode(await surface.invoke('domain:a.open', ctor)), 'OK', 'as data, under a schema that allows it');
    assert.deepEqual(got, [{ constructor: { prototype: { polluted: true } } }]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    surface.dispose();
  });

  it('waits for a validator that answers asynchronously (the dev authority while its interpreter loads)', async () => {
    surface = createTestSurface();
    surface.action('domain:a.run', (input) => input.id, { inputSchema: idSchema });
    const [bad, good] = await Promise.all([surface.invoke('domain:a.run', { id: '' }), surface.invoke('domain:a.run', { id: 'z' })]);
    assert.equal(errorCode(bad), 'INVALID_INPUT');
    assert.equal(good.ok && good.output, 'z');
    surface.dispose();
  });
});

describe('invoke step 9: execution', () => {
  it('passes input and ctx { invocationId, consumer, instanceId, signal } to the handler, and an observation’s read gets ctx and input', async () => {
    surface = createTestSurface();
    let ctx: InvocationContext | undefined;
    surface.action('view:a.table.select', (input, c) => {
      ctx = c;
      return input;
    }, { instanceId: 'main', inputSchema: idSchema });
    surface.observation('view:a.table.rows', (c, input) => ({ rows: [c.instanceId, input] }), {
      instanceId: 'main',
      inputSchema: { type: 'object', properties: { filter: { type: 'string' } }, additionalProperties: false },
    });
    const r = await surface.invoke('view:a.table.select', { id: 'x' }, { invocationId: 'inv-1' });
    assert.deepEqual(r.ok && r.output, { id: 'x' });
    assert.equal(ctx?.invocationId, 'inv-1');
    assert.deepEqual(ctx?.consumer, surface.consumer);
    assert.equal(ctx?.instanceId, 'main');
    assert.equal(ctx?.signal.aborted, false);
    const rows = await surface.invoke('view:a.table.rows', { filter: 'on' });
    assert.deepEqual(rows.ok && rows.output, { rows: ['main', { filter: 'on' }] });
    surface.dispose();
  });

  it('an AgentSurfaceError passes its payload; any other throw is a generic EXECUTION_FAILED with the cause in the audit event', async () => {
    surface = createTestSurface();
    surface.action('domain:a.precondition', () => {
      throw new AgentSurfaceError('PRECONDITION_FAILED', 'The device is offline.', { details: { deviceId: 'd1' } });
    });
    const secret = new Error('db password is hunter2');
    surface.action('domain:a.crash', async () => {
      throw secret;
    });
    surface.action('domain:a.throwsString', () => {
      throw 'plain string';
    });
    const p = errorOf(await surface.invoke('domain:a.precondition'));
    assert.deepEqual(p, { code: 'PRECONDITION_FAILED', message: 'The device is offline.', retry: 'with-changes', details: { deviceId: 'd1' } });
    const crash = await surface.invoke('domain:a.crash');
    const e = errorOf(crash);
    assert.equal(e.code, 'EXECUTION_FAILED');
    assert.doesNotMatch(JSON.stringify(crash), /hunter2|stack|at /);
    const event = surface.eventsOf('invocation').find((ev) => ev.capabilityId === 'domain:a.crash')!;
    assert.equal(event.cause, secret);
    assert.equal(event.outcome, 'EXECUTION_FAILED');
    assert.equal(errorCode(await surface.invoke('domain:a.throwsString')), 'EXECUTION_FAILED');
    surface.dispose();
  });

  it('output must be JSON, within the limit, and match the outputSchema; undefined becomes null', async () => {
    surface = createTestSurface({ limits: { maxOutputBytes: 2048 } });
    surface.action('domain:a.fn', () => () => 1);
    surface.action('domain:a.date', () => ({ at: new Date() }));
    surface.action('domain:a.big', async () => ({ text: 'x'.repeat(4000) }));
    surface.action('domain:a.void', () => undefined);
    surface.action('domain:a.typed', (input) => (input.good ? { n: 1 } : { n: 'one' }), {
      inputSchema: { type: 'object', properties: { good: { type: 'boolean' } } },
      outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    });
    assert.deepEqual(errorOf(await surface.invoke('domain:a.fn')).details, { reason: 'output-not-json' });
    assert.deepEqual(errorOf(await surface.invoke('domain:a.date')).details, { reason: 'output-not-json' });
    assert.deepEqual(errorOf(await surface.invoke('domain:a.big')).details, { reason: 'output-too-large' });
    const v = await surface.invoke('domain:a.void');
    assert.equal(v.ok && v.output, null);
    assert.deepEqual(errorOf(await surface.invoke('domain:a.typed', { good: false })).details, { reason: 'output-invalid' });
    const typed = await surface.invoke('domain:a.typed', { good: true });
    assert.deepEqual(typed.ok && typed.output, { n: 1 });
    surface.dispose();
  });

  it('TIMEOUT aborts the handler’s signal', async () => {
    // node:test's clock: the deadline passes when the test moves time, not when a loaded machine
    // gets round to it (a real timer also fires early by however stale the event loop's clock was).
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    try {
      surface = createTestSurface();
      let signal: AbortSignal | undefined;
      surface.action('domain:a.slow', (_i, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      }, { timeoutMs: 30 });
      let settled = false;
      const call = surface.invoke('domain:a.slow').finally(() => (settled = true));
      while (!signal) await tick();
      mock.timers.tick(29);
      for (let i = 0; i < 5; i++) await tick();
      assert.equal(settled, false, 'the call is still running 29 ms in');
      assert.equal(signal.aborted, false);
      mock.timers.tick(1);
      for (let i = 0; i < 5 && !settled; i++) await tick();
      assert.equal(settled, true, 'the call timed out at 30 ms');
      const e = errorOf(await call);
      assert.equal(e.code, 'TIMEOUT');
      assert.equal(e.retry, 'yes');
      assert.deepEqual(e.details, { timeoutMs: 30 });
      assert.equal(signal.aborted, true);
      assert.equal((signal.reason as DOMException).name, 'TimeoutError');
    } finally {
      mock.timers.reset();
      surface.dispose();
    }
  });

  it('a handler that reads ctx.signal only after the timeout still sees it aborted', async () => {
    surface = createTestSurface();
    let late: InvocationContext | undefined;
    surface.action('domain:a.slow', (_i, ctx) => {
      late = ctx;
      return new Promise(() => {});
    }, { timeoutMs: 20 });
    assert.equal(errorCode(await surface.invoke('domain:a.slow')), 'TIMEOUT');
    assert.equal(late?.signal.aborted, true);
    surface.dispose();
  });

  it('CANCELLED when the request’s signal aborts mid-call, or is aborted already (then nothing runs)', async () => {
    surface = createTestSurface();
    let runs = 0;
    let handlerSignal: AbortSignal | undefined;
    surface.action('domain:a.slow', (_i, ctx) => {
      runs++;
      handlerSignal = ctx.signal;
      return new Promise(() => {});
    });
    const controller = new AbortController();
    const pending = surface.invoke('domain:a.slow', {}, { signal: controller.signal });
    await tick();
    controller.abort(new Error('user left'));
    const e = errorOf(await pending);
    assert.equal(e.code, 'CANCELLED');
    assert.equal(handlerSignal?.aborted, true);
    assert.equal(runs, 1);
    const r = await surface.invoke('domain:a.slow', {}, { signal: AbortSignal.abort() });
    assert.equal(errorCode(r), 'CANCELLED');
    assert.equal(runs, 1);
    surface.dispose();
  });

  it('COMPONENT_UNMOUNTED when the registration goes away mid-call (unregister or dispose)', async () => {
    surface = createTestSurface();
    const gate = deferred();
    let signal: AbortSignal | undefined;
    const handle = surface.action('domain:a.slow', async (_i, ctx) => {
      signal = ctx.signal;
      await gate.promise;
      return 'late';
    });
    const pending = surface.invoke('domain:a.slow');
    await tick();
    handle.unregister();
    const e = errorOf(await pending);
    assert.equal(e.code, 'COMPONENT_UNMOUNTED');
    assert.equal(e.retry, 'after-refresh');
    assert.equal(signal?.aborted, true);
    gate.resolve(undefined);

    surface.action('domain:a.other', () => new Promise(() => {}));
    const again = surface.invoke('domain:a.other');
    await tick();
    surface.dispose();
    assert.equal(errorCode(await again), 'COMPONENT_UNMOUNTED');
    const after = await surface.registry.invoke(request({ capabilityId: 'domain:a.other' }));
    assert.equal(errorCode(after), 'CAPABILITY_NOT_FOUND');
  });

  it('a synchronous handler that unregisters its own capability reports COMPONENT_UNMOUNTED', async () => {
    surface = createTestSurface();
    const handle = surface.action('domain:a.self', () => {
      handle.unregister();
      return 'done';
    });
    assert.equal(errorCode(await surface.invoke('domain:a.self')), 'COMPONENT_UNMOUNTED');
    surface.dispose();
  });
});

describe('invoke step 10: the audit event', () => {
  it('reports consumer, capability, instance, registration, outcome and duration for every call', async () => {
    surface = createTestSurface();
    const h = surface.action('view:a.list.pick', async () => {
      // At least 5 ms by the clock the audit reads: a 5 ms timer alone can fire early by however
      // stale the event loop's cached time was when it was set.
      const start = performance.now();
      while (performance.now() - start < 5) await sleep(1);
      return 1;
    }, { instanceId: 'one' });
    const events: InvocationEvent[] = [];
    surface.registry.on('invocation', (e) => events.push(e));
    await surface.invoke('view:a.list.pick', {}, { invocationId: 'audit-1' });
    await surface.invoke('domain:nope.nope', {}, { invocationId: 'audit-2' });
    assert.equal(events.length, 2);
    const [ok, missing] = events;
    assert.equal(ok.type, 'invocation');
    assert.deepEqual(ok.consumer, surface.consumer);
    assert.equal(ok.capabilityId, 'view:a.list.pick');
    assert.equal(ok.instanceId, 'one');
    assert.equal(ok.registrationId, h.registrationId);
    assert.equal(ok.invocationId, 'audit-1');
    assert.equal(ok.outcome, 'OK');
    assert.ok(ok.durationMs >= 5, `duration ${ok.durationMs}`);
    assert.equal(missing.outcome, 'CAPABILITY_NOT_FOUND');
    assert.equal(missing.registrationId, undefined);
    surface.dispose();
  });
});

describe('invoke with a compiler authority', () => {
  let authority: AgentSurfaceAuthority;
  const update = contract('domain:records.update', {
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        count: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { saved: { type: 'boolean' } }, required: ['saved'] },
  });

  before(async () => {
    const { manifest, validators } = await compileContracts([update]);
    authority = createCompilerAuthority({ manifest, validators });
  });

  it('validates with the compiled validators, synchronously, and checks the output', async () => {
    const registry = createAgentSurfaceRegistry({ authority });
    let answer: unknown = { saved: true };
    registry.register({ contract: update, token: authority.contract(update.id)!.token, handler: () => answer });
    const call = (input: unknown) => registry.invoke({ capabilityId: update.id, invocationId: `c-${Math.random()}`, consumer, input });
    assert.equal(errorCode(await call({ name: 'a', tags: ['x'] })), 'OK');
    const bad = errorOf(await call({ name: 'a', tags: [1] }));
    assert.equal(bad.code, 'INVALID_INPUT');
    assert.deepEqual(bad.details?.issues, [{ path: '/tags/0', message: 'must be string' }]);
    answer = { saved: 'yes' };
    assert.deepEqual(errorOf(await call({ name: 'a' })).details, { reason: 'output-invalid' });
    registry.dispose();
  });
});
