import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfirmationEvent, PendingConfirmation } from '../../src/core/types.js';
import { createTestSurface, type TestSurface } from '../../src/testing/index.js';
import { errorCode, errorOf, idSchema, quietConsole, tick } from './registry-helpers.js';

let surface: TestSurface;
let runs: string[];

function setup(options: Parameters<typeof createTestSurface>[0] = {}): TestSurface {
  surface = createTestSurface(options);
  runs = [];
  surface.action('domain:devices.wipe', (input) => {
    runs.push(String(input.id));
    return { wiped: input.id };
  }, { effect: 'destructive', confirmation: 'required', inputSchema: idSchema });
  return surface;
}

/** First call of a confirmed capability: returns the confirmationId it was asked for. */
async function ask(id: string, invocationId: string): Promise<string> {
  const result = await surface.invoke('domain:devices.wipe', { id }, { invocationId });
  const e = errorOf(result);
  assert.equal(e.code, 'CONFIRMATION_REQUIRED');
  return String(e.details?.confirmationId);
}

beforeEach(() => {
  quietConsole();
});

afterEach(() => {
  surface?.dispose();
});

describe('confirmation: asking', () => {
  it('a required confirmation returns CONFIRMATION_REQUIRED { confirmationId, expiresAt } and a bound pending record; nothing runs', async () => {
    setup({ limits: { confirmationTtlMs: 60_000 } });
    const notified: PendingConfirmation[][] = [];
    surface.registry.confirmations.subscribe((list) => notified.push(list));
    const before = Date.now();
    const result = await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1' });
    const e = errorOf(result);
    assert.equal(e.code, 'CONFIRMATION_REQUIRED');
    assert.equal(e.retry, 'with-confirmation');
    assert.deepEqual(Object.keys(e.details!).sort(), ['confirmationId', 'expiresAt']);
    assert.ok(Number(e.details!.expiresAt) >= before + 60_000);
    assert.deepEqual(runs, []);
    const [record] = surface.registry.confirmations.list();
    assert.equal(record.confirmationId, e.details!.confirmationId);
    assert.equal(record.status, 'pending');
    assert.deepEqual(record.consumer, surface.consumer);
    assert.equal(record.capabilityId, 'domain:devices.wipe');
    assert.equal(record.invocationId, 'inv-1');
    assert.equal(record.registrationId, surface.snapshot().capabilities[0].registrationId);
    assert.deepEqual(record.input, { id: 'd1' });
    assert.ok(Object.isFrozen(record) && Object.isFrozen(record.input));
    assert.match(record.inputDigest, /\S/);
    assert.equal(record.effect, 'destructive');
    assert.equal(record.expiresAt, e.details!.expiresAt);
    assert.equal(notified.length, 1);
    assert.equal(notified[0][0].confirmationId, record.confirmationId);
    const created = surface.eventsOf('confirmation');
    assert.equal(created.length, 1);
    assert.equal(created[0].action, 'created');
  });

  it('asking again for the same request reuses the pending record instead of opening a second prompt', async () => {
    setup();
    const first = await ask('d1', 'inv-1');
    const again = await ask('d1', 'inv-1');
    assert.equal(again, first);
    const retryWhilePending = errorOf(await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: first }));
    assert.equal(retryWhilePending.code, 'CONFIRMATION_REQUIRED');
    assert.equal(retryWhilePending.details?.confirmationId, first);
    assert.equal(surface.registry.confirmations.list().length, 1);
    const other = await ask('d1', 'inv-2');
    assert.notEqual(other, first);
    assert.equal(surface.registry.confirmations.list().length, 2);
  });

  it('a policy asking for confirmation triggers it like the contract; "optional" alone does not', async () => {
    surface = createTestSurface({ policies: [{ name: 'confirm-remote', authorize: ({ consumer }) => (consumer.kind === 'remote' ? { requireConfirmation: true } : true) }] });
    let ran = 0;
    surface.action('domain:a.send', () => ++ran, { confirmation: 'optional' });
    assert.equal(errorCode(await surface.invoke('domain:a.send')), 'OK');
    const remote = { id: 'r', kind: 'remote' };
    const r = await surface.invokeConfirmed('domain:a.send', {}, { request: { consumer: remote } });
    assert.equal(errorCode(r), 'OK');
    assert.equal(ran, 2);
    assert.equal(surface.eventsOf('confirmation').filter((e) => e.action === 'created').length, 1);
  });

  it('more than 32 pending records → RATE_LIMITED', async () => {
    setup();
    for (let i = 0; i < 32; i++) await ask(`d${i}`, `inv-${i}`);
    const e = errorOf(await surface.invoke('domain:devices.wipe', { id: 'more' }));
    assert.equal(e.code, 'RATE_LIMITED');
    assert.equal(e.retry, 'after-delay');
    assert.equal(surface.registry.confirmations.list().length, 32);
    surface.registry.confirmations.deny(surface.registry.confirmations.list()[0].confirmationId);
    assert.equal(errorCode(await surface.invoke('domain:devices.wipe', { id: 'more' })), 'CONFIRMATION_REQUIRED');
  });

  it('honours limits.maxPendingConfirmations', async () => {
    setup({ limits: { maxPendingConfirmations: 2 } });
    await ask('a', 'i1');
    await ask('b', 'i2');
    assert.equal(errorCode(await surface.invoke('domain:devices.wipe', { id: 'c' })), 'RATE_LIMITED');
  });
});

