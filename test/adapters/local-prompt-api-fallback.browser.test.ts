// Chrome's built-in model when the browser refuses its native tools after all: the probe saw the
// `tools` option read, then `create({ tools })` or the first prompt with tools rejects with a
// "NotSupportedError" DOMException (the spec's answer to options or content the model cannot
// take), at the start of a run or in its middle. The run goes on in the <tool_call> prompt format
// with the conversation so far, later runs skip the native loop, and nothing is thrown. Every run
// calls a real destructive capability on the page (registry, <agent-confirm>, a real click).
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter } from '../../src/adapters/local/index.js';
import { createAgentToolset } from '../../src/core/toolset.js';
import { createSessionState, sessionReducer, type SessionState } from '../../src/chat/session.js';
import { runAdapter } from '../../src/chat/run.js';
import { toolsetProvider } from '../../src/chat/tools.js';
import { defineWebAgent } from '../../src/chat/define-agent.js';
import type { AgentStreamPart, AgentToolPart } from '../../src/chat/types.js';
import '../../src/elements/index.js';
import { notesWipePage, recording, trustedClick } from './helpers-local.js';
import { exposeToolClasses, LanguageModelDouble, ToolCall, type Design, type PromptContext, type Reply } from './prompt-api-double.js';

const WIPE = 'domain_notes__wipe';

async function notesPage() {
  const { registry, ran, confirm, audit } = await notesWipePage();
  const toolset = createAgentToolset(registry, { consumer: { id: 'chat', kind: 'chat' }, topology: 'embedded' });
  const provider = toolsetProvider(toolset, registry, 'chat');
  let state: SessionState = createSessionState();

  /** One run as <agent-chat> does it, in the same conversation as the runs before it. */
  async function chat(adapter: ReturnType<typeof createLocalAdapter>, text: string) {
    state = sessionReducer(state, { type: 'send', text, id: crypto.randomUUID() });
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
      new AbortController().signal,
    );
    // A run that ends without asking says what it did instead.
    let asked = false;
    const ended = done.then(() => (asked ? undefined : Promise.reject(new Error(`the run ended without asking for approval: ${JSON.stringify(parts)}`))));
    await Promise.race([approve(() => (asked = true)), ended]);
    await done;
    return parts;
  }

  /** Waits for <agent-confirm>'s dialog and approves with a real click. */
  async function approve(seen: () => void): Promise<void> {
    await waitUntil(() => confirm.shadowRoot?.querySelector('dialog')?.open && registry.confirmations.list().length > 0, 'no approval asked', { timeout: 20000 });
    seen();
    const b = confirm.shadowRoot!.querySelector<HTMLButtonElement>('[part~="approve"]')!;
    await waitUntil(() => !b.disabled && b.getAttribute('aria-disabled') !== 'true', 'approve stays disabled');
    await trustedClick(b);
    await waitUntil(() => registry.confirmations.list().length === 0, 'the click did not decide');
  }

  return { ran, audit, chat, state: () => state, dispose: () => provider.dispose() };
}

const textOf = (p: AgentStreamPart[]) => p.flatMap((x) => (x.type === 'text-delta' ? [x.delta] : [])).join('');
const toolParts = (s: SessionState) => s.messages.flatMap((m) => m.parts.filter((p): p is AgentToolPart => p.type === 'tool'));
const withTools = (c: Record<string, unknown>) => Array.isArray(c.tools) && c.tools.length > 0;
/** The whole conversation a prompt-format step sent: its initial turns and its prompt, as text. */
const sent = (c: PromptContext) => [...((c.create.initialPrompts as Array<{ content: unknown }> | undefined) ?? []).map((t) => String(t.content)), String(c.input)].join('\n');
const isPromptFormat = (c: PromptContext) => c.options.responseConstraint !== undefined;

/**
 * The model: in the prompt format (a `responseConstraint` reply) it calls the wipe on the user's
 * text and answers once it has read a `<tool_response>`; natively it does what `native` says.
 */
function model(lm: LanguageModelDouble, folder: string, native: (c: PromptContext) => Reply | Promise<Reply> = () => 'unused') {
  lm.reply = (c) => {
    if (!isPromptFormat(c)) return native(c);
    return String(c.input).startsWith('<tool_response>')
      ? JSON.stringify({ reply: `Emptied ${folder}.` })
      : JSON.stringify({ tool_call: { name: WIPE, arguments: { folder } } });
  };
}

/** console.warn's lines while `f` runs. */
async function warnings<T>(f: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  try {
    return { result: await f(), lines };
  } finally {
    console.warn = original;
  }
}

