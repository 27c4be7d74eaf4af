import { beforeEach, describe, it, mock } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { IdempotencyEntry, IdempotencyStore, sameInput } from '../../src/core/idempotency.js';
import type { InvocationEvent } from '../../src/core/types.js';
import { createTestSurface } from '../../src/testing/index.js';
import { deferred, errorCode, errorOf, idSchema, quietConsole, tick } from './registry-helpers.js';

beforeEach(() => {
  quietConsole();
});

const open = { type: 'object' } as const;

describe('idempotency: same (consumer, invocationId)', () => {
  it('joins the call in flight: the handler runs once and both callers get its result', async () => {
    const surface = createTestSurface();
    const gate = deferred<string>();
    let runs = 0;
    surface.action('domain:a.run', async () => {
      runs++;
      return gate.promise;
    }, { inputSchema: open, concurrency: 'parallel' });
    const first = surface.invoke('domain:a.run', { x: 1, y: [1, 2] }, { invocationId: 'same' });
    await tick();
    const second = surface.invoke('domain:a.run', { y: [1, 2], x: 1 }, { invocationId: 'same' });
    gate.resolve('done');
    const [a, b] = await Promise.all([first, second]);
    assert.equal(runs, 1);
    assert.deepEqual(a, b);
    assert.equal(a.ok && a.output, 'done');
    const replays = surface.eventsOf('invocation').map((e: InvocationEvent) => e.replay);
    assert.deepEqual(replays, [undefined, 'joined']);
    surface.dispose();
  });

  it('returns the cached terminal result afterwards, errors included, without running again', async () => {
    const surface = createTestSurface();
    let runs = 0;
    surface.action('domain:a.run', () => ++runs, { inputSchema: open });
    surface.action('domain:a.fail', () => {
      runs++;
      throw new Error('nope');
    });
    const a = await surface.invoke('domain:a.run', { n: 1 }, { invocationId: 'k1' });
    const b = await surface.invoke('domain:a.run', { n: 1 }, { invocationId: 'k1' });
    assert.equal(a, b, 'the very same result object');
    const f1 = await surface.invoke('domain:a.fail', {}, { invocationId: 'k2' });
    const f2 = await surface.invoke('domain:a.fail', {}, { invocationId: 'k2' });
    assert.equal(errorCode(f2), 'EXECUTION_FAILED');
    assert.deepEqual(f1, f2);
    assert.equal(runs, 2);
    assert.equal(surface.eventsOf('invocation').filter((e) => e.replay === 'cached').length, 2);
    surface.dispose();
  });

  it('INVOCATION_CONFLICT for the same key with another capability, instance or input', async () => {
    const surface = createTestSurface();
    surface.action('domain:a.run', () => 'a', { inputSchema: open });
    surface.action('domain:b.run', () => 'b', { inputSchema: open });
    surface.action('view:c.list.pick', () => 'c1', { instanceId: '1' });
    surface.action('view:c.list.pick', () => 'c2', { instanceId: '2' });
    await surface.invoke('domain:a.run', { n: 1 }, { invocationId: 'k' });
    await surface.invoke('view:c.list.pick', {}, { invocationId: 'v', instanceId: '1' });
    for (const [id, input, extra] of [
      ['domain:b.run', { n: 1 }, {}],
      ['domain:a.run', { n: 2 }, {}],
      ['domain:a.run', { n: 1, m: 0 }, {}],
      ['domain:a.run', undefined, {}],
    ] as const) {
      const e = errorOf(await surface.invoke(id, input, { invocationId: 'k', ...extra }));
      assert.equal(e.code, 'INVOCATION_CONFLICT');
      assert.equal(e.retry, 'with-changes');
    }
    assert.equal(errorCode(await surface.invoke('view:c.list.pick', {}, { invocationId: 'v', instanceId: '2' })), 'INVOCATION_CONFLICT');
    assert.equal(errorCode(await surface.invoke('view:c.list.pick', {}, { invocationId: 'v', instanceId: '1' })), 'OK');
    // A missing input and {} are the same request.
    await surface.invoke('domain:b.run', undefined, { invocationId: 'empty' });
    assert.equal(errorCode(await surface.invoke('domain:b.run', {}, { invocationId: 'empty' })), 'OK');
    surface.dispose();
  });

  it('keys are per consumer: another consumer may use the same invocationId', async () => {
    const surface = createTestSurface();
    let runs = 0;
    surface.action('domain:a.run', () => ++runs, { inputSchema: open });
    await surface.invoke('domain:a.run', { n: 1 }, { invocationId: 'k' });
    const other = await surface.invoke('domain:a.run', { n: 2 }, { invocationId: 'k', consumer: { id: 'other', kind: 'test' } });
    assert.equal(other.ok && other.output, 2);
    surface.dispose();
  });

  it('a call refused before its handler ran is not cached: the same invocationId may be retried', async () => {
    const surface = createTestSurface();
    let runs = 0;
    const h = surface.action('domain:a.run', (input) => (runs++, input.id), { inputSchema: idSchema, state: { available: false } });
    assert.equal(errorCode(await surface.invoke('domain:a.run', { id: 'x' }, { invocationId: 'k' })), 'CAPABILITY_NOT_AVAILABLE');
    h.update({ available: true });
    assert.equal(errorCode(await surface.invoke('domain:a.run', { id: 5 }, { invocationId: 'k' })), 'INVALID_INPUT');
    const fixed = await surface.invoke('domain:a.run', { id: 'y' }, { invocationId: 'k' });
    assert.equal(fixed.ok && fixed.output, 'y');
    assert.equal(runs, 1);
    surface.dispose();
  });

  it('forgets entries after the TTL and beyond the entry limit', async () => {
    mock.timers.enable({ apis: ['Date'] });
    try {
      const surface = createTestSurface({ limits: { idempotencyTtlMs: 1000, idempotencyEntries: 3 } });
      let runs = 0;
      surface.action('domain:a.run', () => ++runs, { inputSchema: open });
      await surface.invoke('domain:a.run', {}, { invocationId: 'old' });
      mock.timers.tick(999);
      await surface.invoke('domain:a.run', {}, { invocationId: 'old' });
      assert.equal(runs, 1);
      mock.timers.tick(1);
      await surface.invoke('domain:a.run', {}, { invocationId: 'old' });
      assert.equal(runs, 2, 'expired: runs again');
      for (const k of ['k1', 'k2', 'k3']) await surface.invoke('domain:a.run', {}, { invocationId: k });
      assert.equal(runs, 5);
      await surface.invoke('domain:a.run', { other: 1 }, { invocationId: 'old' });
      assert.equal(runs, 6, 'evicted by three newer entries: a different input is no conflict any more');
      await surface.invoke('domain:a.run', {}, { invocationId: 'k3' });
      assert.equal(runs, 6, 'the newest are still cached');
      surface.dispose();
    } finally {
      mock.timers.reset();
    }
  });

  it('a confirmation retry with the same invocationId passes through; then the result is cached', async () => {
    const surface = createTestSurface();
    let runs = 0;
    surface.action('domain:a.wipe', (input) => (runs++, `wiped ${input.id}`), { confirmation: 'required', inputSchema: idSchema });
    const first = errorOf(await surface.invoke('domain:a.wipe', { id: 'd' }, { invocationId: 'k' }));
    assert.equal(first.code, 'CONFIRMATION_REQUIRED');
    const confirmationId = String(first.details?.confirmationId);
    surface.registry.confirmations.approve(confirmationId);
    const ran = await surface.invoke('domain:a.wipe', { id: 'd' }, { invocationId: 'k', confirmationId });
    assert.equal(ran.ok && ran.output, 'wiped d');
    assert.equal(runs, 1);
    const replay = await surface.invoke('domain:a.wipe', { id: 'd' }, { invocationId: 'k', confirmationId });
    assert.equal(replay, ran);
    const withoutId = await surface.invoke('domain:a.wipe', { id: 'd' }, { invocationId: 'k' });
    assert.equal(withoutId, ran, 'the cached result, not a new prompt');
    assert.equal(errorCode(await surface.invoke('domain:a.wipe', { id: 'e' }, { invocationId: 'k' })), 'INVOCATION_CONFLICT');
    assert.equal(runs, 1);
    surface.dispose();
  });
});

