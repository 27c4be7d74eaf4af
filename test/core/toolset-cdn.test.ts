// The CDN build's lazily loaded tool execution (src/core/toolset-exec.cdn.ts, swapped in for
// toolset-exec.ts by rollup.config.js). A module hook rebuilds the CDN module graph in Node: every
// module imported from `src/index.js?cdn` resolves `./x.js` to a sibling `x.cdn.ts` when there is
// one, as the rollup plugin does, and the hook can make the chunk's import fail. The same scenarios
// then run through the ES graph and the CDN graph and must give the same results.
import { register } from 'node:module';
import { runInNewContext } from 'node:vm';
import { once } from 'node:events';
import { MessageChannel } from 'node:worker_threads';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileContracts } from '../../src/compiler/compile.js';
import * as linked from '../../src/index.js';
import * as cdnExec from '../../src/core/toolset-exec.cdn.js';
import type { AgentInvocationResult, AgentTool, CapabilityContract, JsonValue } from '../../src/core/types.js';
import { quietConsole, sleep, tick } from './registry-helpers.js';

type Kit = typeof linked;

// Graphs are told apart by a query, `?cdn=<graph>`, carried from each module to what it imports.
const HOOK = `
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
let failing = false;
const fetched = [];
const parsed = new Set();
export async function initialize({ port }) {
  port.on('message', (m) => {
    if (m.fail !== undefined) failing = m.fail;
    port.postMessage({ fetched: [...fetched], parsed: [...parsed] });
  });
  port.unref();
}
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  const graph = /[?]cdn=(\\w+)/.exec(specifier)?.[1] ?? /[?]cdn=(\\w+)/.exec(parent)?.[1];
  if (graph === undefined) return next(specifier, context);
  const bare = specifier.replace(/[?]cdn=\\w+$/, '');
  const fromCdn = parent.split('?')[0].endsWith('.cdn.ts');
  parsed.add(graph + ' ' + parent.split('?')[0].split('/').pop());
  if (fromCdn && bare === './toolset-exec.js') {
    fetched.push(graph);
    if (failing) throw new Error('simulated: the chunk could not be fetched');
  }
  let target = bare;
  if (!fromCdn && bare.startsWith('.') && bare.endsWith('.js')) {
    const swap = new URL(bare.replace(/[.]js$/, '.cdn.ts'), parent);
    if (existsSync(fileURLToPath(swap))) target = swap.href;
  }
  const resolved = await next(target, context);
  if (!resolved.url.startsWith('file:') || resolved.url.includes('/node_modules/')) return resolved;
  return { ...resolved, url: resolved.url.split('?')[0] + '?cdn=' + graph };
}`;

const channel = new MessageChannel();
register(`data:text/javascript,${encodeURIComponent(HOOK)}`, {
  parentURL: import.meta.url,
  data: { port: channel.port2 },
  transferList: [channel.port2],
});

interface HookReport {
  /** The graph of each import() of the chunk. */
  fetched: string[];
  /** `<graph> <file>` of each module whose imports were resolved (it was loaded and parsed). */
  parsed: string[];
}

/** Tells the hook whether the chunk's import fails; answers what it saw so far. */
async function hookReport(fail?: boolean): Promise<HookReport> {
  channel.port1.ref();
  const answered = once(channel.port1, 'message');
  channel.port1.postMessage({ fail });
  const [reply] = (await answered) as [HookReport];
  channel.port1.unref();
  return reply;
}

const hook = async (fail?: boolean) => (await hookReport(fail)).fetched;

/** A fresh CDN module graph of the whole core. */
async function cdnGraph(name: string): Promise<Kit> {
  return (await import(`../../src/index.js?cdn=${name}` as string)) as Kit;
}

const CONTRACTS: CapabilityContract[] = [
  {
    id: 'domain:notes.add',
    kind: 'action',
    effect: 'local-state',
    description: 'Add a note.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { added: { type: 'string' } }, required: ['added'] },
  },
  {
    id: 'domain:notes.remove',
    kind: 'action',
    effect: 'destructive',
    confirmation: 'required',
    description: 'Remove a note.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1 } },
      required: ['id'],
      additionalProperties: false,
    },
  },
  { id: 'view:notes.list', kind: 'observation', effect: 'read', description: 'The notes shown now.' },
];

let compiled: Awaited<ReturnType<typeof compileContracts>>;
let cdn: Kit;