describe("createLocalAdapter: Chrome's built-in model refuses its native tools", function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);
  let undo: (() => void) | undefined;
  beforeEach(() => {
    undo = exposeToolClasses();
  });
  afterEach(() => undo?.());

  for (const design of ['declared', 'execute'] as const satisfies readonly Design[]) {
    for (const at of ['create', 'prompt'] as const) {
      it(`${design} tools refused at ${at === 'create' ? 'create({ tools })' : 'the first prompt with tools'}: the run calls the capability in the prompt format and finishes; the next run skips the native loop`, async () => {
        const page = await notesPage();
        const lm = new LanguageModelDouble('available', design);
        lm.refuseTools = at;
        model(lm, 'drafts');
        const adapter = createLocalAdapter({ models: [], languageModel: lm });
        await adapter.prepare();

        const { result: first, lines } = await warnings(() => page.chat(adapter, 'Empty the drafts folder.'));
        // The probe said the browser reads tools; the browser refused them once, with a NotSupportedError.
        expect(lm.availabilityCalls.some(withTools)).to.equal(true);
        expect(lm.refusals).to.equal(1);
        expect(page.ran).to.deep.equal([{ folder: 'drafts' }]);
        expect(page.audit.filter((a) => a.capabilityId === 'domain:notes.wipe' && a.outcome === 'OK')).to.have.length(1);
        expect(first.some((p) => p.type === 'error')).to.equal(false);
        expect(first.filter((p) => p.type === 'tool-call')).to.have.length(1);
        expect(first.find((p) => p.type === 'tool-result')).to.not.equal(undefined);
        expect(textOf(first)).to.equal('Emptied drafts.');
        expect(first.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
        // No empty assistant message for the refused attempt.
        expect(first.filter((p) => p.type === 'message-start')).to.have.length(2);
        expect(page.state().messages.filter((m) => m.role === 'assistant' && !m.parts.length)).to.deep.equal([]);
        expect(toolParts(page.state())[0]).to.deep.include({ name: WIPE, state: 'done' });
        // The prompt format: the tools in the system turn, the reply constrained to a live tool's call.
        const formatted = lm.prompts.filter(isPromptFormat);
        expect(formatted).to.have.length(2);
        expect(JSON.stringify(formatted[0]!.options.responseConstraint)).to.include(`"const":"${WIPE}"`);
        expect(sent(formatted[0]!)).to.include('<tool_call>').and.include('You tidy notes.');
        expect(sent(formatted[1]!)).to.include('"wiped":3');
        // Reported in words, once.
        expect(lines).to.have.length(1);
        expect(lines[0]).to.match(/^Chrome's built-in model refused its native tools \(NotSupportedError: .+\); tool calls use the <tool_call> prompt format from now on\.$/);

        // The next run in the same conversation goes straight to the prompt format.
        const creates = lm.createCalls.length;
        model(lm, 'trash');
        const { result: second, lines: again } = await warnings(() => page.chat(adapter, 'Now empty the trash.'));
        page.dispose();
        expect(page.ran).to.deep.equal([{ folder: 'drafts' }, { folder: 'trash' }]);
        expect(lm.createCalls.slice(creates).some(withTools)).to.equal(false);
        expect(lm.refusals).to.equal(1);
        expect(again).to.deep.equal([]);
        expect(textOf(second)).to.equal('Emptied trash.');
        expect(second.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
        // The earlier run's call and its result are part of what the model reads.
        expect(sent(lm.prompts.at(-1)!)).to.include('"folder":"drafts"').and.include('Empty the drafts folder.');
      });
    }
  }

  it('declared tools refused mid-run (the spec draft refuses tool-call pieces in an assistant message): the native call stands, the prompt format goes on from its result', async () => {
    const page = await notesPage();
    const lm = new LanguageModelDouble('available', 'declared');
    lm.assistantTextOnly = true;
    // Step 1 natively: one tool-call piece. Step 2 would send it back as an assistant message, which this browser refuses.
    model(lm, 'drafts', ({ tools }) => [
      { type: 'text', value: 'Emptying the drafts. ' },
      { type: 'tool-call', value: new ToolCall({ callID: 'native-1', name: tools[0]!.name, arguments: { folder: 'drafts' } }) },
    ]);
    lm.reply = ((inner) => (c: PromptContext) => (isPromptFormat(c) ? JSON.stringify({ reply: 'All done.' }) : inner(c)))(lm.reply);
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    await adapter.prepare();
    const { result: parts, lines } = await warnings(() => page.chat(adapter, 'Empty the drafts folder.'));
    page.dispose();

    expect(lm.refusals).to.equal(1);
    expect(lines).to.have.length(1);
    expect(page.ran).to.deep.equal([{ folder: 'drafts' }]); // once: the refusal did not repeat the call
    expect(parts.filter((p) => p.type === 'tool-call')).to.have.length(1);
    expect(parts.find((p) => p.type === 'tool-call')).to.deep.include({ id: 'native-1', name: WIPE });
    expect(parts.some((p) => p.type === 'error')).to.equal(false);
    expect(textOf(parts)).to.equal('Emptying the drafts. All done.');
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
    // The prompt-format step read the whole conversation: the native call in the <tool_call> format, then its result.
    const formatted = lm.prompts.filter(isPromptFormat);
    expect(formatted).to.have.length(1);
    const conversation = sent(formatted[0]!);
    expect(conversation).to.include('Empty the drafts folder.');
    expect(conversation).to.include(`<tool_call>\n{"name":"${WIPE}","arguments":{"folder":"drafts"}}\n</tool_call>`);
    expect(String(formatted[0]!.input)).to.match(/^<tool_response>\n.*"wiped":3/s);
    expect(toolParts(page.state())[0]).to.deep.include({ name: WIPE, state: 'done' });
  });

  it('execute tools refused mid-run, after the browser ran a call: the prompt format goes on from its result', async () => {
    const page = await notesPage();
    const lm = new LanguageModelDouble('available', 'execute');
    const returned: string[] = [];
    model(lm, 'trash', async ({ tools }) => {
      returned.push(await tools[0]!.execute!({ folder: 'trash' }));
      throw new DOMException('The model cannot use the tool response.', 'NotSupportedError');
    });
    lm.reply = ((inner) => (c: PromptContext) => (isPromptFormat(c) ? JSON.stringify({ reply: 'Trash is empty.' }) : inner(c)))(lm.reply);
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    await adapter.prepare();
    const { result: parts, lines } = await warnings(() => page.chat(adapter, 'Empty the trash.'));
    page.dispose();

    expect(returned).to.have.length(1);
    expect(lines).to.have.length(1);
    expect(page.ran).to.deep.equal([{ folder: 'trash' }]);
    expect(parts.filter((p) => p.type === 'tool-call')).to.have.length(1);
    expect(parts.some((p) => p.type === 'error')).to.equal(false);
    expect(textOf(parts)).to.equal('Trash is empty.');
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
    const formatted = lm.prompts.filter(isPromptFormat);
    expect(formatted).to.have.length(1);
    expect(sent(formatted[0]!)).to.include(`{"name":"${WIPE}","arguments":{"folder":"trash"}}`);
    expect(String(formatted[0]!.input)).to.match(/^<tool_response>\n.*"wiped":3/s);
  });

  it('a browser that never offers tools: the prompt format from the start, the capability runs, no refusal reported', async () => {
    const page = await notesPage();
    const lm = new LanguageModelDouble('available', 'none');
    model(lm, 'drafts');
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    await adapter.prepare();
    const { result: parts, lines } = await warnings(() => page.chat(adapter, 'Empty the drafts folder.'));
    page.dispose();
    expect(lines).to.deep.equal([]);
    expect(page.ran).to.deep.equal([{ folder: 'drafts' }]);
    expect(lm.createCalls.some(withTools)).to.equal(false);
    expect(textOf(parts)).to.equal('Emptied drafts.');
    expect(parts.at(-1)).to.deep.equal({ type: 'finish', reason: 'stop' });
  });

  it('a NotSupportedError that is not about tools (the prompt format fails too) ends the run as bad_request in words, once', async () => {
    const lm = new LanguageModelDouble('available', 'declared');
    lm.reply = () => Promise.reject(new DOMException('The output language is not supported.', 'NotSupportedError'));
    const adapter = createLocalAdapter({ models: [], languageModel: lm });
    const parts: AgentStreamPart[] = [];
    await warnings(async () => {
      for await (const p of adapter.run({
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        tools: [{ name: 'set_volume', description: 'Sets the volume.', inputSchema: { type: 'object' } }],
        signal: new AbortController().signal,
        callTool: async () => ({ content: [] }),
      }))
        parts.push(p);
    });
    const last = parts.at(-1) as Extract<AgentStreamPart, { type: 'error' }>;
    expect(last).to.deep.include({ type: 'error', code: 'bad_request' });
    expect(last.error).to.match(/cannot do this here \(The output language is not supported\.\)/);
    expect(lm.prompts).to.have.length(2); // the native try, then one prompt-format try: no loop
  });
});
