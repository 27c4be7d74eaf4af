// The grammar builder against llama.cpp's own GBNF parser (node-llama-cpp's bundled llama.cpp):
// every grammar it writes, for any schema, must parse.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { getLlama, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import { literal, schemaGrammar, toolCallGrammar } from '../../src/adapters/local/grammar.js';
import type { ToolDescriptor } from '../../src/chat/types.js';

let llama: Llama;
before(async () => {
  llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error, build: 'never' });
});
after(async () => {
  await llama?.dispose();
});

async function parses(grammar: string): Promise<void> {
  try {
    await llama.createGrammar({ grammar });
  } catch (e) {
    assert.fail(`llama.cpp refused the grammar (${(e as Error).message}):\n${grammar}`);
  }
}

const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('a', 'b"c', 'd\\e', 'new\nline', 'obj-1', 'ünï', '\u0001'));
const leaf = fc.oneof(
  fc.constant({}),
  fc.constantFrom({ type: 'string' }, { type: 'integer' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }),
  fc.record({ type: fc.constant('string'), minLength: fc.nat(5), maxLength: fc.integer({ min: 5, max: 40 }) }),
  fc.record({ enum: fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null)), { minLength: 1, maxLength: 4 }) }),
  fc.record({ const: fc.jsonValue({ maxDepth: 2 }) }),
  fc.constantFrom({ type: ['string', 'null'] }, { type: 'string', format: 'date-time' }, { type: 'string', pattern: '^a+$' }, true, false),
);
const { s: schema } = fc.letrec<{ s: unknown }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(key, tie('s'), { maxKeys: 4 }),
        required: fc.array(key, { maxLength: 3 }),
        additionalProperties: fc.boolean(),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constant('array'), items: tie('s'), minItems: fc.nat(2), maxItems: fc.integer({ min: 0, max: 4 }) }, { requiredKeys: ['type'] }),
    fc.record({ anyOf: fc.array(tie('s'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('s'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('s'), { minLength: 1, maxLength: 2 }) }),
  ),
}));

describe('local adapter: grammars from JSON Schemas', () => {
  it('writes string literals llama.cpp reads back', async () => {
    await parses(`root ::= ${literal('a"b\\c\nd\re\tf\u0001g\u007fü😀')}`);
  });

  it('parses in llama.cpp for any schema, alone and as tools', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), schema), { minLength: 1, maxLength: 3 }), fc.constantFrom('auto', 'required') as fc.Arbitrary<'auto' | 'required'>, async (list, choice) => {
        const tools: ToolDescriptor[] = list.map(([name, s]) => ({ name, description: '', inputSchema: s as ToolDescriptor['inputSchema'] }));
        await parses(toolCallGrammar(tools, choice)!);
        await parses(schemaGrammar(list[0]![1]));
      }),
      { numRuns: 150 },
    );
  });

  it('follows $ref, recursion included', async () => {
    const tree = { $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['kids'] } }, $ref: '#/$defs/node' };
    const g = schemaGrammar(tree);
    await parses(g);
    assert.match(g, /^root ::= r-ref-0$/m);
    assert.match(g, /"\\"kids\\":" r-arr-\w+/);
    // A pointer that leads nowhere (or has a broken %-escape) allows any value: the validator decides.
    for (const $ref of ['#/%E0%A4%A', '#/nope', 'other.json#/a']) assert.match(schemaGrammar({ $ref }), /^root ::= value$/m);
  });

  it('keeps required properties, lets optional ones go, and names only live tools', () => {
    const g = toolCallGrammar(
      [{ name: 'set', description: '', inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'boolean' } }, required: ['a'], additionalProperties: false } }],
      'required',
    )!;
    assert.match(g, /^root ::= call$/m);
    assert.ok(g.includes(String.raw`"{\"name\":\"set\",\"arguments\":"`), g);
    assert.ok(!/text \| call|call \| text/.test(g));
    assert.equal(toolCallGrammar([], 'required'), undefined);
    assert.equal(toolCallGrammar([{ name: 'x', description: '', inputSchema: {} }], 'none'), undefined);
    assert.match(toolCallGrammar([{ name: 'x', description: '', inputSchema: {} }], 'auto')!, /^root ::= call \| text$/m);
  });
});