describe('confirmation: deciding and retrying', () => {
  it('approved → the retry with the same invocationId and confirmationId runs once; the approval is used up', async () => {
    setup();
    const id = await ask('d1', 'inv-1');
    assert.equal(surface.registry.confirmations.approve(id), true);
    assert.equal(surface.registry.confirmations.approve(id), false, 'already decided');
    assert.deepEqual(surface.registry.confirmations.list(), []);
    const r = await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id });
    assert.deepEqual(r.ok && r.output, { wiped: 'd1' });
    assert.deepEqual(runs, ['d1']);
    const actions = surface.eventsOf('confirmation').map((e: ConfirmationEvent) => e.action);
    assert.deepEqual(actions, ['created', 'approved', 'consumed']);
    // A replay of the same request returns the same result without running again.
    const replay = await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id });
    assert.deepEqual(replay, r);
    assert.deepEqual(runs, ['d1']);
    // Another invocation cannot reuse it.
    const reuse = errorOf(await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-2', confirmationId: id }));
    assert.equal(reuse.code, 'CONFIRMATION_INVALID');
    assert.deepEqual(reuse.details, { reason: 'mismatch' });
    assert.deepEqual(runs, ['d1']);
  });

  it('denied → CONFIRMATION_INVALID { reason: "denied" } with the person’s reason; nothing runs', async () => {
    setup();
    const id = await ask('d1', 'inv-1');
    const outcome = surface.registry.confirmations.waitFor(id);
    assert.equal(surface.registry.confirmations.deny(id, 'Wrong device'), true);
    assert.deepEqual(await outcome, { status: 'denied', reason: 'Wrong device' });
    const e = errorOf(await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id }));
    assert.equal(e.code, 'CONFIRMATION_INVALID');
    assert.equal(e.retry, 'no');
    assert.deepEqual(e.details, { reason: 'denied', denialReason: 'Wrong device' });
    assert.equal(surface.registry.confirmations.approve(id), false);
    assert.deepEqual(runs, []);
  });

  it('bound to another request → { reason: "mismatch" }: other input, invocation, consumer, or an unknown id', async () => {
    setup();
    const id = await ask('d1', 'inv-1');
    surface.registry.confirmations.approve(id);
    const tries = [
      surface.invoke('domain:devices.wipe', { id: 'd2' }, { invocationId: 'inv-1', confirmationId: id }),
      surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-9', confirmationId: id }),
      surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id, consumer: { id: 'other', kind: 'test' } }),
      surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: 'cf-forged' }),
    ];
    for (const r of await Promise.all(tries)) {
      const e = errorOf(r);
      assert.equal(e.code, 'CONFIRMATION_INVALID');
      assert.deepEqual(e.details, { reason: 'mismatch' });
    }
    assert.deepEqual(runs, []);
    // The approval is still there for the request it belongs to.
    assert.equal(errorCode(await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id })), 'OK');
  });

  it('a forged confirmationId on a registry that has never asked for a confirmation → { reason: "mismatch" }, and asking still works after', async () => {
    setup();
    const forged = await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: 'cf-forged' });
    assert.equal(errorOf(forged).code, 'CONFIRMATION_INVALID');
    assert.deepEqual(errorOf(forged).details, { reason: 'mismatch' });
    assert.deepEqual(surface.registry.confirmations.list(), []);
    assert.equal(surface.registry.confirmations.approve('cf-forged'), false);
    const id = await ask('d1', 'inv-2');
    assert.deepEqual(surface.registry.confirmations.list().map((p) => p.confirmationId), [id]);
    assert.equal(surface.registry.confirmations.approve(id), true);
    assert.equal(errorCode(await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-2', confirmationId: id })), 'OK');
    assert.deepEqual(runs, ['d1']);
  });

  it('dispose expires approved records too, and a retry afterwards runs nothing', async () => {
    setup();
    const id = await ask('d1', 'inv-1');
    surface.registry.confirmations.approve(id);
    surface.registry.dispose();
    assert.deepEqual(await surface.registry.confirmations.waitFor(id), { status: 'expired' });
    const r = await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id });
    assert.equal(errorCode(r), 'CAPABILITY_NOT_FOUND');
    assert.deepEqual(runs, []);
  });

  it('approving or denying an unknown id returns false and changes nothing', async () => {
    setup();
    await ask('d1', 'inv-1');
    const before = surface.events.length;
    assert.equal(surface.registry.confirmations.approve('nope'), false);
    assert.equal(surface.registry.confirmations.deny('nope'), false);
    assert.equal(surface.registry.confirmations.approve(undefined as never), false);
    assert.equal(surface.events.length, before);
    assert.equal(surface.registry.confirmations.list().length, 1);
  });

  it('unregistering the capability expires its records', async () => {
    surface = createTestSurface();
    const handle = surface.action('domain:a.send', () => 'sent', { confirmation: 'required' });
    const r = errorOf(await surface.invoke('domain:a.send', {}, { invocationId: 'i' }));
    const id = String(r.details?.confirmationId);
    handle.unregister();
    assert.deepEqual(surface.registry.confirmations.list(), []);
    assert.deepEqual(await surface.registry.confirmations.waitFor(id), { status: 'expired' });
    assert.equal(surface.registry.confirmations.approve(id), false);
  });
});

