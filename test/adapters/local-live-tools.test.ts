// Each model step of the local adapter is built from the page's tools as they are at that step:
// `req.tools` is a getter, and a tool the page adds (or takes away) between steps is in (or out of)
// the next step's system turn, grammar and tool list. A custom LocalEngine records each step (Node).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalAdapter } from '../../src/adapters/local/index.js';
import { toolCallGrammar } from '../../src/adapters/local/grammar.js';
import type { GenerateRequest, LocalEngine } from '../../src/adapters/local/types.js';
import type { AgentStreamPart, ToolDescriptor } from '../../src/chat/types.js';

const tool = (name: string, schema: ToolDescriptor['inputSchema'] = { type: 'object', properties: { n: { enum: [1, 2] } }, required: ['n'], additionalProperties: false }): ToolDescriptor => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: schema,
});

describe('local adapter: the live tools at every step', () => {
  it("a tool the page adds after the first call is in the second step's prompt and grammar; one it removes is gone", async () => {
    const steps: Array<Pick<GenerateRequest, 'grammar' | 'toolChoice'> & { tools: string[]; system: string }> = [];
    const outputs = ['<tool_call>\n{"name":"open_cart","arguments":{"n":1}}\n</tool_call>', 'Done.'];
    const engine: LocalEngine = {
      check: async () => ({ state: 'cached' }),
      load: async () => ({
        async generate(req) {
          steps.push({ grammar: req.grammar, toolChoice: req.toolChoice, tools: req.tools.map((t) => t.name), system: req.turns[0]!.content });
          const out = outputs[steps.length - 1]!;
          req.onText(out);
          return out;
        },
        dispose() {},
      }),
    };
    const adapter = createLocalAdapter({ models: [{ id: 'm', label: 'M', brief: '' }], engine, id: `live-${Date.now()}` });
    let live = [tool('open_cart')];
    const parts: AgentStreamPart[] = [];
    for await (const p of adapter.run({
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Check out.' }] }],
      get tools() {
        return live;
      },
      signal: new AbortController().signal,
      callTool: async () => {
        // Opening the cart shows the checkout button and hides the cart opener.
        live = [tool('checkout', { type: 'object', properties: { total: { const: 42 } }, required: ['total'], additionalProperties: false })];
        return { content: [{ type: 'text', text: 'open' }] };
      },
    }))
      parts.push(p);

    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'stop' });
    assert.deepEqual(steps.map((s) => s.tools), [['open_cart'], ['checkout']]);
    assert.match(steps[0]!.grammar!, /open_cart/);
    assert.doesNotMatch(steps[0]!.grammar!, /checkout/);
    assert.match(steps[1]!.grammar!, /checkout/);
    assert.match(steps[1]!.grammar!, /42/);
    assert.doesNotMatch(steps[1]!.grammar!, /open_cart/);
    assert.match(steps[1]!.system, /"name":"checkout"/);
    assert.doesNotMatch(steps[1]!.system, /"name":"open_cart"/);
  });
});

describe('local adapter: one grammar build for the same tools', () => {
  it("a run's steps over the same tools walk their schemas once; a tool whose schema object changes is built again", async () => {
    // Schema nodes the grammar builder visits, counted as reads of `$ref` (which it reads on every
    // node and the tools prompt's JSON.stringify never does: the schemas have no such key).
    let visits = 0;
    const watched = (v: unknown): unknown => (v && typeof v == 'object' ? new Proxy(v, { get: (t, k) => (k === '$ref' && visits++, watched(Reflect.get(t, k))) }) : v);
    const schema = (total: number) =>
      watched({ type: 'object', properties: { n: { enum: [1, 2] }, note: { type: 'string', maxLength: 20 }, items: { type: 'array', items: { type: 'object', properties: { total: { const: total } } } } }, required: ['n'] }) as ToolDescriptor['inputSchema'];
    const descriptors = [tool('open_cart', schema(7)), tool('checkout', schema(42))];
    const call = '<tool_call>\n{"name":"open_cart","arguments":{"n":1}}\n</tool_call>';
    const outputs = [call, call, call, 'Done.'];
    const grammars: string[] = [];
    const engine: LocalEngine = {
      check: async () => ({ state: 'cached' }),
      load: async () => ({
        async generate(req) {
          grammars.push(req.grammar!);
          const out = outputs[grammars.length - 1]!;
          req.onText(out);
          return out;
        },
        dispose() {},
      }),
    };
    const adapter = createLocalAdapter({ models: [{ id: 'm', label: 'M', brief: '' }], engine, toolChoice: 'required', id: `memo-${Date.now()}` });
    toolCallGrammar(descriptors, 'auto');
    const once = visits;
    assert.ok(once > 0);
    visits = 0;
    let calls = 0;
    const parts: AgentStreamPart[] = [];
    for await (const p of adapter.run({
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Check out.' }] }],
      // A new list at every read, as the chat's is, of the same descriptors until the third call.
      get tools() {
        return [...descriptors];
      },
      signal: new AbortController().signal,
      callTool: async () => {
        if (++calls == 3) descriptors[1] = tool('checkout', schema(43));
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    }))
      parts.push(p);
    // Steps one to three built once, the fourth (a new schema object) again; not once per step.
    assert.equal(visits, once * 2, `${visits} schema nodes visited where one build visits ${once}`);

    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'stop' });
    assert.equal(grammars.length, 4);
    // The first step forces a call, the later ones may answer in text: same rules, another root.
    assert.equal(grammars[0], toolCallGrammar([descriptors[0]!, tool('checkout', schema(42))], 'required'));
    assert.equal(grammars[1], grammars[0]!.replace(/^root ::= call$/m, 'root ::= call | text'));
    assert.equal(grammars[2], grammars[1]);
    assert.match(grammars[3]!, /43/);
    assert.doesNotMatch(grammars[3]!, /42/);
  });
});

describe('local adapter: a run whose engine loop throws', () => {
  const run = (engine: LocalEngine, signal = new AbortController().signal) =>
    createLocalAdapter({ models: [{ id: 'm', label: 'M', brief: '' }], engine, id: `throws-${Math.random()}` }).run({
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi.' }] }],
      tools: [],
      signal,
      callTool: async () => ({ content: [] }),
    });
  const throwing = (fail: () => Error, onStart?: () => void): LocalEngine => ({
    check: async () => ({ state: 'cached' }),
    load: async () => ({
      generate: async () => '',
      // An engine with its own tool loop (as Chrome's native tools are) that fails after one part.
      async *run() {
        yield { type: 'message-start', messageId: 'msg_1' } as AgentStreamPart;
        onStart?.();
        throw fail();
      },
      dispose() {},
    }),
  });

  it('ends with an error part in words, never a thrown error', async () => {
    const parts: AgentStreamPart[] = [];
    for await (const p of run(throwing(() => new Error('The engine lost its context.')))) parts.push(p);
    assert.deepEqual(parts, [
      { type: 'message-start', messageId: 'msg_1' },
      { type: 'error', error: 'The engine lost its context.' },
    ]);
  });

  it('ends as aborted when the person stopped the run', async () => {
    const stop = new AbortController();
    const parts: AgentStreamPart[] = [];
    for await (const p of run(throwing(() => new Error('aborted'), () => stop.abort()), stop.signal)) parts.push(p);
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'aborted' });
  });
});
