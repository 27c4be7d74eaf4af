// Chrome's built-in model with the browser's own tool loop, in both published designs (the spec
// draft's `execute` tools and Chromium's declared tools answered with `tool-response` pieces), and
// the prompt format wherever the browser does not offer it. This Chromium build reports
// "unavailable" and does not read the `tools` option, so the loops run on the IDL double of
// ./prompt-api-double.ts; calls go through a real capability on the page (registry, toolset,
// <agent-confirm> approved by a real click), as in <agent-chat>.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter, type LanguageModelLike } from '../../src/adapters/local/index.js';
import { probeTools } from '../../src/adapters/local/engines/prompt-api.js';
import { createAgentToolset } from '../../src/core/toolset.js';
import { createSessionState, sessionReducer, type SessionState } from '../../src/chat/session.js';
import { runAdapter } from '../../src/chat/run.js';
import { toolsetProvider } from '../../src/chat/tools.js';
import { defineWebAgent } from '../../src/chat/define-agent.js';
import type { AgentStreamPart, AgentToolPart, ToolDescriptor, ToolOutput } from '../../src/chat/types.js';
import '../../src/elements/index.js';
import { collect, notesWipePage, recording, trustedClick } from './helpers-local.js';
import { exposeToolClasses, LanguageModelDouble, ToolCall, ToolError, ToolSuccess, type PromptContext } from './prompt-api-double.js';

const WIPE = 'domain_notes__wipe';

/** A page with one destructive capability that needs the person's approval, and the chat's tool plumbing. */
async function notesPage() {
  const { registry, ran, confirm, audit } = await notesWipePage();
  const toolset = createAgentToolset(registry, { consumer: { id: 'chat', kind: 'chat' }, topology: 'embedded' });
  const provider = toolsetProvider(toolset, registry, 'chat');

  /** Runs the adapter as <agent-chat> does; the run's parts are recorded. */
  function chat(adapter: ReturnType<typeof createLocalAdapter>, text: string, stop = new AbortController()) {
    let state: SessionState = sessionReducer(createSessionState(), { type: 'send', text, id: 'u1' });
    const { adapter: recorded, parts } = recording(adapter);
    const done = runAdapter(
      {
        adapter: recorded,
        agent: defineWebAgent({ id: 'notes', instructions: 'You tidy notes.', maxSteps: 4 }),
        tools: () => provider.tools(),
        dispatch: (event) => (state = sessionReducer(state, event)),
        state: () => state,
        randomId: () => crypto.randomUUID(),
      },
      stop.signal,
    );
    // Stop as <agent-chat> does it: the session ends the run, then the signal aborts.
    const press = () => {
      state = sessionReducer(state, { type: 'stop' });
      stop.abort();
    };
    return { done, parts, state: () => state, stop: press };
  }

  /** Waits for <agent-confirm>'s dialog and approves with a real click. */
  async function approve(): Promise<void> {
    await waitUntil(() => confirm.shadowRoot?.querySelector('dialog')?.open && registry.confirmations.list().length > 0, 'no approval asked', { timeout: 20000 });
    const button = confirm.shadowRoot!.querySelector<HTMLButtonElement>('[part~="approve"]')!;
    await waitUntil(() => !button.disabled && button.getAttribute('aria-disabled') !== 'true', 'approve stays disabled');
    await trustedClick(button);
    await waitUntil(() => registry.confirmations.list().length === 0, 'the click did not decide');
  }

  const dispose = () => provider.dispose();
  return { registry, ran, audit, confirm, chat, approve, dispose };
}

const tools = (p: AgentStreamPart[]) => p.filter((x) => x.type === 'tool-call' || x.type === 'tool-result' || x.type === 'tool-error');
const textOf = (p: AgentStreamPart[]) => p.flatMap((x) => (x.type === 'text-delta' ? [x.delta] : [])).join('');
const toolParts = (s: SessionState) => s.messages.flatMap((m) => m.parts.filter((p): p is AgentToolPart => p.type === 'tool'));
const lastInput = (c: PromptContext) => (c.input as Array<{ role: string; content: unknown }>).at(-1)!;

