import { expect, fixture, html } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import type { AgentSurfaceElement, AgentWebMcpElement } from '../../src/elements/index.js';
import { ToolSourceError, createWebMcpSource, detectModelContext } from '../../src/webmcp/index.js';
import { LegacyHost } from './fake-hosts.js';

// Runs in the `webmcp-polyfill` group: a Chromium without the WebMCP flag and, in this file, without
// the polyfill either: a browser with no WebMCP host at all.
const nativeHost = (document as unknown as { modelContext?: unknown }).modelContext !== undefined;

// In the default browser the native host owns document.modelContext: this file belongs to the other group.
// (mocha's describe.skip; the shared globals in test/elements/mocha-globals.d.ts declare describe only)
const suite = nativeHost ? (describe as typeof describe & { skip: typeof describe }).skip : describe;

suite('a browser without any WebMCP host', () => {
  const originalWarn = console.warn;
  beforeEach(() => {
    console.warn = () => {};
  });
  afterEach(() => {
    console.warn = originalWarn;
  });

  it('detects nothing, and <agent-webmcp> reflects status="unsupported"', async () => {
    expect(detectModelContext()).to.equal(undefined);
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name="lamp.on" effect="local-state" description="Turn the lamp on."></agent-capability>
      <agent-webmcp></agent-webmcp>
    </agent-surface>`);
    surface.authority = devAuthority();
    surface.consumers = { webmcp: true };
    const el = surface.querySelector<AgentWebMcpElement>('agent-webmcp')!;
    await waitUntil(() => el.status === 'unsupported', `status is ${el.status}`);
    expect(el.getAttribute('status')).to.equal('unsupported');
    expect(el.toolNames()).to.deep.equal([]);
  });

  it('createWebMcpSource constructs, and its first discover throws UNSUPPORTED_WEBMCP', async () => {
    const source = createWebMcpSource();
    const error = await source.discover().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ToolSourceError);
    expect((error as ToolSourceError).code).to.equal('UNSUPPORTED_WEBMCP');
  });

  it('falls back to navigator.modelContext (older previews) when document has none', async () => {
    const legacy = new LegacyHost();
    Object.defineProperty(navigator, 'modelContext', { configurable: true, get: () => legacy });
    try {
      expect(detectModelContext()).to.equal(legacy);
      const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
        <agent-capability name="lamp.on" effect="local-state" description="Turn the lamp on."></agent-capability>
        <agent-webmcp></agent-webmcp>
      </agent-surface>`);
      surface.authority = devAuthority();
      surface.consumers = { webmcp: true };
      const el = surface.querySelector<AgentWebMcpElement>('agent-webmcp')!;
      await waitUntil(() => el.status === 'active', `status is ${el.status}`);
      expect(legacy.names()).to.deep.equal(['domain_lamp__on']);
      el.remove();
      await el.settled();
      expect(legacy.calls).to.deep.equal(['register domain_lamp__on', 'unregister domain_lamp__on']);
    } finally {
      delete (navigator as unknown as { modelContext?: unknown }).modelContext;
    }
  });
});