describe('IdempotencyStore', () => {
  const entry = (consumer: string, id: string) => new IdempotencyEntry(consumer, id, 'domain:a.run', undefined, {});

  it('holds slots per consumer; only a finished entry that is not kept, or expired, makes room; remove() removes only that very entry', () => {
    const store = new IdempotencyStore(2, 60_000);
    const a = entry('c', 'a');
    const b = entry('c', 'b');
    const c = entry('c', 'c');
    const other = entry('d', 'a');
    for (const e of [a, b, c, other]) store.add(e);
    assert.equal(store.hold(a, false, 0), true);
    assert.equal(store.hold(b, true, 0), true);
    assert.equal(store.hold(other, true, 0), true, 'another consumer has its own slots');
    assert.equal(store.hold(c, false, 0), false, 'a is still running and b is kept: no room');
    a.settle({ ok: true, output: 1, invocationId: 'a', surfaceVersion: 'v' });
    store.finished(a, 10);
    assert.equal(store.hold(c, false, 20), true, 'a finished and is not kept: it makes room');
    assert.equal(store.get('c', 'a', 20), undefined);
    assert.equal(store.get('c', 'b', 1e9), b, 'a running entry never expires');
    const b2 = entry('c', 'b');
    store.remove(b2);
    assert.equal(store.get('c', 'b', 1), b);
    b.settle({ ok: true, output: 1, invocationId: 'b', surfaceVersion: 'v' });
    store.finished(b, 100);
    assert.equal(store.get('c', 'b', 60_099), b);
    assert.equal(store.get('c', 'b', 60_100), undefined, 'expired');
    const d = entry('c', 'd');
    store.add(d);
    assert.equal(store.hold(d, false, 60_100), true, 'the expired entry gave its slot back');
  });

  it('sameInput compares input snapshots by canonical form', () => {
    assert.equal(sameInput({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }), true);
    assert.equal(sameInput({ a: 1 }, { a: 2 }), false);
    assert.equal(sameInput({ a: [] }, { a: {} }), false);
  });
});

