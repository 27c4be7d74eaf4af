import { aTimeout, expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { resetIssuedWarnings } from '../../src/core/dev.js';
import type { CapabilityDescriptor, InvokeRequest, JsonObject } from '../../src/core/types.js';
import { createTestSurface, type TestSurface } from '../../src/testing/index.js';
import { AgentWebMcpConflictEvent, AgentWebMcpExposedToRefusedEvent, createWebMcpAdapter } from '../../src/webmcp/index.js';
import type { WebMcpAdapter, WebMcpAdapterOptions, WebMcpConflict, WebMcpExposedToRefusal } from '../../src/webmcp/types.js';
import { BatchHost, CurrentHost, LegacyHost, content } from './fake-hosts.js';

const idSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false };

/** A surface with one capability of every kind of hint. */
function devices(): TestSurface {
  const surface = createTestSurface();
  surface.observation('domain:devices.list', () => ({ devices: ['d1', 'd2'] }), { description: 'List the devices.', untrustedOutput: true });
  surface.action('domain:devices.rename', (input) => ({ renamed: input.id }), { effect: 'local-state', description: 'Rename a device.', inputSchema: idSchema });
  surface.action('domain:devices.disable', (input) => ({ disabled: input.id }), { effect: 'server-mutation', description: 'Disable a device.', inputSchema: idSchema });
  surface.action('domain:devices.wipe', (input) => ({ wiped: input.id }), {
    effect: 'destructive',
    confirmation: 'required',
    description: 'Erase a device.',
    inputSchema: idSchema,
  });
  return surface;
}

