// Each model step of the local adapter is built from the page's tools as they are at that step:
// `req.tools` is a getter, and a tool the page adds (or takes away) between steps is in (or out of)
// the next step's system turn, grammar and tool list. A custom LocalEngine records each step (Node).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalAdapter } from '../../src/adapters/local/index.js';
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
