// Fuzz: 10 000 random requests always give a structured result, and the registry still works.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkJson } from '../../src/core/canonical-json.js';
import { DEFAULT_RETRY } from '../../src/core/errors.js';
import type { AgentInvocationResult, InvokeRequest } from '../../src/core/types.js';
import { createTestSurface } from '../../src/testing/index.js';
import { idSchema, quietConsole } from './registry-helpers.js';

const CODES = new Set(Object.keys(DEFAULT_RETRY));
const RETRIES = new Set(Object.values(DEFAULT_RETRY));

function assertStructured(result: AgentInvocationResult): void {
  assert.equal(typeof result, 'object');
  assert.equal(typeof result.invocationId, 'string');
  assert.equal(typeof result.surfaceVersion, 'string');
  // The whole result crosses a wire: it must survive JSON unchanged.
  const text = JSON.stringify(result);
  assert.equal(JSON.stringify(JSON.parse(text)), text);
  assert.equal(checkJson(result).ok, true, 'the result is JSON all the way down');
  if (result.ok) {
    assert.deepEqual(Object.keys(result).sort(), ['invocationId', 'ok', 'output', 'surfaceVersion']);
    return;
  }
  assert.equal(result.ok, false);
  const { code, message, retry, details } = result.error;
  assert.ok(CODES.has(code), `unknown code ${code}`);
  assert.ok(RETRIES.has(retry), `unknown retry ${retry}`);
  assert.equal(typeof message, 'string');
  assert.ok(message.length > 0 && message.length < 2000);
  if (details !== undefined) assert.ok(details !== null && typeof details === 'object' && !Array.isArray(details));
}

describe('fuzz: invoke', () => {
  it('10 000 random requests each yield a structured result; nothing leaks; the registry still works', async () => {
    quietConsole();
    const surface = createTestSurface({ limits: { maxInputBytes: 4096 } });
    const consumer = surface.consumer;
    let runs = 0;
    surface.action('domain:a.run', (input) => (runs++, { got: input.id }), { inputSchema: idSchema });
    surface.action('domain:a.async', async (input) => (runs++, input), { inputSchema: { type: 'object' }, concurrency: 'parallel' });
    surface.action('domain:a.throws', () => {
      throw new Error('internal detail');
    });
    surface.action('domain:a.bad', () => ({ when: new Date() }));
    surface.action('domain:a.confirm', () => 'confirmed', { confirmation: 'required' });
    surface.action('domain:a.wipe', () => 'wiped', { effect: 'destructive' });
    surface.action('view:a.list.pick', (_i, ctx) => ctx.instanceId ?? null, { instanceId: 'one' });
    surface.action('view:a.list.pick', (_i, ctx) => ctx.instanceId ?? null, { instanceId: 'two' });
    surface.observation('view:a.list.rows', () => [1, 2, 3], { state: { available: false, unavailableReason: 'loading' } });
    surface.observation('domain:a.look', () => ({ ok: true }));
    const ids = ['domain:a.run', 'domain:a.async', 'domain:a.throws', 'domain:a.bad', 'domain:a.confirm', 'domain:a.wipe', 'view:a.list.pick', 'view:a.list.rows', 'domain:a.look'];
    const version = surface.registry.surfaceVersion;

    const anything = fc.anything({
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
      withBoxedValues: true,
      withObjectString: true,
      maxDepth: 3,
    });
    const input = fc.oneof(
      anything,
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ id: fc.oneof(fc.string(), anything) }),
      fc.constant(JSON.parse('{"__proto__":{"polluted":1}}')),
      fc.constant(JSON.parse('{"constructor":{"prototype":{"polluted":1}}}')),
      fc.string({ maxLength: 5000 }).map((s) => ({ id: s })),
    );
    const request = fc.oneof(
      { weight: 1, arbitrary: anything },
      {
        weight: 6,
        arbitrary: fc.record(
          {
            capabilityId: fc.oneof(fc.constantFrom(...ids), fc.string(), anything),
            instanceId: fc.oneof(fc.constantFrom('one', 'two', 'three'), anything),
            registrationId: fc.oneof(fc.string(), anything),
            surfaceVersion: fc.oneof(fc.constant(version), fc.string(), anything),
            input,
            invocationId: fc.oneof(fc.uuid(), fc.string({ maxLength: 3 }), anything),
            consumer: fc.oneof(fc.constant(consumer), fc.record({ id: fc.string(), kind: fc.string() }), anything),
            confirmationId: fc.oneof(fc.string(), anything),
            signal: fc.oneof(fc.constant(AbortSignal.abort()), fc.constant(new AbortController().signal), anything),
          },
          { requiredKeys: [] },
        ),
      },
    );

    let count = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        count++;
        let result: AgentInvocationResult;
        try {
          result = await surface.registry.invoke(r as InvokeRequest);
        } catch (error) {
          assert.fail(`invoke threw or rejected: ${String(error)}`);
        }
        assertStructured(result);
        assert.doesNotMatch(JSON.stringify(result), /internal detail/);
      }),
      { numRuns: 10_000 },
    );
    assert.equal(count, 10_000);

    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    assert.ok(surface.registry.confirmations.list().length <= 32);
    const after = await surface.invoke('domain:a.run', { id: 'still works' });
    assert.deepEqual(after.ok && after.output, { got: 'still works' });
    assert.equal(surface.snapshot().capabilities.length, 10);
    assert.ok(runs > 0, 'some random requests were valid enough to run');
    surface.dispose();
  });
});
