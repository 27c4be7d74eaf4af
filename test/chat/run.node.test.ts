import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CANCELLED_TEXT, callModelContextTool } from '../../src/chat/call-tool.js';
import { defineWebAgent } from '../../src/chat/define-agent.js';
import { runAdapter, type ActiveCall } from '../../src/chat/run.js';
import { createScriptedAdapter, findTool } from '../../src/chat/scripted-adapter.js';
import { createSessionState, sessionReducer, toolParts, type SessionState } from '../../src/chat/session.js';
import { delegateDescriptor, filterTools, sourceProvider, toolsetProvider, type ChatTool } from '../../src/chat/tools.js';
import type { AgentAdapter, AgentStreamPart, WebAgent } from '../../src/chat/types.js';
import { createAgentToolset } from '../../src/core/toolset.js';
import { createTestSurface } from '../../src/testing/index.js';
import type { ToolSnapshot, ToolSource } from '../../src/webmcp/types.js';

before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());
const live: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const s of live.splice(0)) s.dispose();
});

describe('callModelContextTool', () => {
  it('resolves to a ToolOutput whatever the tool does', async () => {
    const ok = await callModelContextTool({ execute: async () => ({ content: [{ type: 'text', text: 'hi' }] }) }, {});
    assert.deepEqual(ok, { content: [{ type: 'text', text: 'hi' }] });
    const obj = await callModelContextTool({ execute: () => ({ a: 1 }) }, {});
    assert.deepEqual(obj, { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    const text = await callModelContextTool({ execute: () => 'plain' }, {});
    assert.deepEqual(text, { content: [{ type: 'text', text: 'plain' }] });
    const thrown = await callModelContextTool({ execute: () => { throw new Error('nope'); } }, {});
    assert.deepEqual(thrown, { content: [{ type: 'text', text: 'Error: nope' }], isError: true });
    const rejected = await callModelContextTool({ execute: () => Promise.reject('bad') }, {});
    assert.equal(rejected.isError, true);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const notJson = await callModelContextTool({ execute: () => circular }, {});
    assert.equal(notJson.isError, true);
    const hostile = await callModelContextTool(
      { execute: () => ({ get content() { throw new Error('trap'); } }) },
      {},
    );
    assert.equal(hostile.isError, true);
    const notATool = await callModelContextTool({} as never, {});
    assert.equal(notATool.isError, true);
  });

  it('passes the signal and resolves cancelled on abort even when the tool ignores it', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const pending = callModelContextTool({ execute: (_input, opts) => ((seen = opts?.signal), new Promise(() => {})) }, { x: 1 }, { signal: controller.signal });
    controller.abort();
    const out = await pending;
    assert.equal(seen, controller.signal);
    assert.deepEqual(out, { content: [{ type: 'text', text: CANCELLED_TEXT }], isError: true });
    const already = await callModelContextTool({ execute: () => 'x' }, {}, { signal: AbortSignal.abort() });
    assert.equal(already.content[0]!.text, CANCELLED_TEXT);
  });

  it('never rejects (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.boolean(), async (value, throws) => {
        const out = await callModelContextTool({ execute: () => (throws ? Promise.reject(value) : value) }, value);
        assert.ok(Array.isArray(out.content));
        for (const c of out.content) assert.equal(typeof c.text, 'string');
      }),
      { numRuns: 200 },
    );
  });
});

describe('defineWebAgent', () => {
  it('freezes a checked agent', () => {
    const helper = defineWebAgent({ id: 'counter', instructions: 'Counts rows.' });
    const agent = defineWebAgent({ id: 'fleet', instructions: 'Manage devices.', maxSteps: 4, tools: ['view:devices'], agents: [helper] });
    assert.ok(Object.isFrozen(agent));
    assert.deepEqual(agent.tools, ['view:devices']);
    assert.equal(agent.agents![0], helper);
  });
  it('throws for programmer mistakes', () => {
    assert.throws(() => defineWebAgent({ id: 'bad id', instructions: 'x' }), TypeError);
    assert.throws(() => defineWebAgent({ id: 'a', instructions: ' ' }), TypeError);
    assert.throws(() => defineWebAgent({ id: 'a', instructions: 'x', maxSteps: 0 }), TypeError);
    const a = defineWebAgent({ id: 'a', instructions: 'x' });
    assert.throws(() => defineWebAgent({ id: 'b', instructions: 'x', agents: [a, a] }), /twice/);
    assert.throws(() => defineWebAgent({ id: 'a', instructions: 'x', agents: [a] }), /itself/);
  });
});

