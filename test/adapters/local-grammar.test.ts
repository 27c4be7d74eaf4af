// The grammar builder against llama.cpp's own GBNF parser (node-llama-cpp's bundled llama.cpp):
// every grammar it writes, for any schema, must parse.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { getLlama, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import { literal, schemaGrammar, toolCallGrammar, toolCallGrammarSliced } from '../../src/adapters/local/grammar.js';
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

  it('builds the grammar of many large tools in slices the event loop runs between, each a small share of the work', async () => {
    // The work is counted as reads of the tools' schemas (a Proxy's), whatever the builder counts itself.
    let reads = 0;
    const watched = (v: unknown): unknown => (v && typeof v == 'object' ? new Proxy(v, { get: (t, k) => (reads++, watched(Reflect.get(t, k))) }) : v);
    const property = (k: number) =>
      [
        { type: 'string', maxLength: 40 },
        { enum: ['a', 'b', 'c', 'd'] },
        { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'string' } }, required: ['x'] }, maxItems: 5 },
        { anyOf: [{ type: 'string' }, { type: 'object', properties: { z: { type: 'number' } } }, ...Array.from({ length: 80 }, (_, j) => ({ const: j }))] },
        { type: ['boolean', 'null'] },
      ][k % 5];
    // Wide rather than many: under the grammar's rule limit, so every schema is walked.
    const tools = Array.from({ length: 30 }, (_, i) => ({
      name: `tool_${i}`,
      description: '',
      inputSchema: watched({ type: 'object', properties: Object.fromEntries(Array.from({ length: 15 }, (_, k) => [`a${k}`, property(k)])), required: ['a0'] }),
    })) as ToolDescriptor[];
    const whole = toolCallGrammar(tools, 'required');
    assert.doesNotMatch(whole!, /"arguments\\":" value /);
    const total = reads;
    reads = 0;
    // One turn of the event loop after another, each noting the reads since the one before.
    const slices: number[] = [];
    let seen = 0;
    let running = true;
    const turn = () => {
      slices.push(reads - seen);
      seen = reads;
      if (running) setImmediate(turn);
    };
    setImmediate(turn);
    const sliced = await toolCallGrammarSliced(tools, 'required');
    running = false;
    slices.push(reads - seen);
    assert.equal(sliced, whole);
    assert.equal(reads, total);
    const busy = slices.filter(Boolean);
    assert.ok(busy.length >= 10 && Math.max(...busy) <= total / 10, `${busy.length} slices of ${total} reads, the largest ${Math.max(...busy)}`);
  });

  it('stops walking schemas once the rule limit is reached: the tools past it are not read, and their arguments are any JSON', async () => {
    // Reads of each tool's property schemas (a Proxy's), by tool.
    const reads: number[] = [];
    const watched = (v: unknown, tool: number): unknown =>
      v && typeof v == 'object' ? new Proxy(v, { get: (t, k) => ((reads[tool] = (reads[tool] ?? 0) + 1), watched(Reflect.get(t, k), tool)) }) : v;
    const property = { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'string', maxLength: 9 } }, required: ['x'] };
    const tools = Array.from({ length: 60 }, (_, i) => ({
      name: `tool_${i}`,
      description: '',
      inputSchema: { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, k) => [`a${k}`, watched(structuredClone(property), i)])), required: ['a0'] },
    })) as ToolDescriptor[];
    const g = toolCallGrammar(tools, 'auto')!;
    await parses(g);
    // The limit is shared: the first tools are constrained, the last ones are not.
    assert.match(g, /"\{\\"name\\":\\"tool_0\\",\\"arguments\\":" t0-obj-\w+ "\}"/);
    const open = tools.filter((t) => g.includes(`${literal(`{"name":"${t.name}","arguments":`)} value "}"`)).length;
    assert.ok(open >= 10 && open < 60, `${open} tools unconstrained`);
    // A tool past the limit costs a look at its top-level schema, not a walk of its properties (the
    // first unconstrained tool may be the one the limit was reached in, read up to that point).
    assert.deepEqual(reads.slice(60 - open + 1).filter(Boolean), [], `reads of the unconstrained tools' properties: ${reads.slice(60 - open)}`);
    assert.equal(await toolCallGrammarSliced(tools, 'auto'), g);
  });
});
