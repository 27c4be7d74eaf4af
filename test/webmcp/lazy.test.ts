/**
 * The WebMCP adapter's and tool source's lazy boundary, the same in every build: `createWebMcpAdapter`
 * fetches its run module (adapter-run.ts) on the first start on a page with a host, and
 * `createWebMcpSource` its engine (source-engine.ts) on the first discovery or call. The CDN entry
 * exports these very factories. First the factories on Chromium's native host, from a page that has
 * not fetched either module yet; then every call ordering around the load, played on a fresh copy of
 * the module (its run module not yet in hand, so every call goes through the load) and on the loaded
 * one: both must leave the same trace.
 */
import { aTimeout, expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import * as cdn from '../../src/cdn.js';
import { resetIssuedWarnings } from '../../src/core/dev.js';
import { createTestSurface, type TestSurface } from '../../src/testing/index.js';
import * as webmcp from '../../src/webmcp/index.js';
import { ToolSourceError } from '../../src/webmcp/source-error.js';
import type {
  ModelContextLike,
  RegisteredTool,
  ToolSource,
  WebMcpAdapter,
  WebMcpAdapterHost,
  WebMcpAdapterOptions,
  WebMcpSourceOptions,
} from '../../src/webmcp/types.js';
import { agent, parseOutput } from './agent.js';
import { CurrentHost } from './fake-hosts.js';
import { sourceScenario } from './source-scenario.js';

const idSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false };

function devices(): TestSurface {
  const surface = createTestSurface();
  surface.observation('domain:devices.list', () => ({ devices: ['d1', 'd2'] }), { description: 'List the devices.', untrustedOutput: true });
  surface.action('domain:devices.rename', (input) => ({ renamed: input.id }), { effect: 'local-state', description: 'Rename a device.', inputSchema: idSchema });
  surface.action('domain:devices.wipe', (input) => ({ wiped: input.id }), {
    effect: 'destructive',
    confirmation: 'required',
    description: 'Erase a device.',
    inputSchema: idSchema,
  });
  return surface;
}

/** How a promise ended, as text both factories can be compared on. */
function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (e: Error) => `rejected ${e?.name}: ${e?.message}`,
  );
}

const originalWarn = console.warn;
let page = 0;

type AdapterFactory = (options?: WebMcpAdapterOptions) => WebMcpAdapter;
type SourceFactory = (options?: WebMcpSourceOptions) => ToolSource;

const loadedAdapter: AdapterFactory = webmcp.createWebMcpAdapter;
const loadedSource: SourceFactory = webmcp.createWebMcpSource;

let copies = 0;
/**
 * A fresh copy of adapter.ts or source.ts: its module variables (the lazily loaded run module, the
 * engine) start empty, so its first calls take the way through the load, as on a page that has not
 * fetched the module yet.
 */
async function freshAdapter(): Promise<AdapterFactory> {
  return ((await import(`/src/webmcp/adapter.ts?copy=${++copies}` as string)) as typeof webmcp).createWebMcpAdapter;
}
async function freshSource(): Promise<SourceFactory> {
  return ((await import(`/src/webmcp/source.ts?copy=${++copies}` as string)) as typeof webmcp).createWebMcpSource;
}

/** Whether the page has fetched a module (by its file name). */
const fetched = (file: string) => performance.getEntriesByType('resource').some((e) => new URL(e.name).pathname.endsWith(`/src/webmcp/${file}`));

describe('the CDN entry', () => {
  it('exports every name of agent-surface-kit/webmcp, the very same bindings', () => {
    const missing = Object.keys(webmcp).filter((name) => !(name in cdn));
    expect(missing).to.deep.equal([]);
    // `instanceof ToolSourceError` holds across both entries, and both run the same factories.
    for (const name of Object.keys(webmcp)) {
      expect((cdn as Record<string, unknown>)[name], name).to.equal((webmcp as Record<string, unknown>)[name]);
    }
    expect(webmcp.ToolSourceError).to.equal(ToolSourceError);
  });

  it('nothing of the run module or the engine is fetched before the first start or discovery', () => {
    expect(fetched('adapter-run.ts'), 'adapter-run').to.equal(false);
    expect(fetched('source-engine.ts'), 'source-engine').to.equal(false);
  });
});