describe('idempotency cannot be flushed (issue 13, item 8)', () => {
  const mutation = { inputSchema: open, effect: 'server-mutation', concurrency: 'parallel' } as const;
  const other = { id: 'other', kind: 'test' };
  const withClock = async (fn: () => Promise<void>) => {
    mock.timers.enable({ apis: ['Date'] });
    try {
      await fn();
    } finally {
      mock.timers.reset();
    }
  };

  it("another consumer's calls never push out a consumer's record", async () => {
    const surface = createTestSurface({ limits: { idempotencyEntries: 2 } });
    let runs = 0;
    surface.action('domain:a.pay', () => ++runs, mutation);
    surface.action('domain:a.look', () => 'seen', { inputSchema: open, effect: 'read', concurrency: 'parallel' });
    await surface.invoke('domain:a.pay', {}, { invocationId: 'k' });
    for (let i = 0; i < 20; i++) await surface.invoke('domain:a.look', {}, { invocationId: `o${i}`, consumer: other });
    const again = await surface.invoke('domain:a.pay', {}, { invocationId: 'k' });
    assert.equal(again.ok && again.output, 1);
    assert.equal(runs, 1, 'the retry got the recorded result');
    surface.dispose();
  });

  it('calls refused before their handler take no slot and evict nothing', async () => {
    const surface = createTestSurface({
      limits: { idempotencyEntries: 2 },
      policies: [{ name: 'no-b', authorize: (ctx) => (ctx.capability.capabilityId === 'domain:b.pay' ? { deny: 'no' } : true) }],
    });
    let runs = 0;
    surface.action('domain:a.pay', () => ++runs, { ...mutation, inputSchema: idSchema });
    surface.action('domain:b.pay', () => ++runs, mutation);
    surface.action('domain:a.off', () => ++runs, { ...mutation, state: { available: false } });
    surface.action('domain:a.ask', () => ++runs, { ...mutation, confirmation: 'required' });
    await surface.invoke('domain:a.pay', { id: 'x' }, { invocationId: 'k' });
    const refused = new Set<string>();
    for (let i = 0; i < 50; i++) {
      for (const [id, input] of [['domain:a.nope', {}], ['domain:a.pay', { id: 5 }], ['domain:b.pay', {}], ['domain:a.off', {}], ['domain:a.ask', {}]] as const) {
        refused.add(errorCode(await surface.invoke(id, input, { invocationId: `flood-${i}-${id}` })));
      }
      for (const pending of surface.registry.confirmations.list()) surface.registry.confirmations.deny(pending.confirmationId);
    }
    assert.deepEqual([...refused].sort(), ['CAPABILITY_NOT_AVAILABLE', 'CAPABILITY_NOT_FOUND', 'CONFIRMATION_REQUIRED', 'INVALID_INPUT', 'NOT_AUTHORIZED']);
    const again = await surface.invoke('domain:a.pay', { id: 'x' }, { invocationId: 'k' });
    assert.equal(again.ok && again.output, 1, 'still on record after 250 refused calls');
    assert.equal(errorCode(await surface.invoke('domain:a.pay', { id: 'y' }, { invocationId: 'k2' })), 'OK', 'the second slot is still free');
    assert.equal(runs, 2);
    surface.dispose();
  });

  it('an entry whose call is running is never evicted nor expired: a retry joins it', async () =>
    withClock(async () => {
      const surface = createTestSurface({ limits: { idempotencyEntries: 2, idempotencyTtlMs: 1000 } });
      const gate = deferred<string>();
      let slow = 0;
      let fast = 0;
      surface.action('domain:a.slow', async () => (slow++, gate.promise), { inputSchema: open, concurrency: 'parallel', timeoutMs: 100_000 });
      surface.action('domain:a.fast', () => ++fast, { inputSchema: open, concurrency: 'parallel' });
      const first = surface.invoke('domain:a.slow', {}, { invocationId: 'k' });
      await tick();
      for (let i = 0; i < 5; i++) assert.equal(errorCode(await surface.invoke('domain:a.fast', {}, { invocationId: `f${i}` })), 'OK');
      mock.timers.tick(5000);
      const retry = surface.invoke('domain:a.slow', {}, { invocationId: 'k' });
      gate.resolve('done');
      assert.deepEqual(await retry, await first);
      assert.equal(slow, 1);
      assert.equal(fast, 5, 'finished local-state calls made room for each other');
      surface.dispose();
    }));

  it('a finished server-mutation, external-side-effect or destructive call stays for its TTL; a full record answers RATE_LIMITED', async () =>
    withClock(async () => {
      const surface = createTestSurface({ limits: { idempotencyEntries: 3, idempotencyTtlMs: 1000 } });
      const runs: string[] = [];
      for (const effect of ['server-mutation', 'external-side-effect', 'destructive', 'local-state'] as const) {
        surface.action(`domain:a.${effect.replace(/-(.)/g, (_, c: string) => c.toUpperCase())}`, (_i, ctx) => (runs.push(ctx.invocationId), ctx.invocationId), {
          inputSchema: open,
          effect,
          concurrency: 'parallel',
        });
      }
      await surface.invoke('domain:a.serverMutation', {}, { invocationId: 'm' });
      await surface.invoke('domain:a.externalSideEffect', {}, { invocationId: 'e' });
      mock.timers.tick(500);
      await surface.invoke('domain:a.destructive', {}, { invocationId: 'd' });
      for (const [id, key] of [['domain:a.serverMutation', 'm2'], ['domain:a.localState', 'l']] as const) {
        const full = errorOf(await surface.invoke(id, {}, { invocationId: key }));
        assert.equal(full.code, 'RATE_LIMITED');
        assert.equal(full.retry, 'after-delay');
        assert.deepEqual(full.details, { idempotencyEntries: 3 });
      }
      for (const [id, key] of [['domain:a.serverMutation', 'm'], ['domain:a.externalSideEffect', 'e'], ['domain:a.destructive', 'd']] as const) {
        const replay = await surface.invoke(id, {}, { invocationId: key });
        assert.equal(replay.ok && replay.output, key);
      }
      assert.equal(errorCode(await surface.invoke('domain:a.localState', {}, { invocationId: 'l', consumer: other })), 'OK', 'other consumers are not limited');
      mock.timers.tick(500);
      assert.equal(errorCode(await surface.invoke('domain:a.serverMutation', {}, { invocationId: 'm2' })), 'OK', 'the first two expired');
      assert.equal(errorCode(await surface.invoke('domain:a.localState', {}, { invocationId: 'l' })), 'OK');
      const d = await surface.invoke('domain:a.destructive', {}, { invocationId: 'd' });
      assert.equal(d.ok && d.output, 'd', 'd is 500 ms old: still on record');
      assert.deepEqual(runs, ['m', 'e', 'd', 'l', 'm2', 'l']);
      surface.dispose();
    }));

  it('property: no interleaving of N consumers and M retries runs one (consumer, invocationId) handler twice within the TTL', async () => {
    const TTL = 1000;
    const caps = ['domain:p.mutate', 'domain:p.send', 'domain:p.wipe', 'domain:p.select', 'domain:p.queue', 'domain:p.sync'] as const;
    const kept = new Set<string>(['domain:p.mutate', 'domain:p.send', 'domain:p.wipe', 'domain:p.sync']);
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.record({ t: fc.constant('call' as const), c: fc.nat(2), k: fc.nat(7), variant: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant('refused' as const), c: fc.nat(2), k: fc.nat(40) }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 700 }) }) },
      { weight: 3, arbitrary: fc.record({ t: fc.constant('release' as const), i: fc.nat(5) }) },
    );
    await withClock(async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), async (ops) => {
          const surface = createTestSurface({ limits: { idempotencyEntries: 3, idempotencyTtlMs: TTL } });
          const runs = new Map<string, { start: number; end?: number }[]>();
          const gates: (() => void)[] = [];
          const handler = (sync: boolean) => (_input: unknown, ctx: { consumer: { id: string }; invocationId: string }) => {
            const key = `${ctx.consumer.id}/${ctx.invocationId}`;
            const run: { start: number; end?: number } = { start: Date.now() };
            runs.set(key, [...(runs.get(key) ?? []), run]);
            if (sync) return ((run.end = Date.now()), key);
            return new Promise<string>((resolve) => gates.push(() => ((run.end = Date.now()), resolve(key))));
          };
          const effects = { 'domain:p.mutate': 'server-mutation', 'domain:p.send': 'external-side-effect', 'domain:p.wipe': 'destructive', 'domain:p.select': 'local-state', 'domain:p.queue': 'server-mutation', 'domain:p.sync': 'destructive' } as const;
          for (const id of caps) {
            surface.action(id, handler(id === 'domain:p.sync'), {
              inputSchema: open,
              effect: effects[id],
              concurrency: id === 'domain:p.queue' ? 'serial' : 'parallel',
              timeoutMs: 1e9,
            });
          }
          const pending: Promise<unknown>[] = [];
          for (const o of ops) {
            if (o.t === 'call') {
              const consumer = { id: `c${o.c}`, kind: 'test' };
              pending.push(surface.invoke(caps[o.k % caps.length], { v: o.variant ? 1 : 0 }, { invocationId: `k${o.k}`, consumer }));
            } else if (o.t === 'refused') {
              pending.push(surface.invoke('domain:p.missing', {}, { invocationId: `k${o.k}`, consumer: { id: `c${o.c}`, kind: 'test' } }));
            } else if (o.t === 'tick') mock.timers.tick(o.ms);
            else gates.splice(o.i % Math.max(1, gates.length), 1)[0]?.();
            await tick();
          }
          while (gates.length > 0) {
            gates.shift()!();
            await tick();
          }
          await Promise.all(pending);
          for (const [key, list] of runs) {
            const cap = caps[Number(key.split('/k')[1]) % caps.length];
            for (let i = 1; i < list.length; i++) {
              const before = list[i - 1]!;
              assert.ok(before.end !== undefined && list[i]!.start >= before.end, `${key} ran while its earlier call ran`);
              if (kept.has(cap)) assert.ok(list[i]!.start >= before.end + TTL, `${key} (${cap}) ran twice within the TTL`);
            }
          }
          surface.dispose();
        }),
        { numRuns: 150 },
      );
    });
  });
});
