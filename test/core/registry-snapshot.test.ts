import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileScope, matchesScope } from '../../src/core/scope.js';
import { createTestSurface } from '../../src/testing/index.js';
import { quietConsole } from './registry-helpers.js';

beforeEach(() => {
  quietConsole();
});

describe('matchesScope', () => {
  it('matches segment prefixes of the path on any plane', () => {
    assert.equal(matchesScope('domain:devices.disable', ['devices']), true);
    assert.equal(matchesScope('view:devices.table.selectRows', ['devices']), true);
    assert.equal(matchesScope('view:devices.table.selectRows', ['devices.table']), true);
    assert.equal(matchesScope('view:devices.table.selectRows', ['devices.table.selectRows']), true);
    assert.equal(matchesScope('view:devicesExtra.table', ['devices']), false, 'a prefix ends at a segment boundary');
    assert.equal(matchesScope('view:devices.tab', ['devices.table']), false);
    assert.equal(matchesScope('domain:users.invite', ['devices']), false);
  });

  it('matches plane-qualified prefixes on that plane only; `view:` is the whole plane', () => {
    assert.equal(matchesScope('view:devices.table.selectRows', ['view:devices']), true);
    assert.equal(matchesScope('domain:devices.disable', ['view:devices']), false);
    assert.equal(matchesScope('domain:devices.disable', ['domain:']), true);
    assert.equal(matchesScope('view:devices.table', ['domain:']), false);
    assert.equal(matchesScope('view:devices.table', ['view:devices.*']), true);
  });

  it('any entry may match; no scope or an empty list narrows nothing', () => {
    assert.equal(matchesScope('domain:users.invite', ['devices', 'users']), true);
    assert.equal(matchesScope('domain:users.invite', []), true);
    assert.equal(matchesScope('domain:users.invite', undefined), true);
    assert.equal(matchesScope('domain:users.invite', ['  ']), true);
    assert.equal(compileScope([]), undefined);
  });

  it('a prefix always matches the ids it is a segment prefix of (property)', () => {
    const segment = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,5}$/);
    fc.assert(
      fc.property(fc.constantFrom('view', 'domain'), fc.array(segment, { minLength: 1, maxLength: 5 }), fc.nat(), (plane, path, cut) => {
        const id = `${plane}:${path.join('.')}`;
        const prefix = path.slice(0, (cut % path.length) + 1).join('.');
        assert.equal(matchesScope(id, [prefix]), true);
        assert.equal(matchesScope(id, [`${plane}:${prefix}`]), true);
        assert.equal(matchesScope(id, [`${plane === 'view' ? 'domain' : 'view'}:${prefix}`]), false);
        assert.equal(matchesScope(id, [prefix + 'Z']), path.slice(0, (cut % path.length) + 1).join('.') + 'Z' === path.join('.'));
      }),
    );
  });
});

