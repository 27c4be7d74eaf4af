// JSON Schema → TypeScript text for the manifest's .d.ts: exact where a type can say it, and widened
// (never narrowed) where it cannot, so a handler is never promised more than the validator checks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { schemaToType } from '../../src/compiler/schema-types.js';

const root = resolve(import.meta.dirname, '../..');

// Schemas as contracts write them, nested: any of these must give valid TypeScript.
const schemaArb = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom({ type: 'string' }, { type: 'integer' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }, {}, true),
    fc.record({ enum: fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), { minLength: 1, maxLength: 4 }) }),
    fc.record({ const: fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)) }),
    fc.record({ $ref: fc.constant('#/$defs/x') }),
  ),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.record({ type: fc.constant('array'), items: tie('node') }, { requiredKeys: ['type'] }),
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(fc.string({ maxLength: 6 }), tie('node'), { maxKeys: 4 }),
        required: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
        additionalProperties: fc.oneof(fc.boolean(), tie('node')),
        description: fc.string({ maxLength: 20 }),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('node'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ type: fc.subarray(['string', 'number', 'null', 'object', 'array'], { minLength: 1 }) }),
  ),
})).node;

const flat = (schema: unknown): string => schemaToType(schema as never).replace(/\s+/g, ' ');

describe('schemaToType', () => {
  it('spells out objects, required and optional properties, arrays, enums and constants', () => {
    assert.equal(
      flat({
        type: 'object',
        properties: { ids: { type: 'array', items: { type: 'string' } }, mode: { enum: ['a', 'b'] }, 'two words': { const: 1 } },
        required: ['ids'],
        additionalProperties: false,
      }),
      '{ ids: string[]; mode?: "a" | "b"; "two words"?: 1; }',
    );
    assert.equal(flat({ type: ['string', 'null'] }), 'string | null');
    assert.equal(flat({ type: 'integer' }), 'number');
    assert.equal(flat({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'number' } }] }), 'string | number[]');
    assert.equal(
      flat({ type: 'array', items: { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'], additionalProperties: false } }),
      'Array<{ a: boolean; }>',
    );
    // Keys a schema leaves open are there, as any JSON value.
    assert.equal(flat({ type: 'object', properties: { a: { type: 'boolean' } }, required: ['a', 'b'] }), '{ a: boolean; b: JsonValue; [key: string]: unknown; }');
  });

  it('an object without properties: no keys when closed, any JSON object when open', () => {
    assert.equal(flat({ type: 'object', additionalProperties: false }), 'Record<string, never>');
    assert.equal(flat({ type: 'object' }), 'JsonObject');
    assert.equal(flat({ type: 'object', additionalProperties: { type: 'number' } }), '{ [key: string]: number }');
  });

  it('widens what a type cannot say to JsonValue', () => {
    for (const schema of [{ $ref: '#/$defs/x' }, { not: { type: 'string' } }, { type: 'object', patternProperties: { '^a': {} } }, true, {}, undefined]) {
      assert.equal(flat(schema), 'JsonValue', JSON.stringify(schema));
    }
    assert.equal(flat({ type: 'array', prefixItems: [{ type: 'string' }] }), 'JsonValue[]');
    assert.equal(flat({ anyOf: [{ type: 'string' }, { $ref: '#/x' }] }), 'JsonValue');
  });

  it('keeps descriptions as comments that cannot close early', () => {
    const text = schemaToType({ type: 'object', properties: { a: { type: 'string', description: 'ends */ here' } }, additionalProperties: false } as never);
    assert.match(text, /\/\*\* ends \*\\\/ here \*\//);
    assert.equal(text.split('*/').length, 2);
  });

  it('gives valid TypeScript for any schema (tsc over 150 generated schemas)', () => {
    const schemas = fc.sample(schemaArb, { numRuns: 150, seed: 11 });
    const lines = [
      'type JsonPrimitive = string | number | boolean | null;',
      'type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;',
      'export interface JsonObject { [key: string]: JsonValue }',
      ...schemas.map((schema, i) => `export type T${i} = ${schemaToType(schema as never)};`),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'agent-surface-schema-types-'));
    try {
      writeFileSync(join(dir, 'types.ts'), `${lines.join('\n')}\n`);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022'], types: [] }, files: ['types.ts'] }),
      );
      const r = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 300_000,
      });
      assert.equal(`${r.stdout}${r.stderr}`.trim(), '');
      assert.equal(r.status, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