describe('createWebMcpAdapter on Chromium’s native host, from its first start', () => {
  let surface: TestSurface;
  let adapter: WebMcpAdapter | undefined;
  let prefix: string;

  beforeEach(async () => {
    resetIssuedWarnings();
    console.warn = () => {}; // devAuthority() warns once per capability, by design
    await agent.enable();
    surface = devices();
    prefix = `lazy${++page}_`;
  });

  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    surface.dispose();
    console.warn = originalWarn;
  });

  const mine = (name: string) => name.startsWith(prefix);

  it('registers one tool per capability with the contract hints and runs calls through the registry', async () => {
    adapter = loadedAdapter({ prefix });
    expect([adapter.name, adapter.status, adapter.shape, adapter.toolNames()]).to.deep.equal(['webmcp', 'idle', undefined, []]);
    await adapter.start({ registry: surface.registry, consumer: { id: 'browser-agent', kind: 'webmcp' } });
    expect(fetched('adapter-run.ts'), 'the first start fetched the run module').to.equal(true);
    expect(adapter.status).to.equal('active');
    expect(adapter.shape).to.equal('current');
    const names = [`${prefix}domain_devices__list`, `${prefix}domain_devices__rename`, `${prefix}domain_devices__wipe`];
    expect(adapter.toolNames()).to.deep.equal(names);
    await agent.waitForNames(names, mine);

    const tools = await agent.tools();
    const list = tools.find((t) => t.name === names[0])!;
    expect(list.annotations).to.deep.include({ readOnly: true, untrustedContent: true, consequential: false });
    expect(tools.find((t) => t.name === names[2])!.annotations).to.deep.include({ readOnly: false, consequential: true });

    expect(parseOutput(await agent.call(names[1]!, { id: 'd1' }))).to.deep.equal({ isError: false, body: { renamed: 'd1' } });
    const invalid = parseOutput(await agent.call(names[1]!, { id: 7 }));
    expect([invalid.isError, invalid.body.code, invalid.body.retry]).to.deep.equal([true, 'INVALID_INPUT', 'with-changes']);
    const audit = surface.eventsOf('invocation').map((e) => `${e.consumer.id}/${e.consumer.kind} ${e.outcome}`);
    expect(audit).to.deep.equal(['browser-agent/webmcp OK', 'browser-agent/webmcp INVALID_INPUT']);
  });

  it('waits inside the call for the person’s decision, then runs once', async () => {
    adapter = loadedAdapter({ prefix });
    await adapter.start({ registry: surface.registry });
    const wipe = `${prefix}domain_devices__wipe`;
    await agent.waitForNames([`${prefix}domain_devices__list`, `${prefix}domain_devices__rename`, wipe], mine);
    const started = await agent.invoke(wipe, { id: 'd2' });
    const pending = await surface.nextConfirmation();
    expect(pending.input).to.deep.equal({ id: 'd2' });
    surface.registry.confirmations.approve(pending.confirmationId);
    expect(parseOutput(await agent.result(started.invocationId!))).to.deep.equal({ isError: false, body: { wiped: 'd2' } });
  });

  it('follows the registry incrementally and withdraws every tool on stop, which can run twice', async () => {
    adapter = loadedAdapter({ prefix });
    await adapter.start({ registry: surface.registry });
    const base = [`${prefix}domain_devices__list`, `${prefix}domain_devices__rename`, `${prefix}domain_devices__wipe`];
    await agent.waitForNames(base, mine);
    const handle = surface.action('domain:lamp.toggle', () => ({ on: true }), { description: 'Toggle the lamp.' });
    await agent.waitForNames([...base, `${prefix}domain_lamp__toggle`], mine);
    handle.update({ available: false, unavailableReason: 'no power' });
    await agent.waitForNames(base, mine);
    await adapter.stop();
    expect(adapter.status).to.equal('stopped');
    expect(adapter.toolNames()).to.deep.equal([]);
    await agent.waitForNames([], mine);
    await adapter.stop();
    expect(adapter.status).to.equal('stopped');
  });

  it('a stop() right after start() leaves nothing on the host, not even for a moment', async () => {
    const { length: mark } = await agent.log();
    adapter = loadedAdapter({ prefix });
    const starting = adapter.start({ registry: surface.registry });
    const stopping = adapter.stop();
    expect(adapter.status).to.equal('stopped');
    expect(await outcome(starting)).to.equal('resolved');
    expect(await outcome(stopping)).to.equal('resolved');
    // Only shows that nothing happens: more time can only make the check stronger.
    // eslint-disable-next-line no-restricted-syntax
    await aTimeout(50);
    expect((await agent.log(mark)).log.filter((e) => mine(e.name))).to.deep.equal([]);
    expect(adapter.status).to.equal('stopped');
  });
});

