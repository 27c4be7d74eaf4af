import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { acquireSlot, drainQueue, releaseSlot, type SerialSlot } from '../../src/core/running.js';
import { createTestSurface } from '../../src/testing/index.js';
import { deferred, errorCode, errorOf, quietConsole, tick } from './registry-helpers.js';

beforeEach(() => {
  quietConsole();
});

/** A capability whose calls wait until the test releases them, in order. */
function gated(surface: ReturnType<typeof createTestSurface>, id: string, options: Parameters<typeof surface.action>[2] = {}) {
  const started: string[] = [];
  const gates: ReturnType<typeof deferred>[] = [];
  let running = 0;
  let maxRunning = 0;
  const handle = surface.action(id, async (input) => {
    started.push(String(input.n));
    running++;
    maxRunning = Math.max(maxRunning, running);
    const gate = deferred();
    gates.push(gate);
    await gate.promise;
    running--;
    return input.n;
  }, { inputSchema: { type: 'object' }, ...options });
  return { handle, started, gates, maxRunning: () => maxRunning };
}

describe('concurrency: serial capabilities', () => {
  it('run one call at a time per instance, queue two in FIFO order, and refuse a fourth with RATE_LIMITED', async () => {
    const surface = createTestSurface();
    const g = gated(surface, 'domain:a.save');
    const calls = [1, 2, 3].map((n) => surface.invoke('domain:a.save', { n }));
    await tick();
    const fourth = errorOf(await surface.invoke('domain:a.save', { n: 4 }));
    assert.equal(fourth.code, 'RATE_LIMITED');
    assert.equal(fourth.retry, 'after-delay');
    assert.deepEqual(fourth.details, { queueDepth: 2 });
    assert.deepEqual(g.started, ['1']);
    g.gates[0].resolve(undefined);
    await tick();
    assert.deepEqual(g.started, ['1', '2']);
    // There is room again behind the running call.
    const fifth = surface.invoke('domain:a.save', { n: 5 });
    g.gates[1].resolve(undefined);
    await tick();
    g.gates[2].resolve(undefined);
    await tick();
    g.gates[3].resolve(undefined);
    const results = await Promise.all([...calls, fifth]);
    assert.deepEqual(results.map((r) => r.ok && r.output), [1, 2, 3, 5]);
    assert.deepEqual(g.started, ['1', '2', '3', '5']);
    assert.equal(g.maxRunning(), 1);
    surface.dispose();
  });

  it('instances have their own queues', async () => {
    const surface = createTestSurface();
    const a = gated(surface, 'view:a.list.save', { instanceId: 'a' });
    const b = gated(surface, 'view:a.list.save', { instanceId: 'b' });
    const pa = surface.invoke('view:a.list.save', { n: 1 }, { instanceId: 'a' });
    const pb = surface.invoke('view:a.list.save', { n: 2 }, { instanceId: 'b' });
    await tick();
    assert.deepEqual([a.started, b.started], [['1'], ['2']]);
    a.gates[0].resolve(undefined);
    b.gates[0].resolve(undefined);
    assert.deepEqual([errorCode(await pa), errorCode(await pb)], ['OK', 'OK']);
    surface.dispose();
  });

  it('honours limits.queueDepth', async () => {
    const surface = createTestSurface({ limits: { queueDepth: 1 } });
    const g = gated(surface, 'domain:a.save');
    const first = surface.invoke('domain:a.save', { n: 1 });
    const second = surface.invoke('domain:a.save', { n: 2 });
    assert.equal(errorCode(await surface.invoke('domain:a.save', { n: 3 })), 'RATE_LIMITED');
    g.gates[0]?.resolve(undefined);
    await tick();
    g.gates[1]?.resolve(undefined);
    assert.deepEqual([errorCode(await first), errorCode(await second)], ['OK', 'OK']);
    surface.dispose();
  });

  it('a queued call whose signal aborts is CANCELLED, leaves the queue and never runs', async () => {
    const surface = createTestSurface();
    const g = gated(surface, 'domain:a.save');
    const running = surface.invoke('domain:a.save', { n: 1 });
    const controller = new AbortController();
    const queued = surface.invoke('domain:a.save', { n: 2 }, { signal: controller.signal });
    const next = surface.invoke('domain:a.save', { n: 3 });
    await tick();
    controller.abort();
    assert.equal(errorCode(await queued), 'CANCELLED');
    // Its place is free again.
    const another = surface.invoke('domain:a.save', { n: 4 });
    g.gates[0].resolve(undefined);
    await tick();
    g.gates[1].resolve(undefined);
    await tick();
    g.gates[2].resolve(undefined);
    assert.deepEqual([errorCode(await running), errorCode(await next), errorCode(await another)], ['OK', 'OK', 'OK']);
    assert.deepEqual(g.started, ['1', '3', '4']);
    surface.dispose();
  });

  it('unregistering ends the running and the queued calls with COMPONENT_UNMOUNTED', async () => {
    const surface = createTestSurface();
    const g = gated(surface, 'domain:a.save');
    const calls = [1, 2, 3].map((n) => surface.invoke('domain:a.save', { n }));
    await tick();
    g.handle.unregister();
    const codes = (await Promise.all(calls)).map(errorCode);
    assert.deepEqual(codes, ['COMPONENT_UNMOUNTED', 'COMPONENT_UNMOUNTED', 'COMPONENT_UNMOUNTED']);
    assert.deepEqual(g.started, ['1']);
    surface.dispose();
  });

  it('a timed-out call frees its slot', async () => {
    const surface = createTestSurface();
    let calls = 0;
    surface.action('domain:a.hang', () => (++calls === 1 ? new Promise(() => {}) : 'second'), { timeoutMs: 20 });
    const [first, second] = await Promise.all([surface.invoke('domain:a.hang'), surface.invoke('domain:a.hang')]);
    assert.equal(errorCode(first), 'TIMEOUT');
    assert.equal(second.ok && second.output, 'second');
    surface.dispose();
  });

  it('a synchronous serial handler never makes callers wait for each other', async () => {
    const surface = createTestSurface();
    let n = 0;
    surface.action('domain:a.count', () => ++n);
    await surface.invoke('domain:a.count');
    const results = await Promise.all(Array.from({ length: 20 }, () => surface.invoke('domain:a.count')));
    assert.ok(results.every((r) => r.ok));
    assert.equal(n, 21);
    surface.dispose();
  });
});