before(async () => {
  compiled = await compileContracts(CONTRACTS);
  // Failing before the CDN graph exists: the prefetch of the first toolset fails too.
  await hook(true);
  cdn = await cdnGraph('main');
});
after(() => channel.port1.close());

/** A registry of the given graph with the three notes capabilities; `ran` counts handler runs. */
function surface(kit: Kit) {
  const authority = kit.createCompilerAuthority({ manifest: compiled.manifest, validators: compiled.validators });
  const registry = kit.createAgentSurfaceRegistry({ authority });
  const ran: string[] = [];
  const entry = (id: string) => authority.contract(id)!;
  registry.register({
    ...entry('domain:notes.add'),
    handler: (input) => {
      ran.push(`add ${String(input.text)}`);
      if (input.text === 'boom') throw new kit.AgentSurfaceError('PRECONDITION_FAILED', 'the list is full');
      return { added: input.text };
    },
  });
  registry.register({
    ...entry('domain:notes.remove'),
    handler: (input) => {
      ran.push(`remove ${String(input.id)}`);
      return { removed: input.id };
    },
  });
  registry.register({ ...entry('view:notes.list'), read: () => ({ notes: ['n1', 'n2'] }) });
  return { authority, registry, ran };
}

/** Replaces what differs between two registries by construction (nonces, random ids, times). */
function normalize(value: unknown): JsonValue {
  return JSON.parse(
    JSON.stringify(value, (key, v) => (key === 'expiresAt' && typeof v === 'number' ? '<time>' : v))
      // The gateway's version first: a UUID may hold "cf-".
      .replace(/gateway:[0-9a-f-]+/g, '<gateway>')
      .replace(/sv-[a-z0-9]+-[a-z0-9]+/g, '<surface>')
      .replace(/reg-[a-z0-9]+-[a-z0-9]+/g, '<registration>')
      .replace(/cf-[a-z0-9]+-[a-z0-9]+/g, '<confirmation>'),
  ) as JsonValue;
}

const tool = (tools: readonly AgentTool[], capabilityId: string, kit: Kit) =>
  tools.find((t) => t.name === kit.encodeWireName(capabilityId))!;

/** Approves (or denies) the pending confirmation of an invocation once it shows up. */
async function decide(registry: linked.AgentSurfaceRegistry, invocationId: string, approve: boolean): Promise<void> {
  const find = () => registry.confirmations.list().find((r) => r.invocationId === invocationId);
  for (let i = 0; i < 200 && !find(); i++) await tick();
  const record = find();
  assert.ok(record, `a confirmation is pending for ${invocationId}`);
  if (approve) registry.confirmations.approve(record.confirmationId);
  else registry.confirmations.deny(record.confirmationId, 'not now');
}