describe('createWebMcpAdapter (injected hosts)', () => {
  let surface: TestSurface;
  let adapter: WebMcpAdapter | undefined;
  let errors: unknown[][];
  const originalError = console.error;
  const originalWarn = console.warn;

  beforeEach(() => {
    resetIssuedWarnings();
    errors = [];
    console.error = (...args: unknown[]) => errors.push(args);
    // devAuthority() warns once per capability, by design.
    console.warn = () => {};
    surface = devices();
  });

  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    surface.dispose();
    console.error = originalError;
    console.warn = originalWarn;
  });

  async function started(host: object | null, options: WebMcpAdapterOptions = {}, consumerId = 'agent-1'): Promise<WebMcpAdapter> {
    adapter = createWebMcpAdapter({ modelContext: host as WebMcpAdapterOptions['modelContext'], ...options });
    await adapter.start({ registry: surface.registry, consumer: { id: consumerId, kind: 'webmcp' } });
    return adapter;
  }

  it('without a host, start is a no-op and the adapter says so', async () => {
    const a = await started(null);
    expect(a.status).to.equal('unsupported');
    expect(a.shape).to.equal(undefined);
    expect(a.toolNames()).to.deep.equal([]);
    await a.stop();
    await a.stop();
  });

  it('throws early for programmer mistakes', () => {
    expect(() => createWebMcpAdapter({ prefix: 'bad prefix!' })).to.throw(/prefix/);
    expect(() => createWebMcpAdapter({ confirmationTtlMs: -1 })).to.throw(/confirmationTtlMs/);
    expect(() => createWebMcpAdapter({ modelContext: {} as never })).to.throw(/registerTool nor provideContext/);
    for (const bad of ['https://a.example', [42], [''], new Array(33).fill('https://a.example')]) {
      expect(() => createWebMcpAdapter({ exposedTo: bad as never })).to.throw(TypeError, /exposedTo must be an array/);
    }
    expect(() => createWebMcpAdapter({ onExposedToRefused: 'no' as never })).to.throw(/onExposedToRefused must be a function/);
  });

  it('rejects a start without a registry', async () => {
    const a = createWebMcpAdapter({ modelContext: null });
    const error = await a.start(undefined as never).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/registry/);
  });

  it('registers one tool per available capability with wire names, schemas and contract hints', async () => {
    const host = new CurrentHost();
    const a = await started(host);
    expect(a.status).to.equal('active');
    expect(a.shape).to.equal('current');
    expect(host.names()).to.deep.equal(['domain_devices__disable', 'domain_devices__list', 'domain_devices__rename', 'domain_devices__wipe']);
    expect(a.toolNames()).to.deep.equal(host.names());
    expect(host.tool('domain_devices__list').annotations).to.deep.equal({ readOnlyHint: true, consequentialHint: false, untrustedContentHint: true, debugging: false });
    expect(host.tool('domain_devices__rename').annotations).to.deep.equal({ readOnlyHint: false, consequentialHint: false, untrustedContentHint: false, debugging: false });
    expect(host.tool('domain_devices__disable').annotations).to.deep.equal({ readOnlyHint: false, consequentialHint: true, untrustedContentHint: false, debugging: false });
    expect(host.tool('domain_devices__wipe').annotations).to.deep.equal({ readOnlyHint: false, consequentialHint: true, untrustedContentHint: false, debugging: false });
    expect(host.tool('domain_devices__rename').inputSchema).to.deep.equal(idSchema);
    expect(host.tool('domain_devices__rename').description).to.equal('Rename a device.');
    // No contract title: a readable form of the id, for the host's UI.
    expect(host.tool('domain_devices__rename').title).to.equal('Devices: rename');
    expect(host.tool('domain_devices__list').title).to.equal('Devices: list');
  });

  it("sets each tool's title: the contract's own, else a readable id; an instance is quoted as data", async () => {
    surface.action('domain:lights.setBrightness', () => ({}), { description: 'Dim the lights.', title: 'Dim the lights' });
    surface.action('domain:export.toCSV', () => ({}), { description: 'Export as CSV.' });
    surface.action('view:room.heatUp', () => ({}), { description: 'Warm a room.', instanceId: 'kitchen' });
    surface.action('view:room.heatUp', () => ({}), { description: 'Warm a room.', instanceId: `floor-2.${'x'.repeat(50)}` });
    const host = new CurrentHost();
    await started(host);
    expect(host.tool('domain_lights__setBrightness').title).to.equal('Dim the lights');
    expect(host.tool('domain_export__toCSV').title).to.equal('Export: to CSV');
    const rooms = host.names().filter((n) => n.startsWith('view_room__heatUp')).map((n) => host.tool(n).title);
    // A long instance id is cut (the tool name tells the tools apart), quoted either way.
    expect(rooms.sort()).to.deep.equal([`Room: heat up ("floor-2.${'x'.repeat(31)}…")`, 'Room: heat up ("kitchen")'].sort());
    // Every tool is the page's own, for end-user agents: never developer tooling.
    for (const name of host.names()) expect(host.tool(name).annotations?.debugging).to.equal(false);
  });

  it('marks a confirmation-required local change consequential and omits unavailable capabilities', async () => {
    surface.action('domain:notes.clear', () => ({}), { effect: 'local-state', confirmation: 'required', description: 'Clear notes.' });
    surface.action('domain:notes.sync', () => ({}), { effect: 'server-mutation', description: 'Sync notes.', state: { available: false, unavailableReason: 'offline' } });
    const host = new CurrentHost();
    await started(host);
    expect(host.tool('domain_notes__clear').annotations?.consequentialHint).to.equal(true);
    expect(host.names()).not.to.include('domain_notes__sync');
  });

  it('adds the prefix, applies scope, and lets curation skip or reword but never re-hint', async () => {
    const host = new CurrentHost();
    adapter = createWebMcpAdapter({
      modelContext: host,
      prefix: 'shop_',
      snapshotContext: { scope: ['devices'] },
      exposeCapability: (d: CapabilityDescriptor) => {
        if (d.capabilityId === 'domain:devices.rename') return null;
        if (d.capabilityId === 'domain:devices.disable') {
          // Only the description is taken; extra fields are ignored.
          return { description: 'Turn a device off.', annotations: { readOnlyHint: true } } as never;
        }
        return undefined;
      },
    });
    surface.action('domain:other.thing', () => ({}), { description: 'Out of scope.' });
    await adapter.start({ registry: surface.registry });
    expect(host.names()).to.deep.equal(['shop_domain_devices__disable', 'shop_domain_devices__list', 'shop_domain_devices__wipe']);
    expect(host.tool('shop_domain_devices__disable').description).to.equal('Turn a device off.');
    expect(host.tool('shop_domain_devices__disable').annotations).to.deep.include({ readOnlyHint: false, consequentialHint: true });
  });

  it('reconciles incrementally: one capability changes, one host call', async () => {
    const host = new CurrentHost();
    const a = await started(host);
    const before = host.calls.length;
    const handle = surface.action('domain:devices.reboot', () => ({ ok: true }), { effect: 'server-mutation', description: 'Reboot.' });
    await waitUntil(() => host.calls.length > before);
    await a.settled();
    expect(host.calls.slice(before)).to.deep.equal(['register domain_devices__reboot']);

    const mark = host.calls.length;
    handle.update({ available: false, unavailableReason: 'busy' });
    await waitUntil(() => host.calls.length > mark);
    await a.settled();
    expect(host.calls.slice(mark)).to.deep.equal(['abort domain_devices__reboot']);

    handle.update({ available: true });
    await waitUntil(() => host.calls.length > mark + 1);
    await a.settled();
    expect(host.calls.slice(mark)).to.deep.equal(['abort domain_devices__reboot', 'register domain_devices__reboot']);

    // A note is live state, not model-visible in the tool: nothing to touch.
    const quiet = host.calls.length;
    handle.update({ note: 'queued behind an update' });
    // Only shows that nothing happens: more time can only make the check stronger.
    // eslint-disable-next-line no-restricted-syntax
    await aTimeout(10);
    await a.settled();
    expect(host.calls.length).to.equal(quiet);
  });

  it('re-registers a capability that was registered again (new registrationId) and survives add-remove-add', async () => {
    const host = new CurrentHost();
    const a = await started(host);
    const first = surface.action('domain:lamp.toggle', () => ({ on: 1 }), { description: 'Toggle the lamp.' });
    await waitUntil(() => host.tools.has('domain_lamp__toggle'));
    await a.settled();
    // Remove and add back within one turn, twice.
    first.unregister();
    const second = surface.action('domain:lamp.toggle', () => ({ on: 2 }), { description: 'Toggle the lamp.' });
    second.unregister();
    const third = surface.action('domain:lamp.toggle', () => ({ on: 3 }), { description: 'Toggle the lamp.' });
    await aTimeout(0);
    await a.settled();
    expect(host.names()).to.include('domain_lamp__toggle');
    expect(errors).to.deep.equal([]);
    const out = content(await host.execute('domain_lamp__toggle', {}));
    expect(out.body).to.deep.equal({ on: 3 });
    third.unregister();
    await waitUntil(() => !host.tools.has('domain_lamp__toggle'));
  });

  it('runs calls through registry.invoke as consumer kind webmcp, one invocationId per call, latest surfaceVersion', async () => {
    const host = new CurrentHost();
    const requests: InvokeRequest[] = [];
    const invoke = surface.registry.invoke.bind(surface.registry);
    surface.registry.invoke = (request: InvokeRequest) => {
      requests.push(request);
      return invoke(request);
    };
    await started(host, {}, 'browser-agent');
    const out = content(await host.execute('domain_devices__disable', { id: 'd7' }));
    expect(out).to.deep.equal({ isError: false, body: { disabled: 'd7' } });

    // Something else changes: the disable tool keeps its registration, its calls carry the new version.
    const registrations = host.calls.filter((c) => c === 'register domain_devices__disable').length;
    surface.action('domain:devices.scan', () => ({}), { description: 'Scan.' });
    await waitUntil(() => host.tools.has('domain_devices__scan'));
    await host.execute('domain_devices__disable', { id: 'd8' });
    expect(host.calls.filter((c) => c === 'register domain_devices__disable').length).to.equal(registrations);
    expect(requests).to.have.length(2);
    expect(requests[0]!.consumer).to.deep.equal({ id: 'browser-agent', kind: 'webmcp' });
    expect(requests[0]!.invocationId).not.to.equal(requests[1]!.invocationId);
    expect(requests[1]!.surfaceVersion).to.equal(surface.registry.surfaceVersion);
    expect(requests[0]!.surfaceVersion).not.to.equal(requests[1]!.surfaceVersion);
    const audit = surface.eventsOf('invocation').map((e) => e.consumer.kind);
    expect(audit).to.deep.equal(['webmcp', 'webmcp']);
  });

  it('returns capability errors as isError content with code, retry and details, never a throw', async () => {
    const host = new CurrentHost();
    surface.action('domain:devices.explode', () => {
      throw new Error('secret internal detail');
    }, { description: 'Always fails.' });
    await started(host);
    const invalid = content(await host.execute('domain_devices__rename', { id: 3 }));
    expect(invalid.isError).to.equal(true);
    expect(invalid.body.code).to.equal('INVALID_INPUT');
    expect(invalid.body.retry).to.equal('with-changes');
    expect(invalid.body.details).to.be.an('object');
    const failed = content(await host.execute('domain_devices__explode', {}));
    expect(failed.body.code).to.equal('EXECUTION_FAILED');
    expect(JSON.stringify(failed.body)).not.to.include('secret');
    // A JSON string of an object is read as the object; no input at all as {}.
    expect(content(await host.execute('domain_devices__rename', '{"id":"d2"}')).body).to.deep.equal({ renamed: 'd2' });
    expect(content(await host.execute('domain_devices__list', undefined)).body).to.deep.equal({ devices: ['d1', 'd2'] });
  });

  describe('confirmation inside the call', () => {
    it('waits for the decision and retries once with the same invocationId', async () => {
      const host = new CurrentHost();
      await started(host);
      const call = host.execute('domain_devices__wipe', { id: 'd1' });
      const pending = await surface.nextConfirmation();
      expect(pending.consumer).to.deep.equal({ id: 'agent-1', kind: 'webmcp' });
      expect(pending.input).to.deep.equal({ id: 'd1' });
      surface.registry.confirmations.approve(pending.confirmationId);
      const out = content(await call);
      expect(out).to.deep.equal({ isError: false, body: { wiped: 'd1' } });
      const runs = surface.eventsOf('invocation').filter((e) => e.capabilityId === 'domain:devices.wipe');
      expect(runs.map((e) => e.outcome)).to.deep.equal(['CONFIRMATION_REQUIRED', 'OK']);
      expect(new Set(runs.map((e) => e.invocationId)).size).to.equal(1);
    });

    it('a denial comes back as CONFIRMATION_INVALID and nothing runs', async () => {
      const host = new CurrentHost();
      let ran = 0;
      surface.action('domain:vault.empty', () => ({ ran: ++ran }), { effect: 'destructive', confirmation: 'required', description: 'Empty the vault.' });
      await started(host);
      const call = host.execute('domain_vault__empty', {});
      surface.registry.confirmations.deny((await surface.nextConfirmation()).confirmationId, 'not today');
      const out = content(await call);
      expect(out.isError).to.equal(true);
      expect(out.body.code).to.equal('CONFIRMATION_INVALID');
      expect((out.body.details as JsonObject).reason).to.equal('denied');
      expect(ran).to.equal(0);
    });

    it('the host aborting the call ends the wait, withdraws the request and runs nothing', async () => {
      const host = new CurrentHost();
      let ran = 0;
      surface.action('domain:vault.empty', () => ({ ran: ++ran }), { effect: 'destructive', confirmation: 'required', description: 'Empty the vault.' });
      await started(host);
      const controller = new AbortController();
      const call = host.execute('domain_vault__empty', {}, controller.signal);
      const pending = await surface.nextConfirmation();
      controller.abort();
      const out = content(await call);
      expect(out.body.code).to.equal('CANCELLED');
      expect(surface.registry.confirmations.list().map((c) => c.confirmationId)).not.to.include(pending.confirmationId);
      // Approving now is too late: nothing retries the withdrawn request.
      expect(surface.registry.confirmations.approve(pending.confirmationId)).to.equal(false);
      // Only shows that nothing happens: more time can only make the check stronger.
      // eslint-disable-next-line no-restricted-syntax
      await aTimeout(10);
      expect(ran).to.equal(0);
    });

    it('stop() during the wait answers CONFIRMATION_REQUIRED and runs nothing', async () => {
      const host = new CurrentHost();
      let ran = 0;
      surface.action('domain:vault.empty', () => ({ ran: ++ran }), { effect: 'destructive', confirmation: 'required', description: 'Empty the vault.' });
      const a = await started(host);
      const call = host.execute('domain_vault__empty', {});
      await surface.nextConfirmation();
      await a.stop();
      const out = content(await call);
      expect(out.body.code).to.equal('CONFIRMATION_REQUIRED');
      expect(surface.registry.confirmations.list()).to.deep.equal([]);
      expect(host.names()).to.deep.equal([]);
      expect(ran).to.equal(0);
    });

    it('gives up after confirmationTtlMs with CONFIRMATION_INVALID expired', async () => {
      const host = new CurrentHost();
      await started(host, { confirmationTtlMs: 40 });
      const out = content(await host.execute('domain_devices__wipe', { id: 'd1' }));
      expect(out.body.code).to.equal('CONFIRMATION_INVALID');
      expect((out.body.details as JsonObject).reason).to.equal('expired');
      expect(surface.registry.confirmations.list()).to.deep.equal([]);
    });

    it('runs the confirm hook inside requestUserInteraction on a legacy host', async () => {
      const host = new LegacyHost();
      const asked: string[] = [];
      let interactions = 0;
      const client = {
        async requestUserInteraction<T>(callback: () => T | Promise<T>): Promise<T> {
          interactions += 1;
          return callback();
        },
      };
      await started(host, {
        confirm: (pending) => {
          asked.push(`${pending.capabilityId} ${JSON.stringify(pending.input)}`);
          return pending.input.id === 'd1';
        },
      });
      expect(content(await host.execute('domain_devices__wipe', { id: 'd1' }, client))).to.deep.equal({ isError: false, body: { wiped: 'd1' } });
      const denied = content(await host.execute('domain_devices__wipe', { id: 'd2' }, client));
      expect(denied.body.code).to.equal('CONFIRMATION_INVALID');
      expect(asked).to.deep.equal(['domain:devices.wipe {"id":"d1"}', 'domain:devices.wipe {"id":"d2"}']);
      expect(interactions).to.equal(2);
    });

    it('falls back to waiting when the host UI fails', async () => {
      const host = new LegacyHost();
      const client = {
        async requestUserInteraction<T>(): Promise<T> {
          throw new DOMException('no UI here', 'NotAllowedError');
        },
      };
      await started(host, { confirm: () => true });
      const call = host.execute('domain_devices__wipe', { id: 'd3' }, client);
      surface.registry.confirmations.approve((await surface.nextConfirmation()).confirmationId);
      expect(content(await call).body).to.deep.equal({ wiped: 'd3' });
    });
  });

  it('reports a refused name with console.error and agent-webmcp-conflict, and registers the rest', async () => {
    const host = new CurrentHost();
    host.foreign.add('domain_devices__list');
    const target = new EventTarget();
    const events: WebMcpConflict[] = [];
    const hooked: WebMcpConflict[] = [];
    target.addEventListener(AgentWebMcpConflictEvent.eventName, (e) => events.push((e as AgentWebMcpConflictEvent).detail));
    await started(host, { eventTarget: target, onConflict: (c) => hooked.push(c) });
    expect(host.names()).to.deep.equal(['domain_devices__disable', 'domain_devices__rename', 'domain_devices__wipe']);
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({ name: 'domain_devices__list', capabilityId: 'domain:devices.list', errorName: 'InvalidStateError' });
    expect(hooked).to.deep.equal(events);
    expect(errors.map((e) => String(e[0]))).to.satisfy((m: string[]) => m.some((t) => t.includes('WEBMCP_NAME_REFUSED') && t.includes('domain_devices__list')));
  });

  it('stop() withdraws every tool, unsubscribes, and can run twice; start works again after it', async () => {
    const host = new CurrentHost();
    const a = await started(host);
    await a.stop();
    expect(a.status).to.equal('stopped');
    expect(host.names()).to.deep.equal([]);
    await a.stop();
    const calls = host.calls.length;
    surface.action('domain:late.one', () => ({}), { description: 'Late.' });
    // Only shows that nothing happens: more time can only make the check stronger.
    // eslint-disable-next-line no-restricted-syntax
    await aTimeout(10);
    expect(host.calls.length).to.equal(calls);
    await a.start({ registry: surface.registry });
    expect(host.names()).to.include('domain_late__one');
    expect(a.status).to.equal('active');
  });

  describe('exposedTo', () => {
    const origins = ['https://widget.example', 'http://localhost:9000'];
    let events: WebMcpExposedToRefusal[];
    let hooked: WebMcpExposedToRefusal[];
    const listener = (e: Event) => events.push((e as AgentWebMcpExposedToRefusedEvent).detail);
    beforeEach(() => {
      events = [];
      hooked = [];
      window.addEventListener(AgentWebMcpExposedToRefusedEvent.eventName, listener);
    });
    afterEach(() => window.removeEventListener(AgentWebMcpExposedToRefusedEvent.eventName, listener));
    const refusals = () => errors.map((e) => String(e[0])).filter((t) => t.includes('WEBMCP_EXPOSED_TO_REFUSED'));

    it('is passed with every registration on a host that takes it, and nothing is said', async () => {
      const host = new CurrentHost();
      await started(host, { exposedTo: origins, onExposedToRefused: (r) => hooked.push(r) });
      expect(host.names()).to.have.length(4);
      for (const name of host.names()) expect(host.exposedTo.get(name)).to.deep.equal(origins);
      expect([refusals(), events, hooked]).to.deep.equal([[], [], []]);
      // Without the option, no exposedTo at all.
      await adapter!.stop();
      const plain = new CurrentHost();
      await started(plain);
      for (const name of plain.names()) expect(plain.exposedTo.get(name)).to.equal(undefined);
    });

    it('where the host refuses it, the tools register for this document only and that is said once', async () => {
      const host = new CurrentHost();
      host.refuseExposedTo = 'NotSupportedError';
      await started(host, { exposedTo: origins, onExposedToRefused: (r) => hooked.push(r) });
      expect(host.names()).to.have.length(4);
      for (const name of host.names()) expect(host.exposedTo.get(name)).to.equal(undefined);
      const expected = { exposedTo: origins, errorName: 'NotSupportedError', message: 'Cross-document tool exposure is not supported' };
      expect(events).to.deep.equal([expected]);
      expect(hooked).to.deep.equal([expected]);
      expect(refusals()).to.have.length(1);
      expect(refusals()[0]).to.include('https://widget.example').and.include('this document only');
      // One refused attempt, then no more: later tools go straight without it.
      expect(host.calls.filter((c) => c.includes('exposedTo='))).to.have.length(1);
      surface.action('domain:late.one', () => ({}), { description: 'Late.' });
      await waitUntil(() => host.tools.has('domain_late__one'));
      expect(host.calls.filter((c) => c.includes('exposedTo='))).to.have.length(1);
      expect(events).to.have.length(1);
      expect(errors.filter((e) => String(e[0]).includes('WEBMCP_NAME_REFUSED'))).to.deep.equal([]);
    });

    it('a name refused for itself is a name refusal, not an exposedTo one', async () => {
      const host = new CurrentHost();
      host.foreign.add('domain_devices__list');
      await started(host, { exposedTo: origins });
      expect(host.names()).to.have.length(3);
      for (const name of host.names()) expect(host.exposedTo.get(name)).to.deep.equal(origins);
      expect(refusals()).to.deep.equal([]);
      expect(events).to.deep.equal([]);
      expect(errors.filter((e) => String(e[0]).includes('WEBMCP_NAME_REFUSED'))).to.have.length(1);
    });

    it('older shapes cannot carry it: registered without, said once', async () => {
      for (const Host of [LegacyHost, BatchHost]) {
        events = [];
        errors.length = 0;
        const host = new Host();
        await started(host, { exposedTo: origins });
        expect(host.names()).to.have.length(4);
        expect(events.map((e) => e.errorName)).to.deep.equal(['NotSupportedError']);
        expect(refusals()).to.have.length(1);
        await adapter!.stop();
      }
    });
  });

  describe('stopped means stopped: an execute the host kept runs nothing', () => {
    // Every shape: the host hands back the very tool object it was given; the handler counts runs.
    for (const Host of [CurrentHost, LegacyHost, BatchHost]) {
      it(`${Host.name}: after stop(), a kept execute answers an error result and the handler does not run`, async () => {
        let runs = 0;
        surface.action('domain:door.open', () => ({ opened: ++runs }), { effect: 'local-state', description: 'Open the door.' });
        const host = new Host();
        const a = await started(host);
        const kept = host.tool('domain_door__open');
        // It runs while the adapter is running...
        expect(content(await kept.execute({}, { signal: new AbortController().signal })).body).to.deep.equal({ opened: 1 });
        await a.stop();
        expect(host.names()).to.deep.equal([]);
        // ...and not after, whatever the host does with the reference.
        for (const input of [{}, '{}', undefined]) {
          const result = content(await kept.execute(input, { signal: new AbortController().signal }));
          expect(result.isError).to.equal(true);
          expect(result.body).to.deep.include({ code: 'CAPABILITY_NOT_FOUND', retry: 'after-refresh' });
          expect(result.body.details).to.deep.include({ reason: 'withdrawn' });
        }
        expect(runs).to.equal(1);
        // A restart registers a new tool object; the old one stays dead.
        await a.start({ registry: surface.registry });
        expect(content(await host.tool('domain_door__open').execute({}, { signal: new AbortController().signal })).body).to.deep.equal({ opened: 2 });
        expect(content(await kept.execute({}, { signal: new AbortController().signal })).isError).to.equal(true);
        expect(runs).to.equal(2);
      });
    }

    it('a projection withdrawn by curation or replaced by a new registration runs nothing through its old execute', async () => {
      let runs = 0;
      let exposed = true;
      const handle = surface.action('domain:door.open', () => ({ opened: ++runs }), { effect: 'local-state', description: 'Open the door.' });
      const host = new CurrentHost();
      const a = await started(host, { exposeCapability: (d) => (d.capabilityId === 'domain:door.open' ? exposed : undefined) });
      const kept = host.tool('domain_door__open');
      // Curation hides it while the capability stays available: the old object must not reach it.
      exposed = false;
      handle.update({ note: 'curated away' });
      await waitUntil(() => !host.tools.has('domain_door__open'));
      expect(content(await kept.execute({})).isError).to.equal(true);
      exposed = true;
      handle.update({ note: 'back' });
      await waitUntil(() => host.tools.has('domain_door__open'));
      expect(content(await kept.execute({})).isError).to.equal(true);
      expect(content(await host.tool('domain_door__open').execute({})).body).to.deep.equal({ opened: 1 });
      expect(runs).to.equal(1);
      await a.stop();
    });
  });

  it('a stop() right after start() voids the start: nothing stays registered', async () => {
    const host = new CurrentHost();
    adapter = createWebMcpAdapter({ modelContext: host });
    const starting = adapter.start({ registry: surface.registry });
    const stopped = adapter.stop();
    await starting;
    await stopped;
    expect(adapter.status).to.equal('stopped');
    expect(host.names()).to.deep.equal([]);
    // And a restart right after a stop waits for the withdrawal, then registers everything once.
    const first = adapter.start({ registry: surface.registry });
    await first;
    const again = adapter.stop().then(() => adapter!.start({ registry: surface.registry }));
    await again;
    expect(host.names()).to.have.length(4);
    expect(errors).to.deep.equal([]);
  });

  it('legacy host: registerTool + unregisterTool, incrementally', async () => {
    const host = new LegacyHost();
    const a = await started(host);
    expect(a.shape).to.equal('legacy');
    expect(host.names()).to.have.length(4);
    const handle = surface.action('domain:lamp.on', () => ({}), { description: 'Lamp on.' });
    await waitUntil(() => host.tools.has('domain_lamp__on'));
    handle.update({ available: false });
    await waitUntil(() => !host.tools.has('domain_lamp__on'));
    expect(host.calls.filter((c) => c.includes('lamp'))).to.deep.equal(['register domain_lamp__on', 'unregister domain_lamp__on']);
    await a.stop();
    expect(host.names()).to.deep.equal([]);
    expect(host.calls.some((c) => c.startsWith('provide'))).to.equal(false);
  });

  it('batch host: the whole set through provideContext, clearContext on stop', async () => {
    const host = new BatchHost();
    const a = await started(host);
    expect(a.shape).to.equal('batch');
    expect(host.calls).to.deep.equal(['provide domain_devices__disable,domain_devices__list,domain_devices__rename,domain_devices__wipe']);
    surface.action('domain:lamp.on', () => ({ lit: true }), { description: 'Lamp on.' });
    await waitUntil(() => host.tools.has('domain_lamp__on'));
    expect(content(await host.execute('domain_lamp__on', {})).body).to.deep.equal({ lit: true });
    await a.stop();
    expect(host.calls.at(-1)).to.equal('clear');
    expect(host.names()).to.deep.equal([]);
  });
});
