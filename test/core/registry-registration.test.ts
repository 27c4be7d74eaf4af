import { before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCompilerAuthority, devAuthority } from '../../src/core/authority.js';
import { resetIssuedWarnings } from '../../src/core/dev.js';
import { AgentSurfaceDefinitionError } from '../../src/core/errors.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceAuthority, RefusalEvent, SurfaceChangedEvent } from '../../src/core/types.js';
import { compileContracts } from '../../src/compiler/compile.js';
import { createTestSurface } from '../../src/testing/index.js';
import { contract, idSchema, quietConsole } from './registry-helpers.js';

const consumer = { id: 'agent', kind: 'test' };
const disable = contract('domain:devices.disable', { effect: 'server-mutation', inputSchema: idSchema });
const rows = contract('view:devices.table.rows', { kind: 'observation', effect: 'read' });

let compiled: AgentSurfaceAuthority;
let log: ReturnType<typeof quietConsole>;

before(async () => {
  const { manifest, validators } = await compileContracts([disable, rows]);
  compiled = createCompilerAuthority({ manifest, validators });
});

beforeEach(() => {
  log = quietConsole();
  resetIssuedWarnings();
});

function definitionError(fn: () => unknown, code: string): AgentSurfaceDefinitionError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AgentSurfaceDefinitionError, `expected a definition error, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code} to be thrown`);
}

