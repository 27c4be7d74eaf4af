// Issue 13's pipeline items: hidden means absent (10); what was validated and approved is what runs (9);
// no throw anywhere an agent reaches (11). Idempotency (8) is in registry-idempotency.test.ts.
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileContracts } from '../../src/compiler/compile.js';
import { createCompilerAuthority } from '../../src/core/authority.js';
import { checkJson } from '../../src/core/canonical-json.js';
import { snapshotJson } from '../../src/core/json-snapshot.js';
import { createAgentExposureGateway } from '../../src/core/gateway.js';
import { createAgentToolset } from '../../src/core/toolset.js';
import type { AgentInvocationResult, AgentSurfacePolicy, AgentTool, JsonSchema } from '../../src/core/types.js';
import { createTestSurface } from '../../src/testing/index.js';
import { deferred, errorCode, errorOf, quietConsole, tick } from './registry-helpers.js';

beforeEach(() => {
  quietConsole();
});

describe('hidden means absent, in errors too (issue 13, item 10)', () => {
  const agent = { id: 'agent', kind: 'test' };
  const admin = { id: 'admin', kind: 'test' };
  // The agent may not discover the "secret" instance, nor anything under domain:vault.
  const hide: AgentSurfacePolicy = {
    name: 'hide',
    discover: ({ consumer, capability }) =>
      consumer.id !== 'agent' || (capability.instanceId !== 'secret' && !capability.capabilityId.startsWith('domain:vault.')),
  };

  /** The same page with (`withHidden`) or without the things the agent may not discover. */
  function page(withHidden: boolean) {
    const surface = createTestSurface({ policies: [hide] });
    const ran: string[] = [];
    const pick = (_input: unknown, ctx: { instanceId?: string }) => (ran.push(ctx.instanceId ?? ''), ctx.instanceId ?? null);
    surface.action('view:a.list.pick', pick, { instanceId: 'one' });
    surface.action('view:a.list.pick', pick, { instanceId: 'two' });
    surface.action('view:a.solo.pick', pick, { instanceId: 'only' });
    const hidden: string[] = [];
    if (withHidden) {
      hidden.push(surface.action('view:a.list.pick', pick, { instanceId: 'secret' }).registrationId);
      hidden.push(surface.action('view:a.solo.pick', pick, { instanceId: 'secret' }).registrationId);
      hidden.push(surface.action('domain:vault.open', pick).registrationId);
      surface.action('domain:vault.list', pick, { instanceId: 'x' });
      surface.action('domain:vault.list', pick, { instanceId: 'y' });
    }
    return { surface, ran, hidden };
  }

  /** A result with this registry's own version string replaced, so two registries compare. */
  function comparable(result: AgentInvocationResult, version: string): unknown {
    return JSON.parse(JSON.stringify(result).split(version).join('<version>'));
  }

  it('AMBIGUOUS_INSTANCE, a wrong instanceId and a hidden capability answer exactly as if the hidden ones did not exist', async () => {
    const withHidden = page(true);
    const without = page(false);
    const requests: [string, Record<string, unknown>][] = [
      ['view:a.list.pick', {}],
      ['view:a.list.pick', { instanceId: 'secret' }],
      ['view:a.list.pick', { instanceId: 'nope' }],
      ['view:a.list.pick', { registrationId: withHidden.hidden[0] }],
      ['view:a.solo.pick', {}],
      ['view:a.solo.pick', { instanceId: 'secret' }],
      ['domain:vault.open', {}],
      ['domain:vault.open', { instanceId: 'x' }],
      ['domain:vault.open', { registrationId: withHidden.hidden[2] }],
      ['domain:vault.list', {}],
      ['domain:vault.list', { instanceId: 'x' }],
      ['domain:vault.nothing', {}],
    ];
    let n = 0;
    for (const [capabilityId, extra] of requests) {
      const request = { invocationId: `call-${++n}`, consumer: agent, surfaceVersion: undefined, ...extra };
      const a = await withHidden.surface.invoke(capabilityId, {}, request);
      const b = await without.surface.invoke(capabilityId, {}, request);
      assert.deepEqual(
        comparable(a, withHidden.surface.registry.surfaceVersion),
        comparable(b, without.surface.registry.surfaceVersion),
        `${capabilityId} ${JSON.stringify(extra)}`,
      );
    }
    // Not vacuous: the errors are the ones a caller relies on, and what ran is what would have run.
    const ambiguous = await withHidden.surface.invoke('view:a.list.pick', {}, { consumer: agent });
    assert.equal(errorCode(ambiguous), 'AMBIGUOUS_INSTANCE');
    assert.deepEqual(!ambiguous.ok && ambiguous.error.details, { instances: ['one', 'two'], count: 2 });
    const wrong = await withHidden.surface.invoke('view:a.list.pick', {}, { consumer: agent, instanceId: 'secret' });
    assert.deepEqual(!wrong.ok && [wrong.error.code, wrong.error.details], ['CAPABILITY_NOT_FOUND', { instances: ['one', 'two'] }]);
    assert.deepEqual(withHidden.ran, without.ran);
    assert.deepEqual(withHidden.ran, ['only'], 'the one visible instance answers a call without instanceId');
    // A consumer allowed to see them still reaches them.
    const all = await withHidden.surface.invoke('view:a.list.pick', {}, { consumer: admin });
    assert.deepEqual(!all.ok && all.error.details, { instances: ['one', 'secret', 'two'], count: 3 });
    assert.equal(errorCode(await withHidden.surface.invoke('domain:vault.open', {}, { consumer: admin })), 'OK');
    assert.equal(errorCode(await withHidden.surface.invoke('view:a.solo.pick', {}, { consumer: admin, instanceId: 'secret' })), 'OK');
    withHidden.surface.dispose();
    without.surface.dispose();
  });
});

