import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_SCHEMA_BYTES,
  assertContract,
  checkContract,
  contractCanonicalJson,
  defineContract,
  normalizeContract,
} from '../../src/core/contract.js';
import { AgentSurfaceDefinitionError } from '../../src/core/errors.js';
import { isContractToken } from '../../src/core/token.js';
import { computeContractToken } from '../../src/compiler/compile.js';
import type { CapabilityContract, JsonSchema } from '../../src/core/types.js';

const action: CapabilityContract = {
  id: 'domain:devices.disable',
  kind: 'action',
  effect: 'destructive',
  description: 'Disable the given devices.',
  inputSchema: {
    type: 'object',
    properties: { ids: { type: 'array', items: { type: 'string' } } },
    required: ['ids'],
    additionalProperties: false,
  },
};

function problemsOf(patch: Record<string, unknown>, base: CapabilityContract = action): string[] {
  return checkContract({ ...base, ...patch }).map((p) => `${p.field}: ${p.message}`);
}

function nested(depth: number): JsonSchema {
  // depth counted as MAX_SCHEMA_DEPTH documents: the schema object is 1, each object/array inside adds 1
  let schema: JsonSchema = { type: 'string' };
  for (let d = 1; d < depth; d++) schema = { allOf: [schema] } as JsonSchema; // allOf + array = 2 levels
  return schema;
}

describe('normalizeContract', () => {
  it('fills every default and keeps outputSchema absent', () => {
    const n = normalizeContract({ id: 'domain:x', kind: 'action', effect: 'read', description: 'Do x.' });
    assert.deepEqual(n, {
      id: 'domain:x',
      kind: 'action',
      effect: 'read',
      confirmation: 'never',
      description: 'Do x.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      untrustedOutput: false,
      concurrency: 'serial',
      timeoutMs: 10000,
    });
    assert.equal('outputSchema' in n, false);
    const o = normalizeContract({
      id: 'view:t.rows',
      kind: 'observation',
      effect: 'server-query',
      description: 'Rows.',
      outputSchema: { type: 'array' },
    });
    assert.equal(o.concurrency, 'parallel');
    assert.equal(o.timeoutMs, 5000);
    assert.deepEqual(o.outputSchema, { type: 'array' });
  });

  it('keeps explicit values and treats undefined optional fields as absent', () => {
    const n = normalizeContract({
      ...action,
      confirmation: 'required',
      untrustedOutput: true,
      concurrency: 'parallel',
      timeoutMs: 1,
      outputSchema: undefined,
    });
    assert.equal(n.confirmation, 'required');
    assert.equal(n.untrustedOutput, true);
    assert.equal(n.concurrency, 'parallel');
    assert.equal(n.timeoutMs, 1);
    assert.equal('outputSchema' in n, false);
  });

  it("copies the schemas: later edits to the author's objects do not leak in", () => {
    const schema = { type: 'object', properties: {} } as JsonSchema;
    const n = normalizeContract({ ...action, inputSchema: schema });
    (schema.properties as Record<string, unknown>).x = { type: 'string' };
    assert.deepEqual(n.inputSchema, { type: 'object', properties: {} });
  });

  it('throws INVALID_CONTRACT naming the capability id', () => {
    assert.throws(
      () => normalizeContract({ ...action, description: '' }),
      (e: unknown) =>
        e instanceof AgentSurfaceDefinitionError &&
        e.code === 'INVALID_CONTRACT' &&
        /"domain:devices\.disable"/.test(e.message) &&
        /description is empty/.test(e.message),
    );
  });
});

