// Type tests for agent-surface-kit/chat: `tsc -p tsconfig.json` checks the `@ts-expect-error` lines
// against the seed's types; the test runs the seed's echo adapter once, as written there.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createScriptedAdapter, defineWebAgent, sessionReducer, createSessionState } from '../../src/chat/index.js';
import type {
  AdapterStatus,
  AgentAdapter,
  AgentMessage,
  AgentPart,
  AgentRunRequest,
  AgentStreamPart,
  ModelChoice,
  ToolCallState,
  ToolDescriptor,
  ToolOutput,
  WebAgent,
} from '../../src/chat/index.js';

// The seed's example, verbatim but for the import.
export const echo: AgentAdapter = {
  id: 'echo',
  label: 'Echo',
  status: () => ({ state: 'ready' }),

  async *run(req) {
    const messageId = crypto.randomUUID();
    yield { type: 'message-start', messageId };
    const tool = req.tools[0];
    if (tool) {
      const id = crypto.randomUUID();
      const call = { id, name: tool.name, input: {} };
      yield { type: 'tool-call', messageId, ...call };
      const output = await req.callTool(call);
      const text = output.content[0]?.text ?? '';
      yield output.isError ? { type: 'tool-error', id, error: text } : { type: 'tool-result', id, output };
    }
    const delta = `This page has ${req.tools.length} tools.`;
    yield { type: 'text-delta', messageId, delta };
    yield { type: 'finish', reason: 'stop' };
  },
};

it('the seed types hold, and wrong parts do not type-check', async () => {
  const statuses: AdapterStatus[] = [
    { state: 'ready' },
    { state: 'unavailable', reason: 'no key' },
    { state: 'needs-download', bytes: 1, note: 'CPU only' },
    { state: 'downloading', progress: 0.5 },
    { state: 'loading' },
    { state: 'loading', progress: 0.2 },
    { state: 'error', error: 'failed' },
  ];
  // @ts-expect-error: unavailable needs its reason
  const noReason: AdapterStatus = { state: 'unavailable' };
  // @ts-expect-error: downloading needs its progress
  const noProgress: AdapterStatus = { state: 'downloading' };
  // @ts-expect-error: not a state
  const bogus: AdapterStatus = { state: 'busy' };

  const parts: AgentStreamPart[] = [
    { type: 'message-start', messageId: 'm' },
    { type: 'text-delta', messageId: 'm', delta: 'x' },
    { type: 'reasoning', messageId: 'm', text: 'r', providerMetadata: { signature: 's' } },
    { type: 'tool-call', messageId: 'm', id: 'c', name: 'n', input: {}, providerMetadata: { id: 'i' } },
    { type: 'tool-result', id: 'c', output: { content: [{ type: 'text', text: 'ok' }] } },
    { type: 'tool-error', id: 'c', error: 'Error [cancelled]' },
    { type: 'step-finish', step: 1 },
    { type: 'finish', reason: 'max-steps' },
    { type: 'error', error: 'x', code: 'rate_limited' },
  ];
  // @ts-expect-error: finish reasons are stop, max-steps or aborted
  const badFinish: AgentStreamPart = { type: 'finish', reason: 'done' };
  // @ts-expect-error: error codes are the seed's four
  const badCode: AgentStreamPart = { type: 'error', error: 'x', code: 'teapot' };
  // @ts-expect-error: a text delta belongs to a message
  const noMessage: AgentStreamPart = { type: 'text-delta', delta: 'x' };

  const states: ToolCallState[] = ['running', 'awaiting-confirmation', 'done', 'error', 'cancelled'];
  // @ts-expect-error: not a tool call state
  const pending: ToolCallState = 'pending';
  const part: AgentPart = {
    type: 'tool',
    id: 'c',
    name: 'delegate_to_x',
    input: {},
    state: 'done',
    agent: { id: 'x', messages: [] },
    prompt: 'click',
    providerMetadata: {},
  };
  // @ts-expect-error: a tool part needs its state
  const stateless: AgentPart = { type: 'tool', id: 'c', name: 'n', input: {} };
  const message: AgentMessage = { id: 'm', role: 'assistant', parts: [part] };
  // @ts-expect-error: roles are user and assistant
  const system: AgentMessage = { id: 's', role: 'system', parts: [] };

  const choice: ModelChoice = { id: 'q', label: 'Qwen3 0.6B', brief: 'Small.', bytes: 1, cached: true, recommended: true, selected: false };
  // @ts-expect-error: a model choice has a brief
  const briefless: ModelChoice = { id: 'q', label: 'Q' };
  const descriptor: ToolDescriptor = { name: 'n', description: 'd', inputSchema: { type: 'object' } };
  const output: ToolOutput = { content: [{ type: 'text', text: 't' }], isError: true, structuredContent: { a: 1 } };
  // @ts-expect-error: content items are text
  const image: ToolOutput = { content: [{ type: 'image', data: '' }] };

  const agent: WebAgent = defineWebAgent({ id: 'a', instructions: 'x' });
  // @ts-expect-error: instructions are required (and checked at run time too)
  assert.throws(() => defineWebAgent({ id: 'a' }), TypeError);
  // A missing or non-string id is named as such, not quoted as the word "undefined".
  // @ts-expect-error: id is required
  assert.throws(() => defineWebAgent({ instructions: 'x' }), { name: 'TypeError', message: /id is missing: it must start with a letter/ });
  // @ts-expect-error: id is a string
  assert.throws(() => defineWebAgent({ id: 7, instructions: 'x' }), { name: 'TypeError', message: /id is a number: it must start with a letter/ });
  assert.throws(() => defineWebAgent({ id: '7x', instructions: 'x' }), { name: 'TypeError', message: /id "7x" must start with a letter/ });
  const adapter: AgentAdapter = createScriptedAdapter([{ text: 'hi' }]);
  const request = (r: AgentRunRequest) => {
    // @ts-expect-error: tools is read-only (a getter)
    r.tools = [];
    return r.callTool({ id: 'x', name: 'y', input: {} });
  };

  void [noReason, noProgress, bogus, badFinish, badCode, noMessage, pending, stateless, system, briefless, image, request];
  assert.equal(statuses.length, 7);
  assert.equal(parts.length, 9);
  assert.equal(states.length, 5);
  assert.ok(message && choice && descriptor && output && agent && adapter);

  // The echo adapter, run through the reducer with one tool.
  let state = sessionReducer(createSessionState(), { type: 'send', text: 'hi' });
  const req: AgentRunRequest = {
    messages: state.messages,
    tools: [descriptor],
    signal: new AbortController().signal,
    callTool: async () => ({ content: [{ type: 'text', text: 'fine' }] }),
  };
  for await (const p of echo.run(req)) state = sessionReducer(state, { type: 'part', part: p });
  assert.equal(state.status, 'done');
  const last = state.messages.at(-1)!.parts.at(-1);
  assert.equal(last?.type === 'text' && last.text, 'This page has 1 tools.');
});
