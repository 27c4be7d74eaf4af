import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  assignWireNames,
  decodeWireName,
  encodeWireName,
  encodeWireNameAtLevel,
  WIRE_NAME_PATTERN,
} from '../../src/core/wire-names.js';

const isCanonicalCapabilityId = (id: string) =>
  /^(view|domain):[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$/.test(id);

const segment = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,12}$/);
const canonicalId = fc
  .tuple(fc.constantFrom('view', 'domain'), fc.array(segment, { minLength: 1, maxLength: 8 }))
  .map(([plane, path]) => `${plane}:${path.join('.')}`);
// Any string at all, weighted towards the shapes that break naive encoders.
const anyId = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  canonicalId,
  fc
    .array(fc.oneof(segment, fc.constant(''), fc.string({ maxLength: 5 })), { maxLength: 6 })
    .map((p) => `view:${p.join('.')}`),
  fc.constantFrom(
    '',
    ':',
    '.',
    'view:',
    'view:a..b',
    'domain:a_b',
    'view:1a',
    'VIEW:a',
    'view:a.b-c',
    'view:é.ü',
  ),
);
const anyInstance = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.string({ unit: 'grapheme', maxLength: 70 }),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,20}$/),
);

describe('encodeWireName', () => {
  it('encodes the seed examples', () => {
    assert.equal(encodeWireName('view:devices.table.selectRows'), 'view_devices__table__selectRows');
    assert.equal(encodeWireName('domain:devices.disable'), 'domain_devices__disable');
  });

  it('appends _at_<instance> for an instance', () => {
    assert.equal(
      encodeWireName('view:devices.table.selectRows', 'main'),
      'view_devices__table__selectRows_at_main',
    );
    assert.equal(
      encodeWireName('view:devices.table.selectRows', 'row-7_b'),
      'view_devices__table__selectRows_at_row-7_b',
    );
  });

  it('escapes and hashes instance ids that are not plain tokens', () => {
    const a = encodeWireName('view:devices.table', 'a b');
    const b = encodeWireName('view:devices.table', 'a/b');
    assert.match(a, /^view_devices__table_at_a_b-[0-9a-z]{8}$/);
    assert.notEqual(a, b);
    assert.notEqual(encodeWireName('view:x', ''), encodeWireName('view:x'));
  });

  it('hashes non-canonical ids so they never look canonical', () => {
    for (const id of ['', 'view:', 'view:a..b', 'domain:a_b', 'view:1a', 'other:a', 'view:é', 'view:a.b-c']) {
      const name = encodeWireName(id);
      assert.match(name, WIRE_NAME_PATTERN, id);
      assert.match(name, /-[0-9a-z]{8}$/, id);
      assert.equal(decodeWireName(name), undefined, id);
    }
    assert.notEqual(encodeWireName('view:a..b'), encodeWireName('view:a.b'));
    assert.notEqual(encodeWireName('view:a b'), encodeWireName('view:a/b'));
  });

  it('cuts long names to 64 characters with a deterministic hash suffix', () => {
    const id = `domain:${Array.from({ length: 12 }, (_, i) => `segmentNumber${i}`).join('.')}`;
    const name = encodeWireName(id);
    assert.equal(name.length, 64);
    // The plane, the first segment and the last ones stay readable; the middle goes.
    assert.equal(name, `domain_segmentNumber0__segmentNumber10__segmentNumber11-${name.slice(-8)}`);
    assert.match(
      encodeWireName(
        'view:warehouseInventoryDashboard.stockLevelsGrid5.selectRowsMatchingFilter',
        'row 3 / region "north"',
      ),
      /^view_selectRowsMatchingFilter_at_row_3___region__north_-[0-9a-z]{8}$/,
    );
    assert.equal(encodeWireName(id), name);
    assert.equal(decodeWireName(name), undefined);
    // Two ids sharing the first 64 characters still differ.
    assert.notEqual(encodeWireName(`${id}.a`), encodeWireName(`${id}.b`));
  });

  it('always yields a provider-valid name, for any id and instance', () => {
    fc.assert(
      fc.property(anyId, anyInstance, (id, instanceId) => {
        const name = encodeWireName(id, instanceId);
        assert.match(name, WIRE_NAME_PATTERN);
        assert.equal(encodeWireName(id, instanceId), name, 'deterministic');
        for (let level = 1; level <= 16; level++)
          assert.match(encodeWireNameAtLevel(id, instanceId, level), WIRE_NAME_PATTERN);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives distinct targets distinct names', () => {
    fc.assert(
      fc.property(anyId, anyInstance, anyId, anyInstance, (a, ai, b, bi) => {
        fc.pre(a !== b || ai !== bi);
        assert.notEqual(encodeWireName(a, ai), encodeWireName(b, bi));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('names without a hyphen', () => {
  // The toolset checks collisions only among names containing '-': every other name must be unique.
  const tiny = fc.constantFrom('a', 'at', 'b', 'A1');
  const trickyId = fc
    .tuple(fc.constantFrom('view', 'domain'), fc.array(tiny, { minLength: 1, maxLength: 4 }))
    .map(([plane, path]) => `${plane}:${path.join('.')}`);
  const trickyInstance = fc.option(
    fc.constantFrom('at', 'b', 'at_b', 'b_at_c', 'a__at', 'at_at_', '0', 'x-1'),
    { nil: undefined },
  );
  it('are injective: distinct targets never share one', () => {
    fc.assert(
      fc.property(trickyId, trickyInstance, trickyId, trickyInstance, (a, ai, b, bi) => {
        fc.pre(a !== b || ai !== bi);
        const x = encodeWireName(a, ai);
        const y = encodeWireName(b, bi);
        if (!x.includes('-') && !y.includes('-')) assert.notEqual(x, y);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('decodeWireName', () => {
  it('reverses every canonical id that fits', () => {
    fc.assert(
      fc.property(canonicalId, (id) => {
        assert.ok(isCanonicalCapabilityId(id));
        const name = encodeWireName(id);
        assert.equal(decodeWireName(name), name.length <= 64 && !name.includes('-') ? id : undefined);
        if (id.length + (id.split('.').length - 1) <= 64) assert.equal(decodeWireName(name), id);
      }),
      { numRuns: 2000 },
    );
  });

  it('is undefined for instance-qualified, shortened and non-canonical names', () => {
    fc.assert(
      fc.property(anyId, anyInstance, (id, instanceId) => {
        const name = encodeWireName(id, instanceId);
        const decoded = decodeWireName(name);
        if (instanceId !== undefined || !isCanonicalCapabilityId(id)) assert.equal(decoded, undefined);
        if (decoded !== undefined) assert.equal(decoded, id);
      }),
      { numRuns: 2000 },
    );
    assert.equal(decodeWireName('view_devices__table_at_main'), undefined);
    assert.equal(decodeWireName('view_devices-abc'), undefined);
    assert.equal(decodeWireName('tool_name'), undefined);
    assert.equal(decodeWireName(''), undefined);
    assert.equal(decodeWireName(`view_${'a'.repeat(70)}`), undefined);
  });
});

describe('assignWireNames', () => {
  // An encoder that collides on purpose, to exercise the catalog-level resolution.
  const clumsy = (id: string, instanceId: string | undefined) =>
    id.startsWith('view:x') ? 'view_x' : encodeWireName(id, instanceId);

  it('re-encodes colliding names with a longer hash and leaves the others alone', () => {
    const entries = [
      { capabilityId: 'view:x.a' },
      { capabilityId: 'view:x.b' },
      { capabilityId: 'domain:y' },
    ];
    const names = assignWireNames(entries, clumsy);
    const a = names.get(entries[0]!)!;
    const b = names.get(entries[1]!)!;
    assert.notEqual(a, b);
    assert.match(a, /-[0-9a-z]{14}$/);
    assert.match(b, /-[0-9a-z]{14}$/);
    assert.equal(names.get(entries[2]!), 'domain_y');
  });

  it('resolves a collision from the colliding set only', () => {
    const x1 = { capabilityId: 'view:x.a' };
    const x2 = { capabilityId: 'view:x.b' };
    const base = assignWireNames([x1, x2], clumsy);
    const extra = [{ capabilityId: 'domain:z' }, { capabilityId: 'view:devices.table', instanceId: 'r1' }];
    const grown = assignWireNames([...extra, x2, x1], clumsy);
    assert.equal(grown.get(x1), base.get(x1));
    assert.equal(grown.get(x2), base.get(x2));
  });

  it('keeps names unique and stable for a large catalog', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(anyId, anyInstance), {
          maxLength: 60,
          selector: ([id, inst]) => `${id}\u0000${inst ?? '\u0001'}`,
        }),
        (pairs) => {
          const entries = pairs.map(([capabilityId, instanceId]) => ({ capabilityId, instanceId }));
          const names = assignWireNames(entries);
          const all = [...names.values()];
          assert.equal(new Set(all).size, all.length);
          for (const name of all) assert.match(name, WIRE_NAME_PATTERN);
          const fewer = assignWireNames(entries.slice(1));
          for (const entry of entries.slice(1)) assert.equal(fewer.get(entry), names.get(entry));
        },
      ),
      { numRuns: 300 },
    );
  });
});
