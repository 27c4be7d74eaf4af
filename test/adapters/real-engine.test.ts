import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createOpenAICompatibleAdapter } from '../../src/adapters/index.js';
import { runAdapter } from '../../src/chat/run.js';
import { createSessionState, sessionReducer, type SessionState } from '../../src/chat/session.js';
import { toolsetProvider } from '../../src/chat/tools.js';
import type { AgentToolPart } from '../../src/chat/types.js';
import { createAgentToolset } from '../../src/core/toolset.js';
import { createTestSurface } from '../../src/testing/index.js';
import { startEngineServer, type EngineServer } from './helpers/llama-server.js';

// The whole loop for real: model (llama.cpp through node-llama-cpp) → tool call → the chat's run
// loop → toolset → registry (validation, handler) → result → model → text.
describe('a real inference engine end to end (node-llama-cpp, tiny generated model)', () => {
  let dir: string;
  let engine: EngineServer;
  before(async () => {
    mkdirSync(join(process.cwd(), '.tmp'), { recursive: true });
    dir = mkdtempSync(join(process.cwd(), '.tmp', 'engine-'));
    engine = await startEngineServer(dir);
  });
  after(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the engine calls a registry capability through the adapter, then answers in text', { timeout: 300_000 }, async () => {
    const surface = createTestSurface();
    const added: unknown[] = [];
    surface.action('domain:cart.add', (input) => (added.push(input), { added: true, lines: added.length }), {
      effect: 'local-state',
      description: 'Adds a product to the cart.',
      inputSchema: {
        type: 'object',
        properties: { sku: { type: 'string', enum: ['A1', 'B2'] }, qty: { type: 'integer', enum: [1, 2, 3] } },
        required: ['sku', 'qty'],
        additionalProperties: false,
      },
    });
    const toolset = createAgentToolset(surface.registry, { consumer: { id: 'chat', kind: 'chat' }, topology: 'embedded' });
    const tools = toolsetProvider(toolset, surface.registry, 'chat');
    const adapter = createOpenAICompatibleAdapter({ baseUrl: engine.url, model: 'tiny' });

    let state: SessionState = sessionReducer(createSessionState(), { type: 'send', text: 'Add two A1 to my cart.' });
    let n = 0;
    await runAdapter(
      {
        adapter,
        agent: { id: 'shop', instructions: 'You run the shop.', maxSteps: 3 },
        tools: () => tools.tools(),
        dispatch: (e) => (state = sessionReducer(state, e)),
        state: () => state,
        randomId: () => `inv-${++n}`,
      },
      new AbortController().signal,
    );
    tools.dispose();

    assert.equal(state.status, 'done', JSON.stringify(state));
    assert.equal(added.length, 1, 'the registry ran the capability once');
    const input = added[0] as { sku: string; qty: number };
    assert.ok(['A1', 'B2'].includes(input.sku) && [1, 2, 3].includes(input.qty), JSON.stringify(input));
    const [, first, second] = state.messages;
    const call = first.parts.find((p): p is AgentToolPart => p.type === 'tool')!;
    assert.equal(call.state, 'done');
    assert.deepEqual(call.input, input);
    assert.deepEqual(call.output?.structuredContent, { added: true, lines: 1 });
    const text = second.parts.find((p) => p.type === 'text');
    assert.ok(text?.type === 'text' && /^[A-Za-z][a-z ]{4,30}\.$/.test(text.text), JSON.stringify(text));
    assert.equal(engine.generations.length, 2);
    assert.equal(JSON.parse(engine.generations[0]).name, call.name);
    assert.equal(adapter.status?.().state, 'ready');
  });
});