// ---------------------------------------------------------------------------------------------

function fleet() {
  const surface = createTestSurface({ consumer: { id: 'chat', kind: 'chat' } });
  live.push(surface);
  const devices = [
    { id: 'd1', status: 'online' },
    { id: 'd2', status: 'offline' },
    { id: 'd3', status: 'offline' },
  ];
  surface.observation('view:devices.rows', () => devices, { description: 'The devices.', untrustedOutput: true });
  surface.action(
    'domain:devices.disable',
    (input) => {
      const ids = (input as { ids: string[] }).ids;
      for (const d of devices) if (ids.includes(d.id)) d.status = 'disabled';
      return { disabled: ids };
    },
    {
      effect: 'destructive',
      confirmation: 'required',
      description: 'Disable devices by id.',
      inputSchema: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' } } }, required: ['ids'], additionalProperties: false },
    },
  );
  const toolset = createAgentToolset(surface.registry, { consumer: { id: 'chat', kind: 'chat' }, topology: 'embedded' });
  const provider = toolsetProvider(toolset, surface.registry, 'chat');
  live.push(provider);
  return { surface, devices, provider };
}

const disableOffline = createScriptedAdapter([
  { text: 'Reading the table.' },
  { tool: 'view:devices.rows' },
  (ctx) => {
    const rows = ctx.json() as Array<{ id: string; status: string }>;
    return { tool: 'domain:devices.disable', input: { ids: rows.filter((r) => r.status === 'offline').map((r) => r.id) } };
  },
  (ctx) => ({ text: ctx.last?.isError ? 'It was not done.' : 'Done.' }),
]);

function session(adapter: AgentAdapter, tools: () => readonly ChatTool[], agent?: WebAgent, onCall?: (c: ActiveCall) => void) {
  let state: SessionState = createSessionState();
  const host = {
    adapter,
    agent,
    tools,
    dispatch: (e: Parameters<typeof sessionReducer>[1]) => (state = sessionReducer(state, e)),
    state: () => state,
    onCall,
    randomId: () => `inv-${Math.random().toString(36).slice(2)}`,
  };
  return {
    host,
    get state() {
      return state;
    },
    async send(text: string, signal = new AbortController().signal) {
      host.dispatch({ type: 'send', text });
      await runAdapter(host, signal);
      return state;
    },
  };
}

