import { expect } from '@open-wc/testing';
import { detectModelContext, modelContextShape } from '../../src/webmcp/detect.js';
import { createToolSync, type HostRefusal, type ToolSpec } from '../../src/webmcp/host-sync.js';
import type { ModelContextLike, ModelContextTool } from '../../src/webmcp/types.js';
import { agent } from './agent.js';

const PREFIX = 'hs_';
const mine = (name: string) => name.startsWith(PREFIX);

function spec(name: string, description = `tool ${name}`): ToolSpec {
  const tool: ModelContextTool = { name, description, inputSchema: { type: 'object', properties: {} }, execute: async () => ({ content: [{ type: 'text', text: name }] }) };
  return { tool };
}

function desiredOf(...specs: ToolSpec[]): Map<string, ToolSpec> {
  return new Map(specs.map((s) => [s.tool.name, s]));
}

describe('detectModelContext and modelContextShape', () => {
  it('finds the native document.modelContext in Chromium with the WebMCP flag', () => {
    const native = (document as unknown as { modelContext?: unknown }).modelContext;
    expect(native, 'this suite runs with --enable-features=WebMCP').to.not.equal(undefined);
    expect(detectModelContext()).to.equal(native);
    expect(modelContextShape(native)).to.equal('current');
  });

  it('prefers an injected host, and null forces none', () => {
    const injected = { registerTool() {}, unregisterTool() {} };
    expect(detectModelContext({ modelContext: injected })).to.equal(injected);
    expect(detectModelContext(injected)).to.equal(injected);
    expect(detectModelContext({ modelContext: null })).to.equal(undefined);
    expect(detectModelContext({ modelContext: undefined })).to.equal((document as unknown as { modelContext: unknown }).modelContext);
  });

  it('tells the shapes apart by feature detection', () => {
    expect(modelContextShape({ registerTool() {} })).to.equal('current');
    expect(modelContextShape({ registerTool() {}, unregisterTool() {}, provideContext() {} })).to.equal('legacy');
    expect(modelContextShape({ provideContext() {}, clearContext() {} })).to.equal('batch');
    expect(modelContextShape({ getTools() {} })).to.equal(undefined);
    expect(modelContextShape(null)).to.equal(undefined);
    expect(modelContextShape('registerTool')).to.equal(undefined);
  });
});

describe('createToolSync on the native host', () => {
  const mc = (document as unknown as { modelContext: ModelContextLike }).modelContext;

  before(async () => {
    await agent.enable();
  });

  it('registers, replaces and withdraws, and the last of a quick add-remove-add wins', async () => {
    const refusals: HostRefusal[] = [];
    const sync = createToolSync(mc, 'current', { onRefused: (r) => refusals.push(r) });
    const a1 = spec(`${PREFIX}a`, 'first');
    const b = spec(`${PREFIX}b`);
    sync.update(desiredOf(a1, b), [a1.tool.name, b.tool.name]);
    await sync.settled();
    await agent.waitForNames([`${PREFIX}a`, `${PREFIX}b`], mine);

    // Remove a, add it back with a new description, remove it, add it once more: all in one turn.
    const a2 = spec(`${PREFIX}a`, 'second');
    const a3 = spec(`${PREFIX}a`, 'third');
    sync.update(desiredOf(b), [`${PREFIX}a`]);
    sync.update(desiredOf(a2, b), [`${PREFIX}a`]);
    sync.update(desiredOf(b), [`${PREFIX}a`]);
    sync.update(desiredOf(a3, b), [`${PREFIX}a`]);
    await sync.settled();
    await agent.waitForNames([`${PREFIX}a`, `${PREFIX}b`], mine);
    const listed = await (mc.getTools!() as Promise<{ name: string; description: string }[]>);
    expect(listed.find((t) => t.name === `${PREFIX}a`)?.description).to.equal('third');
    expect(sync.registered()).to.deep.equal([`${PREFIX}a`, `${PREFIX}b`]);

    sync.update(new Map(), [`${PREFIX}a`, `${PREFIX}b`]);
    await sync.settled();
    await agent.waitForNames([], mine);
    expect(sync.registered()).to.deep.equal([]);
    expect(refusals).to.deep.equal([]);
  });

  it('reports a name another script owns and registers the rest', async () => {
    const other = new AbortController();
    await mc.registerTool!(spec(`${PREFIX}taken`, 'owned by someone else').tool, { signal: other.signal });
    try {
      const refusals: HostRefusal[] = [];
      const sync = createToolSync(mc, 'current', { onRefused: (r) => refusals.push(r) });
      const taken = spec(`${PREFIX}taken`);
      const free = spec(`${PREFIX}free`);
      sync.update(desiredOf(taken, free), [`${PREFIX}taken`, `${PREFIX}free`]);
      await sync.settled();
      expect(refusals.map((r) => r.name)).to.deep.equal([`${PREFIX}taken`]);
      expect((refusals[0]!.error as DOMException).name).to.equal('InvalidStateError');
      expect(sync.registered()).to.deep.equal([`${PREFIX}free`]);
      // Withdrawing never touches the other script's tool.
      sync.update(new Map(), [`${PREFIX}taken`, `${PREFIX}free`]);
      await sync.settled();
      await agent.waitForNames([`${PREFIX}taken`], mine);
    } finally {
      other.abort();
    }
    await agent.waitForNames([], mine);
  });
});

describe('createToolSync on older host shapes', () => {
  it('legacy: registerTool without a signal, unregisterTool by name, in order', async () => {
    const calls: string[] = [];
    const held = new Set<string>();
    const legacy: ModelContextLike = {
      registerTool(tool, options) {
        calls.push(`register ${tool.name}${options ? ' +options' : ''}`);
        if (held.has(tool.name)) throw new DOMException('Duplicate tool name', 'InvalidStateError');
        held.add(tool.name);
      },
      async unregisterTool(name) {
        calls.push(`unregister ${name}`);
        // A host that is slow on purpose: the outcome must not depend on how slow.
        // eslint-disable-next-line no-restricted-syntax
        await new Promise((r) => setTimeout(r, 5));
        held.delete(name);
      },
    };
    const sync = createToolSync(legacy, 'legacy', { onRefused: () => calls.push('refused') });
    sync.update(desiredOf(spec('x', '1')), ['x']);
    sync.update(new Map(), ['x']);
    sync.update(desiredOf(spec('x', '2')), ['x']);
    await sync.settled();
    expect(calls).to.deep.equal(['register x', 'unregister x', 'register x']);
    expect([...held]).to.deep.equal(['x']);
  });

  it('batch: provideContext with the whole set, clearContext to withdraw', async () => {
    const batches: string[][] = [];
    let cleared = 0;
    const batch: ModelContextLike = {
      async provideContext({ tools }) {
        batches.push(tools.map((t) => t.name));
      },
      clearContext() {
        cleared += 1;
      },
    };
    const sync = createToolSync(batch, 'batch', { onRefused: () => {} });
    const a = spec('a');
    const b = spec('b');
    sync.update(desiredOf(a), ['a']);
    sync.update(desiredOf(a, b), ['b']);
    await sync.settled();
    expect(batches.at(-1)).to.deep.equal(['a', 'b']);
    expect(sync.registered()).to.deep.equal(['a', 'b']);
    sync.update(new Map(), ['a', 'b']);
    await sync.settled();
    expect(cleared).to.equal(1);
    expect(sync.registered()).to.deep.equal([]);
  });
});
