// The core's lazy boundaries, real `import()`s in every build: the invoke pipeline (registry.ts
// loads invoke.ts) and the tools' execution side (toolset-exec.ts loads tool-execution.ts). A module
// hook gives each test a fresh module graph of the kit (`?graph=<name>`, carried from each module to
// what it imports), counts the imports of the two lazy modules, and holds them back or makes them
// fail on demand, through a shared gate the test flips synchronously. Nothing here waits on a clock:
// waits are on the hook's counters (Atomics.waitAsync) or on the calls' own promises.
import { register } from 'node:module';
import { runInNewContext } from 'node:vm';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileContracts } from '../../src/compiler/compile.js';
import type * as Core from '../../src/index.js';
import * as toolsetExec from '../../src/core/toolset-exec.js';
import type { AgentInvocationResult, AgentTool, CapabilityContract, JsonValue } from '../../src/core/types.js';
import { quietConsole, tick } from './registry-helpers.js';

type Kit = typeof Core;

// Per lazy module: [gate, imports seen]. Gate 0 lets the import through, 1 fails it, 2 holds it.
const PIPELINE = 0;
const EXECUTION = 2;
const OPEN = 0;
const OFFLINE = 1;
const HELD = 2;
const shared = new Int32Array(new SharedArrayBuffer(16));

const HOOK = `
let shared;
export function initialize(data) { shared = data.shared; }
const LAZY = { 'registry.ts ./invoke.js': 0, 'toolset-exec.ts ./tool-execution.js': 2 };
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  const graph = /[?]graph=(\\w+)/.exec(specifier)?.[1] ?? /[?]graph=(\\w+)/.exec(parent)?.[1];
  if (graph === undefined) return next(specifier, context);
  const bare = specifier.replace(/[?]graph=\\w+$/, '');
  const slot = LAZY[parent.split('?')[0].split('/').pop() + ' ' + bare];
  if (slot !== undefined) {
    Atomics.add(shared, slot + 1, 1);
    Atomics.notify(shared, slot + 1);
    while (Atomics.load(shared, slot) === 2) await new Promise((r) => setTimeout(r, 1));
    if (Atomics.load(shared, slot) === 1) throw new Error('simulated: the module could not be fetched');
  }
  const resolved = await next(bare, context);
  if (!resolved.url.startsWith('file:') || resolved.url.includes('/node_modules/')) return resolved;
  return { ...resolved, url: resolved.url.split('?')[0] + '?graph=' + graph };
}`;
register(`data:text/javascript,${encodeURIComponent(HOOK)}`, { parentURL: import.meta.url, data: { shared } });

const setGate = (lazy: number, state: number): void => void Atomics.store(shared, lazy, state);
const imports = (lazy: number): number => Atomics.load(shared, lazy + 1);

// Node 20 has it; the ES2022 lib does not declare it.
const { waitAsync } = Atomics as unknown as {
  waitAsync(a: Int32Array, i: number, v: number, ms: number): { async: boolean; value: string | Promise<string> };
};

/** Resolves once the hook has seen more than `count` imports of a lazy module (safety net: 60 s). */
async function importedMoreThan(lazy: number, count: number): Promise<void> {
  while (imports(lazy) <= count) {
    const { async, value } = waitAsync(shared, lazy + 1, imports(lazy), 60_000);
    if (async && (await value) === 'timed-out') assert.fail('the lazy module was never imported');
  }
}

