// JSON Schema → TypeScript text for the manifest's .d.ts: exact where a type can say it, and widened
// (never narrowed) where it cannot, so a handler is never promised more than the validator checks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { schemaToType } from '../../src/compiler/schema-types.js';

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
    assert.equal(flat({ type: 'array', items: { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'] } }), 'Array<{ a: boolean; }>');
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
    const text = schemaToType({ type: 'object', properties: { a: { type: 'string', description: 'ends */ here' } } } as never);
    assert.match(text, /\/\*\* ends \*\\\/ here \*\//);
    assert.equal(text.split('*/').length, 2);
  });
});