describe('checkContract', () => {
  it('accepts a good contract, and non-canonical ids', () => {
    assert.deepEqual(checkContract(action), []);
    assert.deepEqual(checkContract({ ...action, id: 'domain:devices.do_it' }), []);
  });

  it('finds each problem with a clear message', () => {
    assert.match(problemsOf({ id: 'devices.disable' })[0], /^id: bad id: .*no plane/);
    assert.match(problemsOf({ id: 'domain:a..b' })[0], /^id: .*empty path segment/);
    assert.match(problemsOf({ kind: 'observation' })[0], /^effect: an observation only reads.*"destructive"/);
    for (const effect of [
      'local-state',
      'navigation',
      'server-mutation',
      'external-side-effect',
      'destructive',
    ]) {
      assert.equal(problemsOf({ kind: 'observation', effect }).length, 1, effect);
    }
    assert.deepEqual(problemsOf({ kind: 'observation', effect: 'server-query' }), []);
    assert.match(problemsOf({ description: '' })[0], /^description: description is empty/);
    assert.match(problemsOf({ description: '   ' })[0], /empty/);
    assert.deepEqual(problemsOf({ description: 'x'.repeat(300) }), []);
    assert.match(problemsOf({ description: 'x'.repeat(301) })[0], /301 characters.*300/);
    assert.match(problemsOf({ description: 7 })[0], /must be a string/);
    assert.match(problemsOf({ inputSchema: { type: 'array' } })[0], /^inputSchema: .*type "object".*"array"/);
    assert.match(problemsOf({ inputSchema: { properties: {} } })[0], /type "object"/);
    assert.match(problemsOf({ inputSchema: [] })[0], /JSON Schema object.*array/);
    assert.match(
      problemsOf({ inputSchema: { type: 'object', default: undefined } })[0],
      /not JSON: undefined/,
    );
    assert.match(problemsOf({ outputSchema: 'string' })[0], /^outputSchema: .*JSON Schema object/);
    assert.match(
      problemsOf({ kind: 'tool' })[0],
      /^kind: kind must be one of "action", "observation", got "tool"/,
    );
    assert.match(problemsOf({ effect: 'write' })[0], /^effect: effect must be one of/);
    assert.match(
      problemsOf({ confirmation: 'always' })[0],
      /^confirmation: .*"never", "optional", "required"/,
    );
    assert.match(problemsOf({ concurrency: 'queued' })[0], /^concurrency: /);
    assert.match(problemsOf({ untrustedOutput: 'yes' })[0], /^untrustedOutput: /);
    for (const timeoutMs of [0, -1, 1.5, NaN, Infinity, '100', 2 ** 60]) {
      assert.match(problemsOf({ timeoutMs })[0], /^timeoutMs: .*positive integer/, String(timeoutMs));
    }
    assert.match(problemsOf({ handler: 1 })[0], /^handler: unknown field "handler"/);
    assert.match(checkContract(null)[0].message, /must be an object/);
    assert.match(checkContract([action])[0].message, /array/);
  });

  it('reports every problem at once', () => {
    assert.equal(problemsOf({ id: 'x', kind: 'nope', description: '', timeoutMs: 0 }).length, 4);
  });

  it('limits schemas to 16 KB of canonical JSON and 8 levels', () => {
    const big = (n: number): JsonSchema => ({ type: 'object', description: 'x'.repeat(n) });
    const overhead = '{"description":"","type":"object"}'.length;
    assert.deepEqual(problemsOf({ inputSchema: big(MAX_SCHEMA_BYTES - overhead) }), []);
    assert.match(problemsOf({ inputSchema: big(MAX_SCHEMA_BYTES - overhead + 1) })[0], /16385 bytes.*16384/);
    // multi-byte characters count in UTF-8 bytes
    assert.match(
      problemsOf({ outputSchema: { description: 'é'.repeat(MAX_SCHEMA_BYTES / 2) } })[0],
      /^outputSchema: .*bytes/,
    );

    // schema 1, properties 2, a 3, properties 4, b 5, items 6, enum 7, inner array 8
    const depth8 = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'array', items: { enum: [['x']] } } } } },
    };
    assert.deepEqual(problemsOf({ inputSchema: depth8 }), []);
    const depth9 = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'array', items: { enum: [[['x']]] } } } } },
    };
    assert.match(problemsOf({ inputSchema: depth9 })[0], /nested 9 levels deep; the limit is 8/);
    assert.match(
      problemsOf({ outputSchema: nested(60) })[0],
      /outputSchema is nested (\d+|more than 64) levels/,
    );
    assert.match(problemsOf({ outputSchema: nested(200) })[0], /more than 64 levels/);
  });

  it('assertContract and defineContract throw with the id, or return the contract unchanged', () => {
    assert.equal(defineContract(action), action);
    assert.doesNotThrow(() => assertContract(action));
    assert.throws(
      () => defineContract({ ...action, effect: 'explode' as never }),
      (e: unknown) => {
        assert.ok(e instanceof AgentSurfaceDefinitionError);
        assert.equal(e.code, 'INVALID_CONTRACT');
        assert.match(
          e.message,
          /Invalid capability contract "domain:devices\.disable": effect must be one of/,
        );
        assert.equal(e.details?.capabilityId, 'domain:devices.disable');
        assert.ok(Array.isArray(e.details?.problems));
        return true;
      },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Tokens

const schemaArb: fc.Arbitrary<JsonSchema> = fc
  .dictionary(
    fc.stringMatching(/^[a-z]{1,6}$/),
    fc.constantFrom<JsonSchema>(
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { type: 'string' } },
    ),
    { maxKeys: 4 },
  )
  .map((properties) => ({ type: 'object', properties, additionalProperties: false }));

const contractArb: fc.Arbitrary<CapabilityContract> = fc.record(
  {
    id: fc
      .tuple(
        fc.constantFrom('view', 'domain'),
        fc.array(fc.stringMatching(/^[a-z][A-Za-z0-9]{0,6}$/), { minLength: 1, maxLength: 3 }),
      )
      .map(([p, s]) => `${p}:${s.join('.')}`),
    kind: fc.constant('action' as const),
    effect: fc.constantFrom(
      'read',
      'local-state',
      'navigation',
      'server-query',
      'server-mutation',
      'external-side-effect',
      'destructive',
    ),
    confirmation: fc.constantFrom('never', 'optional', 'required'),
    description: fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim().length > 0),
    title: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,30}$/),
    inputSchema: schemaArb,
    outputSchema: schemaArb,
    untrustedOutput: fc.boolean(),
    timeoutMs: fc.integer({ min: 1, max: 60000 }),
  },
  { requiredKeys: ['id', 'kind', 'effect', 'description'] },
);

