// createTestSurface as the README uses it: shorthand helpers take any object without a schema (or
// validate against the one given), approveNext / denyNext answer the confirmation a call just made,
// and a failed result says why to the developer (`cause`) while the agent's error stays generic.
import { afterEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createTestSurface } from '../../src/testing/index.js';
import { quietConsole } from './registry-helpers.js';

afterEach(() => mock.restoreAll());

describe('createTestSurface', () => {
  it('a shorthand action without a schema takes the input its handler reads; one with a schema validates', async () => {
    quietConsole();
    const surface = createTestSurface();
    surface.action('domain:devices.wipe', ({ id }) => ({ wiped: id }));
    const ok = await surface.invoke('domain:devices.wipe', { id: 'd1' });
    assert.deepEqual(ok.ok && ok.output, { wiped: 'd1' });
    surface.action('domain:devices.rename', ({ name }) => ({ name }), {
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    });
    const bad = await surface.invoke('domain:devices.rename', { nom: 'x' });
    assert.equal(bad.ok ? 'OK' : bad.error.code, 'INVALID_INPUT');
    surface.dispose();
  });

  it('denyNext and approveNext answer the confirmation the call just created', async () => {
    quietConsole();
    const surface = createTestSurface();
    let runs = 0;
    surface.action('domain:devices.wipe', ({ id }) => (runs++, { wiped: id }), { effect: 'destructive', confirmation: 'required' });
    const confirmed = await surface.invokeConfirmed('domain:devices.wipe', { id: 'd1' });
    assert.equal(confirmed.ok, true);
    const asked = await surface.invoke('domain:devices.wipe', { id: 'd2' });
    assert.equal(asked.ok ? 'OK' : asked.error.code, 'CONFIRMATION_REQUIRED');
    const confirmationId = asked.ok ? '' : String(asked.error.details?.confirmationId);
    const denied = await surface.denyNext('not now');
    assert.equal(denied.confirmationId, confirmationId);
    const retried = await surface.invoke('domain:devices.wipe', { id: 'd2' }, { invocationId: asked.invocationId, confirmationId });
    assert.equal(retried.ok ? 'OK' : retried.error.code, 'CONFIRMATION_INVALID');
    // Asked, then approved by the helper: the retry runs once.
    const again = await surface.invoke('domain:devices.wipe', { id: 'd3' });
    const approved = await surface.approveNext();
    assert.equal(approved.confirmationId, again.ok ? '' : again.error.details?.confirmationId);
    const done = await surface.invoke('domain:devices.wipe', { id: 'd3' }, { invocationId: again.invocationId, confirmationId: approved.confirmationId });
    assert.deepEqual(done.ok && done.output, { wiped: 'd3' });
    assert.equal(runs, 2);
    surface.dispose();
  });

  it('a handler that returns undefined inside its output is reported with the field, to the developer only', async () => {
    quietConsole();
    const surface = createTestSurface();
    surface.action('domain:devices.count', () => ({ count: 3, cursor: undefined, rows: [1, undefined] }));
    const result = await surface.invoke('domain:devices.count', {});
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.code, 'EXECUTION_FAILED');
    assert.doesNotMatch(result.error.message, /cursor/);
    assert.ok(result.cause instanceof TypeError);
    assert.match((result.cause as Error).message, /"domain:devices\.count" is not usable: undefined is not JSON \(omit the key, or use null\) at "\/cursor"/);
    // A bare undefined is fine: the agent gets null.
    surface.action('domain:devices.ping', () => undefined);
    const ping = await surface.invoke('domain:devices.ping', {});
    assert.deepEqual(ping.ok && ping.output, null);
    // A handler's own exception is the cause too.
    surface.action('domain:devices.fail', () => {
      throw new Error('database down');
    });
    const failed = await surface.invoke('domain:devices.fail', {});
    assert.equal((failed.cause as Error).message, 'database down');
    assert.doesNotMatch(JSON.stringify(failed.ok ? {} : failed.error), /database down/);
    surface.dispose();
  });
});