describe('concurrency: parallel capabilities', () => {
  it('skip the queue: many calls run at once (observations are parallel by default)', async () => {
    const surface = createTestSurface();
    const gate = deferred();
    let running = 0;
    let max = 0;
    const read = async () => {
      running++;
      max = Math.max(max, running);
      await gate.promise;
      running--;
      return 'v';
    };
    surface.observation('domain:a.look', read);
    surface.action('domain:a.ping', read, { concurrency: 'parallel' });
    const calls = [
      ...Array.from({ length: 6 }, () => surface.invoke('domain:a.look')),
      ...Array.from({ length: 6 }, () => surface.invoke('domain:a.ping')),
    ];
    await tick();
    assert.equal(max, 12);
    gate.resolve(undefined);
    assert.ok((await Promise.all(calls)).every((r) => r.ok));
    surface.dispose();
  });
});

describe('queue primitives', () => {
  it('acquire, wait, hand over in order, drain', async () => {
    const slot: SerialSlot = { running: false, waiting: undefined };
    assert.equal(acquireSlot(slot, 2), 'run');
    const w1 = acquireSlot<string>(slot, 2);
    const w2 = acquireSlot<string>(slot, 2);
    assert.equal(acquireSlot(slot, 2), 'full');
    assert.ok(typeof w1 === 'object' && typeof w2 === 'object');
    releaseSlot(slot);
    assert.equal(await w1.promise, undefined, 'handed the slot');
    assert.equal(slot.running, true);
    drainQueue(slot, 'gone');
    assert.equal(await w2.promise, 'gone');
    releaseSlot(slot);
    assert.equal(slot.running, false);
  });
});