let graphs = 0;
/** A fresh module graph of the whole core: none of its lazy modules has been asked for yet. */
async function freshKit(): Promise<Kit> {
  return (await import(`../../src/index.js?graph=g${++graphs}` as string)) as Kit;
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

before(async () => {
  compiled = await compileContracts(CONTRACTS);
});
after(() => {
  setGate(PIPELINE, OPEN);
  setGate(EXECUTION, OPEN);
});

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
async function decide(registry: Core.AgentSurfaceRegistry, invocationId: string, approve: boolean): Promise<void> {
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

describe('the invoke pipeline, loaded with import() when the first registry is made', () => {
  it('starts loading with the first registry; until it is there confirmations answer as an empty store and a call waits', async () => {
    setGate(PIPELINE, HELD);
    const kit = await freshKit();
    const before = imports(PIPELINE);
    const { registry, ran } = surface(kit);
    await importedMoreThan(PIPELINE, before);
    const heard: number[] = [];
    registry.confirmations.subscribe((pending) => heard.push(pending.length));
    assert.deepEqual(registry.confirmations.list(), []);
    assert.equal(registry.confirmations.approve('cf-none'), false);
    assert.deepEqual(await registry.confirmations.waitFor('cf-none'), { status: 'unknown' });

    let settled = false;
    const call = registry.invoke({ capabilityId: 'domain:notes.add', input: { text: 'a' }, consumer: { id: 'c', kind: 'test' }, invocationId: 'p-1' });
    void call.then(() => (settled = true));
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(settled, false, 'the call waits for the pipeline');
    assert.deepEqual(ran, []);
    setGate(PIPELINE, OPEN);
    assert.deepEqual(await call, { ok: true, output: { added: 'a' }, invocationId: 'p-1', surfaceVersion: registry.surfaceVersion });

    // The store the registry made at once is the one the pipeline fills: its subscriber hears.
    const consumer = { id: 'c', kind: 'test' };
    const { surfaceVersion } = registry.snapshot({ consumer });
    const asked = await registry.invoke({ capabilityId: 'domain:notes.remove', input: { id: 'n1' }, consumer, invocationId: 'p-2', surfaceVersion });
    assert.equal(!asked.ok && asked.error.code, 'CONFIRMATION_REQUIRED');
    assert.deepEqual(heard, [1]);
    const [pending] = registry.confirmations.list();
    assert.equal(registry.confirmations.approve(pending!.confirmationId), true);
    const done = await registry.invoke({
      capabilityId: 'domain:notes.remove',
      input: { id: 'n1' },
      consumer,
      invocationId: 'p-2',
      surfaceVersion,
      confirmationId: pending!.confirmationId,
    });
    assert.equal(done.ok, true);
    assert.deepEqual(ran, ['add a', 'remove n1']);
    registry.dispose();
  });

  it('answers EXECUTION_FAILED "pipeline-unavailable" when it cannot load, runs nothing, and loads on a later call', async () => {
    const { errors } = quietConsole();
    setGate(PIPELINE, OFFLINE);
    const kit = await freshKit();
    const { registry, ran } = surface(kit);
    const consumer = { id: 'offline', kind: 'test' };
    const results = await Promise.all([
      registry.invoke({ capabilityId: 'domain:notes.add', input: { text: 'a' }, consumer, invocationId: 'off-1' }),
      registry.invoke({ capabilityId: 'domain:notes.add', input: { text: 'b' }, consumer, invocationId: 'off-2' }),
      registry.invoke(undefined as never),
    ]);
    for (const result of results) {
      assert.equal(!result.ok && result.error.code, 'EXECUTION_FAILED');
      assert.deepEqual(!result.ok && result.error.details, { reason: 'pipeline-unavailable' });
      assert.equal(!result.ok && result.error.retry, 'after-delay');
      assert.doesNotMatch(!result.ok ? result.error.message : '', /simulated/);
      assert.equal(result.surfaceVersion, registry.surfaceVersion);
    }
    assert.deepEqual(results.map((r) => r.invocationId), ['off-1', 'off-2', '']);
    assert.deepEqual(ran, []);
    assert.equal(errors.filter((e) => /pipeline-unavailable/.test(String(e[0]))).length, 1, 'the page author hears once');

    setGate(PIPELINE, OPEN);
    const retried = await registry.invoke({ capabilityId: 'domain:notes.add', input: { text: 'a' }, consumer, invocationId: 'off-1' });
    assert.deepEqual(retried, { ok: true, output: { added: 'a' }, invocationId: 'off-1', surfaceVersion: registry.surfaceVersion });
    assert.deepEqual(ran, ['add a']);
    registry.dispose();
  });

  it('a registry unregistered from and disposed before the pipeline arrived stays consistent', async () => {
    setGate(PIPELINE, HELD);
    const kit = await freshKit();
    const { registry, ran } = surface(kit);
    const handle = registry.register({ ...kit.createCompilerAuthority({ manifest: compiled.manifest, validators: compiled.validators }).contract('domain:notes.add')!, instanceId: 'extra', handler: () => ({ added: 'x' }) });
    handle.unregister();
    const call = registry.invoke({ capabilityId: 'domain:notes.add', input: { text: 'late' }, consumer: { id: 'c', kind: 'test' }, invocationId: 'd-1' });
    registry.dispose();
    assert.deepEqual(registry.confirmations.list(), []);
    setGate(PIPELINE, OPEN);
    const result = await call;
    assert.equal(result.ok, false, 'a call on a disposed registry runs nothing');
    assert.deepEqual(ran, []);
  });
});

describe('the tools\' execution side, loaded with import() when the first toolset or gateway is made', () => {
  it('is asked for when a toolset or a gateway is created, not before', async () => {
    const kit = await freshKit();
    const before = imports(EXECUTION);
    const { authority, registry } = surface(kit);
    registry.snapshot({ consumer: { id: 'c', kind: 'test' } });
    // Nothing but a toolset or a gateway triggers it, so "not yet" needs no waiting.
    assert.equal(imports(EXECUTION), before, 'a registry alone does not ask for it');
    kit.createAgentToolset(registry, { consumer: { id: 'early', kind: 'test' }, topology: 'embedded' });
    await importedMoreThan(EXECUTION, before);
    const gatewayKit = await freshKit();
    const next = imports(EXECUTION);
    gatewayKit.createAgentExposureGateway(authority);
    await importedMoreThan(EXECUTION, next);
    registry.dispose();
  });

  it('answers EXECUTION_FAILED "load-failed" when it cannot load, runs nothing, and loads on a later call', async () => {
    const { errors } = quietConsole();
    setGate(EXECUTION, OFFLINE);
    const kit = await freshKit();
    const { authority, registry, ran } = surface(kit);
    const toolset = kit.createAgentToolset(registry, { consumer: { id: 'offline', kind: 'test' }, topology: 'embedded' });
    const meta = kit.createAgentToolset(registry, { consumer: { id: 'offline-meta', kind: 'test' }, mode: 'meta', topology: 'remote' });
    const gateway = kit.createAgentExposureGateway(authority);
    const standalone = gateway.expose({ ...authority.contract('domain:notes.add')!, handler: () => ({ added: 'x' }) });
    const add = tool(toolset.tools(), 'domain:notes.add', kit);

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
    assert.equal(errors.filter((e) => /tool-execution-unavailable/.test(String(e[0]))).length, 1);
    assert.doesNotMatch(!results[0]!.ok ? results[0]!.error.message : '', /simulated/);

    // The network is back: the same tools work, without making new ones.
    setGate(EXECUTION, OPEN);
    const retried = await add.execute({ text: 'a' }, { toolCallId: 'off-1' });
    assert.deepEqual(retried, { ok: true, output: { added: 'a' }, invocationId: 'off-1', surfaceVersion: registry.surfaceVersion });
    assert.equal((await standalone.execute({ text: 'a' })).ok, true);
    assert.equal((await meta.tools()[0]!.execute({})).ok, true);
    assert.deepEqual(ran, ['add a']);
    registry.dispose();
  });

  it('once loaded, calls run synchronously up to the registry', async () => {
    const kit = await freshKit();
    const { registry } = surface(kit);
    const toolset = kit.createAgentToolset(registry, { consumer: { id: 'warm', kind: 'test' }, topology: 'embedded' });
    // The first call may wait for the module; the next ones must not.
    assert.equal((await tool(toolset.tools(), 'domain:notes.add', kit).execute({ text: 'w' }, { toolCallId: 'sync-0' })).ok, true);
    const invoked: string[] = [];
    const invoke = registry.invoke.bind(registry);
    const spy = Object.create(registry) as typeof registry;
    spy.invoke = (request) => {
      invoked.push(request.invocationId);
      return invoke(request);
    };
    const spied = kit.createAgentToolset(spy, { consumer: { id: 'fast', kind: 'test' }, topology: 'embedded' });
    const pending = tool(spied.tools(), 'domain:notes.add', kit).execute({ text: 'x' }, { toolCallId: 'sync-1' });
    assert.deepEqual(invoked, ['sync-1'], 'the registry saw the call before execute() returned');
    assert.equal((await pending).ok, true);
    registry.dispose();
  });

  it('every projection path gives its real result: direct, wait, two-phase, meta, dispose, gateway', async () => {
    quietConsole();
    const { transcript, ran } = await scenario(await freshKit());
    const codes = transcript.map((entry) =>
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
    assert.deepEqual(ran, ['add a', 'add boom', 'remove n1', 'remove n4', 'add b', 'remove n5']);
  });

  it('meta tools take arguments made in another realm (an agent runtime in another frame)', async () => {
    const kit = await freshKit();
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
  });

  it('its entry points never reject on garbage', async () => {
    const kit = await freshKit();
    const { registry } = surface(kit);
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
    assert.deepEqual(await toolsetExec.execute('callDirect', () => registry.surfaceVersion, state, target, 'add', { text: 'm' }, { toolCallId: 'mod-1' }), {
      ok: true,
      output: { added: 'm' },
      invocationId: 'mod-1',
      surfaceVersion: registry.surfaceVersion,
    });
    const host = { ...state, floor: undefined, inFloor: () => true, budget: undefined };
    for (const args of [undefined, null, 42, 'x', [], { capabilityId: 7 }]) {
      const result = await toolsetExec.execute('callMetaTool', () => registry.surfaceVersion, host, 'surface_act', args, undefined);
      assert.equal(!result.ok && result.error.code, 'INVALID_INPUT', JSON.stringify(args));
    }
    registry.dispose();
  });
});