describe('what was validated and approved is what runs (issue 13, item 9)', () => {
  const modeSchema: JsonSchema = {
    type: 'object',
    properties: { id: { type: 'string', enum: ['d1'] }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['id'],
    additionalProperties: false,
  };

  it('a getter that answers differently on each read is read once: policies, validation and the handler see the first answer', async () => {
    const seenByPolicy: unknown[] = [];
    const surface = createTestSurface({ policies: [{ name: 'look', authorize: ({ input }) => (seenByPolicy.push(input?.id), true) }] });
    const got: unknown[] = [];
    surface.action('domain:a.disable', (input) => (got.push(input.id, input.id), input.id), { inputSchema: modeSchema });
    let reads = 0;
    const input = {
      get id() {
        return reads++ === 0 ? 'd1' : 'everything';
      },
    };
    const result = await surface.invoke('domain:a.disable', input);
    assert.deepEqual(result.ok && result.output, 'd1');
    assert.deepEqual(got, ['d1', 'd1']);
    assert.deepEqual(seenByPolicy, ['d1']);
    assert.equal(reads, 1, 'read exactly once');
    surface.dispose();
  });

  it('the handler gets a deep-frozen copy without the non-JSON parts: a Proxy, symbols and non-enumerables stay behind', async () => {
    const surface = createTestSurface();
    let handed: Record<string, unknown> | undefined;
    surface.action('domain:a.tag', (input) => ((handed = input), 'ok'), { inputSchema: modeSchema });
    const secret = Symbol('secret');
    const raw: Record<string | symbol, unknown> = { id: 'd1', tags: ['a'], [secret]: 'hidden' };
    Object.defineProperty(raw, 'hiddenKey', { value: 'x', enumerable: false });
    let inHandler = false;
    const proxy = new Proxy(raw, { get: (t, p, r) => (inHandler && p === 'id' ? 'everything' : Reflect.get(t, p, r)) });
    surface.action('domain:a.look', (input) => ((inHandler = true), input.id), { inputSchema: modeSchema });
    assert.equal(errorCode(await surface.invoke('domain:a.tag', proxy)), 'OK');
    assert.ok(handed !== undefined && handed !== raw && handed !== proxy);
    assert.deepEqual(Reflect.ownKeys(handed), ['id', 'tags']);
    assert.ok(Object.isFrozen(handed) && Object.isFrozen(handed.tags));
    assert.throws(() => (handed!.tags as string[]).push('b'));
    const looked = await surface.invoke('domain:a.look', proxy);
    assert.equal(looked.ok && looked.output, 'd1', 'a trap that changes its answer once the handler runs changes nothing');
    // Functions are not JSON: refused, never dropped silently into a call that runs.
    const fn = await surface.invoke('domain:a.tag', { id: 'd1', tags: [], run: () => 1 });
    assert.equal(errorCode(fn), 'INVALID_INPUT');
    surface.dispose();
  });

  it('the confirmation binds the copy: what the person approved is what runs, whatever the caller does with its object', async () => {
    const surface = createTestSurface();
    const ran: unknown[] = [];
    const gate = deferred<void>();
    surface.action(
      'domain:a.wipe',
      async (input) => {
        await gate.promise;
        ran.push(structuredClone(input));
        return input.id;
      },
      { inputSchema: modeSchema, confirmation: 'required', effect: 'destructive', concurrency: 'parallel' },
    );
    // 1. Changed between the request and the approval: the retry is another request.
    const input: { id: string; tags: string[] } = { id: 'd1', tags: ['a'] };
    const first = errorOf(await surface.invoke('domain:a.wipe', input, { invocationId: 'k1' }));
    const confirmationId = String(first.details?.confirmationId);
    input.tags.push('b');
    assert.deepEqual(surface.registry.confirmations.list()[0]!.input, { id: 'd1', tags: ['a'] }, 'the person sees the copy');
    surface.registry.confirmations.approve(confirmationId);
    const changed = errorOf(await surface.invoke('domain:a.wipe', input, { invocationId: 'k1', confirmationId }));
    assert.deepEqual([changed.code, changed.details?.reason], ['CONFIRMATION_INVALID', 'mismatch']);
    // 2. An object that shows the approved value until the handler runs, then another one.
    let handlerRunning = false;
    const twoFaced = {
      get id() {
        return handlerRunning ? 'everything' : 'd1';
      },
      tags: ['a'],
    };
    const second = errorOf(await surface.invoke('domain:a.wipe', twoFaced, { invocationId: 'k2' }));
    surface.registry.confirmations.approve(String(second.details?.confirmationId));
    const running = surface.invoke('domain:a.wipe', twoFaced, { invocationId: 'k2', confirmationId: String(second.details?.confirmationId) });
    await tick();
    handlerRunning = true;
    // 3. And a plain object mutated while the handler runs.
    const third = { id: 'd1', tags: ['a'] };
    const thirdAsk = errorOf(await surface.invoke('domain:a.wipe', third, { invocationId: 'k3' }));
    surface.registry.confirmations.approve(String(thirdAsk.details?.confirmationId));
    const runningThird = surface.invoke('domain:a.wipe', third, { invocationId: 'k3', confirmationId: String(thirdAsk.details?.confirmationId) });
    await tick();
    third.id = 'everything';
    third.tags.push('evil');
    gate.resolve();
    const [r2, r3] = await Promise.all([running, runningThird]);
    assert.equal(r2.ok && r2.output, 'd1');
    assert.equal(r3.ok && r3.output, 'd1');
    assert.deepEqual(ran, [
      { id: 'd1', tags: ['a'] },
      { id: 'd1', tags: ['a'] },
    ]);
    surface.dispose();
  });

  it('gateway tools get the same one-read, deep-frozen copy', async () => {
    const { manifest, validators } = await compileContracts([
      { id: 'domain:a.send', kind: 'action', effect: 'local-state', description: 'Send.', inputSchema: modeSchema },
    ]);
    const tool = createAgentExposureGateway(createCompilerAuthority({ manifest, validators })).expose({
      contract: manifest.contracts['domain:a.send']!.contract,
      token: manifest.contracts['domain:a.send']!.token,
      handler: (input) => [input.id, Object.isFrozen(input)],
    });
    let reads = 0;
    const result = await tool.execute({
      get id() {
        return reads++ === 0 ? 'd1' : 'everything';
      },
    });
    assert.deepEqual(result.ok && result.output, ['d1', true]);
    assert.equal(reads, 1);
  });
});

describe('no throw anywhere an agent reaches (issue 13, item 11)', () => {
  const boom = () => {
    throw new Error('trap');
  };
  /** A proxy over `target` whose traps start throwing after `after` calls. */
  function trapping<T extends object>(target: T, after = 0): T {
    let calls = 0;
    const trip = () => {
      if (calls++ >= after) boom();
    };
    return new Proxy(target, {
      get: (t, p, r) => (trip(), Reflect.get(t, p, r)),
      has: (t, p) => (trip(), Reflect.has(t, p)),
      ownKeys: (t) => (trip(), Reflect.ownKeys(t)),
      getOwnPropertyDescriptor: (t, p) => (trip(), Reflect.getOwnPropertyDescriptor(t, p)),
      getPrototypeOf: (t) => (trip(), Reflect.getPrototypeOf(t)),
    });
  }
  function revoked(): object {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  }
  const cyclic = (): object => {
    const o: Record<string, unknown> = { id: 'd1' };
    o.self = { back: [o] };
    return o;
  };
  const nested = (depth: number, array: boolean): unknown => {
    let v: unknown = {};
    for (let i = 0; i < depth; i++) v = array ? [v] : { d: v };
    return v;
  };
  const throwingGetter = (): object =>
    Object.defineProperty({}, 'id', {
      enumerable: true,
      get: boom,
    });

  /** Hostile values: each is refused wherever an agent can put it. */
  const HOSTILE: [string, () => unknown][] = [
    ['a proxy whose traps throw', () => trapping({ id: 'd1' })],
    ['a proxy that throws on its third trap', () => trapping({ id: 'd1', n: 1 }, 2)],
    ['a revoked proxy', revoked],
    ['a throwing getter', throwingGetter],
    ['a __proto__ key', () => JSON.parse('{"__proto__":{"polluted":1}}')],
    ['a cycle', cyclic],
    ['a BigInt', () => ({ id: 10n })],
    ['100 000 levels of objects', () => nested(100_000, false)],
    ['100 000 levels of arrays', () => ({ a: nested(100_000, true) })],
    ['one object shared 2^40 times', () => {
      let v: unknown = 'shared';
      for (let i = 0; i < 40; i++) v = { a: v, b: v };
      return v;
    }],
  ];

  async function setup() {
    const surface = createTestSurface();
    let runs = 0;
    surface.action('domain:a.run', (input) => (runs++, input), { concurrency: 'parallel' });
    surface.action('view:a.list.pick', () => (runs++, 'picked'), { instanceId: 'one' });
    surface.observation('domain:a.look', () => (runs++, { ok: true }));
    const meta = createAgentToolset(surface.registry, { consumer: surface.consumer, mode: 'meta', topology: 'embedded', confirmations: 'two-phase' });
    const direct = createAgentToolset(surface.registry, { consumer: surface.consumer, mode: 'direct', topology: 'embedded', confirmations: 'two-phase' });
    const { manifest, validators } = await compileContracts([
      { id: 'domain:g.send', kind: 'action', effect: 'local-state', description: 'Send.', inputSchema: { type: 'object' } },
    ]);
    const gatewayTool = createAgentExposureGateway(createCompilerAuthority({ manifest, validators })).expose({
      contract: manifest.contracts['domain:g.send']!.contract,
      token: manifest.contracts['domain:g.send']!.token,
      handler: (input) => (runs++, input),
    });
    const tools = new Map<string, AgentTool>([...meta.tools(), ...direct.tools(), gatewayTool].map((t) => [t.name, t]));
    return { surface, tools, runs: () => runs, dispose: () => (meta.dispose(), direct.dispose(), surface.dispose()) };
  }

  /** Where a hostile value goes in each tool's arguments (`v`), plus the tool's arguments being `v` itself. */
  function placements(tool: string, v: unknown): unknown[] {
    const all: unknown[] = [v];
    if (tool === 'surface_discover') all.push({ scope: v }, { scope: ['domain', v] });
    else if (tool === 'surface_read') all.push({ capabilityId: v }, { capabilityId: 'domain:a.look', instanceId: v });
    else if (tool === 'surface_act') {
      all.push(
        { capabilityId: 'domain:a.run', input: v },
        { capabilityId: 'domain:a.run', input: { nested: v } },
        { capabilityId: v, input: {} },
        { capabilityId: 'domain:a.run', input: {}, invocationId: v },
      );
    } else all.push({ nested: v }, { list: [1, v] });
    return all;
  }

  function assertClean(result: AgentInvocationResult, where: string): void {
    assert.equal(typeof result, 'object', where);
    assert.equal(checkJson(result).ok, true, `${where}: the result is JSON`);
    if (!result.ok) {
      assert.notEqual(result.error.details?.reason, 'internal', `${where}: ${result.error.message}`);
      assert.ok(typeof result.error.message === 'string' && result.error.message.length < 2000, where);
    }
  }

  it('every meta, direct and gateway tool and registry.invoke answer each hostile value with INVALID_INPUT', async () => {
    const { surface, tools, runs, dispose } = await setup();
    assert.deepEqual([...tools.keys()].sort(), ['domain_a__look', 'domain_a__run', 'domain_g__send', 'surface_act', 'surface_discover', 'surface_read', 'view_a__list__pick_at_one']);
    for (const [label, make] of HOSTILE) {
      for (const [name, tool] of tools) {
        for (const args of placements(name, make())) {
          let result: AgentInvocationResult;
          try {
            result = await tool.execute(args, { toolCallId: 'call' });
          } catch (error) {
            assert.fail(`${name} with ${label} rejected: ${String(error)}`);
          }
          assertClean(result, `${name} with ${label}`);
          assert.equal(!result.ok && result.error.code, 'INVALID_INPUT', `${name} with ${label}: ${JSON.stringify(result)}`);
        }
      }
      for (const request of [
        { capabilityId: 'domain:a.run', invocationId: 'i', consumer: surface.consumer, input: make() },
        { capabilityId: 'domain:a.run', invocationId: 'i', consumer: surface.consumer, input: { nested: make() } },
      ]) {
        const result = await surface.registry.invoke(request as never);
        assertClean(result, `invoke with ${label}`);
        assert.equal(!result.ok && result.error.code, 'INVALID_INPUT', `invoke with ${label}`);
      }
      const whole = await surface.registry.invoke(make() as never);
      assertClean(whole, `invoke of ${label} as the request`);
      assert.equal(!whole.ok && whole.error.code, 'INVALID_INPUT', `invoke of ${label} as the request`);
    }
    assert.equal(runs(), 0, 'nothing ran');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    dispose();
  });

  it('fuzz: random hostile arguments to every tool and to registry.invoke never reject nor fail inside the kit', async () => {
    const { surface, tools, dispose } = await setup();
    const names = [...tools.keys()];
    const anything = fc.anything({
      withBigInt: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
      withBoxedValues: true,
      maxDepth: 3,
    });
    // Any value, or a marker that `build` turns into one that goes wrong when read (fast-check itself
    // probes generated values, so the hostile ones are made inside the property).
    const MARK = '\u0000hostile';
    const value: fc.Arbitrary<unknown> = fc.oneof(
      { weight: 4, arbitrary: anything },
      { weight: 1, arbitrary: fc.record({ [MARK]: fc.tuple(fc.dictionary(fc.string(), anything, { maxKeys: 3 }), fc.nat(6)) }) },
      { weight: 1, arbitrary: fc.record({ [MARK]: fc.nat(HOSTILE.length - 1) }) },
    );
    const build = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(build);
      if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
      const mark = (v as Record<string, unknown>)[MARK];
      if (typeof mark === 'number') return HOSTILE[mark]![1]();
      if (Array.isArray(mark)) return trapping(mark[0] as object, mark[1] as number);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, build(x)]));
    };
    const args = fc.oneof(
      value,
      fc.record(
        {
          capabilityId: fc.oneof(fc.constantFrom('domain:a.run', 'domain:a.look', 'view:a.list.pick', 'domain:none'), value),
          instanceId: fc.oneof(fc.constant('one'), value),
          input: fc.oneof(fc.dictionary(fc.string(), value, { maxKeys: 3 }), value),
          invocationId: fc.oneof(fc.string(), value),
          scope: fc.oneof(fc.array(fc.oneof(fc.constantFrom('domain', 'view:a'), value), { maxLength: 3 }), value),
          confirmationId: value,
          surfaceVersion: value,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names, 'invoke', 'invoke input'), args, async (name, recipe) => {
        const a = build(recipe);
        let result: AgentInvocationResult;
        try {
          result =
            name === 'invoke'
              ? await surface.registry.invoke(a as never)
              : name === 'invoke input'
                ? await surface.registry.invoke({ capabilityId: 'domain:a.run', invocationId: 'fuzz', consumer: surface.consumer, input: a })
                : await tools.get(name)!.execute(a, { toolCallId: 'fuzz' });
        } catch (error) {
          assert.fail(`${name} rejected: ${String(error)}`);
        }
        assertClean(result, name);
      }),
      { numRuns: 3000 },
    );
    dispose();
  });
  it('an over-long optional id is refused with words that name the limit, not its type', async () => {
    const surface = createTestSurface();
    surface.action('domain:devices.list', () => [], { effect: 'read', description: 'List.' });
    const consumer = { id: 'agent', kind: 'test' };
    for (const field of ['instanceId', 'registrationId', 'invocationId'] as const) {
      const result = await surface.registry.invoke({ capabilityId: 'domain:devices.list', consumer, invocationId: 'call-1', [field]: 'x'.repeat(10_000) });
      assert.equal(errorCode(result), 'INVALID_INPUT');
      assert.equal(errorOf(result).details?.field, field);
      assert.match(errorOf(result).message, /at most 512 characters/);
    }
    surface.dispose();
  });
});

