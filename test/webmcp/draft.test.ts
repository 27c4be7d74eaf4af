import { expect } from '@open-wc/testing';
import { createTestSurface } from '../../src/testing/index.js';
import { createWebMcpAdapter } from '../../src/webmcp/index.js';
import type { ModelContextLike } from '../../src/webmcp/types.js';
import { draftScenario } from './draft-scenario.js';
import { content } from './fake-hosts.js';
import { otherOrigin, peerFrame } from './peer-frame.js';

// The default browser: Chromium 156 with --enable-features=WebMCP (web-test-runner.config.mjs).
describe('the current WebMCP draft on Chromium’s native host', () => {
  it('is the native host', () => {
    const mc = (document as unknown as { modelContext?: object }).modelContext;
    expect(mc?.constructor?.name).to.equal('ModelContext');
    expect('ontoolactivated' in mc! && 'ontoolcancel' in mc!).to.equal(true);
  });

  it('exposedTo really opens the tools to a frame of that origin, and only those tools', async () => {
    const surface = createTestSurface();
    let runs = 0;
    surface.action('domain:devices.rename', () => ({ renamed: ++runs }), { description: 'Rename a device.' });
    const exposed = createWebMcpAdapter({ prefix: 'xo_', exposedTo: [otherOrigin()] });
    const own = createWebMcpAdapter({ prefix: 'own_' });
    const peer = await peerFrame();
    try {
      await exposed.start({ registry: surface.registry });
      await own.start({ registry: surface.registry });
      const seen = await peer.ask();
      expect(seen.error).to.equal(undefined);
      // Only the tool registered with exposedTo reaches the other origin.
      expect(seen.names!.filter((n) => n.endsWith('domain_devices__rename')).sort()).to.deep.equal(['xo_domain_devices__rename']);
      const called = await peer.ask('xo_domain_devices__rename');
      expect(content(called.result).body).to.deep.equal({ renamed: 1 });
      // After stop() the frame sees nothing of it.
      await exposed.stop();
      expect((await peer.ask()).names!.filter((n) => n.startsWith('xo_'))).to.deep.equal([]);
    } finally {
      peer.remove();
      await exposed.stop();
      await own.stop();
      surface.dispose();
    }
  });

  it('in a document whose permissions policy blocks tools, each refusal names the policy, not another script or the prefix', async () => {
    const frame = document.createElement('iframe');
    frame.setAttribute('allow', "tools 'none'");
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    frame.src = '/test/webmcp/fixtures/exposed-peer.html';
    document.body.append(frame);
    await loaded;
    const surface = createTestSurface();
    const originalWarn = console.warn;
    const originalError = console.error;
    const errors: string[] = [];
    console.warn = () => {}; // devAuthority() warns once per capability, by design
    console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
    const adapter = createWebMcpAdapter({
      modelContext: (frame.contentDocument as unknown as { modelContext: ModelContextLike }).modelContext,
      prefix: 'pp_',
      eventTarget: new EventTarget(),
    });
    let names: string[];
    try {
      surface.action('domain:devices.rename', () => ({}), { description: 'Rename a device.' });
      await adapter.start({ registry: surface.registry });
      names = adapter.toolNames();
    } finally {
      console.warn = originalWarn;
      console.error = originalError;
      await adapter.stop();
      surface.dispose();
      frame.remove();
    }
    const refused = errors.filter((e) => e.includes('WEBMCP_NAME_REFUSED'));
    expect(names).to.deep.equal([]);
    expect(refused).to.have.length(1);
    expect(refused[0]).to.contain('NotAllowedError').and.contain('permissions policy').and.contain('allow="tools"');
    expect(refused[0]).to.not.contain('prefix');
  });

  draftScenario({
    host: () => (document as unknown as { modelContext: ModelContextLike }).modelContext,
    refusesExposedTo: undefined,
    keptAnnotations: ['readOnlyHint', 'untrustedContentHint', 'consequentialHint', 'debugging'],
    activityEvents: true,
    executeSignal: true,
    input: (value) => value,
  });
});
