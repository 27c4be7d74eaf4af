import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { devAuthority } from '../../src/core/authority.js';
import { grantConsumers } from '../../src/core/consumer-grants.js';
import { createTestSurface } from '../../src/testing/index.js';
import '../../src/elements/index.js';
import type { AgentSurfaceElement, AgentWebMcpElement } from '../../src/elements/index.js';
import { CurrentHost, content } from './fake-hosts.js';

async function surfaceWithWebMcp(host: CurrentHost | null, attrs: Record<string, string> = {}) {
  const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
    <agent-capability name="devices.list" kind="observation" effect="read" description="List the devices."></agent-capability>
    <agent-capability name="settings.theme" effect="local-state" description="Switch the theme."></agent-capability>
    <agent-capability name="devices.wipe" effect="destructive" confirmation="required" description="Erase a device."></agent-capability>
  </agent-surface>`);
  surface.authority = devAuthority();
  const el = document.createElement('agent-webmcp');
  el.enable(); // the page's script vouches for it
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.modelContext = host;
  surface.append(el);
  await waitUntil(() => el.status !== 'idle' && el.status !== 'starting', `status stayed ${el.status}`);
  return { surface, el };
}

describe('<agent-webmcp>', () => {
  const originalWarn = console.warn;
  beforeEach(() => {
    console.warn = () => {}; // devAuthority() warns once per capability, by design
  });
  afterEach(() => {
    console.warn = originalWarn;
  });

  it('reflects status="unsupported" where there is no host, and does nothing', async () => {
    const { el } = await surfaceWithWebMcp(null);
    expect(el.status).to.equal('unsupported');
    expect(el.getAttribute('status')).to.equal('unsupported');
    expect(el.toolNames()).to.deep.equal([]);
    el.remove();
    await el.settled();
  });

  it('consumes the surface’s registry, restarts on attribute changes and stops on disconnect', async () => {
    const host = new CurrentHost();
    const { el } = await surfaceWithWebMcp(host, { prefix: 'a_' });
    expect(el.getAttribute('status')).to.equal('active');
    expect(host.names()).to.deep.equal(['a_domain_devices__list', 'a_domain_devices__wipe', 'a_domain_settings__theme']);

    el.setAttribute('prefix', 'b_');
    el.setAttribute('scope', 'devices');
    await el.settled();
    expect(host.names()).to.deep.equal(['b_domain_devices__list', 'b_domain_devices__wipe']);
    expect(el.toolNames()).to.deep.equal(host.names());

    el.remove();
    await el.settled();
    expect(host.names()).to.deep.equal([]);
    expect(el.getAttribute('status')).to.equal('stopped');

    // Connected again: registers again.
    document.querySelector('agent-surface')!.append(el);
    await waitUntil(() => el.status === 'active');
    await el.settled();
    expect(host.names()).to.deep.equal(['b_domain_devices__list', 'b_domain_devices__wipe']);
    el.remove();
    await el.settled();
  });

  it('calls carry the consumer attribute, kind webmcp; confirmation-ttl bounds the wait', async () => {
    const host = new CurrentHost();
    const { surface, el } = await surfaceWithWebMcp(host, { consumer: 'sidebar-agent', 'confirmation-ttl': '60' });
    const seen: string[] = [];
    surface.registry!.on('confirmation', (e) => seen.push(`${e.action} ${e.confirmation.consumer.id}/${e.confirmation.consumer.kind}`));
    const out = content(await host.execute('domain_devices__wipe', {}));
    expect(out.body.code).to.equal('CONFIRMATION_INVALID');
    expect((out.body.details as { reason: string }).reason).to.equal('expired');
    expect(seen[0]).to.equal('created sidebar-agent/webmcp');
    el.remove();
    await el.settled();
  });

  it('fires agent-webmcp-conflict from the element for a refused name and registers the rest', async () => {
    const host = new CurrentHost();
    host.foreign.add('domain_settings__theme');
    const errors: string[] = [];
    const originalError = console.error;
    console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
    try {
      const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
        <agent-capability name="settings.theme" effect="local-state" description="Switch the theme."></agent-capability>
        <agent-capability name="settings.font" effect="local-state" description="Pick a font."></agent-capability>
      </agent-surface>`);
      surface.authority = devAuthority();
      const el = document.createElement('agent-webmcp');
      el.enable(); // the page's script vouches for it
      el.modelContext = host;
      const conflict = oneEvent(surface, 'agent-webmcp-conflict');
      surface.append(el);
      const event = await conflict;
      expect(event.detail).to.deep.include({ name: 'domain_settings__theme', capabilityId: 'domain:settings.theme', errorName: 'InvalidStateError' });
      await el.settled();
      expect(host.names()).to.deep.equal(['domain_settings__font']);
      expect(errors.some((e) => e.includes('domain_settings__theme'))).to.equal(true);
      el.remove();
      await el.settled();
    } finally {
      console.error = originalError;
    }
  });

  it('connecting and disconnecting at once leaves nothing registered', async () => {
    const host = new CurrentHost();
    const test = createTestSurface();
    test.action('domain:lamp.on', () => ({ on: true }), { description: 'Turn the lamp on.' });
    const el = document.createElement('agent-webmcp');
    el.enable(); // the page's script vouches for it
    el.modelContext = host;
    el.registry = test.registry;
    document.body.append(el);
    await el.updateComplete;
    el.remove();
    await el.settled();
    expect(host.names()).to.deep.equal([]);
    document.body.append(el);
    await waitUntil(() => el.status === 'active');
    await el.settled();
    expect(host.names()).to.deep.equal(['domain_lamp__on']);
    el.remove();
    await el.settled();
    expect(host.names()).to.deep.equal([]);
    test.dispose();
  });

  it('a bad option logs WEBMCP_CONFIG, reflects status="error" and registers nothing; a fix starts it', async () => {
    const originalError = console.error;
    const errors: string[] = [];
    console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
    try {
      const test = createTestSurface();
      test.action('domain:lamp.on', () => ({ on: true }), { description: 'Turn the lamp on.' });
      const host = new CurrentHost();
      const el = document.createElement('agent-webmcp');
      el.enable(); // the page's script vouches for it
      el.setAttribute('prefix', 'not a prefix!');
      el.modelContext = host;
      el.registry = test.registry;
      document.body.append(el);
      await el.settled();
      expect(el.getAttribute('status')).to.equal('error');
      expect(errors.some((e) => e.includes('WEBMCP_CONFIG') && e.includes('prefix'))).to.equal(true);
      expect(host.names()).to.deep.equal([]);
      el.setAttribute('prefix', 'ok_');
      await waitUntil(() => el.status === 'active');
      expect(host.names()).to.deep.equal(['ok_domain_lamp__on']);
      el.remove();
      await el.settled();
      test.dispose();
    } finally {
      console.error = originalError;
    }
  });

  it('takes a registry from the .registry property without any <agent-surface>', async () => {
    const test = createTestSurface();
    test.action('domain:lamp.on', () => ({ on: true }), { description: 'Turn the lamp on.' });
    const host = new CurrentHost();
    grantConsumers(test.registry, { webmcp: true });
    const el = await fixture<AgentWebMcpElement>(html`<agent-webmcp .modelContext=${host} .registry=${test.registry}></agent-webmcp>`);
    await waitUntil(() => el.status === 'active');
    expect(host.names()).to.deep.equal(['domain_lamp__on']);
    expect(content(await host.execute('domain_lamp__on', {})).body).to.deep.equal({ on: true });
    el.remove();
    await el.settled();
    expect(host.names()).to.deep.equal([]);
    test.dispose();
  });
});