describe('a scripted run over a registry toolset', () => {
  it('reads, then disables the offline devices once the person approves', async () => {
    const { surface, devices, provider } = fleet();
    const calls: ActiveCall[] = [];
    const s = session(disableOffline, provider.tools, undefined, (c) => void calls.push(c));
    const off = surface.registry.confirmations.subscribe((pending) => {
      for (const p of pending) if (p.status === 'pending') surface.registry.confirmations.approve(p.confirmationId);
    });
    const state = await s.send('disable the offline devices');
    off();
    assert.equal(state.status, 'done');
    assert.deepEqual(devices.map((d) => d.status), ['online', 'disabled', 'disabled']);
    const parts = [...toolParts(state.messages)];
    assert.deepEqual(parts.map((p) => p.state), ['done', 'done']);
    assert.equal(calls.length, 2);
    // The invocation ids are fresh, not the model's call ids.
    assert.notEqual(calls[1]!.invocationId, calls[1]!.id);
    const text = state.messages.at(-1)!.parts.at(-1);
    assert.equal(text?.type === 'text' && text.text, 'Done.');
  });

  it('a denied confirmation ends the call as an error and nothing runs', async () => {
    const { surface, devices, provider } = fleet();
    const s = session(disableOffline, provider.tools);
    const off = surface.registry.confirmations.subscribe((pending) => {
      for (const p of pending) if (p.status === 'pending') surface.registry.confirmations.deny(p.confirmationId, 'no');
    });
    const state = await s.send('disable the offline devices');
    off();
    assert.deepEqual(devices.map((d) => d.status), ['online', 'offline', 'offline']);
    const parts = [...toolParts(state.messages)];
    assert.equal(parts[1]!.state, 'error');
    assert.match(parts[1]!.error!, /CONFIRMATION_INVALID/);
  });

  it('Stop while a call waits for the person cancels it: nothing runs, the run ends aborted', async () => {
    const { surface, devices, provider } = fleet();
    const s = session(disableOffline, provider.tools);
    const controller = new AbortController();
    const off = surface.registry.confirmations.subscribe((pending) => {
      if (pending.some((p) => p.status === 'pending')) {
        s.host.dispatch({ type: 'stop' });
        controller.abort();
      }
    });
    const state = await s.send('go', controller.signal);
    off();
    assert.equal(state.status, 'aborted');
    assert.deepEqual([...toolParts(state.messages)].map((p) => p.state), ['done', 'cancelled']);
    assert.deepEqual(devices.map((d) => d.status), ['online', 'offline', 'offline']);
  });

  it('a call planned on tools that changed since fails closed', async () => {
    const { surface, provider } = fleet();
    const ref: { handle?: { unregister(): void } } = {};
    const adapter: AgentAdapter = {
      id: 'stale',
      label: 'stale',
      async *run(req) {
        yield { type: 'message-start', messageId: 'm' };
        const tool = req.tools.find((t) => t.name.includes('extra'))!;
        // The page changes between the model reading the tools and calling one.
        ref.handle!.unregister();
        surface.action('domain:devices.extra', () => 'second', { description: 'Extra.' });
        await Promise.resolve();
        const out = await req.callTool({ id: 'c1', name: tool.name, input: {} });
        yield { type: 'tool-call', messageId: 'm', id: 'c1', name: tool.name, input: {} };
        yield out.isError ? { type: 'tool-error', id: 'c1', error: out.content[0]!.text } : { type: 'tool-result', id: 'c1', output: out };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    ref.handle = surface.action('domain:devices.extra', () => 'first', { description: 'Extra.' });
    const s = session(adapter, provider.tools);
    const state = await s.send('go');
    const [part] = [...toolParts(state.messages)];
    assert.equal(part!.state, 'error');
    assert.match(part!.error!, /STALE_CAPABILITY|CAPABILITY_NOT_FOUND/);
  });

  it('runs one call at a time even when an adapter calls in parallel', async () => {
    let running = 0;
    let most = 0;
    const tool = (name: string): ChatTool => ({
      descriptor: { name, description: name, inputSchema: { type: 'object' } },
      title: name,
      untrustedOutput: false,
      async call() {
        running++;
        most = Math.max(most, running);
        // A tool that is slow on purpose, so calls could overlap: the outcome must not depend on how slow.
        // eslint-disable-next-line no-restricted-syntax
        await new Promise((r) => setTimeout(r, 1));
        running--;
        return { content: [{ type: 'text', text: name }] };
      },
    });
    const adapter: AgentAdapter = {
      id: 'p',
      label: 'p',
      async *run(req) {
        yield { type: 'message-start', messageId: 'm' };
        const outs = await Promise.all(['a', 'b', 'c'].map((n) => req.callTool({ id: n, name: n, input: {} })));
        yield { type: 'text-delta', messageId: 'm', delta: outs.map((o) => o.content[0]!.text).join('') };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const state = await session(adapter, () => [tool('a'), tool('b'), tool('c')]).send('go');
    assert.equal(most, 1);
    const last = state.messages.at(-1)!.parts[0];
    assert.equal(last?.type === 'text' && last.text, 'abc');
  });
});

describe('sub-agents', () => {
  it('a delegate_to_<id> call runs the sub-agent nested, with its own tool filter', async () => {
    const { provider } = fleet();
    const counter = defineWebAgent({ id: 'counter', instructions: 'Counts offline devices.', tools: ['view:devices.rows'] });
    const main = defineWebAgent({ id: 'main', instructions: 'Fleet.', tools: [], agents: [counter] });
    const seenTools: Record<string, string[]> = {};
    const adapter = createScriptedAdapter((ctx) => {
      seenTools[ctx.agent!.id] = ctx.tools.map((t) => t.name);
      if (ctx.agent?.id === 'counter')
        return [
          { tool: 'view:devices.rows' },
          (c) => ({ text: `${(c.json() as Array<{ status: string }>).filter((r) => r.status === 'offline').length} offline` }),
        ];
      return [{ tool: 'delegate_to_counter', input: { task: 'How many are offline?' } }, (c) => ({ text: `The counter says: ${c.last!.content[0]!.text}` })];
    });
    const state = await session(adapter, provider.tools, main).send('how many?');
    assert.deepEqual(seenTools.main, ['delegate_to_counter']);
    assert.deepEqual(seenTools.counter, ['view_devices__rows']);
    const [outer, inner] = [...toolParts(state.messages)];
    assert.equal(outer!.name, 'delegate_to_counter');
    assert.equal(outer!.state, 'done');
    assert.equal(outer!.agent!.id, 'counter');
    assert.equal(inner!.state, 'done');
    const last = state.messages.at(-1)!.parts.at(-1);
    assert.equal(last?.type === 'text' && last.text, 'The counter says: 2 offline');
  });
});

describe('createScriptedAdapter follows the seed', () => {
  it('message-start first, a result per call, finish last; fresh ids every run', async () => {
    const adapter = createScriptedAdapter([{ reasoning: 'plan', providerMetadata: { s: 1 } }, { text: 'abcdef', chunk: 2 }, { tool: 'x' }, { tool: 'missing', optional: true }, { text: 'after' }]);
    const tools = [{ descriptor: { name: 'x', description: 'x', inputSchema: { type: 'object' } }, title: 'x', untrustedOutput: false, call: async () => ({ content: [{ type: 'text' as const, text: 'ok' }] }) }];
    const collect = async () => {
      const parts: AgentStreamPart[] = [];
      const req = { messages: [], tools: tools.map((t) => t.descriptor), signal: new AbortController().signal, callTool: () => tools[0]!.call() };
      for await (const p of adapter.run(req)) parts.push(p);
      return parts;
    };
    const a = await collect();
    const b = await collect();
    assert.deepEqual(a.map((p) => p.type), ['message-start', 'reasoning', 'text-delta', 'text-delta', 'text-delta', 'tool-call', 'tool-result', 'step-finish', 'message-start', 'text-delta', 'finish']);
    const callIds = (ps: AgentStreamPart[]) => ps.filter((p) => p.type === 'tool-call').map((p) => (p as { id: string }).id);
    assert.notDeepEqual(callIds(a), callIds(b));
  });

  it('stops waiting on Stop and ends aborted; max-steps ends the run', async () => {
    const controller = new AbortController();
    const adapter = createScriptedAdapter([{ text: 'a' }, { wait: new Promise(() => {}) }, { text: 'never' }]);
    const parts: AgentStreamPart[] = [];
    const run = (async () => {
      for await (const p of adapter.run({ messages: [], tools: [], signal: controller.signal, callTool: async () => ({ content: [] }) })) {
        parts.push(p);
        if (p.type === 'text-delta') controller.abort();
      }
    })();
    await run;
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'aborted' });
    assert.ok(!parts.some((p) => p.type === 'text-delta' && p.delta === 'never'));

    const stepper = createScriptedAdapter([{ tool: 'x' }, { text: 'one' }, { tool: 'x' }, { text: 'two' }]);
    const out: AgentStreamPart[] = [];
    const agent = defineWebAgent({ id: 'a', instructions: 'x', maxSteps: 1 });
    for await (const p of stepper.run({ messages: [], tools: [{ name: 'x', description: '', inputSchema: {} }], signal: new AbortController().signal, callTool: async () => ({ content: [] }), agent })) out.push(p);
    assert.deepEqual(out.at(-1), { type: 'finish', reason: 'max-steps' });
  });

  it('a wait longer than a timer can hold (2^31 ms and more) sets the longest timer there is, not one that fires at once', async () => {
    // Timers given more than 2^31 − 1 ms fire after 1 ms: every delay the adapter asks for is seen here.
    const delays: number[] = [];
    const real = globalThis.setTimeout;
    const controller = new AbortController();
    const spy = mock.method(globalThis, 'setTimeout', ((fn: () => void, ms = 0) => {
      delays.push(ms);
      // The long wait has begun: Stop ends it.
      if (ms > 1e9) queueMicrotask(() => controller.abort());
      return real(fn, ms);
    }) as typeof setTimeout);
    const adapter = createScriptedAdapter([{ text: 'a' }, { wait: 2 ** 32 }, { text: 'late' }]);
    const parts: AgentStreamPart[] = [];
    try {
      for await (const p of adapter.run({ messages: [], tools: [], signal: controller.signal, callTool: async () => ({ content: [] }) })) parts.push(p);
    } finally {
      spy.mock.restore();
    }
    assert.ok(delays.includes(2 ** 31 - 1), `the delays set: ${delays.join(', ')}`);
    assert.ok(delays.every((ms) => ms <= 2 ** 31 - 1), `the delays set: ${delays.join(', ')}`);
    assert.ok(!parts.some((p) => p.type === 'text-delta' && p.delta === 'late'));
    assert.deepEqual(parts.at(-1), { type: 'finish', reason: 'aborted' });
  });

  it('finds tools by wire name, capability id and instance', () => {
    const tools = [
      { name: 'view_devices__rows', description: '', inputSchema: {} },
      { name: 'view_devices__table__select_at_main', description: '', inputSchema: {} },
    ];
    assert.equal(findTool(tools, 'view:devices.rows')?.name, 'view_devices__rows');
    assert.equal(findTool(tools, 'view_devices__rows')?.name, 'view_devices__rows');
    assert.equal(findTool(tools, 'view:devices.table.select')?.name, 'view_devices__table__select_at_main');
    assert.equal(findTool(tools, 'nope'), undefined);
  });
});

describe('tools', () => {
  it('filters by wire name and capability id prefix', () => {
    const t = (name: string, capabilityId?: string): ChatTool => ({
      descriptor: { name, description: '', inputSchema: {} },
      ...(capabilityId ? { capabilityId } : {}),
      title: '',
      untrustedOutput: false,
      call: async () => ({ content: [] }),
    });
    const all = [t('view_devices__rows', 'view:devices.rows'), t('domain_devices__disable', 'domain:devices.disable'), t('foreign_tool')];
    assert.deepEqual(filterTools(all, ['view:devices']).map((x) => x.descriptor.name), ['view_devices__rows']);
    assert.deepEqual(filterTools(all, ['devices']).map((x) => x.descriptor.name), ['view_devices__rows', 'domain_devices__disable']);
    assert.deepEqual(filterTools(all, ['foreign_tool']).map((x) => x.descriptor.name), ['foreign_tool']);
    assert.equal(filterTools(all, undefined).length, 3);
    assert.equal(filterTools(all, []).length, 0);
  });

  it('a source provider presents the revision the model read', async () => {
    let revision = 1;
    const executed: number[] = [];
    const source: ToolSource = {
      async discover() {
        return { revision, tools: [{ id: 'echo', name: 'echo', description: 'Echo.', inputSchema: { type: 'object' }, untrustedContent: true }] } as ToolSnapshot;
      },
      async execute(_call, planned) {
        executed.push(planned);
        if (planned !== revision) return { ok: false, code: 'STALE_TOOLS', error: { code: 'STALE_TOOLS', message: 'stale', retry: 'after-refresh' }, result: { content: [{ type: 'text', text: 'stale' }], isError: true } };
        return { ok: true, output: 'hi', result: { content: [{ type: 'text', text: 'hi' }], isError: false } };
      },
      subscribe: () => () => {},
      dispose() {},
    };
    const provider = sourceProvider(source);
    await provider.refresh();
    const [tool] = provider.tools();
    assert.equal(tool!.untrustedOutput, true);
    assert.equal(tool!.descriptor.untrustedOutput, true);
    const ok = await tool!.call({}, { id: 'c', invocationId: 'i', signal: new AbortController().signal });
    assert.equal(ok.isError, undefined);
    revision = 2;
    const stale = await tool!.call({}, { id: 'c', invocationId: 'i', signal: new AbortController().signal });
    assert.equal(stale.isError, true);
    assert.deepEqual(executed, [1, 1]);
  });
});

describe('delegate tools', () => {
  it('every delegate_to_<id> descriptor shares one frozen input schema, so per-schema caches (the local grammar) hold across reads', () => {
    const a = defineWebAgent({ id: 'billing', instructions: 'Answers billing questions.' });
    const b = defineWebAgent({ id: 'shipping', instructions: 'Tracks parcels.' });
    const first = delegateDescriptor(a);
    assert.equal(delegateDescriptor(a).inputSchema, first.inputSchema, 'the same object on every read');
    assert.equal(delegateDescriptor(b).inputSchema, first.inputSchema);
    assert.ok(Object.isFrozen(first.inputSchema) && Object.isFrozen((first.inputSchema as { properties: object }).properties));
    assert.deepEqual(first.inputSchema, {
      type: 'object',
      properties: { task: { type: 'string', description: 'The task, in full sentences, with everything the agent needs.' } },
      required: ['task'],
      additionalProperties: false,
    });
  });
});