describe('createWebMcpSource on Chromium’s native host, from a fresh copy', () => {
  let factory: SourceFactory;
  before(async () => {
    factory = await freshSource();
  });
  sourceScenario({
    host: () => (document as unknown as { modelContext: ModelContextLike }).modelContext,
    keepsConsequentialHint: true,
    create: () => factory(),
  });
});

// ---------------------------------------------------------------------------------------------
// Orderings around the load: the same script through the load and without it must leave the same trace.

type AdapterScript = (a: WebMcpAdapter, host: WebMcpAdapterHost, log: string[]) => Promise<void>;

const state = (a: WebMcpAdapter) => `${a.status} ${a.shape ?? '-'} [${a.toolNames().length}]`;

describe('createWebMcpAdapter: orderings around the load match those once it is loaded', () => {
  let surfaces: TestSurface[] = [];

  beforeEach(() => {
    resetIssuedWarnings();
    console.warn = () => {};
  });

  afterEach(() => {
    for (const s of surfaces) s.dispose();
    surfaces = [];
    console.warn = originalWarn;
  });

  async function play(factory: AdapterFactory, script: AdapterScript, options: WebMcpAdapterOptions = {}): Promise<string[]> {
    const surface = devices();
    surfaces.push(surface);
    const host = new CurrentHost();
    const log: string[] = [];
    const a = factory({ modelContext: host, ...options });
    await script(a, { registry: surface.registry }, log);
    log.push(`host [${host.names().join(' ')}]`, `calls [${host.calls.join(', ')}]`);
    await a.stop();
    return log;
  }

  /** Plays the script on both, and checks both against what the adapter should do. */
  async function both(script: AdapterScript, expected: string[], options?: WebMcpAdapterOptions): Promise<void> {
    expect(await play(await freshAdapter(), script, options), 'through the load').to.deep.equal(expected);
    expect(await play(loadedAdapter, script, options), 'loaded').to.deep.equal(expected);
  }

  const registered = [
    'host [domain_devices__list domain_devices__rename domain_devices__wipe]',
    'calls [register domain_devices__list, register domain_devices__rename, register domain_devices__wipe]',
  ];

  it('before any start: idle, no shape, no tools; settled() and stop() resolve', async () => {
    await both(
      async (a, _host, log) => {
        log.push(state(a), await outcome(a.settled()), await outcome(a.stop()), state(a));
      },
      ['idle - [0]', 'resolved', 'resolved', 'idle - [0]', 'host []', 'calls []'],
    );
  });

  it('stop() before anything, then start(): starts normally', async () => {
    await both(
      async (a, host, log) => {
        log.push(await outcome(a.stop()), state(a));
        const starting = a.start(host);
        log.push(state(a), await outcome(starting), state(a));
      },
      ['resolved', 'idle - [0]', 'idle - [0]', 'resolved', 'active current [3]', ...registered],
    );
  });

  it('start() then stop() at once: the start is void, status stopped at once, nothing registered', async () => {
    await both(
      async (a, host, log) => {
        const starting = a.start(host);
        log.push(state(a));
        const stopping = a.stop();
        log.push(state(a), await outcome(starting), await outcome(stopping), state(a));
      },
      ['idle - [0]', 'stopped - [0]', 'resolved', 'resolved', 'stopped - [0]', 'host []', 'calls []'],
    );
  });

  it('start() twice: the second fails "already started", the first goes on', async () => {
    await both(
      async (a, host, log) => {
        const first = a.start(host);
        const second = a.start(host);
        log.push(await outcome(second), await outcome(first), state(a));
      },
      ['rejected Error: WebMcpAdapter.start: already started; call stop() before starting again.', 'resolved', 'active current [3]', ...registered],
    );
  });

  it('start(), stop(), start() at once: the third fails "already started" (the first start is still pending)', async () => {
    await both(
      async (a, host, log) => {
        const runs = [a.start(host), a.stop(), a.start(host)];
        log.push(...(await Promise.all(runs.map(outcome))), state(a));
      },
      ['resolved', 'resolved', 'rejected Error: WebMcpAdapter.start: already started; call stop() before starting again.', 'stopped - [0]', 'host []', 'calls []'],
    );
  });

  it('start() with a bad host rejects with the same TypeError, without loading, and changes nothing', async () => {
    const message = 'rejected TypeError: WebMcpAdapter.start(host): pass { registry, consumer? } with an agent-surface registry.';
    await both(
      async (a, _host, log) => {
        for (const bad of [undefined, {}, { registry: {} }]) log.push(await outcome(a.start(bad as never)));
        log.push(state(a), await outcome(a.stop()), state(a));
      },
      [message, message, message, 'idle - [0]', 'resolved', 'idle - [0]', 'host []', 'calls []'],
    );
    // Rejected already: a load would take longer than one microtask.
    let rejected = false;
    (await freshAdapter())({ modelContext: null })
      .start(undefined as never)
      .catch(() => (rejected = true));
    await Promise.resolve();
    expect(rejected).to.equal(true);
  });

  it('settled() right after start() settles before the start does', async () => {
    await both(
      async (a, host, log) => {
        const order: string[] = [];
        const starting = a.start(host).then(() => order.push('started'));
        const settling = a.settled().then(() => order.push('settled'));
        await Promise.all([starting, settling]);
        await a.settled();
        log.push(order.join(' then '), state(a));
      },
      ['settled then started', 'active current [3]', ...registered],
    );
  });

  it('stop, then start again after it: withdraws, then registers everything once more', async () => {
    await both(
      async (a, host, log) => {
        await a.start(host);
        await a.stop();
        log.push(state(a));
        await a.start(host);
        log.push(state(a));
      },
      [
        'stopped current [0]',
        'active current [3]',
        registered[0]!,
        'calls [register domain_devices__list, register domain_devices__rename, register domain_devices__wipe, ' +
          'abort domain_devices__list, abort domain_devices__rename, abort domain_devices__wipe, ' +
          'register domain_devices__list, register domain_devices__rename, register domain_devices__wipe]',
      ],
    );
  });

  it('without a host: start() resolves as unsupported', async () => {
    await both(
      async (a, host, log) => {
        log.push(await outcome(a.start(host)), state(a), await outcome(a.stop()), state(a));
      },
      ['resolved', 'unsupported - [0]', 'resolved', 'unsupported - [0]', 'host []', 'calls []'],
      { modelContext: null },
    );
  });

  it('bad options throw the same TypeError at construction', () => {
    for (const bad of [{ prefix: 'bad prefix!' }, { confirmationTtlMs: -1 }, { modelContext: {} as never }, { confirm: 1 as never }]) {
      const thrown = [loadedAdapter].map((factory) => {
        try {
          factory(bad);
          return 'no throw';
        } catch (e) {
          return `${(e as Error).name}: ${(e as Error).message}`;
        }
      });
      expect(thrown[0]).to.match(/^TypeError: createWebMcpAdapter: /);
    }
  });
});