function shuffleKeys<T>(value: T, seed: number): T {
  if (Array.isArray(value)) return value.map((v, i) => shuffleKeys(v, seed + i)) as T;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const rotated = entries
    .slice(seed % Math.max(entries.length, 1))
    .concat(entries.slice(0, seed % Math.max(entries.length, 1)))
    .reverse();
  return Object.fromEntries(rotated.map(([k, v]) => [k, shuffleKeys(v, seed * 31 + k.length)])) as T;
}

describe('title', () => {
  it('is optional, kept as written, and absent stays absent (tokens of contracts without one do not move)', () => {
    const titled = normalizeContract({ ...action, title: 'Disable devices' });
    assert.equal(titled.title, 'Disable devices');
    assert.ok(contractCanonicalJson({ ...action, title: 'Disable devices' }).includes('"title":"Disable devices"'));
    const plain = normalizeContract(action);
    assert.equal('title' in plain, false);
    assert.equal(contractCanonicalJson(action).includes('title'), false);
    assert.equal(contractCanonicalJson({ ...action, title: undefined }), contractCanonicalJson(action));
    // A fixed token: a contract without a title hashes as it did before titles existed.
    assert.equal(computeContractToken({ id: 'domain:x', kind: 'action', effect: 'read', description: 'x' }), computeContractToken({ id: 'domain:x', kind: 'action', effect: 'read', description: 'x', title: undefined }));
  });

  it('is one short line of text: empty, too long, multi-line, control or bidi-override titles are refused', () => {
    assert.deepEqual(problemsOf({ title: 'Disable devices' }), []);
    assert.deepEqual(problemsOf({ title: 'x'.repeat(100) }), []);
    for (const bad of ['', '   ', 'x'.repeat(101), 'two\nlines', 'tab\there', 'line\u2028sep', '\u202eevil', 'nul\u0000', 'del\u007f', 42, null, ['a'], { text: 'a' }]) {
      const found = problemsOf({ title: bad });
      assert.equal(found.length, 1, JSON.stringify(bad));
      assert.match(found[0]!, /^title: title must be 1 to 100 characters on one line/, JSON.stringify(bad));
    }
  });

  it('any printable title of up to 100 characters is accepted and round-trips through the token', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 100 }).filter((t) => t.trim() !== '' && !/[\0-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(t)),
        (title) => {
          assert.deepEqual(checkContract({ ...action, title }), []);
          assert.equal(normalizeContract({ ...action, title }).title, title);
          assert.notEqual(computeContractToken({ ...action, title }), computeContractToken(action));
        },
      ),
    );
  });
});

