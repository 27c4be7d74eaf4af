// The CDN build's store stand-ins (src/core/pipeline.cdn.ts): until the pipeline's chunk has loaded
// a registry's confirmation store is a stand-in that answers as an empty real store,
// then hand over to real ones. Each test imports a fresh copy of pipeline.cdn.ts (a query string
// makes a new module instance), so "before the chunk loaded" can be set up again and again; a
// resolve hook holds the chunk back or makes it fail on demand.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { build, type Plugin } from 'esbuild';
import { ConfirmationStore as RealConfirmationStore, type ConfirmationBinding, type ConfirmationTarget } from '../../src/core/confirmations.js';
import { RegistryCore } from '../../src/core/registry.js';
import type * as CdnPipeline from '../../src/core/pipeline.cdn.js';
import type * as Core from '../../src/index.js';
import type { ConfirmationEvent, ConfirmationOutcome, PendingConfirmation } from '../../src/core/types.js';
import { idSchema, quietConsole, tick } from './registry-helpers.js';

type Cdn = typeof CdnPipeline;
type AnyConfirmationStore = RealConfirmationStore | InstanceType<Cdn['ConfirmationStore']>;

// -- the chunk gate: 0 lets the pipeline chunk load, 1 makes it fail, 2 holds it back --------------

const gate = new Int32Array(new SharedArrayBuffer(4));
const OPEN = 0;
const OFFLINE = 1;
const HELD = 2;