/** A WebMCP consumer-side host: lists tools, runs them, fires `toolchange`. Records every call. */
class ListingHost extends EventTarget implements ModelContextLike {
  readonly calls: string[] = [];
  tools: RegisteredTool[] = [{ name: 'echo', description: 'Echoes n.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } }];

  async getTools(): Promise<RegisteredTool[]> {
    this.calls.push('getTools');
    await Promise.resolve();
    return this.tools.map((t) => ({ ...t }));
  }

  async executeTool(tool: RegisteredTool, input: unknown): Promise<unknown> {
    this.calls.push(`execute ${tool.name} ${JSON.stringify(input)}`);
    await Promise.resolve();
    return JSON.stringify({ content: [{ type: 'text', text: JSON.stringify({ got: input }) }] });
  }

  change(tools: RegisteredTool[]): void {
    this.tools = tools;
    this.dispatchEvent(new Event('toolchange'));
  }
}

type SourceScript = (s: ToolSource, host: ListingHost, log: string[]) => Promise<void>;

/** How a discover() ended. */
function discovered(promise: Promise<{ revision: number; tools: readonly { name: string }[] }>): Promise<string> {
  return promise.then(
    (snap) => `revision ${snap.revision} [${snap.tools.map((t) => t.name).join(' ')}]`,
    (e: unknown) => (e instanceof ToolSourceError ? `ToolSourceError ${e.code}: ${e.message}` : `other ${String(e)}`),
  );
}

const executed = (promise: Promise<{ ok: boolean; output?: unknown; error?: { code: string } }>) =>
  promise.then((r) => (r.ok ? `ok ${JSON.stringify(r.output)}` : `failed ${r.error!.code}`));

describe('createWebMcpSource: orderings around the load match those once it is loaded', () => {
  async function play(factory: SourceFactory, script: SourceScript): Promise<string[]> {
    const host = new ListingHost();
    const log: string[] = [];
    const s = factory({ modelContext: host });
    try {
      await script(s, host, log);
    } finally {
      s.dispose();
    }
    log.push(`calls [${host.calls.join(', ')}]`);
    return log;
  }

  async function both(script: SourceScript, expected: string[]): Promise<void> {
    expect(await play(await freshSource(), script), 'through the load').to.deep.equal(expected);
    expect(await play(loadedSource, script), 'loaded').to.deep.equal(expected);
  }

  const lamp: RegisteredTool = { name: 'lamp', description: 'Lamp.' };
  // Only shows that nothing happens (no listener hears a change): more time can only make the check stronger.
  // eslint-disable-next-line no-restricted-syntax
  const tick = () => aTimeout(20);

  it('construction never throws, even without a host; the first discover() says UNSUPPORTED_WEBMCP', async () => {
    for (const factory of [await freshSource(), loadedSource]) {
      const s = factory({ modelContext: null });
      expect(await discovered(s.discover())).to.equal('ToolSourceError UNSUPPORTED_WEBMCP: This page has no WebMCP host (document.modelContext) to read tools from.');
      expect(await executed(s.execute({ name: 'x' }, 1))).to.equal('failed UNSUPPORTED_WEBMCP');
      s.dispose();
    }
  });

  it('a listener subscribed before the first discover() hears changes; its unsubscribe works after the load', async () => {
    await both(
      async (s, host, log) => {
        let heard = 0;
        const off = s.subscribe(() => heard++);
        log.push(await discovered(s.discover()));
        host.change([...host.tools, lamp]);
        await waitUntil(() => heard > 0, 'the listener hears the change');
        log.push(`heard ${heard}`, await discovered(s.discover()));
        off();
        host.change(host.tools.slice(0, 1));
        await tick();
        log.push(`heard ${heard}`);
      },
      // The last change is still read (a toolchange refetches), but nobody listens any more.
      ['revision 1 [echo]', 'heard 1', 'revision 2 [echo lamp]', 'heard 1', 'calls [getTools, getTools, getTools, getTools]'],
    );
  });

  it('unsubscribing before the load keeps the listener off the real source', async () => {
    await both(
      async (s, host, log) => {
        let heard = 0;
        const listener = () => heard++;
        s.subscribe(listener);
        const off = s.subscribe(listener); // the same function twice is one listener
        off();
        log.push(await discovered(s.discover()));
        host.change([...host.tools, lamp]);
        await tick();
        log.push(`heard ${heard}`);
      },
      ['revision 1 [echo]', 'heard 0', 'calls [getTools, getTools]'],
    );
  });

  it('dispose() before the load: every later call answers DISPOSED and the host is never read', async () => {
    await both(
      async (s, _host, log) => {
        s.dispose();
        s.dispose();
        log.push(await discovered(s.discover()), await executed(s.execute({ name: 'echo', input: {} }, 1)));
        try {
          s.subscribe(() => {});
          log.push('subscribed');
        } catch (e) {
          log.push(e instanceof ToolSourceError ? `threw ${e.code}` : `threw ${String(e)}`);
        }
      },
      ['ToolSourceError DISPOSED: This tool source was disposed.', 'failed DISPOSED', 'threw DISPOSED', 'calls []'],
    );
  });

  it('discover() then dispose() at once: the discovery ends DISPOSED', async () => {
    // Once loaded, the host is asked at once, before the dispose; through the load, never.
    for (const [factory, calls] of [
      [await freshSource(), ''],
      [loadedSource, 'getTools'],
    ] as const) {
      expect(
        await play(factory, async (s, _host, log) => {
          const discovering = s.discover();
          s.dispose();
          log.push(await discovered(discovering));
        }),
      ).to.deep.equal(['ToolSourceError DISPOSED: This tool source was disposed.', `calls [${calls}]`]);
    }
  });

  it('execute() before any discover() is STALE_TOOLS and runs nothing; after discover() it runs', async () => {
    await both(
      async (s, _host, log) => {
        log.push(await executed(s.execute({ name: 'echo', input: { n: 1 } }, 1)));
        const { revision } = await s.discover();
        log.push(await executed(s.execute({ name: 'echo', input: { n: 2 } }, revision)));
        log.push(await executed(s.execute({ name: 'echo', input: { n: 'two' } }, revision)));
      },
      // A call lists the tools again right before it runs (source-engine.ts): the second getTools.
      ['failed STALE_TOOLS', 'ok {"content":[{"type":"text","text":"{\\"got\\":{\\"n\\":2}}"}]}', 'failed INVALID_INPUT', 'calls [getTools, getTools, execute echo {"n":2}]'],
    );
  });

  it('an aborted signal: CANCELLED at once, the host untouched', async () => {
    await both(
      async (s, _host, log) => {
        log.push(await discovered(s.discover(AbortSignal.abort())));
      },
      ['ToolSourceError CANCELLED: Discovery was cancelled.', 'calls []'],
    );
  });

  it('aborting while the discovery runs: CANCELLED for that caller, the discovery still completes once', async () => {
    await both(
      async (s, _host, log) => {
        const controller = new AbortController();
        const first = s.discover(controller.signal);
        controller.abort();
        log.push(await discovered(first), await discovered(s.discover()));
      },
      ['ToolSourceError CANCELLED: Discovery was cancelled.', 'revision 1 [echo]', 'calls [getTools]'],
    );
  });

  /** A listing host with the draft's activity events (`ontoolactivated` / `ontoolcancel`), as Chromium's. */
  class ActiveHost extends ListingHost {
    ontoolactivated = null;
    ontoolcancel = null;
    fire(type: string, toolName: unknown): void {
      this.dispatchEvent(Object.assign(new Event(type), { toolName }));
    }
  }

  it('onActivity() before the load hears toolactivated / toolcancel; bad events, unsubscribe and dispose are honoured', async () => {
    for (const factory of [await freshSource(), loadedSource]) {
      const host = new ActiveHost();
      const s = factory({ modelContext: host });
      const heard: string[] = [];
      const off = s.onActivity!((a) => heard.push(`${a.type} ${a.toolId}`));
      const other = s.onActivity!((a) => heard.push(`other ${a.type}`));
      // Listening begins without a discover(): the engine is fetched for it if need be.
      await waitUntil(() => {
        host.fire('toolactivated', 'echo');
        return heard.length > 0;
      }, 'the listener hears the host');
      heard.length = 0;
      other();
      host.fire('toolcancel', 'echo');
      host.fire('toolactivated', 42); // not a name: ignored
      host.fire('toolactivated', '');
      expect(heard, factory === loadedSource ? 'loaded' : 'through the load').to.deep.equal(['cancelled echo']);
      off();
      host.fire('toolactivated', 'echo');
      s.onActivity!((a) => heard.push(`late ${a.type}`));
      s.dispose();
      host.fire('toolactivated', 'echo');
      expect(heard).to.deep.equal(['cancelled echo']);
      expect(() => s.onActivity!(() => {})).to.throw(ToolSourceError, /disposed/);
    }
  });

  it('onActivity() on a host without the events listens to nothing (the polyfill)', async () => {
    for (const factory of [await freshSource(), loadedSource]) {
      const host = new ListingHost();
      const added: string[] = [];
      const add = host.addEventListener.bind(host);
      host.addEventListener = (type: string, listener: EventListenerOrEventListenerObject | null) => {
        added.push(type);
        add(type, listener);
      };
      const s = factory({ modelContext: host });
      const heard: unknown[] = [];
      s.onActivity!((a) => heard.push(a));
      await s.discover();
      host.dispatchEvent(Object.assign(new Event('toolactivated'), { toolName: 'echo' }));
      expect(added).to.deep.equal(['toolchange']);
      expect(heard).to.deep.equal([]);
      expect(() => s.onActivity!(42 as never)).to.throw(TypeError, 'ToolSource.onActivity(listener): listener must be a function.');
      s.dispose();
    }
  });

  it('subscribe() checks its listener before the load as after it', async () => {
    for (const factory of [await freshSource(), loadedSource]) {
      const s = factory({ modelContext: null });
      expect(() => s.subscribe(42 as never)).to.throw(TypeError, 'ToolSource.subscribe(listener): listener must be a function.');
      s.dispose();
    }
  });
});