describe('registry.register', () => {
  it('admits a compiled contract with its token and returns a handle', () => {
    const registry = createAgentSurfaceRegistry({ authority: compiled });
    const entry = compiled.contract(disable.id)!;
    const handle = registry.register({ contract: disable, token: entry.token, handler: () => null });
    assert.equal(handle.capabilityId, disable.id);
    assert.match(handle.registrationId, /\S/);
    assert.equal(handle.instanceId, undefined);
    const [descriptor] = registry.snapshot({ consumer }).capabilities;
    assert.deepEqual(descriptor, {
      capabilityId: 'domain:devices.disable',
      registrationId: handle.registrationId,
      plane: 'domain',
      kind: 'action',
      effect: 'server-mutation',
      confirmation: 'never',
      description: 'Does domain:devices.disable.',
      inputSchema: entry.contract.inputSchema,
      untrustedOutput: false,
      state: { available: true },
    });
    assert.ok(Object.isFrozen(descriptor) && Object.isFrozen(descriptor.state) && Object.isFrozen(descriptor.inputSchema));
  });

  it('gives every registration its own registrationId, a new one after re-registering', () => {
    const surface = createTestSurface();
    const a = surface.action('domain:a.run', () => null);
    const b = surface.action('domain:b.run', () => null);
    a.unregister();
    const again = surface.action('domain:a.run', () => null);
    const ids = new Set([a.registrationId, b.registrationId, again.registrationId]);
    assert.equal(ids.size, 3);
    surface.dispose();
  });

  it('refuses a contract the build did not authorize, logs once, emits `refused`, and shows it nowhere', async () => {
    const registry = createAgentSurfaceRegistry({ authority: compiled });
    const refused: RefusalEvent[] = [];
    registry.on('refused', (e) => refused.push(e));
    const forged = { ...disable, description: 'Something else entirely.' };
    const token = compiled.contract(disable.id)!.token;
    const error = definitionError(() => registry.register({ contract: forged, token, handler: () => null }), 'UNAUTHORIZED_CONTRACT');
    assert.match(error.message, /differs/);
    definitionError(() => registry.register({ contract: forged, token, handler: () => null }), 'UNAUTHORIZED_CONTRACT');
    definitionError(() => registry.register({ contract: disable, token: 'sha256-' + 'A'.repeat(43), handler: () => null }), 'UNAUTHORIZED_CONTRACT');
    definitionError(() => registry.register({ contract: disable, handler: () => null }), 'UNAUTHORIZED_CONTRACT');
    // Logged once per refusal kind, however often it is retried.
    assert.equal(log.errors.filter((args) => String(args[0]).includes('differs')).length, 1);
    assert.equal(refused.length, 4);
    assert.equal(refused[0].capabilityId, disable.id);
    assert.equal(refused[0].error.code, 'UNAUTHORIZED_CONTRACT');
    assert.equal(registry.snapshot({ consumer }).capabilities.length, 0);
    const result = await registry.invoke({ capabilityId: disable.id, invocationId: 'i1', consumer, input: { id: 'x' } });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.error.code, 'CAPABILITY_NOT_FOUND');
  });

  it('refuses an invalid contract with INVALID_CONTRACT (dev authority)', () => {
    const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
    definitionError(
      () => registry.register({ contract: contract('domain:x.run', { effect: 'teleport' as never }), handler: () => null }),
      'INVALID_CONTRACT',
    );
    definitionError(
      () => registry.register({ contract: contract('domain:x.look', { kind: 'observation', effect: 'destructive' }), read: () => null }),
      'INVALID_CONTRACT',
    );
    assert.equal(registry.snapshot({ consumer }).capabilities.length, 0);
  });

  it('admits nothing without an authority, and says how to pass one', () => {
    const registry = createAgentSurfaceRegistry();
    const error = definitionError(() => registry.register({ contract: disable, handler: () => null }), 'UNAUTHORIZED_CONTRACT');
    assert.match(error.message, /no authority/);
    assert.match(error.message, /createCompilerAuthority/);
    assert.equal(registry.authority, undefined);
    assert.equal(log.errors.length, 1);
  });

  it('refuses a second registration of the same capability instance, never replacing the first', async () => {
    const surface = createTestSurface();
    let first = 0;
    surface.action('domain:devices.disable', () => ++first);
    const error = definitionError(() => surface.action('domain:devices.disable', () => 'second'), 'DUPLICATE_REGISTRATION');
    assert.match(error.message, /already registered/);
    assert.match(error.message, /instanceId/);
    surface.action('view:devices.table.select', () => 'a', { instanceId: 'a' });
    surface.action('view:devices.table.select', () => 'b', { instanceId: 'b' });
    definitionError(() => surface.action('view:devices.table.select', () => 'b2', { instanceId: 'b' }), 'DUPLICATE_REGISTRATION');
    const result = await surface.invoke('domain:devices.disable');
    assert.deepEqual(result.ok && result.output, 1);
    assert.equal(surface.snapshot().capabilities.length, 3);
    surface.dispose();
  });

  it('needs a handler for an action and a read for an observation', () => {
    const surface = createTestSurface();
    const c = surface.contract('domain:a.run', 'action');
    const o = surface.contract('domain:a.look', 'observation');
    definitionError(() => surface.register({ contract: c }), 'INVALID_REGISTRATION');
    definitionError(() => surface.register({ contract: c, handler: () => 1, read: () => 1 }), 'INVALID_REGISTRATION');
    definitionError(() => surface.register({ contract: o }), 'INVALID_REGISTRATION');
    definitionError(() => surface.register({ contract: o, handler: () => 1 }), 'INVALID_REGISTRATION');
    definitionError(() => surface.register({ contract: c, handler: 'nope' as never }), 'INVALID_REGISTRATION');
    definitionError(() => surface.register({ contract: c, handler: () => 1, instanceId: '' }), 'INVALID_REGISTRATION');
    definitionError(() => surface.register(undefined as never), 'INVALID_REGISTRATION');
    definitionError(() => surface.register({} as never), 'INVALID_CONTRACT');
    assert.equal(surface.snapshot().capabilities.length, 0);
    surface.dispose();
  });

  it('throws on register after dispose', () => {
    const surface = createTestSurface();
    surface.dispose();
    assert.equal(surface.registry.disposed, true);
    definitionError(() => surface.action('domain:a.run', () => null), 'INVALID_REGISTRATION');
  });

  it('throws early for malformed registry options', () => {
    assert.throws(() => createAgentSurfaceRegistry({ authority: {} as never }), TypeError);
    assert.throws(() => createAgentSurfaceRegistry({ limits: { queueDepth: 0 } }), /queueDepth/);
    assert.throws(() => createAgentSurfaceRegistry({ limits: { confirmationTtlMs: Number.NaN } }), /confirmationTtlMs/);
    assert.throws(() => createAgentSurfaceRegistry({ policies: [{ name: '' }] }), /name/);
    assert.throws(() => createAgentSurfaceRegistry({ policies: [{ name: 'p', authorize: 1 as never }] }), /authorize/);
    assert.throws(() => createAgentSurfaceRegistry(null as never), TypeError);
  });
});

