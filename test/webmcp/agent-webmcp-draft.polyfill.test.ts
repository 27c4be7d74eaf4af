// agent-webmcp-draft.test.ts's page on the @mcp-b polyfill, a host that refuses `exposedTo` and drops
// `consequentialHint`: the element registers for this document only and says so once, and a tool
// source reading the page's tools back reports the dropped hint as not known, never as false.
import { expect, fixture, html } from '@open-wc/testing';
import { initializeWebMCPPolyfill } from '@mcp-b/webmcp-polyfill';
import { waitUntil } from '../until.js';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import type { AgentCapabilityElement, AgentSurfaceElement, AgentWebMcpElement } from '../../src/elements/index.js';
import { createWebMcpSource } from '../../src/webmcp/index.js';
import type { ModelContextLike, RegisteredTool, WebMcpExposedToRefusal } from '../../src/webmcp/types.js';

// Runs in the `webmcp-polyfill` group: a Chromium without the WebMCP flag (web-test-runner.config.mjs).
const nativeHost = (document as unknown as { modelContext?: unknown }).modelContext !== undefined;
if (!nativeHost) initializeWebMCPPolyfill();
// In the default browser the native host owns document.modelContext: this file belongs to the other group.
const suite = nativeHost ? (describe as typeof describe & { skip: typeof describe }).skip : describe;
const host = () => (document as unknown as { modelContext: ModelContextLike }).modelContext;

suite('<agent-webmcp> on the @mcp-b polyfill: exposed-to refused, a dropped hint not known', () => {
  const original = { warn: console.warn, error: console.error };
  let errors: string[];
  let el: AgentWebMcpElement | undefined;
  beforeEach(() => {
    errors = [];
    console.warn = () => {};
    console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
  });
  afterEach(async () => {
    el?.remove();
    await el?.settled();
    el = undefined;
    console.warn = original.warn;
    console.error = original.error;
  });

  it('registers the tools for this document only, says once that the host refused exposed-to, and a source reads consequential as not known', async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name="devices.rename" effect="local-state" title="Rename a device" description="Give a device a new name."></agent-capability>
      <agent-capability name="devices.setPower" effect="server-mutation" description="Turn a device on or off."></agent-capability>
    </agent-surface>`);
    for (const cap of surface.querySelectorAll<AgentCapabilityElement>('agent-capability')) cap.handler = () => ({});
    surface.authority = devAuthority();
    surface.consumers = { webmcp: { prefix: 'pf_', exposedTo: ['https://widget.example'] } };
    // The capabilities register once the authority is set (a lazy chunk, an async check): the adapter
    // starting first would publish none of them yet, and settled() would have nothing to wait for.
    await waitUntil(() => surface.registry?.snapshot({ consumer: { id: 'test', kind: 'embedded' } }).capabilities.length === 2, 'the capabilities never registered');
    const box = document.createElement('div');
    box.innerHTML = '<agent-webmcp prefix="pf_" exposed-to="https://widget.example"></agent-webmcp>';
    el = box.querySelector('agent-webmcp')!;
    const said: WebMcpExposedToRefusal[] = [];
    el.addEventListener('agent-webmcp-exposed-to-refused', (event) => said.push(event.detail));
    surface.append(box);
    await waitUntil(() => el!.status === 'active', `<agent-webmcp> is ${el!.status}`);
    await el.settled();

    const listed = ((await host().getTools!()) as RegisteredTool[]).filter((t) => t.name.startsWith('pf_'));
    expect(listed.map((t) => t.name).sort()).to.deep.equal(['pf_domain_devices__rename', 'pf_domain_devices__setPower']);
    expect(said.map((r) => [r.errorName, r.exposedTo])).to.deep.equal([['NotSupportedError', ['https://widget.example']]]);
    expect(errors.filter((e) => e.includes('WEBMCP_EXPOSED_TO_REFUSED'))).to.have.length(1);

    // The adapter marked setPower consequential; this host dropped the hint, so nothing is known of it.
    const source = createWebMcpSource();
    try {
      const tools = new Map((await source.discover()).tools.map((t) => [t.name, t]));
      expect(tools.get('pf_domain_devices__setPower')!.consequential).to.equal(undefined);
      expect(tools.get('pf_domain_devices__rename')!.consequential).to.equal(undefined);
      expect(tools.get('pf_domain_devices__rename')!.readOnly).to.equal(false);
      // Titles come through this host too.
      expect(tools.get('pf_domain_devices__rename')!.title).to.equal('Rename a device');
      expect(tools.get('pf_domain_devices__setPower')!.title).to.equal('Devices: set power');
    } finally {
      source.dispose();
    }
  });
});
