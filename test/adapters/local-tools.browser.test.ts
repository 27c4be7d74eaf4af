// A run on the generated model where the grammar forces a call of a real capability on the page:
// the call goes through the registry (toolset, embedded topology: what <agent-chat> uses), a
// destructive one waits for the person's approval in <agent-confirm> by a real click, the result
// goes back to the engine, and the run finishes. The engine is the real WebAssembly one, wrapped
// only to record what each model step was given.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter, wasmEngine, type ChatTurn, type LocalEngine } from '../../src/adapters/local/index.js';
import { createAgentToolset } from '../../src/core/toolset.js';
import { createSessionState, sessionReducer, type SessionState } from '../../src/chat/session.js';
import { runAdapter } from '../../src/chat/run.js';
import { toolsetProvider } from '../../src/chat/tools.js';
import { defineWebAgent } from '../../src/chat/define-agent.js';
import type { AgentToolPart } from '../../src/chat/types.js';
import '../../src/elements/index.js';
import { freshCacheName, modelInfo, notesWipePage, trustedClick, WASM_URL } from './helpers-local.js';

interface Recorded {
  turns: ChatTurn[];
  grammar?: string;
  output?: string;
}

function recording(real: LocalEngine, steps: Recorded[]): LocalEngine {
  return {
    check: (model) => real.check(model),
    async load(model, options) {
      const session = await real.load(model, options);
      return {
        async generate(req) {
          const step: Recorded = { turns: req.turns, grammar: req.grammar };
          steps.push(step);
          step.output = await session.generate(req);
          return step.output;
        },
        dispose: () => session.dispose(),
      };
    },
  };
}

describe('createLocalAdapter: a forced tool call through the registry and an approval (wllama, generated model)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(300000);

  it('calls the capability, waits for the click, hands the result back to the model, finishes', async () => {
    const sizes = await modelInfo();
    const { registry, ran, confirm, audit } = await notesWipePage();

    const steps: Recorded[] = [];
    const cacheName = await freshCacheName();
    const adapter = createLocalAdapter({
      models: [{ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes: sizes['tiny.gguf'] }],
      engine: recording(wasmEngine({ wasmUrl: WASM_URL, cacheName }), steps),
      toolChoice: 'required',
      maxTokens: 96,
    });
    await adapter.prepare();

    const toolset = createAgentToolset(registry, { consumer: { id: 'chat', kind: 'chat' }, topology: 'embedded' });
    const provider = toolsetProvider(toolset, registry, 'chat');
    let state: SessionState = sessionReducer(createSessionState(), { type: 'send', text: 'Empty the drafts folder.', id: 'u1' });
    let finished = false;
    const run = runAdapter(
      {
        adapter,
        agent: defineWebAgent({ id: 'notes', instructions: 'You tidy notes.', maxSteps: 3 }),
        tools: () => provider.tools(),
        dispatch: (event) => (state = sessionReducer(state, event)),
        state: () => state,
        randomId: () => crypto.randomUUID(),
      },
      new AbortController().signal,
    ).then(() => (finished = true));

    // The person approves every call the model makes (the first step must call; later ones may).
    let approvals = 0;
    while (!finished) {
      await waitUntil(() => finished || (confirm.shadowRoot?.querySelector('dialog')?.open && registry.confirmations.list().length > 0), 'no approval asked', { timeout: 60000 });
      if (finished) break;
      const approve = confirm.shadowRoot!.querySelector<HTMLButtonElement>('[part~="approve"]')!;
      await waitUntil(() => !approve.disabled && approve.getAttribute('aria-disabled') !== 'true', 'approve stays disabled');
      const before = registry.confirmations.list().length;
      await trustedClick(approve);
      approvals += 1;
      await waitUntil(() => finished || registry.confirmations.list().length < before, 'the click did not decide');
    }
    await run;
    provider.dispose();

    expect(approvals).to.be.greaterThan(0);
    expect(ran.length).to.equal(approvals);
    for (const input of ran) expect(['drafts', 'trash']).to.include(input.folder);
    expect(audit.filter((a) => a.capabilityId === 'domain:notes.wipe' && a.outcome === 'OK' && a.consumer.id === 'chat')).to.have.length(ran.length);

    // What the session shows: the call, done, with the handler's output.
    const assistant = state.messages.at(-1)!;
    const calls = assistant.parts.filter((p): p is AgentToolPart => p.type === 'tool');
    expect(calls[0]).to.deep.include({ name: 'domain_notes__wipe', state: 'done' });
    expect(JSON.stringify(calls[0]!.output)).to.include('"wiped":3');
    expect(state.status).to.not.equal('running');

    // The first step was forced to call; the second step was given the result.
    expect(steps[0]!.grammar).to.match(/^root ::= call$/m);
    expect(steps[0]!.output).to.match(/^<tool_call>\n\{"name":"domain_notes__wipe","arguments":\{"folder":"(drafts|trash)"\}\}\n<\/tool_call>$/);
    expect(steps.length).to.be.greaterThan(1);
    expect(steps[1]!.grammar).to.match(/^root ::= call \| text$/m);
    const lastTurn = steps[1]!.turns.at(-1)!;
    expect(lastTurn.role).to.equal('user');
    expect(lastTurn.content).to.match(/^<tool_response>\n.*"wiped":3.*\n<\/tool_response>$/s);
    expect(steps[1]!.turns[0]!.content).to.include('You tidy notes.').and.include('"name":"domain_notes__wipe"');
    await adapter.unload();
  });
});