describe('registry.snapshot', () => {
  it('sorts descriptors by capability id, then instance id (none first), whatever the registration order', () => {
    const surface = createTestSurface();
    const regs: [string, string | undefined][] = [
      ['view:b.table.select', 'z'],
      ['domain:b.run', undefined],
      ['view:b.table.select', 'a'],
      ['domain:a.run', undefined],
      ['view:b.table.select', undefined],
      ['view:a.list.pick', 'm'],
    ];
    for (const [id, instanceId] of regs) surface.action(id, () => null, instanceId ? { instanceId } : {});
    const order = surface.snapshot().capabilities.map((d) => `${d.capabilityId}#${d.instanceId ?? ''}`);
    assert.deepEqual(order, [
      'domain:a.run#',
      'domain:b.run#',
      'view:a.list.pick#m',
      'view:b.table.select#',
      'view:b.table.select#a',
      'view:b.table.select#z',
    ]);
    surface.dispose();
  });

  it('keeps the order deterministic under any registration and removal sequence (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.constantFrom('domain:a.x', 'domain:b.x', 'view:c.y', 'view:c.yy'), fc.option(fc.constantFrom('1', '2', '10', 'a'), { nil: undefined })), {
          selector: ([id, inst]) => `${id}#${inst ?? ''}`,
          maxLength: 16,
        }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (entries, removals) => {
          const surface = createTestSurface();
          const handles = entries.map(([id, instanceId]) => surface.action(id, () => null, instanceId ? { instanceId } : {}));
          const removed = new Set<number>();
          for (const r of removals) {
            if (handles.length === 0) break;
            const i = r % handles.length;
            handles[i].unregister();
            removed.add(i);
          }
          const keys = surface.snapshot().capabilities.map((d) => [d.capabilityId, d.instanceId] as const);
          const expected = entries
            .filter((_, i) => !removed.has(i))
            .sort(([a, ai], [b, bi]) => (a !== b ? (a < b ? -1 : 1) : ai === bi ? 0 : ai === undefined ? -1 : bi === undefined ? 1 : ai < bi ? -1 : 1));
          assert.deepEqual(keys, expected);
          surface.dispose();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps that order with snapshots, mass removals and re-registrations in between (property)', () => {
    const ids = ['domain:a.x', 'domain:b.x', 'view:c.y', 'view:c.yy'];
    const instances = [undefined, '1', '2', '10', 'a', 'A'];
    const byKey = (a: readonly [string, string | undefined], b: readonly [string, string | undefined]) =>
      a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] === b[1] ? 0 : a[1] === undefined ? -1 : b[1] === undefined ? 1 : a[1] < b[1] ? -1 : 1;
    const step = fc.oneof(
      fc.tuple(fc.constant('add' as const), fc.nat(ids.length - 1), fc.nat(instances.length - 1)),
      fc.tuple(fc.constant('remove' as const), fc.nat(), fc.nat()),
      // Releases all but `n` of what is registered, without a snapshot in between.
      fc.tuple(fc.constant('keep' as const), fc.nat(3), fc.nat()),
      fc.tuple(fc.constant('snapshot' as const), fc.nat(), fc.nat()),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const surface = createTestSurface();
        const live = new Map<string, { key: readonly [string, string | undefined]; unregister(): void }>();
        const check = () => {
          const keys = surface.snapshot().capabilities.map((d) => [d.capabilityId, d.instanceId] as const);
          assert.deepEqual(keys, [...live.values()].map((l) => l.key).sort(byKey));
        };
        for (const [what, a, b] of steps) {
          if (what === 'add') {
            const key = [ids[a], instances[b]] as const;
            const name = `${key[0]}#${key[1] ?? ''}`;
            if (live.has(name)) continue;
            const handle = surface.action(key[0], () => null, key[1] ? { instanceId: key[1] } : {});
            live.set(name, { key, unregister: () => handle.unregister() });
          } else if (what === 'remove' && live.size > 0) {
            const name = [...live.keys()][a % live.size];
            live.get(name)!.unregister();
            live.delete(name);
          } else if (what === 'keep') {
            for (const name of [...live.keys()].slice(a)) {
              live.get(name)!.unregister();
              live.delete(name);
            }
          } else if (what === 'snapshot') check();
        }
        check();
        surface.dispose();
      }),
      { numRuns: 200 },
    );
  });

  it('a memoized snapshot is the one its scope would build: no two scopes share a memo entry', () => {
    const surface = createTestSurface();
    for (const id of ['domain:a.b', 'domain:undefined', 'view:a.c', 'domain:x.y', 'domain:a']) surface.action(id, () => null);
    const reg = surface.registry;
    const consumer = { id: 'a', kind: 'test' };
    const entry = fc.oneof(
      fc.constantFrom('a', 'a.b', 'view:a', 'undefined', 'x', '', 'a\u0001x', 'a,x', 'null'),
      fc.constantFrom(undefined, null, 1) as fc.Arbitrary<unknown>,
    );
    fc.assert(
      fc.property(fc.array(fc.array(entry, { maxLength: 3 }), { minLength: 2, maxLength: 6 }), (scopes) => {
        for (const scope of scopes) {
          const ids = reg.snapshot({ consumer, scope: scope as string[] }).capabilities.map((d) => d.capabilityId);
          const expected = ['domain:a.b', 'domain:undefined', 'view:a.c', 'domain:x.y', 'domain:a']
            .filter((id) => matchesScope(id, scope as string[]))
            .sort();
          assert.deepEqual([...ids].sort(), expected, JSON.stringify(scope));
        }
      }),
      { numRuns: 200 },
    );
    surface.dispose();
  });

  it('is memoized per (version, consumer, scope) and frozen', () => {
    const surface = createTestSurface();
    const handle = surface.action('domain:devices.disable', () => null);
    surface.action('domain:users.invite', () => null);
    const reg = surface.registry;
    const consumer = { id: 'a', kind: 'test' };
    const first = reg.snapshot({ consumer });
    assert.equal(reg.snapshot({ consumer: { id: 'a', kind: 'test' } }), first, 'same consumer and scope: the same object');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.capabilities));
    const scoped = reg.snapshot({ consumer, scope: ['devices'] });
    assert.notEqual(scoped, first);
    assert.equal(reg.snapshot({ consumer, scope: ['devices'] }), scoped);
    assert.deepEqual(scoped.capabilities.map((d) => d.capabilityId), ['domain:devices.disable']);
    const other = reg.snapshot({ consumer: { id: 'b', kind: 'test' } });
    assert.notEqual(other, first);
    assert.deepEqual(other, first);
    handle.update({ note: 'changed' });
    const after = reg.snapshot({ consumer });
    assert.notEqual(after, first);
    assert.equal(after.surfaceVersion, reg.surfaceVersion);
    assert.notEqual(after.surfaceVersion, first.surfaceVersion);
    // Unchanged registrations keep their descriptor object.
    assert.equal(after.capabilities[1], first.capabilities[1]);
    assert.notEqual(after.capabilities[0], first.capabilities[0]);
    surface.dispose();
  });

  it('lists unavailable capabilities with their state', () => {
    const surface = createTestSurface();
    surface.action('domain:a.run', () => null, { state: { available: false, unavailableReason: 'Select a row first', note: 'n' } });
    assert.deepEqual(surface.snapshot().capabilities[0].state, { available: false, unavailableReason: 'Select a row first', note: 'n' });
    surface.dispose();
  });

  it('omits what a policy hides from that consumer, and follows setPolicies', () => {
    const surface = createTestSurface({
      policies: [{ name: 'no-destructive-for-remote', discover: ({ consumer, capability }) => !(consumer.kind === 'remote' && capability.effect === 'destructive') }],
    });
    surface.action('domain:devices.wipe', () => null, { effect: 'destructive' });
    surface.action('domain:devices.list', () => null, { effect: 'read' });
    const ids = (kind: string) => surface.registry.snapshot({ consumer: { id: kind, kind } }).capabilities.map((d) => d.capabilityId);
    assert.deepEqual(ids('remote'), ['domain:devices.list']);
    assert.deepEqual(ids('embedded'), ['domain:devices.list', 'domain:devices.wipe']);
    surface.registry.setPolicies([{ name: 'throws', discover: () => { throw new Error('bad policy'); } }]);
    assert.deepEqual(ids('embedded'), [], 'a policy that throws hides (fail closed)');
    surface.registry.setPolicies([]);
    assert.deepEqual(ids('remote'), ['domain:devices.list', 'domain:devices.wipe']);
    surface.dispose();
  });

  it('throws for a missing consumer (a programmer mistake) and is empty after dispose', () => {
    const surface = createTestSurface();
    surface.action('domain:a.run', () => null);
    assert.throws(() => surface.registry.snapshot({} as never), /consumer/);
    assert.throws(() => surface.registry.snapshot({ consumer: { id: 'a', kind: 'test' }, scope: 'devices' as never }), /scope/);
    surface.dispose();
    assert.deepEqual(surface.registry.snapshot({ consumer: { id: 'a', kind: 'test' } }).capabilities, []);
  });
});
