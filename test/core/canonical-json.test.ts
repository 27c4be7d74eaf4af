import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { runInNewContext } from 'node:vm';
import {
  CanonicalJsonError,
  canonicalJson,
  checkJson,
  isJsonValue,
  jsonStringBytes,
  utf8Length,
} from '../../src/core/canonical-json.js';

function throwsAt(value: unknown, path: string, message: RegExp): void {
  assert.throws(
    () => canonicalJson(value),
    (e: unknown) => {
      assert.ok(e instanceof CanonicalJsonError);
      assert.ok(e instanceof TypeError);
      assert.equal(e.path, path);
      assert.match(e.message, message);
      return true;
    },
  );
}

describe('canonicalJson', () => {
  it('sorts keys at every level, by code unit, with no whitespace', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    // code-unit order: uppercase before lowercase, "é" (U+00E9) after "z", astral by surrogates
    assert.equal(
      canonicalJson({ z: 1, é: 2, Z: 3, '\u{1F600}': 4, '\uffff': 5 }),
      '{"Z":3,"z":1,"é":2,"\u{1F600}":4,"\uffff":5}',
    );
    assert.equal(canonicalJson('x\n"'), '"x\\n\\""');
    assert.equal(canonicalJson(-0), '0');
    assert.equal(canonicalJson([]), '[]');
    assert.equal(canonicalJson(Object.create(null)), '{}');
  });

  it('rejects non-JSON values naming the JSON pointer', () => {
    throwsAt(undefined, '', /undefined.*\(root\)/);
    throwsAt({ a: { b: undefined } }, '/a/b', /undefined/);
    throwsAt([1, undefined], '/1', /undefined/);
    throwsAt({ f: () => 1 }, '/f', /function/);
    throwsAt({ s: Symbol('x') }, '/s', /symbol/);
    throwsAt({ n: NaN }, '/n', /NaN/);
    throwsAt({ n: [Infinity] }, '/n/0', /Infinity/);
    throwsAt({ n: -Infinity }, '/n', /-Infinity/);
    throwsAt({ big: 10n }, '/big', /BigInt/);
    throwsAt({ d: new Date(0) }, '/d', /Date is not a plain object/);
    throwsAt({ m: new Map() }, '/m', /Map/);
    throwsAt({ 'a/b': { '~': new Set() } }, '/a~1b/~0', /Set/);
    throwsAt([, 1], '/0', /hole/);
    class Thing {}
    throwsAt(new Thing(), '', /Thing/);
    const cyclic: Record<string, unknown> = { a: {} };
    (cyclic.a as Record<string, unknown>).back = cyclic;
    throwsAt(cyclic, '/a/back', /cycle/);
  });

  it('accepts plain objects made in another realm (an iframe, a vm context), refuses its class instances', () => {
    const foreign = runInNewContext('({ b: [1, { c: "x" }], a: Object.create(null) })') as object;
    assert.notEqual(Object.getPrototypeOf(foreign), Object.prototype);
    assert.equal(canonicalJson(foreign), '{"a":{},"b":[1,{"c":"x"}]}');
    assert.deepEqual(checkJson(foreign), { ok: true, bytes: JSON.stringify(foreign).length });
    throwsAt(runInNewContext('({ d: new Date(0) })'), '/d', /a Date is not a plain object/);
    throwsAt(runInNewContext('({ e: new (class Engine {})() })'), '/e', /an Engine is not a plain object/);
  });

  it('accepts shared (non-cyclic) references', () => {
    const shared = { x: 1 };
    assert.equal(canonicalJson({ a: shared, b: [shared] }), '{"a":{"x":1},"b":[{"x":1}]}');
  });

  it('round-trips every JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        assert.deepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
        assert.equal(canonicalJson(JSON.parse(text)), text); // a fixed point
      }),
    );
  });

  it('writes exactly what a naive sort-then-stringify writes, for any text', () => {
    // The reference: sorted copies, then JSON.stringify (same number and string forms).
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        if (checkJson(value).ok) assert.equal(canonicalJson(value), JSON.stringify(sorted(value)));
      }),
    );
  });

  it('ignores key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        assert.equal(canonicalJson(reversed), canonicalJson(obj));
      }),
    );
  });

  it('rejects every value that holds a non-JSON leaf', () => {
    const bad = fc.constantFrom<unknown>(
      undefined,
      NaN,
      Infinity,
      -Infinity,
      1n,
      () => 0,
      Symbol('s'),
      new Date(0),
      new Map(),
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), bad, fc.string(), (base, leaf, key) => {
        for (const value of [[base, leaf], { [key]: leaf, other: base }]) {
          assert.throws(() => canonicalJson(value), CanonicalJsonError);
          assert.equal(checkJson(value).ok, false);
        }
      }),
    );
  });
});