describe('createLocalAdapter: Chrome Prompt API with the browser\'s own tool loop', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(60000);
  let undo: (() => void) | undefined;
  afterEach(() => {
    undo?.();
    undo = undefined;
  });

  it("this Chromium's LanguageModel: the tools option is not read, so the prompt format is used", async () => {
    const lm = (globalThis as { LanguageModel?: LanguageModelLike }).LanguageModel;
    if (!lm) return; // a build without the Prompt API has nothing to probe (the status test covers it)
    const probe = await probeTools(lm);
    // Chromium 156 without --enable-features=AIPromptAPIToolUse drops the unknown `tools` member.
    expect(probe.design).to.equal(undefined);
    expect(['unavailable', 'downloadable', 'downloading', 'available']).to.include(probe.availability);
  });

  it('declared tools: a tool-call piece runs the capability after a real click, its tool-response goes back, the run finishes', async () => {
    undo = exposeToolClasses();
    const page = await notesPage();
    const lm = new LanguageModelDouble('available', 'declared');
    lm.reply = ({ input, tools: declared }) => {
      const last = (input as Array<{ role: string; content: unknown }>).at(-1)!;
      if (typeof last.content === 'string') {
        return [
          { type: 'text', value: 'Emptying the drafts. ' },
          { type: 'tool-call', value: new ToolCall({ callID: 'model-1', name: declared[0]!.name, arguments: { folder: 'drafts' } }) },
        ];
      }
      const response = (last.content as Array<{ type: string; value: ToolSuccess }>)[0]!;
      return `Done: ${String(response.value.result[0]!.value)}`;
    };
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    await adapter.prepare();
    const run = page.chat(adapter, 'Empty the drafts folder.');
    await page.approve();
    await run.done;
    page.dispose();

    expect(page.ran).to.deep.equal([{ folder: 'drafts' }]);
    expect(page.audit.filter((a) => a.capabilityId === 'domain:notes.wipe' && a.outcome === 'OK')).to.have.length(1);
    // The probe found the design by what the browser read (tools, but no execute).
    expect(lm.availabilityCalls.some((c) => Array.isArray(c.tools) && !('execute' in (c.tools as object[])[0]!))).to.equal(true);
    // Step 1: the live tool declared natively, the tool types expected, no prompt format in the system turn.
    const first = lm.prompts[0]!;
    const declared = first.create.tools as ToolDescriptor[];
    expect(declared.map((t) => Object.keys(t).sort())).to.deep.equal([['description', 'inputSchema', 'name']]);
    expect(declared[0]!.name).to.equal(WIPE);
    expect(declared[0]!.description).to.match(/^Delete every note in one folder\.\n.*confirmation: required/);
    expect(JSON.stringify(declared[0]!.inputSchema)).to.include('"enum":["drafts","trash"]');
    expect(first.create.expectedInputs).to.deep.include({ type: 'tool-response' });
    expect(first.create.expectedOutputs).to.deep.include({ type: 'tool-call' });
    expect(first.create.initialPrompts).to.deep.equal([{ role: 'system', content: 'You tidy notes.' }]);
    expect(first.options).to.not.have.property('responseConstraint');
    // Step 2: the model's own call and its tool-response, as native pieces.
    const second = lm.prompts[1]!;
    const call = tools(run.parts)[0] as Extract<AgentStreamPart, { type: 'tool-call' }>;
    expect(call).to.deep.include({ name: WIPE, input: { folder: 'drafts' }, id: 'model-1' });
    const assistant = (second.create.initialPrompts as Array<{ role: string; content: Array<{ type: string; value: unknown }> }>).at(-1)!;
    expect(assistant.role).to.equal('assistant');
    expect(assistant.content[0]).to.deep.equal({ type: 'text', value: 'Emptying the drafts. ' });
    expect(assistant.content[1]!.value).to.be.instanceOf(ToolCall).and.deep.include({ callID: 'model-1', name: WIPE, arguments: { folder: 'drafts' } });
    const response = lastInput(second);
    expect(response.role).to.equal('user');
    const value = (response.content as Array<{ type: string; value: ToolSuccess }>)[0]!;
    expect(value.type).to.equal('tool-response');
    expect(value.value).to.be.instanceOf(ToolSuccess).and.deep.include({ callID: 'model-1', name: WIPE });
    expect(String(value.value.result[0]!.value)).to.include('"wiped":3');

    expect(textOf(run.parts)).to.match(/^Emptying the drafts\. Done: .*"wiped":3/);
    expect(run.parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
    expect(toolParts(run.state())[0]).to.deep.include({ name: WIPE, state: 'done' });
    expect(run.state().status).to.not.equal('running');
    expect(lm.destroyed).to.equal(2); // one session per step, destroyed after it
  });

  it('declared tools: an unknown tool and non-object arguments are answered with a tool error the model reads', async () => {
    undo = exposeToolClasses();
    const lm = new LanguageModelDouble('available', 'declared');
    lm.reply = ({ input }) => {
      const last = (input as Array<{ role: string; content: unknown }>).at(-1)!;
      if (typeof last.content === 'string') {
        return [
          { type: 'tool-call', value: new ToolCall({ callID: 'a', name: 'format_disk', arguments: {} }) },
          { type: 'tool-call', value: { callID: 'b', name: 'set_volume', arguments: 'loud' } },
        ];
      }
      return 'Sorry.';
    };
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    const calls: unknown[] = [];
    const parts = await collect(
      adapter.run({
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        tools: [{ name: 'set_volume', description: 'Sets the volume.', inputSchema: { type: 'object' } }],
        signal: new AbortController().signal,
        callTool: async (c) => (calls.push(c), { content: [] }),
      }),
    );
    expect(calls).to.deep.equal([]);
    const errors = parts.filter((p): p is Extract<AgentStreamPart, { type: 'tool-error' }> => p.type === 'tool-error');
    expect(errors.map((e) => e.error)).to.deep.equal(['Error: there is no tool named "format_disk" on this page.', 'Error: the arguments must be a JSON object.']);
    const answers = (lastInput(lm.prompts[1]!).content as Array<{ value: ToolError }>).map((c) => c.value);
    expect(answers.every((a) => a instanceof ToolError)).to.equal(true);
    expect(answers.map((a) => a.errorMessage)).to.deep.equal(errors.map((e) => e.error));
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
  });

  it('execute tools: the browser calls execute, which runs the capability after a real click; its return is the result', async () => {
    const page = await notesPage();
    const lm = new LanguageModelDouble('available', 'execute');
    const returned: string[] = [];
    lm.reply = async ({ tools: given }) => {
      const out = await given[0]!.execute!({ folder: 'trash' });
      returned.push(out);
      return `Trash emptied: ${out}`;
    };
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    await adapter.prepare();
    const run = page.chat(adapter, 'Empty the trash.');
    await page.approve();
    await run.done;
    page.dispose();

    expect(page.ran).to.deep.equal([{ folder: 'trash' }]);
    expect(page.audit.filter((a) => a.capabilityId === 'domain:notes.wipe' && a.outcome === 'OK')).to.have.length(1);
    const created = lm.prompts[0]!.create;
    expect((created.tools as Array<{ name: string; execute: unknown }>).map((t) => [t.name, typeof t.execute])).to.deep.equal([[WIPE, 'function']]);
    expect(returned).to.have.length(1);
    expect(returned[0]).to.include('"wiped":3');
    expect(tools(run.parts).map((p) => p.type)).to.deep.equal(['tool-call', 'tool-result']);
    expect(tools(run.parts)[0]).to.deep.include({ name: WIPE, input: { folder: 'trash' } });
    expect(textOf(run.parts)).to.equal(`Trash emptied: ${returned[0]}`);
    expect(run.parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
    expect(toolParts(run.state())[0]).to.deep.include({ name: WIPE, state: 'done' });
  });

  it('execute tools: Stop while the approval waits cancels the call, nothing runs, the prompt is aborted', async () => {
    const page = await notesPage();
    const lm = new LanguageModelDouble('available', 'execute');
    let outcome: unknown;
    lm.reply = async ({ tools: given }) => {
      try {
        outcome = await given[0]!.execute!({ folder: 'drafts' });
      } catch (e) {
        outcome = e;
      }
      return 'unreachable';
    };
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    await adapter.prepare();
    const run = page.chat(adapter, 'Empty the drafts.');
    await waitUntil(() => page.confirm.shadowRoot?.querySelector('dialog')?.open, 'no approval asked', { timeout: 20000 });
    run.stop();
    await run.done;
    page.dispose();
    expect(page.ran).to.deep.equal([]);
    expect(lm.prompts[0]!.signal!.aborted).to.equal(true);
    // The chat stops reading the run at Stop: the call's cancellation is the last part it took.
    expect(run.parts.map((p) => p.type)).to.deep.equal(['message-start', 'tool-call', 'tool-error']);
    expect((run.parts.at(-1) as { error: string }).error).to.match(/^Error \[cancelled\]/);
    expect(toolParts(run.state())[0]!.state).to.equal('cancelled');
    await waitUntil(() => outcome !== undefined, 'execute never settled');
    expect(run.state().status).to.not.equal('running');
  });

  it('execute tools: calls asked for at once run one at a time; calls past maxSteps are refused with words and the model still answers', async () => {
    const lm = new LanguageModelDouble('available', 'execute');
    const returned: string[] = [];
    lm.reply = async ({ tools: given }) => {
      // Two calls at once, then one more after both answered: the run allows two.
      returned.push(...(await Promise.all([given[0]!.execute!({ level: 1 }), given[0]!.execute!({ level: 2 })])));
      returned.push(await given[0]!.execute!({ level: 3 }));
      return 'Set to 2.';
    };
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    let running = 0;
    const overlaps: number[] = [];
    const ran: unknown[] = [];
    const parts = await collect(
      adapter.run({
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Louder.' }] }],
        tools: [{ name: 'set_volume', description: 'Sets the volume.', inputSchema: { type: 'object' } }],
        agent: { id: 'volume', instructions: 'You set the volume.', maxSteps: 2 },
        signal: new AbortController().signal,
        callTool: async (c): Promise<ToolOutput> => {
          overlaps.push(++running);
          ran.push(c.input);
          await new Promise((r) => setTimeout(r, 0));
          running -= 1;
          return { content: [{ type: 'text', text: `volume ${(c.input as { level: number }).level}` }] };
        },
      }),
    );
    expect(ran).to.deep.equal([{ level: 1 }, { level: 2 }]);
    expect(overlaps).to.deep.equal([1, 1]);
    expect(returned).to.deep.equal(['volume 1', 'volume 2', 'Error: this run reached its limit of 2 tool calls; answer with what you have.']);
    expect(tools(parts).map((p) => p.type)).to.deep.equal(['tool-call', 'tool-result', 'tool-call', 'tool-result', 'tool-call', 'tool-error']);
    expect((tools(parts)[5] as { error: string }).error).to.match(/limit of 2 tool calls/);
    expect(textOf(parts)).to.equal('Set to 2.');
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'max-steps' });
  });

  it('declared tools: Stop while the model writes aborts its prompt; the run ends as aborted', async () => {
    undo = exposeToolClasses();
    const lm = new LanguageModelDouble('available', 'declared');
    lm.reply = () => new Promise(() => {}); // the model never answers on its own
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    const stop = new AbortController();
    const parts = collect(
      adapter.run({
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        tools: [{ name: 'set_volume', description: 'Sets the volume.', inputSchema: { type: 'object' } }],
        signal: stop.signal,
        callTool: async () => ({ content: [] }),
      }),
    );
    await waitUntil(() => lm.prompts.length === 1, 'the model was never prompted');
    stop.abort();
    const got = await parts;
    expect(got.at(-1)).to.deep.equal({ type: 'finish', reason: 'aborted' });
    expect(got.some((p) => p.type === 'error')).to.equal(false);
    expect(lm.prompts[0]!.signal!.aborted).to.equal(true);
  });

  it("the browser's failures map to the seed's error codes, in words", async () => {
    undo = exposeToolClasses();
    for (const [name, words] of [
      ['QuotaExceededError', /too long for Chrome's built-in model/],
      ['NotSupportedError', /cannot do this here/],
      ['UnknownError', /stopped/],
    ] as const) {
      for (const design of ['declared', 'execute', 'none'] as const) {
        const lm = new LanguageModelDouble('available', design);
        lm.reply = () => Promise.reject(new DOMException('no', name));
        const adapter = createLocalAdapter({ models: [], languageModel: lm });
        const parts = await collect(
          adapter.run({
            messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
            tools: [{ name: 'set_volume', description: 'Sets the volume.', inputSchema: { type: 'object' } }],
            signal: new AbortController().signal,
            callTool: async () => ({ content: [] }),
          }),
        );
        const last = parts.at(-1) as Extract<AgentStreamPart, { type: 'error' }>;
        expect(last.type, `${design} ${name}`).to.equal('error');
        expect(last.error, `${design} ${name}`).to.match(words);
        expect(last.code, `${design} ${name}`).to.equal('bad_request');
      }
    }
  });

  describe('the prompt format where the browser offers no native tools', () => {
    const volume: ToolDescriptor = { name: 'set_volume', description: 'Sets the volume.', inputSchema: { type: 'object', properties: { level: { type: 'integer' } }, required: ['level'] } };
    const run = (adapter: ReturnType<typeof createLocalAdapter>, calls: unknown[], extra: Partial<Parameters<typeof adapter.run>[0]> = {}) =>
      collect(
        adapter.run({
          messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Set the volume to 3.' }] }],
          tools: [volume],
          signal: new AbortController().signal,
          callTool: async (c): Promise<ToolOutput> => (calls.push(c.input), { content: [{ type: 'text', text: 'ok' }] }),
          ...extra,
        }),
      );
    const jsonReply = ({ input }: PromptContext) =>
      String(input).startsWith('<tool_response>') ? JSON.stringify({ reply: 'Volume is 3.' }) : JSON.stringify({ tool_call: { name: 'set_volume', arguments: { level: 3 } } });

    for (const [what, setup] of [
      ['a build that ignores the tools option', () => new LanguageModelDouble('available', 'none')],
      ['a model that cannot use tools (availability with tools is "unavailable")', () => Object.assign(new LanguageModelDouble('available', 'declared'), { toolAvailability: 'unavailable' as const })],
      ['declared tools without the response classes on the window', () => new LanguageModelDouble('available', 'declared')],
    ] as const) {
      it(`${what}: the <tool_call> format, constrained by responseConstraint`, async () => {
        if (what.startsWith('a model')) undo = exposeToolClasses();
        const lm = setup();
        lm.reply = jsonReply;
        const calls: unknown[] = [];
        const parts = await run(createLocalAdapter({ models: [], languageModel: lm }), calls);
        expect(calls).to.deep.equal([{ level: 3 }]);
        expect(textOf(parts)).to.equal('Volume is 3.');
        expect(lm.prompts[0]!.create).to.not.have.property('tools');
        expect(JSON.stringify(lm.prompts[0]!.options.responseConstraint)).to.include('"const":"set_volume"');
        expect((lm.prompts[0]!.create.initialPrompts as Array<{ content: string }>)[0]!.content).to.include('<tool_call>');
      });
    }

    it("toolChoice 'required' forces the first call through the prompt format even with native tools", async () => {
      undo = exposeToolClasses();
      const lm = new LanguageModelDouble('available', 'declared');
      lm.reply = jsonReply;
      const calls: unknown[] = [];
      await run(createLocalAdapter({ models: [], languageModel: lm, toolChoice: 'required' }), calls);
      expect(calls).to.deep.equal([{ level: 3 }]);
      expect(JSON.stringify(lm.prompts[0]!.options.responseConstraint)).to.not.include('"reply"');
      expect(lm.prompts[0]!.create).to.not.have.property('tools');
    });

    it('a build whose prompt() does not know responseConstraint: the free text is read in the prompt format, not as JSON', async () => {
      const lm = new LanguageModelDouble('available', 'none');
      lm.knowsResponseConstraint = false;
      lm.reply = ({ input }) => (String(input).startsWith('<tool_response>') ? 'Volume is 3.' : '<tool_call>\n{"name":"set_volume","arguments":{"level":3}}\n</tool_call>');
      const calls: unknown[] = [];
      const parts = await run(createLocalAdapter({ models: [], languageModel: lm }), calls);
      expect(lm.prompts[0]!.options).to.not.have.property('responseConstraint');
      expect(calls).to.deep.equal([{ level: 3 }]);
      expect(textOf(parts)).to.equal('Volume is 3.');
      expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
    });
  });
});
