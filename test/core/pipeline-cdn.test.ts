// The CDN build's lazily loaded invoke pipeline (src/core/pipeline.cdn.ts, swapped in for
// pipeline.ts by rollup.config.js): same results as the linked one, and it never rejects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { devAuthority } from '../../src/core/authority.js';
import { RegistryCore } from '../../src/core/registry.js';
import { preparePipeline, runInvocation } from '../../src/core/pipeline.cdn.js';
import { contract, idSchema, quietConsole } from './registry-helpers.js';

const consumer = { id: 'lazy-test', kind: 'test' };

describe('pipeline.cdn.ts (the CDN build)', () => {
  it('runs calls through the real pipeline once loaded, including the first one', async () => {
    quietConsole();
    const core = new RegistryCore({ authority: devAuthority() });
    core.register({ contract: contract('domain:lazy.echo', { inputSchema: idSchema }), token: 'dev-unauthorized', handler: (input: unknown) => ({ echoed: input }) });
    // The first call may come before the chunk has loaded: it waits for it.
    const first = await runInvocation(core, { capabilityId: 'domain:lazy.echo', input: { id: 'x' }, consumer, invocationId: 'l-1' });
    assert.deepEqual(first, { ok: true, output: { echoed: { id: 'x' } }, invocationId: 'l-1', surfaceVersion: core.surfaceVersion });
    preparePipeline();
    const missing = await runInvocation(core, { capabilityId: 'domain:lazy.none', consumer, invocationId: 'l-2' });
    assert.equal(missing.ok, false);
    assert.equal(!missing.ok && missing.error.code, 'CAPABILITY_NOT_FOUND');
  });

  it('answers garbage requests with structured results, never a rejection', async () => {
    const core = new RegistryCore({ authority: devAuthority() });
    for (const request of [undefined, null, 42, 'x', { capabilityId: 7 }]) {
      const result = await runInvocation(core, request);
      assert.equal(result.ok, false, JSON.stringify(request));
    }
  });
});