describe('checkJson', () => {
  it('reports the UTF-8 size of the JSON text, exactly', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const check = checkJson(value);
        if (!check.ok) {
          // fast-check may generate "__proto__" keys: the only thing checkJson refuses in JSON
          assert.equal(check.code, 'proto-key');
          return;
        }
        assert.equal(check.bytes, Buffer.byteLength(JSON.stringify(value)));
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        assert.equal(jsonStringBytes(s), Buffer.byteLength(JSON.stringify(s)));
        // Lone surrogates count as U+FFFD (3 bytes), as Buffer and TextEncoder write them.
        assert.equal(utf8Length(s), Buffer.byteLength(s));
      }),
    );
    assert.equal(jsonStringBytes('a"\\\u0001\u007f\ud800é😀'), Buffer.byteLength(JSON.stringify('a"\\\u0001\u007f\ud800é😀')));
  });

  it('returns the problem as data with a JSON pointer', () => {
    assert.deepEqual(checkJson({ a: [1, { b: undefined }] }), {
      ok: false,
      path: '/a/1/b',
      code: 'undefined',
      reason: 'undefined is not JSON (omit the key, or use null)',
    });
    const proto = checkJson(JSON.parse('{"x":{"__proto__":{"polluted":true}}}'));
    assert.equal(proto.ok, false);
    assert.equal(!proto.ok && proto.code, 'proto-key');
    assert.equal(!proto.ok && proto.path, '/x/__proto__');
    assert.equal((checkJson({ d: new Date() }) as { code: string }).code, 'non-plain-object');
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    assert.deepEqual(checkJson(cyclic), {
      ok: false,
      path: '/0',
      code: 'cycle',
      reason: 'a cycle (the value contains itself)',
    });
  });

  it('enforces maxBytes and maxDepth', () => {
    assert.equal(checkJson({ a: 'x'.repeat(100) }, { maxBytes: 100 }).ok, false);
    assert.equal(
      (checkJson({ a: 'x'.repeat(100) }, { maxBytes: 100 }) as { code: string }).code,
      'too-large',
    );
    assert.deepEqual(checkJson({ a: 'xx' }, { maxBytes: 10 }), { ok: true, bytes: 10 });
    assert.equal(checkJson({ a: 'xx' }, { maxBytes: 9 }).ok, false);
    assert.equal(checkJson([[[]]], { maxDepth: 3 }).ok, true);
    const deep = checkJson([[[[]]]], { maxDepth: 3 });
    assert.equal(!deep.ok && deep.code, 'too-deep');
    // the default depth limit protects the stack
    let nested: unknown = 1;
    for (let i = 0; i < 10_000; i++) nested = [nested];
    assert.equal((checkJson(nested) as { code: string }).code, 'too-deep');
  });

  it('never throws, even for hostile getters and proxies', () => {
    const hostile = {
      get x(): never {
        throw new Error('boom');
      },
    };
    assert.deepEqual(checkJson(hostile), {
      ok: false,
      path: '/x',
      code: 'unreadable',
      reason: 'a property could not be read',
    });
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    assert.equal(checkJson(trap).ok, false);
    assert.equal(isJsonValue({ a: [1, 'x', null, true] }), true);
    assert.equal(isJsonValue(undefined), false);
  });
});
