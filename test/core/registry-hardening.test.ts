// Issue 13's pipeline items: hidden means absent (10); what was validated and approved is what runs (9);
// no throw anywhere an agent reaches (11). Idempotency (8) is in registry-idempotency.test.ts.
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentInvocationResult, AgentSurfacePolicy } from '../../src/core/types.js';
import { createTestSurface } from '../../src/testing/index.js';
import { errorCode, quietConsole } from './registry-helpers.js';

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