describe('snapshotJson', () => {
  it('copies values near the limit exactly, reports what is wrong, and a value that changes between reads as unreadable', () => {
    const near = { s: 'é'.repeat(40) }; // 90 bytes of JSON, over the quick bound of 100 bytes (6 per unit)
    const copy = snapshotJson(near, { maxBytes: 100 });
    assert.deepEqual(copy, { ok: true, value: near });
    assert.ok(copy.ok && copy.value !== near && Object.isFrozen(copy.value));
    assert.deepEqual(snapshotJson({ s: 'é'.repeat(60) }, { maxBytes: 100 }), {
      ok: false,
      path: '/s',
      code: 'too-large',
      reason: 'larger than 100 bytes of JSON',
    });
    assert.equal((snapshotJson({ a: [1, { f: () => 1 }] }, {}) as { path: string }).path, '/a/1/f');
    let reads = 0;
    const shifty = {
      get v() {
        return reads++ % 2 === 0 ? () => 1 : 'fine';
      },
    };
    assert.equal((snapshotJson(shifty, {}) as { code: string }).code, 'unreadable');
    // A getter that snapshots something else while it is read leaves the outer budget alone.
    const reentrant = {
      get a() {
        snapshotJson({ big: 'x'.repeat(1000) }, { maxBytes: 1e9 });
        return 'x'.repeat(200);
      },
    };
    assert.equal((snapshotJson(reentrant, { maxBytes: 100 }) as { code: string }).code, 'too-large');
  });
});