/** Every projection path a tool call can take, as a transcript of normalized results. */
async function scenario(kit: Kit): Promise<{ transcript: JsonValue[]; ran: string[] }> {
  const { authority, registry, ran } = surface(kit);
  const out: JsonValue[] = [];
  const note = (label: string, result: AgentInvocationResult) => out.push(normalize({ label, result }));

  // Direct mode, confirmations awaited inside the call.
  const direct = kit.createAgentToolset(registry, { consumer: { id: 'direct', kind: 'test' }, topology: 'embedded' });
  const tools = direct.tools();
  out.push(tools.map((t) => t.name).sort());
  note('add', await tool(tools, 'domain:notes.add', kit).execute({ text: 'a' }, { toolCallId: 'd-1' }));
  note('add invalid', await tool(tools, 'domain:notes.add', kit).execute({}, { toolCallId: 'd-2' }));
  note('add not an object', await tool(tools, 'domain:notes.add', kit).execute('a', { toolCallId: 'd-3' }));
  note('add refused by the handler', await tool(tools, 'domain:notes.add', kit).execute({ text: 'boom' }, { toolCallId: 'd-4' }));
  note('list', await tool(tools, 'view:notes.list', kit).execute(undefined, { toolCallId: 'd-5' }));
  const remove = tool(tools, 'domain:notes.remove', kit);
  let pending = remove.execute({ id: 'n1' }, { toolCallId: 'd-6' });
  await decide(registry, 'd-6', true);
  note('remove, approved while waiting', await pending);
  pending = remove.execute({ id: 'n2' }, { toolCallId: 'd-7' });
  await decide(registry, 'd-7', false);
  note('remove, denied while waiting', await pending);
  const abort = new AbortController();
  pending = remove.execute({ id: 'n3' }, { toolCallId: 'd-8', signal: abort.signal });
  for (let i = 0; i < 200 && !registry.confirmations.list().some((r) => r.invocationId === 'd-8'); i++) await tick();
  abort.abort();
  note('remove, wait aborted', await pending);

  // Direct mode, two phases: the retry of the same call presents the approved confirmation.
  const twoPhase = kit.createAgentToolset(registry, { consumer: { id: 'remote', kind: 'test' }, topology: 'remote' });
  const remoteRemove = tool(twoPhase.tools(), 'domain:notes.remove', kit);
  note('remove, phase one', await remoteRemove.execute({ id: 'n4' }, { toolCallId: 'r-1' }));
  await decide(registry, 'r-1', true);
  note('remove, phase two', await remoteRemove.execute({ id: 'n4' }, { toolCallId: 'r-2' }));

  // Meta mode, two phases, with a budget.
  const meta = kit.createAgentToolset(registry, {
    consumer: { id: 'meta', kind: 'test' },
    mode: 'meta',
    confirmations: 'two-phase',
    budget: { maxComponents: 2 },
  });
  const [discover, read, act] = meta.tools() as AgentTool[];
  note('discover', await discover!.execute({}, { toolCallId: 'm-1' }));
  note('discover, bad scope', await discover!.execute({ scope: ['devices..x'], extra: 1 }, { toolCallId: 'm-2' }));
  note('read', await read!.execute({ capabilityId: 'view:notes.list' }, { toolCallId: 'm-3' }));
  note('read an action', await read!.execute({ capabilityId: 'domain:notes.add' }, { toolCallId: 'm-4' }));
  note('act, input as JSON text', await act!.execute({ capabilityId: 'domain:notes.add', input: '{"text":"b"}' }, { toolCallId: 'm-5' }));
  note('act, unknown', await act!.execute({ capabilityId: 'domain:notes.nope', input: {} }, { toolCallId: 'm-6' }));
  const { surfaceVersion } = registry.snapshot({ consumer: { id: 'meta', kind: 'test' } });
  const asked = await act!.execute({ capabilityId: 'domain:notes.remove', input: { id: 'n5' }, surfaceVersion }, { toolCallId: 'm-7' });
  note('act, phase one', asked);
  await decide(registry, 'm-7', true);
  const confirmationId = !asked.ok ? String(asked.error.details?.confirmationId) : '';
  note(
    'act, phase two without the invocationId',
    await act!.execute({ capabilityId: 'domain:notes.remove', input: { id: 'n5' }, surfaceVersion, confirmationId }, { toolCallId: 'm-8' }),
  );

  // A disposed toolset's tools refuse to run.
  direct.dispose();
  note('after dispose', await tool(tools, 'domain:notes.add', kit).execute({ text: 'c' }, { toolCallId: 'd-9' }));

  // Gateway tools.
  const gateway = kit.createAgentExposureGateway(authority);
  const standalone = gateway.expose({
    ...authority.contract('domain:notes.add')!,
    handler: (input) => (input.text === 'bad output' ? { added: 7 } : input.text === 'throw' ? Promise.reject(new Error('secret')) : { added: input.text }),
  });
  note('gateway', await standalone.execute({ text: 'g' }, { toolCallId: 'g-1' }));
  note('gateway, invalid', await standalone.execute({ text: '' }, { toolCallId: 'g-2' }));
  note('gateway, output invalid', await standalone.execute({ text: 'bad output' }, { toolCallId: 'g-3' }));
  note('gateway, handler threw', await standalone.execute({ text: 'throw' }, { toolCallId: 'g-4' }));
  note('gateway, cancelled', await standalone.execute({ text: 'g' }, { toolCallId: 'g-5', signal: AbortSignal.abort() }));
  registry.dispose();
  return { transcript: out, ran };
}

