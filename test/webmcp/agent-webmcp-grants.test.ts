// Markup declares a projection, the page's script grants it (issue 13, item 4): an injected
// <agent-webmcp> publishes nothing on a page that never used WebMCP, and cannot borrow another
// projection's consumer id or tool prefix.
import { expect, fixture, html } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { devAuthority } from '../../src/core/authority.js';
import { grantConsumers } from '../../src/core/consumer-grants.js';
import '../../src/elements/index.js';
import type { AgentSurfaceElement, AgentWebMcpElement } from '../../src/elements/index.js';
import { CurrentHost, content } from './fake-hosts.js';

async function page(): Promise<AgentSurfaceElement> {
  const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
    <agent-capability name="devices.list" kind="observation" effect="read" description="List the devices."></agent-capability>
    <agent-capability name="devices.wipe" effect="destructive" confirmation="required" description="Erase a device."></agent-capability>
  </agent-surface>`);
  surface.authority = devAuthority();
  return surface;
}

/** `<agent-webmcp>` as injected markup would bring it (innerHTML), then given a host to watch. */
async function inject(surface: AgentSurfaceElement, attributes: string, host: CurrentHost): Promise<AgentWebMcpElement> {
  const box = document.createElement('div');
  box.innerHTML = `<agent-webmcp ${attributes}></agent-webmcp>`;
  const el = box.querySelector('agent-webmcp')!;
  // The host is injected only so the test can see what would be published; the grant check does not look at it.
  el.modelContext = host;
  surface.append(box);
  await waitUntil(() => el.status !== 'idle' && el.status !== 'starting', `status stayed ${el.status}`);
  await el.settled();
  return el;
}

describe('<agent-webmcp> needs a grant from script', () => {
  const original = { warn: console.warn, error: console.error };
  let errors: string[];
  beforeEach(() => {
    errors = [];
    console.warn = () => {};
    console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
  });
  afterEach(() => {
    console.warn = original.warn;
    console.error = original.error;
  });

  it('publishes nothing from injected markup on a page that never granted WebMCP', async () => {
    const surface = await page();
    const host = new CurrentHost();
    const el = await inject(surface, 'consumer="webmcp" prefix="evil_"', host);
    expect(el.status).to.equal('refused');
    expect(el.getAttribute('status')).to.equal('refused');
    expect(host.names()).to.deep.equal([]);
    expect(host.calls).to.deep.equal([]);
    expect(el.toolNames()).to.deep.equal([]);
    expect(errors.join('\n')).to.contain('WEBMCP_NOT_GRANTED').and.contain('has not granted the "webmcp" projection');
  });

  it('with no host given and the native host on, still publishes nothing', async () => {
    const surface = await page();
    const box = document.createElement('div');
    box.innerHTML = '<agent-webmcp></agent-webmcp>';
    surface.append(box);
    const el = box.querySelector('agent-webmcp')!;
    await waitUntil(() => el.status === 'refused', `status is ${el.status}`);
    expect(el.toolNames()).to.deep.equal([]);
  });

  it('starts once script grants it, with the granted identity and prefix; stops when withdrawn', async () => {
    const surface = await page();
    const host = new CurrentHost();
    const el = await inject(surface, '', host);
    expect(el.status).to.equal('refused');

    surface.consumers = { webmcp: { consumer: 'browser-agent', prefix: 'app_' } };
    await waitUntil(() => el.status === 'active', `status is ${el.status}`);
    await el.settled();
    expect(host.names()).to.deep.equal(['app_domain_devices__list', 'app_domain_devices__wipe']);
    const seen: string[] = [];
    surface.registry!.on('confirmation', (e) => seen.push(`${e.confirmation.consumer.id}/${e.confirmation.consumer.kind}`));
    const pending = host.execute('app_domain_devices__wipe', {});
    await waitUntil(() => seen.length === 1);
    expect(seen).to.deep.equal(['browser-agent/webmcp']);
    surface.registry!.confirmations.deny(surface.registry!.confirmations.list()[0]!.confirmationId);
    expect(content(await pending).body.code).to.equal('CONFIRMATION_INVALID');

    surface.consumers = undefined;
    await waitUntil(() => el.status === 'refused', `status is ${el.status}`);
    await el.settled();
    expect(host.names()).to.deep.equal([]);
  });

  it('markup cannot borrow another consumer id or prefix than the granted ones', async () => {
    const surface = await page();
    surface.consumers = { webmcp: { prefix: 'app_' }, chat: { consumer: 'panel' } };
    const host = new CurrentHost();
    const borrowed = await inject(surface, 'consumer="panel"', host);
    expect(borrowed.status).to.equal('refused');
    expect(errors.join('\n')).to.contain('consumer "panel" is not the one granted to "webmcp"');
    const renamed = await inject(surface, 'prefix="evil_"', host);
    expect(renamed.status).to.equal('refused');
    expect(host.names()).to.deep.equal([]);

    // Repeating the grant is fine: the page's own markup.
    const own = await inject(surface, 'consumer="webmcp" prefix="app_"', host);
    expect(own.status).to.equal('active');
    expect(host.names()).to.deep.equal(['app_domain_devices__list', 'app_domain_devices__wipe']);
    own.remove();
    await own.settled();
  });

  it('enable() from script vouches for one element; grantConsumers works without a surface', async () => {
    const surface = await page();
    const host = new CurrentHost();
    const el = await inject(surface, 'consumer="sidebar" prefix="s_"', host);
    expect(el.status).to.equal('refused');
    el.enable();
    await waitUntil(() => el.status === 'active', `status is ${el.status}`);
    expect(host.names()).to.deep.equal(['s_domain_devices__list', 's_domain_devices__wipe']);
    el.remove();
    await el.settled();

    const registry = surface.registry!;
    const bare = document.createElement('agent-webmcp');
    bare.registry = registry;
    bare.modelContext = host;
    document.body.append(bare);
    try {
      await waitUntil(() => bare.status === 'refused', `status is ${bare.status}`);
      grantConsumers(registry, { webmcp: true });
      bare.requestUpdate();
      await waitUntil(() => bare.status === 'active', `status is ${bare.status}`);
    } finally {
      bare.remove();
      await bare.settled();
      grantConsumers(registry, undefined);
    }
  });
  describe('exposed-to: opening the tools to other origins is granted by script too', () => {
    it('an exposed-to the grant does not list is refused, on a page that granted WebMCP', async () => {
      const surface = await page();
      surface.consumers = { webmcp: {} };
      const host = new CurrentHost();
      const el = await inject(surface, 'exposed-to="https://evil.example"', host);
      expect(el.status).to.equal('refused');
      expect(host.calls).to.deep.equal([]);
      expect(errors.join('\n')).to.contain('WEBMCP_NOT_GRANTED').and.contain('exposed-to "https://evil.example" is not an origin granted');
    });

    it('granted origins: the attribute may list them (any URL of the origin) or fewer; absent, the grant’s list is used', async () => {
      const surface = await page();
      surface.consumers = { webmcp: { exposedTo: ['https://widget.example', 'https://help.example'] } };
      const host = new CurrentHost();
      const el = await inject(surface, 'exposed-to="https://widget.example/chat"', host);
      expect(el.status).to.equal('active');
      expect(host.names()).to.have.length(2);
      for (const name of host.names()) expect(host.exposedTo.get(name)).to.deep.equal(['https://widget.example']);
      // One more than granted: refused.
      el.setAttribute('exposed-to', 'https://widget.example, https://evil.example');
      await waitUntil(() => el.status === 'refused', `status ${el.status}`);
      expect(host.names()).to.deep.equal([]);
      // No attribute: what the grant lists.
      el.removeAttribute('exposed-to');
      await waitUntil(() => el.status === 'active', `status ${el.status}`);
      await el.settled();
      for (const name of host.names()) expect(host.exposedTo.get(name)).to.deep.equal(['https://widget.example', 'https://help.example']);
    });

    it('more origins than a registration may carry (32) publishes nothing and says why, instead of leaving some out unsaid', async () => {
      const surface = await page();
      const origins = Array.from({ length: 33 }, (_, i) => `https://o${i}.example`);
      surface.consumers = { webmcp: { exposedTo: origins } };
      const host = new CurrentHost();
      const el = await inject(surface, '', host);
      expect(el.status).to.equal('error');
      expect(host.names()).to.deep.equal([]);
      expect(errors.join('\n')).to.contain('WEBMCP_CONFIG').and.contain('up to 32');
      // 32 are fine, each tool carries all of them.
      surface.consumers = { webmcp: { exposedTo: origins.slice(0, 32) } };
      await waitUntil(() => el.status === 'active', `status ${el.status}`);
      await el.settled();
      for (const name of host.names()) expect(host.exposedTo.get(name)).to.deep.equal(origins.slice(0, 32));
    });

    it('enable() vouches for the attribute as written, and a host refusing it is said on the element', async () => {
      const surface = await page();
      const host = new CurrentHost();
      host.refuseExposedTo = 'NotSupportedError';
      const box = document.createElement('div');
      box.innerHTML = '<agent-webmcp exposed-to="https://partner.example"></agent-webmcp>';
      const el = box.querySelector('agent-webmcp')!;
      el.modelContext = host;
      const said: unknown[] = [];
      el.addEventListener('agent-webmcp-exposed-to-refused', (e) => said.push(e.detail));
      el.enable();
      surface.append(box);
      await waitUntil(() => el.status === 'active', `status ${el.status}`);
      await el.settled();
      expect(host.names()).to.have.length(2);
      expect(said).to.deep.equal([{ exposedTo: ['https://partner.example'], errorName: 'NotSupportedError', message: 'Cross-document tool exposure is not supported' }]);
      expect(errors.join('\n')).to.contain('WEBMCP_EXPOSED_TO_REFUSED');
    });
  });
});