const hooks = `
let gate;
export function initialize(data) { gate = data.gate; }
export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  if (/(^|\\/)pipeline(-[\\w-]+)?\\.js$/.test(specifier) && (parent.includes('pipeline.cdn.ts?') || parent.includes('/stores-cdn-'))) {
    while (Atomics.load(gate, 0) === 2) await new Promise((r) => setTimeout(r, 2));
    if (Atomics.load(gate, 0) === 1) throw new Error('offline: the pipeline chunk could not be fetched');
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { gate } });

function setGate(state: number): void {
  Atomics.store(gate, 0, state);
}

let copies = 0;

/** A fresh pipeline.cdn.ts: its chunk has not been asked for yet. */
async function freshCdn(): Promise<Cdn> {
  return (await import(`../../src/core/pipeline.cdn.ts?copy=${++copies}`)) as Cdn;
}

const loadCore = new RegistryCore({});

/** Loads a copy's chunk (or fails to); resolves once it has settled either way. */
async function settle(cdn: Cdn): Promise<boolean> {
  const result = await cdn.runInvocation(loadCore, undefined);
  return !(!result.ok && result.error.details?.reason === 'pipeline-unavailable');
}

// -- what both kinds of store are compared on ----------------------------------------------------

const consumer = { id: 'agent', kind: 'test' };
const targets: ConfirmationTarget[] = [0, 1].map((i) => ({
  id: `reg-${i}`,
  capabilityId: `domain:devices.wipe${i}`,
  instanceId: i === 1 ? 'row-1' : undefined,
  info: { contract: { description: `Wipes ${i}.`, effect: 'destructive' } },
}));

function binding(reg: number, inv: number, input: number): ConfirmationBinding {
  return { consumer, registration: targets[reg], invocationId: `inv-${inv}`, canonicalInput: `{"id":"d${input}"}` };
}

/** Confirmation ids are random: both stores' ids are numbered in the order they first appear. */
class Ids {
  readonly #seen = new Map<string, number>();
  readonly list: string[] = [];
  of(id: string): number {
    let n = this.#seen.get(id);
    if (n === undefined) {
      this.#seen.set(id, (n = this.#seen.size));
      this.list.push(id);
    }
    return n;
  }
}

function view(ids: Ids, p: PendingConfirmation): unknown {
  // Times differ by the microseconds between the two stores' calls: compare the rest.
  const { confirmationId, createdAt: _c, expiresAt: _e, ...rest } = p;
  return { ...rest, id: ids.of(confirmationId) };
}

const TTL = 60_000;
const MAX_PENDING = 2;

type Op =
  | { op: 'list' }
  | { op: 'subscribe'; listener: number }
  | { op: 'unsubscribe'; nth: number }
  | { op: 'approve'; record: number }
  | { op: 'deny'; record: number; reason: string }
  | { op: 'waitFor'; record: number }
  | { op: 'expireRegistration'; reg: number }
  | { op: 'dispose' }
  | { op: 'request'; reg: number; inv: number; input: number }
  | { op: 'check'; record: number; reg: number; inv: number; input: number }
  | { op: 'consume'; record: number }
  | { op: 'startLoad' }
  | { op: 'settle' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ op: 'list' as const }),
  fc.record({ op: fc.constant('subscribe' as const), listener: fc.nat(2) }),
  fc.record({ op: fc.constant('unsubscribe' as const), nth: fc.nat(4) }),
  fc.record({ op: fc.constant('approve' as const), record: fc.nat(3) }),
  fc.record({ op: fc.constant('deny' as const), record: fc.nat(3), reason: fc.constantFrom('', ' no ', 'wrong device') }),
  fc.record({ op: fc.constant('waitFor' as const), record: fc.nat(3) }),
  fc.record({ op: fc.constant('expireRegistration' as const), reg: fc.nat(1) }),
  fc.constant({ op: 'dispose' as const }),
  fc.record({ op: fc.constant('request' as const), reg: fc.nat(1), inv: fc.nat(2), input: fc.nat(1) }),
  fc.record({ op: fc.constant('check' as const), record: fc.nat(3), reg: fc.nat(1), inv: fc.nat(2), input: fc.nat(1) }),
  fc.record({ op: fc.constant('consume' as const), record: fc.nat(3) }),
  fc.constant({ op: 'startLoad' as const }),
  fc.constant({ op: 'settle' as const }),
);

/** One side of the comparison: a store, the log of everything it showed, and its records. */
class Side {
  readonly ids = new Ids();
  readonly log: unknown[] = [];
  readonly waits: Promise<unknown>[] = [];
  readonly unsubscribes: (() => void)[] = [];
  readonly records = new Map<number, ReturnType<RealConfirmationStore['request']>>();
  readonly listeners: ((list: PendingConfirmation[]) => void)[];
  readonly store: AnyConfirmationStore;

  constructor(make: (emit: (event: ConfirmationEvent) => void) => AnyConfirmationStore) {
    this.store = make((event) => this.log.push(['event', event.action, view(this.ids, event.confirmation)]));
    this.listeners = [0, 1, 2].map((k) => (list: PendingConfirmation[]) => this.log.push(['notified', k, list.map((p) => view(this.ids, p))]));
  }

  idOf(record: number): string {
    return this.ids.list[record] ?? 'cf-unknown';
  }

  /** Runs one operation; pipeline-side ones only once the pipeline could have run. */
  run(op: Op, pipelineReady: boolean): void {
    const s = this.store;
    switch (op.op) {
      case 'list':
        this.log.push(['list', s.list().map((p) => view(this.ids, p))]);
        return;
      case 'subscribe':
        this.unsubscribes.push(s.subscribe(this.listeners[op.listener]));
        return;
      case 'unsubscribe':
        this.unsubscribes[op.nth]?.();
        return;
      case 'approve':
        this.log.push(['approve', s.approve(this.idOf(op.record))]);
        return;
      case 'deny':
        this.log.push(['deny', s.deny(this.idOf(op.record), op.reason)]);
        return;
      case 'waitFor': {
        const n = this.waits.length;
        this.waits.push(s.waitFor(this.idOf(op.record)).then((outcome) => ['waited', n, outcome]));
        return;
      }
      case 'expireRegistration':
        s.expireRegistration(targets[op.reg].id);
        return;
      case 'dispose':
        s.dispose();
        return;
      case 'request': {
        if (!pipelineReady) return;
        const record = s.request(binding(op.reg, op.inv, op.input));
        if (record !== undefined) this.records.set(this.ids.of(record.id), record);
        this.log.push(['request', record === undefined ? 'rate-limited' : this.ids.of(record.id)]);
        return;
      }
      case 'check': {
        if (!pipelineReady) return;
        const c = s.check(this.idOf(op.record), binding(op.reg, op.inv, op.input));
        this.log.push(['check', c.ok, c.ok ? null : c.reason, c.record === undefined ? null : this.ids.of(c.record.id)]);
        return;
      }
      case 'consume': {
        const record = this.records.get(op.record);
        if (!pipelineReady || record === undefined) return;
        this.log.push(['consume', s.consume(record)]);
        return;
      }
      default:
        return;
    }
  }
}

describe('stores.cdn: confirmation stand-in before the pipeline chunk loaded', () => {
  it('answers every person-side call as an empty real store does, and calls no one', async () => {
    const cdn = await freshCdn();
    const events: ConfirmationEvent[] = [];
    const options = { ttlMs: TTL, maxPending: MAX_PENDING, emit: (e: ConfirmationEvent) => events.push(e) };
    const stores: AnyConfirmationStore[] = [new RealConfirmationStore(options), new cdn.ConfirmationStore(options)];
    for (const store of stores) {
      const list = store.list();
      assert.deepEqual(list, []);
      assert.ok(!Object.isFrozen(list), 'a fresh array, as the real list() returns');
      assert.notEqual(store.list(), list);
      assert.equal(store.approve('cf-x'), false);
      assert.equal(store.approve(undefined as never), false);
      assert.equal(store.deny('cf-x', 'no'), false);
      assert.equal(store.deny(7 as never), false);
      assert.deepEqual(await store.waitFor('cf-x'), { status: 'unknown' });
      assert.deepEqual(await store.waitFor('cf-x', { signal: AbortSignal.abort() }), { status: 'unknown' });
      assert.deepEqual(await store.waitFor(42 as never, { signal: 'x' as never }), { status: 'unknown' });
      assert.deepEqual(await store.waitFor('cf-x', null as never), { status: 'unknown' });
      let reads = 0;
      const hostile = {
        get signal(): AbortSignal {
          reads++;
          throw new Error('no');
        },
      };
      assert.deepEqual(await store.waitFor('cf-x', hostile), { status: 'unknown' });
      assert.equal(reads, 1, 'the options are read once, as the real store reads them');
      const touched: string[] = [];
      const signalLike = new Proxy({ aborted: false, addEventListener() {}, removeEventListener() {} }, {
        get(target, key, receiver) {
          touched.push(String(key));
          return Reflect.get(target, key, receiver);
        },
      });
      assert.deepEqual(await store.waitFor('cf-x', { signal: signalLike as unknown as AbortSignal }), { status: 'unknown' });
      assert.deepEqual(touched, ['aborted', 'addEventListener', 'removeEventListener'], 'the signal is looked at as the real store does');
      assert.throws(() => store.subscribe('nope' as never), {
        name: 'TypeError',
        message: 'confirmations.subscribe(listener): listener must be a function',
      });
      const unsubscribe = store.subscribe(() => assert.fail('nothing changes'));
      assert.equal(typeof unsubscribe, 'function');
      unsubscribe();
      unsubscribe();
      store.expireRegistration('reg-0');
      store.dispose();
      store.dispose();
      assert.equal(typeof store.subscribe(() => {}), 'function');
      assert.deepEqual(store.list(), []);
    }
    assert.deepEqual(events, []);
  });

  it('its public methods work detached, as registry.confirmations hands them out', async () => {
    const cdn = await freshCdn();
    const store = new cdn.ConfirmationStore({ ttlMs: TTL, maxPending: MAX_PENDING, emit: () => {} });
    const { list, subscribe, approve, deny, waitFor } = store;
    assert.deepEqual(list(), []);
    assert.equal(approve('cf-x'), false);
    assert.equal(deny('cf-x'), false);
    assert.deepEqual(await waitFor('cf-x'), { status: 'unknown' });
    const seen: PendingConfirmation[][] = [];
    subscribe((l) => seen.push(l));
    assert.ok(await settle(cdn));
    const record = store.request(binding(0, 0, 0));
    assert.ok(record);
    assert.equal(seen.length, 1);
    assert.deepEqual(list().map((p) => p.confirmationId), [record.id]);
    assert.equal(approve(record.id), true);
    assert.deepEqual(await waitFor(record.id), { status: 'approved' });
    store.dispose();
  });

  it('writing a store before the pipeline loaded is a kit bug: it throws', async () => {
    const cdn = await freshCdn();
    const store = new cdn.ConfirmationStore({ ttlMs: TTL, maxPending: MAX_PENDING, emit: () => {} });
    assert.throws(() => store.request(binding(0, 0, 0)), TypeError);
    assert.throws(() => store.consume({} as never), TypeError);
    assert.deepEqual(store.list(), [], 'and nothing was recorded');
  });
});

describe('stores.cdn: the hand-over to the real stores', () => {
  it('carries TTL, pending limit and emit over; subscribers from before the load hear the real store', async () => {
    const cdn = await freshCdn();
    const events: string[] = [];
    const store = new cdn.ConfirmationStore({ ttlMs: 1234, maxPending: 1, emit: (e) => events.push(e.action) });
    const early: number[] = [];
    const dropped: number[] = [];
    store.subscribe((l) => early.push(l.length));
    const stop = store.subscribe((l) => dropped.push(l.length));
    stop();
    cdn.preparePipeline();
    // While the chunk is on its way nothing has changed yet.
    assert.deepEqual(store.list(), []);
    assert.ok(await settle(cdn));
    const record = store.request(binding(0, 0, 0));
    assert.ok(record);
    assert.equal(record.expiresAt - record.createdAt, 1234);
    assert.equal(store.request(binding(1, 1, 1)), undefined, 'maxPending 1 came along');
    assert.equal(store.request(binding(0, 0, 0)), record, 'the same request reuses its record');
    assert.deepEqual(early, [1]);
    assert.deepEqual(dropped, []);
    assert.equal(store.deny(record.id, 'no'), true);
    assert.deepEqual(early, [1, 0]);
    assert.deepEqual(events, ['created', 'denied']);
    assert.deepEqual(store.check(record.id, binding(0, 0, 0)), { ok: false, reason: 'denied', record });
    store.dispose();
  });

  it('an unsubscribe handed out before the load still unsubscribes after it', async () => {
    const cdn = await freshCdn();
    const store = new cdn.ConfirmationStore({ ttlMs: TTL, maxPending: MAX_PENDING, emit: () => {} });
    const heard: string[] = [];
    const a = (): number => heard.push('a');
    const stopA = store.subscribe(a);
    store.subscribe(() => heard.push('b'));
    assert.ok(await settle(cdn));
    const first = store.request(binding(0, 0, 0));
    assert.deepEqual(heard, ['a', 'b']);
    stopA();
    store.request(binding(0, 1, 0));
    assert.deepEqual(heard, ['a', 'b', 'b']);
    // Subscribed again after the load, then the old unsubscribe: the real store's own unsubscribe
    // removes the listener whichever subscribe added it, and so does this one.
    store.subscribe(a);
    stopA();
    assert.equal(store.deny(first!.id), true);
    assert.deepEqual(heard, ['a', 'b', 'b', 'b']);
    store.dispose();
  });

  it('a store disposed before the load stays disposed after it', async () => {
    const cdn = await freshCdn();
    const store = new cdn.ConfirmationStore({ ttlMs: 30, maxPending: MAX_PENDING, emit: () => {} });
    store.subscribe(() => assert.fail('disposed: no notifications'));
    store.dispose();
    assert.ok(await settle(cdn));
    store.subscribe(() => assert.fail('disposed: no notifications'));
    const record = store.request(binding(0, 0, 0));
    assert.ok(record, 'the real store still answers the pipeline, as a disposed real store does');
    assert.equal(store.approve(record.id), false, 'a disposed store takes no decisions');
    assert.deepEqual(await store.waitFor(record.id), { status: 'expired' }, 'after its TTL, 30 ms');
  });

  it('behaves as a real store across any ordering of calls before, during and after the load', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), async (ops) => {
        const cdn = await freshCdn();
        const real = new Side((emit) => new RealConfirmationStore({ ttlMs: TTL, maxPending: MAX_PENDING, emit }));
        const lazy = new Side((emit) => new cdn.ConfirmationStore({ ttlMs: TTL, maxPending: MAX_PENDING, emit }));
        let ready = false;
        for (const op of ops) {
          if (op.op === 'startLoad') cdn.preparePipeline();
          if (op.op === 'settle') ready = await settle(cdn);
          real.run(op, ready);
          lazy.run(op, ready);
          assert.deepEqual(lazy.log, real.log);
        }
        await settle(cdn);
        real.store.dispose();
        lazy.store.dispose();
        const [a, b] = await Promise.all([Promise.all(real.waits), Promise.all(lazy.waits)]);
        assert.deepEqual(b, a);
        assert.deepEqual(lazy.log, real.log);
      }),
      { numRuns: 60 },
    );
  });
});

describe('stores.cdn: stopping calls', () => {
  it('has nothing to stop before the load (no call can run or wait yet), and stops through the pipeline after it', async () => {
    const cdn = await freshCdn();
    const core = new RegistryCore({});
    // Before the chunk: a no-op that loads nothing.
    cdn.stopCalls(core);
    assert.equal(core.running, undefined);
    assert.ok(await settle(cdn));
    const ended: string[] = [];
    const waiter = { settle: (value: unknown) => ended.push(`waiter ${String(value)}`), done: false };
    const registration = { running: true, waiting: [waiter] } as unknown as Parameters<Cdn['stopCalls']>[1] & object;
    cdn.stopCalls(core, registration);
    assert.deepEqual(ended, ['waiter COMPONENT_UNMOUNTED'], 'the queued call of the registration that went away is ended');
    assert.equal(registration.waiting, undefined);
  });
});

describe('stores.cdn: a chunk that does not load', () => {
  after(() => setGate(OPEN));

  it('leaves the stand-ins answering, fails calls with EXECUTION_FAILED, and the next call loads it', async () => {
    const cdn = await freshCdn();
    const store = new cdn.ConfirmationStore({ ttlMs: TTL, maxPending: MAX_PENDING, emit: () => {} });
    const heard: number[] = [];
    store.subscribe((l) => heard.push(l.length));
    setGate(OFFLINE);
    const { errors } = quietConsole();
    cdn.preparePipeline();
    const failed = await cdn.runInvocation(loadCore, { invocationId: 'off-1' });
    assert.equal(failed.ok, false);
    assert.equal(!failed.ok && failed.error.code, 'EXECUTION_FAILED');
    assert.equal(!failed.ok && failed.error.retry, 'after-delay', 'nothing ran: trying later is safe');
    assert.deepEqual(!failed.ok && failed.error.details, { reason: 'pipeline-unavailable' });
    assert.doesNotMatch(!failed.ok ? failed.error.message : '', /offline/, "the loader's words are for the page author, not the agent");
    assert.equal(failed.invocationId, 'off-1');
    assert.equal(failed.surfaceVersion, loadCore.surfaceVersion);
    const hostile = await cdn.runInvocation(loadCore, {
      get invocationId(): string {
        throw new Error('no');
      },
    });
    assert.equal(hostile.invocationId, '', 'never a rejection, even from a hostile request');
    assert.equal(errors.length, 1, 'the page author is told once');
    assert.match(String(errors[0]?.[0]), /pipeline-unavailable.*offline/);
    assert.deepEqual(store.list(), []);
    assert.equal(store.approve('cf-x'), false);
    assert.deepEqual(await store.waitFor('cf-x'), { status: 'unknown' });
    setGate(OPEN);
    assert.ok(await settle(cdn), 'the next call tries again');
    const record = store.request(binding(0, 0, 0));
    assert.ok(record);
    assert.deepEqual(heard, [1], 'the subscriber from before the failure was handed over');
    store.dispose();
  });
});

// -- the registry assembled the way the CDN build assembles it --------------------------------------

const root = resolvePath(dirname(fileURLToPath(import.meta.url)), '../..');
const outdir = join(root, '.tmp', `stores-cdn-${process.pid}`);

/** rollup.config.js's seam rule for esbuild: `./x.js` becomes `x.cdn.ts` where that exists. */
const cdnSeams: Plugin = {
  name: 'cdn-seams',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
      if (args.importer.endsWith('.cdn.ts')) return undefined;
      const swap = resolvePath(args.resolveDir, args.path.replace(/\.js$/, '.cdn.ts'));
      return existsSync(swap) ? { path: swap } : undefined;
    });
  },
};

let bundle = '';

describe('stores.cdn: a registry built with the CDN seams', () => {
  before(async () => {
    mkdirSync(outdir, { recursive: true });
    await build({
      entryPoints: [join(root, 'src/index.ts')],
      outdir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'neutral',
      packages: 'external',
      chunkNames: '[name]-[hash]',
      plugins: [cdnSeams],
      logLevel: 'silent',
    });
    bundle = pathToFileURL(join(outdir, 'index.js')).href;
  });
  after(() => {
    setGate(OPEN);
    rmSync(outdir, { recursive: true, force: true });
  });

  async function freshKit(): Promise<typeof Core> {
    return (await import(`${bundle}?copy=${++copies}`)) as typeof Core;
  }

  it('serves registry.confirmations before the first call, then confirms, runs once and replays from the idempotency store', async () => {
    quietConsole();
    const kit = await freshKit();
    setGate(HELD);
    const registry = kit.createAgentSurfaceRegistry({ authority: kit.devAuthority(), limits: { confirmationTtlMs: 5000 } });
    const confirmations = registry.confirmations;
    assert.deepEqual(confirmations.list(), []);
    assert.equal(confirmations.approve('cf-x'), false);
    assert.deepEqual(await confirmations.waitFor('cf-x'), { status: 'unknown' });
    const seen: PendingConfirmation[][] = [];
    confirmations.subscribe((l) => seen.push(l));
    let runs = 0;
    registry.register({
      contract: { id: 'domain:devices.wipe', kind: 'action', effect: 'destructive', confirmation: 'required', description: 'Wipes a device.', inputSchema: idSchema },
      token: kit.DEV_TOKEN,
      handler: (input) => ({ wiped: (input as { id: string }).id, run: ++runs }),
    });
    const request = { capabilityId: 'domain:devices.wipe', input: { id: 'd1' }, consumer, invocationId: 'w-1', surfaceVersion: registry.surfaceVersion };
    // The first call waits for the chunk, which the gate is holding back.
    const first = registry.invoke(request);
    await tick();
    assert.deepEqual(confirmations.list(), [], 'nothing was asked while the chunk was on its way');
    setGate(OPEN);
    const asked = await first;
    assert.equal(!asked.ok && asked.error.code, 'CONFIRMATION_REQUIRED');
    const confirmationId = String(!asked.ok && asked.error.details?.confirmationId);
    assert.deepEqual(seen.map((l) => l.map((p) => p.confirmationId)), [[confirmationId]]);
    const [pending] = confirmations.list();
    assert.equal(pending.expiresAt - pending.createdAt, 5000, 'the registry limits reached the real store');
    const decided = confirmations.waitFor(confirmationId);
    assert.equal(confirmations.approve(confirmationId), true);
    assert.deepEqual(await decided, { status: 'approved' } satisfies ConfirmationOutcome);
    const ran = await registry.invoke({ ...request, confirmationId });
    assert.deepEqual(ran.ok && ran.output, { wiped: 'd1', run: 1 });
    const replay = await registry.invoke({ ...request, confirmationId });
    assert.deepEqual(replay.ok && replay.output, { wiped: 'd1', run: 1 });
    assert.equal(runs, 1);
    const conflict = await registry.invoke({ ...request, input: { id: 'd2' } });
    assert.equal(!conflict.ok && conflict.error.code, 'INVOCATION_CONFLICT');
    registry.dispose();
    assert.deepEqual(seen.at(-1), []);
  });

  it('ends running and queued calls on unregister and on dispose; unregistering before the chunk arrived is fine', async () => {
    const kit = await freshKit();
    setGate(HELD);
    const registry = kit.createAgentSurfaceRegistry({ authority: kit.devAuthority() });
    const serial = { kind: 'action', effect: 'local-state', concurrency: 'serial', description: 'Runs until stopped.', inputSchema: idSchema } as const;
    const early = registry.register({ contract: { ...serial, id: 'domain:jobs.early' }, token: kit.DEV_TOKEN, handler: () => null });
    early.unregister();
    assert.deepEqual(registry.snapshot({ consumer }).capabilities, []);
    setGate(OPEN);
    let started = 0;
    const hang = () => {
      started++;
      return new Promise<never>(() => {});
    };
    /** Waits until `n` handlers have started (the chunk and the validator load first). */
    const startedAt = async (n: number) => {
      while (started < n) await tick();
    };
    const job = registry.register({ contract: { ...serial, id: 'domain:jobs.run' }, token: kit.DEV_TOKEN, handler: hang });
    const call = (n: number, id = 'domain:jobs.run') => registry.invoke({ capabilityId: id, input: { id: `j${n}` }, consumer, invocationId: `job-${id}-${n}` });
    const running = call(1);
    await startedAt(1);
    const queued = call(2);
    await tick();
    job.unregister();
    for (const result of await Promise.all([running, queued])) assert.equal(!result.ok && result.error.code, 'COMPONENT_UNMOUNTED');
    registry.register({ contract: { ...serial, id: 'domain:jobs.other' }, token: kit.DEV_TOKEN, handler: hang });
    const others = [call(3, 'domain:jobs.other')];
    await startedAt(2);
    others.push(call(4, 'domain:jobs.other'));
    await tick();
    registry.dispose();
    assert.equal(started, 2, 'the queued calls never ran');
    for (const result of await Promise.all(others)) assert.equal(!result.ok && result.error.code, 'COMPONENT_UNMOUNTED');
  });

  it('a registry disposed before the chunk arrived stays disposed, its confirmations inert', async () => {
    const kit = await freshKit();
    setGate(HELD);
    const registry = kit.createAgentSurfaceRegistry({ authority: kit.devAuthority() });
    registry.confirmations.subscribe(() => assert.fail('disposed: no notifications'));
    registry.dispose();
    setGate(OPEN);
    const result = await registry.invoke({ capabilityId: 'domain:a.b', input: {}, consumer, invocationId: 'd-1' });
    assert.equal(result.ok, false);
    assert.deepEqual(registry.confirmations.list(), []);
    assert.equal(registry.confirmations.approve('cf-x'), false);
  });
});
