import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileContracts } from '../../src/compiler/compile.js';
import { createCompilerAuthority } from '../../src/core/authority.js';
import { AgentSurfaceDefinitionError, AgentSurfaceError } from '../../src/core/errors.js';
import { createAgentExposureGateway } from '../../src/core/gateway.js';
import { toToolResult } from '../../src/core/tool-result.js';
import type { CapabilityContract } from '../../src/core/types.js';
import { WIRE_NAME_PATTERN } from '../../src/core/wire-names.js';

const lookup: CapabilityContract = {
  id: 'domain:weather.lookup',
  kind: 'observation',
  effect: 'server-query',
  description: 'Current weather for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string', minLength: 1 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
    required: ['city'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] },
  timeoutMs: 200,
};
const notify: CapabilityContract = {
  id: 'domain:team.notify',
  kind: 'action',
  effect: 'external-side-effect',
  confirmation: 'required',
  description: 'Send a message to the team channel.',
};

async function setup() {
  const { manifest, validators } = await compileContracts([lookup, notify]);
  const authority = createCompilerAuthority({ manifest, validators });
  return { authority, token: (id: string) => manifest.contracts[id]!.token };
}

describe('createAgentExposureGateway', () => {
  it('exposes a compiled tool and runs it with the registry result shape', async () => {
    const { authority, token } = await setup();
    const gateway = createAgentExposureGateway(authority);
    const seen: unknown[] = [];
    const tool = gateway.expose({
      contract: lookup,
      token: token(lookup.id),
      handler: (input, ctx) => {
        seen.push(input, ctx.invocationId, ctx.consumer.id, ctx.signal instanceof AbortSignal);
        return { tempC: 21.5 };
      },
    });
    assert.equal(tool.name, 'domain_weather__lookup');
    assert.match(tool.name, WIRE_NAME_PATTERN);
    assert.equal(tool.inputSchema.type, 'object');
    assert.match(tool.description, /^Current weather for a city\./);
    assert.match(tool.description, /effect: server-query/);
    assert.deepEqual(tool.state, { available: true });
    assert.deepEqual([...gateway.wireNameMap()], [['domain_weather__lookup', 'domain:weather.lookup']]);

    const result = await tool.execute({ city: 'Lyon' }, { toolCallId: 'call-1' });
    assert.equal(result.ok, true);
    assert.deepEqual(result.ok && result.output, { tempC: 21.5 });
    assert.equal(result.invocationId, 'call-1');
    assert.match(result.surfaceVersion, /^gateway:/);
    assert.deepEqual(seen, [{ city: 'Lyon' }, 'call-1', 'exposure-gateway', true]);
    assert.deepEqual(toToolResult(result).structuredContent, { tempC: 21.5 });
  });

  it('refuses contracts the authority did not compile, with the definition error', async () => {
    const { authority, token } = await setup();
    const gateway = createAgentExposureGateway(authority);
    const handler = () => ({ tempC: 0 });
    assert.throws(
      () => gateway.expose({ contract: lookup, token: undefined, handler }),
      (e: unknown) =>
        e instanceof AgentSurfaceDefinitionError &&
        e.code === 'UNAUTHORIZED_CONTRACT' &&
        e.details?.reason === 'missing-token',
    );
    // The same token with a contract changed after the build.
    assert.throws(
      () =>
        gateway.expose({
          contract: { ...lookup, description: 'Weather, and also run any command.' },
          token: token(lookup.id),
          handler,
        }),
      (e: unknown) =>
        e instanceof AgentSurfaceDefinitionError &&
        e.code === 'UNAUTHORIZED_CONTRACT' &&
        e.details?.reason === 'contract-differs',
    );
    assert.throws(
      () =>
        gateway.expose({
          contract: { ...lookup, id: 'domain:weather.other' },
          token: token(lookup.id),
          handler,
        }),
      (e: unknown) => e instanceof AgentSurfaceDefinitionError && e.code === 'UNAUTHORIZED_CONTRACT',
    );
    assert.equal(gateway.tools().length, 0);
  });

  it('refuses what it cannot honour: confirmation, duplicates, a missing handler', async () => {
    const { authority, token } = await setup();
    const gateway = createAgentExposureGateway(authority);
    assert.throws(
      () => gateway.expose({ contract: notify, token: token(notify.id), handler: () => null }),
      (e: unknown) =>
        e instanceof AgentSurfaceDefinitionError &&
        e.code === 'INVALID_REGISTRATION' &&
        /requires confirmation/.test(e.message),
    );
    gateway.expose({ contract: lookup, token: token(lookup.id), handler: () => ({ tempC: 1 }) });
    assert.throws(
      () => gateway.expose({ contract: lookup, token: token(lookup.id), handler: () => ({ tempC: 1 }) }),
      (e: unknown) => e instanceof AgentSurfaceDefinitionError && e.code === 'DUPLICATE_REGISTRATION',
    );
    assert.throws(
      // @ts-expect-error: the handler is required
      () => gateway.expose({ contract: lookup, token: token(lookup.id) }),
      (e: unknown) => e instanceof AgentSurfaceDefinitionError && e.code === 'INVALID_REGISTRATION',
    );
    assert.equal(gateway.withdraw('domain_weather__lookup'), true);
    assert.equal(gateway.tools().length, 0);
    assert.throws(() => createAgentExposureGateway(undefined as never), /createCompilerAuthority/);
  });

  it('validates input with the compiled validator, reporting JSON-pointer paths, before the handler runs', async () => {
    const { authority, token } = await setup();
    let calls = 0;
    const tool = createAgentExposureGateway(authority).expose({
      contract: lookup,
      token: token(lookup.id),
      handler: () => {
        calls++;
        return { tempC: 0 };
      },
    });
    const wrong = await tool.execute({ city: '', days: 9, extra: true });
    assert.equal(wrong.ok, false);
    assert.equal(!wrong.ok && wrong.error.code, 'INVALID_INPUT');
    assert.equal(!wrong.ok && wrong.error.retry, 'with-changes');
    const paths = !wrong.ok
      ? (wrong.error.details!.issues as Array<{ path: string }>).map((i) => i.path).sort()
      : [];
    assert.deepEqual(paths, ['/city', '/days', '/extra']);

    for (const bad of [
      [1],
      'city=Lyon',
      JSON.parse('{"city":"x","__proto__":{"admin":true}}'),
      { city: 'x'.repeat(70_000) },
      { city: 'x', n: NaN },
    ]) {
      const r = await tool.execute(bad);
      assert.equal(!r.ok && r.error.code, 'INVALID_INPUT', JSON.stringify(bad)?.slice(0, 40));
    }
    // Like the registry: a missing or null input is {}, which then fails the schema.
    for (const none of [undefined, null]) {
      const missing = await tool.execute(none);
      assert.equal(!missing.ok && missing.error.code, 'INVALID_INPUT');
      assert.deepEqual(
        !missing.ok && (missing.error.details!.issues as Array<{ path: string }>).map((i) => i.path),
        ['/city'],
      );
    }
    assert.equal(calls, 0);
  });

  it('checks outputs and keeps handler failures private', async () => {
    const { authority, token } = await setup();
    const make = (handler: () => unknown) =>
      createAgentExposureGateway(authority).expose({ contract: lookup, token: token(lookup.id), handler });
    const badShape = await make(() => ({ tempC: 'warm' })).execute({ city: 'a' });
    assert.equal(!badShape.ok && badShape.error.code, 'EXECUTION_FAILED');
    const notJson = await make(() => ({ tempC: 1, when: new Date() })).execute({ city: 'a' });
    assert.equal(!notJson.ok && notJson.error.code, 'EXECUTION_FAILED');
    const thrown = await make(() => {
      throw new Error('db password is hunter2');
    }).execute({ city: 'a' });
    assert.equal(!thrown.ok && thrown.error.code, 'EXECUTION_FAILED');
    assert.doesNotMatch(JSON.stringify(thrown), /hunter2/);
    const deliberate = await make(() => {
      throw new AgentSurfaceError('PRECONDITION_FAILED', 'unknown city', { details: { city: 'a' } });
    }).execute({ city: 'a' });
    assert.deepEqual(!deliberate.ok && deliberate.error, {
      code: 'PRECONDITION_FAILED',
      message: 'unknown city',
      retry: 'with-changes',
      details: { city: 'a' },
    });
  });

  it('times out, and cancels through the call signal', async () => {
    const { authority, token } = await setup();
    let aborted = false;
    const tool = createAgentExposureGateway(authority).expose({
      contract: lookup,
      token: token(lookup.id),
      handler: (_input, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ tempC: 0 });
          });
        }),
    });
    const slow = await tool.execute({ city: 'a' });
    assert.equal(!slow.ok && slow.error.code, 'TIMEOUT');
    assert.equal(aborted, true);

    const controller = new AbortController();
    const pending = tool.execute({ city: 'a' }, { signal: controller.signal });
    controller.abort();
    const cancelled = await pending;
    assert.equal(!cancelled.ok && cancelled.error.code, 'CANCELLED');
  });
});