describe('toolset-exec.cdn.ts (the CDN build)', () => {
  it('answers EXECUTION_FAILED "load-failed" when the chunk cannot load, runs nothing, and loads on a later call', async () => {
    const { errors } = quietConsole();
    const { authority, registry, ran } = surface(cdn);
    const toolset = cdn.createAgentToolset(registry, { consumer: { id: 'offline', kind: 'test' }, topology: 'embedded' });
    const meta = cdn.createAgentToolset(registry, { consumer: { id: 'offline-meta', kind: 'test' }, mode: 'meta', topology: 'remote' });
    const gateway = cdn.createAgentExposureGateway(authority);
    const standalone = gateway.expose({ ...authority.contract('domain:notes.add')!, handler: () => ({ added: 'x' }) });
    const add = tool(toolset.tools(), 'domain:notes.add', cdn);

    const results = await Promise.all([
      add.execute({ text: 'a' }, { toolCallId: 'off-1' }),
      meta.tools()[0]!.execute({}, { toolCallId: 'off-2' }),
      standalone.execute({ text: 'a' }, { toolCallId: 'off-3' }),
      add.execute({ text: 'b' }),
    ]);
    for (const result of results) {
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.error.code, 'EXECUTION_FAILED');
      assert.deepEqual(!result.ok && result.error.details, { reason: 'load-failed' });
      assert.equal(!result.ok && result.error.retry, 'after-delay');
    }
    assert.deepEqual(
      results.slice(0, 3).map((r) => r.invocationId),
      ['off-1', 'off-2', 'off-3'],
    );
    assert.equal(results[0]!.surfaceVersion, registry.surfaceVersion);
    assert.match(results[2]!.surfaceVersion, /^gateway:/);
    assert.ok(results[3]!.invocationId.length > 0, 'a call without toolCallId still gets an id');
    assert.deepEqual(ran, [], 'nothing ran');
    // The page author hears of it once; the agent's message carries no loader internals.
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]![0]), /tool-execution-unavailable/);
    assert.doesNotMatch(!results[0]!.ok ? results[0]!.error.message : '', /simulated/);

    // The network is back: the same tools work, without making new ones.
    await hook(false);
    const retried = await add.execute({ text: 'a' }, { toolCallId: 'off-1' });
    assert.deepEqual(retried, { ok: true, output: { added: 'a' }, invocationId: 'off-1', surfaceVersion: registry.surfaceVersion });
    assert.equal((await standalone.execute({ text: 'a' })).ok, true);
    assert.equal((await meta.tools()[0]!.execute({})).ok, true);
    assert.deepEqual(ran, ['add a']);
    registry.dispose();
  });

  it('once loaded, calls run synchronously up to the registry, as the linked build does', async () => {
    const { registry } = surface(cdn);
    const invoked: string[] = [];
    const invoke = registry.invoke.bind(registry);
    const spy = Object.create(registry) as typeof registry;
    spy.invoke = (request) => {
      invoked.push(request.invocationId);
      return invoke(request);
    };
    const toolset = cdn.createAgentToolset(spy, { consumer: { id: 'fast', kind: 'test' }, topology: 'embedded' });
    const pending = tool(toolset.tools(), 'domain:notes.add', cdn).execute({ text: 'x' }, { toolCallId: 'sync-1' });
    assert.deepEqual(invoked, ['sync-1'], 'the registry saw the call before execute() returned');
    assert.equal((await pending).ok, true);
    registry.dispose();
  });

  it('gives the same results as the linked build on every path: direct, wait, two-phase, meta, dispose, gateway', async () => {
    quietConsole();
    const es = await scenario(linked);
    const lazy = await scenario(cdn);
    assert.deepEqual(lazy, es);
    // What both agree on is the real behaviour, not two identical failures.
    const codes = es.transcript.map((entry) =>
      typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry.result as { error?: { code: string } }).error?.code ?? 'OK' : 'names',
    );
    assert.deepEqual(codes, [
      'names',
      'OK', // add
      'INVALID_INPUT',
      'INVALID_INPUT',
      'PRECONDITION_FAILED',
      'OK', // list
      'OK', // remove approved
      'CONFIRMATION_INVALID',
      'CONFIRMATION_REQUIRED', // wait aborted: nothing ran
      'CONFIRMATION_REQUIRED',
      'OK', // phase two
      'OK', // discover
      'INVALID_INPUT',
      'OK', // read
      'INVALID_INPUT',
      'OK', // repaired input
      'CAPABILITY_NOT_FOUND',
      'CONFIRMATION_REQUIRED',
      'OK', // meta phase two
      'CANCELLED',
      'OK', // gateway
      'INVALID_INPUT',
      'EXECUTION_FAILED',
      'EXECUTION_FAILED',
      'CANCELLED',
    ]);
    assert.deepEqual(es.ran, ['add a', 'add boom', 'remove n1', 'remove n4', 'add b', 'remove n5']);
  });

  it('prefetches the chunk when a toolset or a gateway is created, so the first call does not wait', async () => {
    // The hook hears of an import() on its own channel: ask until it has (up to `ms`).
    const asked = async (graph: string, expected: number, ms = 3000) => {
      let count = 0;
      for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) {
        count = (await hook()).filter((g) => g === graph).length;
        if (count >= expected) break;
      }
      return count;
    };
    const forToolset = await cdnGraph('toolset');
    const { registry } = surface(forToolset);
    assert.equal(await asked('toolset', 1, 100), 0, 'importing the kit and making a registry fetch nothing');
    const invoked: string[] = [];
    const spy = Object.create(registry) as typeof registry;
    spy.invoke = (request) => {
      invoked.push(request.invocationId);
      return registry.invoke(request);
    };
    const toolset = forToolset.createAgentToolset(spy, { consumer: { id: 'early', kind: 'test' }, topology: 'embedded' });
    assert.equal(await asked('toolset', 1), 1, 'created: the chunk is on its way');
    // Once the chunk's modules are parsed, only linking and evaluation are left (no I/O): give them
    // a moment, as a page gives a prefetch the time between creating a toolset and the agent's call.
    for (let i = 0; i < 250; i++) {
      const { parsed } = await hookReport();
      if (['toolset-calls.ts', 'meta-calls.ts', 'gateway-calls.ts'].every((f) => parsed.includes(`toolset ${f}`))) break;
      await sleep(20);
    }
    await sleep(50);
    const pending = tool(toolset.tools(), 'domain:notes.add', forToolset).execute({ text: 'x' }, { toolCallId: 'pre-1' });
    assert.deepEqual(invoked, ['pre-1'], 'the first call found the chunk loaded');
    assert.equal((await pending).ok, true);
    assert.equal(await asked('toolset', 2, 100), 1, 'the call fetched nothing more');
    registry.dispose();

    const forGateway = await cdnGraph('gateway');
    const gateway = forGateway.createAgentExposureGateway(forGateway.devAuthority());
    assert.equal(await asked('gateway', 1), 1, 'created: the chunk is on its way');
    assert.deepEqual(gateway.tools(), []);
  });

  it('meta tools take arguments made in another realm (an agent runtime in another frame), in both builds', async () => {
    for (const kit of [linked, cdn]) {
      const { registry, ran } = surface(kit);
      const [discover, , act] = kit.createAgentToolset(registry, { consumer: { id: 'realm', kind: 'test' }, mode: 'meta', topology: 'embedded' }).tools();
      const args = runInNewContext('({ capabilityId: "domain:notes.add", input: { text: "from a frame" } })') as unknown;
      assert.equal(Object.getPrototypeOf(args) === Object.prototype, false);
      const result = await act!.execute(args, { toolCallId: 'realm-1' });
      assert.deepEqual(result.ok && result.output, { added: 'from a frame' });
      assert.equal((await discover!.execute(runInNewContext('({ scope: ["notes"] })'))).ok, true);
      // Still no class instances, whatever their realm.
      const date = await act!.execute(runInNewContext('new Date(0)'), { toolCallId: 'realm-2' });
      assert.equal(!date.ok && date.error.code, 'INVALID_INPUT');
      assert.deepEqual(ran, ['add from a frame']);
      registry.dispose();
    }
  });

  it('exports what the linked seam exports, and never rejects on garbage', async () => {
    const seam = await import('../../src/core/toolset-exec.js');
    assert.deepEqual(Object.keys(cdnExec).sort(), Object.keys(seam).sort());
    cdnExec.prepareToolExecution();
    const { registry } = surface(linked);
    const state = {
      registry,
      consumer: { id: 'module', kind: 'test' },
      twoPhase: false,
      lifetime: new AbortController().signal,
      pendingByCall: new Map(),
      invocationByConfirmation: new Map(),
    };
    const [descriptor] = registry.snapshot({ consumer: state.consumer }).capabilities.filter((d) => d.capabilityId === 'domain:notes.add');
    const target = { descriptor: descriptor!, version: registry.surfaceVersion };
    assert.deepEqual(await cdnExec.callDirect(state, target, 'add', { text: 'm' }, { toolCallId: 'mod-1' }), {
      ok: true,
      output: { added: 'm' },
      invocationId: 'mod-1',
      surfaceVersion: registry.surfaceVersion,
    });
    const host = { ...state, floor: undefined, inFloor: () => true, budget: undefined };
    for (const args of [undefined, null, 42, 'x', [], { capabilityId: 7 }]) {
      const result = await cdnExec.callMetaTool(host, 'surface_act', args, undefined);
      assert.equal(!result.ok && result.error.code, 'INVALID_INPUT', JSON.stringify(args));
    }
    registry.dispose();
  });
});
