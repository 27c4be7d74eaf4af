import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isCanonicalCapabilityId, isCapabilityId, parseCapabilityId } from '../../src/core/capability-id.js';

describe('parseCapabilityId', () => {
  it('splits canonical ids into plane and path', () => {
    assert.deepEqual(parseCapabilityId('view:devices.table.selectRows'), {
      ok: true,
      plane: 'view',
      path: ['devices', 'table', 'selectRows'],
      canonical: true,
    });
    assert.deepEqual(parseCapabilityId('domain:devices.disable'), {
      ok: true,
      plane: 'domain',
      path: ['devices', 'disable'],
      canonical: true,
    });
    assert.deepEqual(parseCapabilityId('domain:x'), {
      ok: true,
      plane: 'domain',
      path: ['x'],
      canonical: true,
    });
  });

  it('accepts ids outside the segment grammar as non-canonical', () => {
    for (const id of [
      'domain:devices.do_thing',
      'view:Devices.1table',
      'domain:a-b',
      'domain:a:b',
      'view:ünïcode',
    ]) {
      const parsed = parseCapabilityId(id);
      assert.equal(parsed.ok, true, id);
      assert.equal(parsed.ok && parsed.canonical, false, id);
      assert.equal(isCanonicalCapabilityId(id), false, id);
      assert.equal(isCapabilityId(id), true, id);
    }
  });

  it('says why an id is bad', () => {
    const cases: Array<[unknown, string, RegExp]> = [
      ['', 'empty', /empty/],
      ['devices.disable', 'missing-plane', /no plane.*domain:devices\.disable/],
      ['tool:devices', 'unknown-plane', /"tool".*"view" or "domain"/],
      ['View:devices', 'unknown-plane', /plane/],
      ['domain:', 'empty-path', /no path/],
      ['domain:a..b', 'empty-segment', /empty path segment/],
      ['domain:.a', 'empty-segment', /empty/],
      ['domain:a.', 'empty-segment', /empty/],
      ['domain:a b', 'invalid-character', /U\+0020/],
      ['domain:a\nb', 'invalid-character', /U\+000A/],
      ['domain:a\u200bb', 'invalid-character', /U\+200B/],
      [42, 'not-a-string', /string/],
      [null, 'not-a-string', /null/],
      ['domain:' + 'a'.repeat(300), 'too-long', /limit/],
    ];
    for (const [id, code, reason] of cases) {
      const parsed = parseCapabilityId(id);
      assert.equal(parsed.ok, false, String(id));
      if (!parsed.ok) {
        assert.equal(parsed.code, code, String(id));
        assert.match(parsed.reason, reason, String(id));
      }
      assert.equal(isCanonicalCapabilityId(id), false);
    }
  });

  it('agrees with the canonical grammar on generated ids', () => {
    const segment = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,8}$/);
    fc.assert(
      fc.property(
        fc.constantFrom('view', 'domain'),
        fc.array(segment, { minLength: 1, maxLength: 5 }),
        (plane, path) => {
          const id = `${plane}:${path.join('.')}`;
          assert.deepEqual(parseCapabilityId(id), { ok: true, plane, path, canonical: true });
          assert.equal(isCanonicalCapabilityId(id), true);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (s) => {
        const parsed = parseCapabilityId(s);
        // canonical exactly when the strict checker says so; never throws
        assert.equal(parsed.ok && parsed.canonical, isCanonicalCapabilityId(s));
      }),
    );
  });
});