describe('confirmation: TTL and waiting', () => {
  it('expires after the TTL: retry → { reason: "expired" }, approve → false, timers cleaned up', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    try {
      setup({ limits: { confirmationTtlMs: 1000 } });
      const id = await ask('d1', 'inv-1');
      const waiting = surface.registry.confirmations.waitFor(id);
      mock.timers.tick(999);
      assert.equal(surface.registry.confirmations.list().length, 1);
      mock.timers.tick(1);
      assert.deepEqual(await waiting, { status: 'expired' });
      assert.deepEqual(surface.registry.confirmations.list(), []);
      assert.equal(surface.registry.confirmations.approve(id), false);
      const e = errorOf(await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id }));
      assert.equal(e.code, 'CONFIRMATION_INVALID');
      assert.deepEqual(e.details, { reason: 'expired' });
      assert.equal(e.retry, 'yes');
      assert.deepEqual(runs, []);
      assert.deepEqual(surface.eventsOf('confirmation').map((ev) => ev.action), ['created', 'expired']);
    } finally {
      mock.timers.reset();
    }
  });

  it('an approval stays usable for a full TTL after the decision, then expires too', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    try {
      setup({ limits: { confirmationTtlMs: 1000 } });
      const id = await ask('d1', 'inv-1');
      mock.timers.tick(900);
      surface.registry.confirmations.approve(id);
      mock.timers.tick(900);
      assert.equal(errorCode(await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id })), 'OK');
      const late = await ask('d2', 'inv-2');
      surface.registry.confirmations.approve(late);
      mock.timers.tick(1000);
      const e = errorOf(await surface.invoke('domain:devices.wipe', { id: 'd2' }, { invocationId: 'inv-2', confirmationId: late }));
      assert.deepEqual(e.details, { reason: 'expired' });
      assert.deepEqual(runs, ['d1']);
    } finally {
      mock.timers.reset();
    }
  });

  it('waitFor resolves on approval, on abort, for unknown ids, and never rejects', async () => {
    setup();
    const id = await ask('d1', 'inv-1');
    const controller = new AbortController();
    const aborted = surface.registry.confirmations.waitFor(id, { signal: controller.signal });
    const approved = surface.registry.confirmations.waitFor(id);
    controller.abort();
    assert.deepEqual(await aborted, { status: 'aborted' });
    assert.deepEqual(await surface.registry.confirmations.waitFor(id, { signal: AbortSignal.abort() }), { status: 'aborted' });
    await tick();
    surface.registry.confirmations.approve(id);
    assert.deepEqual(await approved, { status: 'approved' });
    assert.deepEqual(await surface.registry.confirmations.waitFor(id), { status: 'approved' });
    await surface.invoke('domain:devices.wipe', { id: 'd1' }, { invocationId: 'inv-1', confirmationId: id });
    assert.deepEqual(await surface.registry.confirmations.waitFor(id), { status: 'consumed' });
    assert.deepEqual(await surface.registry.confirmations.waitFor('unknown'), { status: 'unknown' });
    assert.deepEqual(await surface.registry.confirmations.waitFor(42 as never, { signal: 'x' as never }), { status: 'unknown' });
  });

  it('dispose expires every record and resolves every waiter', async () => {
    setup();
    const a = await ask('a', 'i1');
    const b = await ask('b', 'i2');
    surface.registry.confirmations.approve(b);
    const waits = [surface.registry.confirmations.waitFor(a), surface.registry.confirmations.waitFor(a)];
    const seen: PendingConfirmation[][] = [];
    surface.registry.confirmations.subscribe((list) => seen.push(list));
    surface.registry.dispose();
    assert.deepEqual(await Promise.all(waits), [{ status: 'expired' }, { status: 'expired' }]);
    assert.deepEqual(await surface.registry.confirmations.waitFor(b), { status: 'expired' });
    assert.deepEqual(surface.registry.confirmations.list(), []);
    assert.deepEqual(seen.at(-1), []);
    assert.equal(surface.registry.confirmations.approve(a), false);
  });

  it('the test surface helpers approve or deny the next confirmation', async () => {
    setup();
    const pending = surface.invoke('domain:devices.wipe', { id: 'x' });
    const next = await surface.nextConfirmation();
    assert.equal(next.input.id, 'x');
    await pending;
    const viaWait = surface.invokeConfirmed('domain:devices.wipe', { id: 'y' });
    assert.equal(errorCode(await viaWait), 'OK');
    const denied = await surface.invokeConfirmed('domain:devices.wipe', { id: 'z' }, { decision: 'deny', reason: 'no' });
    assert.equal(errorOf(denied).code, 'CONFIRMATION_INVALID');
    const later = surface.denyNext('not now');
    await surface.invoke('domain:devices.wipe', { id: 'w' });
    assert.equal((await later).input.id, 'w');
    await assert.rejects(surface.nextConfirmation({ timeoutMs: 10 }), /no confirmation/);
    assert.deepEqual(runs, ['y']);
  });
});