describe('contract tokens', () => {
  it('have the sha256-<base64url> shape', () => {
    const token = computeContractToken(action);
    assert.ok(isContractToken(token), token);
    assert.match(token, /^sha256-[A-Za-z0-9_-]{43}$/);
    assert.equal(isContractToken('sha256-abc'), false);
    assert.equal(isContractToken(`sha512-${token.slice(7)}`), false);
  });

  it('are the hash of the canonical JSON of the normalized contract: defaults do not change them', () => {
    const explicit = {
      ...action,
      confirmation: 'never',
      untrustedOutput: false,
      concurrency: 'serial',
      timeoutMs: 10000,
    } as const;
    assert.equal(computeContractToken(explicit), computeContractToken(action));
    assert.equal(contractCanonicalJson(explicit), contractCanonicalJson(action));
    const bare = { id: 'domain:x', kind: 'action', effect: 'read', description: 'x' } as const;
    assert.equal(
      computeContractToken(bare),
      computeContractToken({
        ...bare,
        inputSchema: { additionalProperties: false, properties: {}, type: 'object' },
      }),
    );
  });

  it('never change with key order', () => {
    fc.assert(
      fc.property(contractArb, fc.nat(1000), (contract, seed) => {
        assert.equal(computeContractToken(shuffleKeys(contract, seed)), computeContractToken(contract));
      }),
    );
  });

  it('change with any model-visible field', () => {
    const mutations: Array<[string, (c: CapabilityContract) => CapabilityContract]> = [
      ['id', (c) => ({ ...c, id: c.id + 'X' })],
      ['kind', (c) => ({ ...c, kind: c.kind === 'action' ? 'observation' : 'action', effect: 'read' })],
      ['effect', (c) => ({ ...c, effect: c.effect === 'read' ? 'server-query' : 'read' })],
      [
        'confirmation',
        (c) => ({ ...c, confirmation: (c.confirmation ?? 'never') === 'never' ? 'required' : 'never' }),
      ],
      ['description', (c) => ({ ...c, description: c.description + '.' })],
      ['title', (c) => ({ ...c, title: c.title === undefined ? 'A title' : undefined })],
      [
        'inputSchema',
        (c) => ({ ...c, inputSchema: { ...(c.inputSchema ?? { type: 'object' }), minProperties: 1 } }),
      ],
      [
        'outputSchema',
        (c) =>
          c.outputSchema ? { ...c, outputSchema: undefined } : { ...c, outputSchema: { type: 'object' } },
      ],
      ['untrustedOutput', (c) => ({ ...c, untrustedOutput: !c.untrustedOutput })],
      ['timeoutMs', (c) => ({ ...c, timeoutMs: (c.timeoutMs ?? 10000) + 1 })],
    ];
    fc.assert(
      fc.property(contractArb, fc.constantFrom(...mutations), (contract, [field, mutate]) => {
        const changed = mutate(contract);
        if (field === 'kind' && contract.effect === 'read' && changed.kind === contract.kind) return;
        assert.notEqual(computeContractToken(changed), computeContractToken(contract), field);
      }),
    );
  });

  it('refuses to hash an invalid contract', () => {
    assert.throws(
      () => computeContractToken({ ...action, id: 'nope' }),
      /computeContractToken: contract "nope" is invalid: bad id/,
    );
  });
});
