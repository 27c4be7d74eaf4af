import { beforeEach, describe, it, mock } from 'node:test';
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

  it('evicts the entry added maxEntries insertions ago, in O(1), and remove() only removes that very entry', () => {
    const store = new IdempotencyStore(2, 60_000);
    const a = entry('c', 'a');
    const b = entry('c', 'b');
    const c = entry('d', 'c');
    store.add(a, 0);
    store.add(b, 0);
    assert.equal(store.get('c', 'a', 1), a);
    store.add(c, 0);
    assert.equal(store.get('c', 'a', 1), undefined);
    assert.equal(store.get('c', 'b', 1), b);
    assert.equal(store.get('d', 'c', 1), c);
    const b2 = entry('c', 'b');
    store.remove(b2);
    assert.equal(store.get('c', 'b', 1), b);
    store.remove(b);
    assert.equal(store.get('c', 'b', 1), undefined);
    assert.equal(store.size, 1);
    assert.equal(store.get('d', 'c', 60_000), undefined, 'expired');
    assert.equal(store.size, 0);
  });

  it('sameInput compares JSON values by canonical form', () => {
    assert.equal(sameInput({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }), true);
    assert.equal(sameInput(undefined, {}), true);
    assert.equal(sameInput(null, {}), true);
    assert.equal(sameInput({ a: 1 }, { a: 2 }), false);
    assert.equal(sameInput({ a: () => 1 }, { a: () => 1 }), false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(sameInput(cyclic, { self: {} }), false);
  });
});
