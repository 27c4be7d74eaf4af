import { expect } from '@open-wc/testing';
import fc from 'fast-check';
import type { JsonValue } from '../../src/core/types.js';
import { describeEffect, formatInput, formatRemaining } from '../../src/elements/format-input.js';

describe('formatInput', () => {
  it('flattens objects and arrays into path: value lines in key order', () => {
    const { entries, omitted } = formatInput({
      ids: ['a', 'b'],
      options: { force: true, limit: 3 },
      note: null,
      empty: {},
      none: [],
    });
    expect(entries).to.deep.equal([
      { path: 'ids[0]', value: '"a"' },
      { path: 'ids[1]', value: '"b"' },
      { path: 'options.force', value: 'true' },
      { path: 'options.limit', value: '3' },
      { path: 'note', value: 'null' },
      { path: 'empty', value: '{}' },
      { path: 'none', value: '[]' },
    ]);
    expect(omitted).to.equal(0);
    expect(formatInput({}).entries).to.deep.equal([]);
    expect(formatInput('bare').entries).to.deep.equal([{ path: '', value: '"bare"' }]);
  });

  it('quotes odd keys and shows hidden characters as escapes', () => {
    const { entries } = formatInput({ 'two words': 'a\nb', rtl: 'abc\u202Eevil', zw: 'x\u200By' });
    expect(entries).to.deep.equal([
      { path: '["two words"]', value: '"a\\nb"' },
      { path: 'rtl', value: '"abc\\u202eevil"' },
      { path: 'zw', value: '"x\\u200by"' },
    ]);
  });

  it('cuts long strings and long inputs', () => {
    const { entries, omitted } = formatInput(
      { text: 'x'.repeat(500), list: Array.from({ length: 80 }, (_, i) => i) },
      { maxEntries: 10, maxStringLength: 100 },
    );
    expect(entries).to.have.length(10);
    expect(entries[0]!.value).to.match(/^"x{100}" … \(400 more characters\)$/);
    expect(omitted).to.equal(71);
  });

  it('never lets a control, bidi or zero-width character through, and accounts for every leaf', () => {
    const hidden = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;
    const countLeaves = (v: JsonValue): number =>
      v === null || typeof v !== 'object'
        ? 1
        : Array.isArray(v)
          ? v.length
            ? v.reduce<number>((n, x) => n + countLeaves(x), 0)
            : 1
          : Object.keys(v).length
            ? Object.values(v).reduce<number>((n, x) => n + countLeaves(x), 0)
            : 1;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue() as fc.Arbitrary<JsonValue>, {
          maxKeys: 6,
        }),
        (input) => {
          const { entries, omitted } = formatInput(input, { maxEntries: 20 });
          for (const e of entries) {
            expect(hidden.test(e.path) || hidden.test(e.value)).to.equal(false);
          }
          const leaves = Object.keys(input).length ? countLeaves(input) : 0;
          expect(entries.length + omitted).to.equal(leaves);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('formatRemaining and describeEffect', () => {
  it('counts down in m:ss and h:mm:ss', () => {
    expect(formatRemaining(119_001)).to.equal('2:00');
    expect(formatRemaining(5_000)).to.equal('0:05');
    expect(formatRemaining(-10)).to.equal('0:00');
    expect(formatRemaining(3_600_000 + 61_000)).to.equal('1:01:01');
  });

  it('words every effect for a person', () => {
    expect(describeEffect('destructive')).to.match(/may not be undone/);
    expect(describeEffect('read')).to.be.a('string').and.not.equal('read');
  });
});