describe('handle.update and unregister', () => {
  it('updates live state, which snapshots show; a same-state update changes nothing', () => {
    const surface = createTestSurface();
    const handle = surface.action('domain:a.run', () => null, { state: { available: false, unavailableReason: 'No selection' } });
    assert.deepEqual(surface.snapshot().capabilities[0].state, { available: false, unavailableReason: 'No selection' });
    const before = surface.registry.surfaceVersion;
    handle.update({ available: false, unavailableReason: 'No selection' });
    assert.equal(surface.registry.surfaceVersion, before);
    handle.update({ available: true, note: '3 rows' });
    assert.notEqual(surface.registry.surfaceVersion, before);
    assert.deepEqual(surface.snapshot().capabilities[0].state, { available: true, note: '3 rows' });
    handle.update({ note: undefined });
    assert.deepEqual(surface.snapshot().capabilities[0].state, { available: true });
    assert.throws(() => handle.update({ available: 'yes' as never }), TypeError);
    surface.dispose();
  });

  it('unregister removes the capability; update and unregister afterwards do nothing', async () => {
    const surface = createTestSurface();
    const handle = surface.action('domain:a.run', () => null);
    handle.unregister();
    const version = surface.registry.surfaceVersion;
    handle.update({ note: 'late' });
    handle.unregister();
    assert.equal(surface.registry.surfaceVersion, version);
    assert.equal(surface.snapshot().capabilities.length, 0);
    const result = await surface.invoke('domain:a.run');
    assert.equal(!result.ok && result.error.code, 'CAPABILITY_NOT_FOUND');
    surface.dispose();
  });
});

describe('surfaceVersion and surface-changed', () => {
  it('coalesces every change of one microtask into one event carrying the latest version', async () => {
    const surface = createTestSurface();
    const events: SurfaceChangedEvent[] = [];
    surface.registry.on('surface-changed', (e) => events.push(e));
    const a = surface.action('domain:a.run', () => null);
    surface.action('domain:b.run', () => null);
    a.update({ note: 'x' });
    a.unregister();
    assert.equal(events.length, 0, 'notified in a microtask, not synchronously');
    await Promise.resolve();
    assert.equal(events.length, 1);
    assert.equal(events[0].surfaceVersion, surface.registry.surfaceVersion);
    surface.action('domain:c.run', () => null);
    await Promise.resolve();
    assert.equal(events.length, 2);
    assert.notEqual(events[1].surfaceVersion, events[0].surfaceVersion);
    surface.dispose();
  });

  it('a listener added later in the same microtask still hears that microtask’s changes once', async () => {
    const surface = createTestSurface();
    surface.action('domain:a.run', () => null);
    surface.action('domain:b.run', () => null);
    const events: SurfaceChangedEvent[] = [];
    surface.registry.on('surface-changed', (e) => events.push(e));
    await Promise.resolve();
    assert.equal(events.length, 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(events.length, 1, 'nothing changed since');
    surface.dispose();
  });

  it('is opaque, changes with every model-visible change and embeds a per-registry nonce', () => {
    const one = createTestSurface();
    const two = createTestSurface();
    assert.notEqual(one.registry.surfaceVersion, two.registry.surfaceVersion);
    const seen = new Set([one.registry.surfaceVersion]);
    const h = one.action('domain:a.run', () => null);
    seen.add(one.registry.surfaceVersion);
    h.update({ available: false });
    seen.add(one.registry.surfaceVersion);
    one.registry.setPolicies([{ name: 'none' }]);
    seen.add(one.registry.surfaceVersion);
    h.unregister();
    seen.add(one.registry.surfaceVersion);
    assert.equal(seen.size, 5);
    one.dispose();
    two.dispose();
  });

  it('a listener that throws does not stop the others; unsubscribe works', async () => {
    const surface = createTestSurface();
    const seen: string[] = [];
    surface.registry.on('surface-changed', () => {
      throw new Error('boom');
    });
    const off = surface.registry.on('surface-changed', () => seen.push('b'));
    surface.action('domain:a.run', () => null);
    await Promise.resolve();
    off();
    off();
    surface.action('domain:b.run', () => null);
    await Promise.resolve();
    assert.deepEqual(seen, ['b']);
    assert.throws(() => surface.registry.on('nope' as never, () => {}), /unknown event type/);
    surface.dispose();
  });
});
