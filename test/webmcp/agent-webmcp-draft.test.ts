// Issue 12 items 8 and 9 as people meet them on Chromium's native WebMCP host: a page's markup with
// <agent-webmcp> (the user), the tools an agent lists over the DevTools WebMCP domain and reads back
// with createWebMcpSource (the browser agent), and markup injected into the page (the attacker).
// draft-scenario.ts holds the same sentences for the adapter alone, on both hosts.
import { expect, fixture, html } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import type { AgentCapabilityElement, AgentSurfaceElement, AgentWebMcpElement } from '../../src/elements/index.js';
import type { ConsumerGrant } from '../../src/core/consumer-grants.js';
import { createWebMcpSource } from '../../src/webmcp/index.js';
import type { ModelContextLike, RegisteredTool, WebMcpExposedToRefusal } from '../../src/webmcp/types.js';
import { agent } from './agent.js';
import { content } from './fake-hosts.js';
import { otherOrigin, peerFrame } from './peer-frame.js';

const nativeHost = () => (document as unknown as { modelContext: ModelContextLike }).modelContext;
let pages = 0;

describe('<agent-webmcp> on Chromium’s native host: titles, debugging, exposed-to', () => {
  const original = { warn: console.warn, error: console.error };
  let errors: string[];
  let prefix: string;
  let el: AgentWebMcpElement | undefined;

  beforeEach(() => {
    errors = [];
    console.warn = () => {}; // devAuthority() warns once per capability, by design
    console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
    prefix = `aw${++pages}_`;
  });
  afterEach(async () => {
    el?.remove();
    await el?.settled();
    el = undefined;
    console.warn = original.warn;
    console.error = original.error;
  });

  /** The host's own list of this test's tools. */
  const listed = async () => ((await nativeHost().getTools!()) as RegisteredTool[]).filter((t) => t.name.startsWith(prefix));

  /**
   * A page with three capabilities (one titled, one consequential, one in a row view), the grant its
   * script gives, and `<agent-webmcp attributes>` arriving as markup does (parsed, then inserted).
   */
  async function page(grant: ConsumerGrant, attributes: string, before?: (el: AgentWebMcpElement) => void): Promise<AgentWebMcpElement> {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name="devices.rename" effect="local-state" title="Rename a device" description="Give a device a new name."></agent-capability>
      <agent-capability name="devices.setPower" effect="server-mutation" description="Turn a device on or off."></agent-capability>
      <agent-view name="devices.row" instance="kitchen">
        <agent-capability name="select" effect="local-state" description="Select this device row."></agent-capability>
      </agent-view>
    </agent-surface>`);
    for (const cap of surface.querySelectorAll<AgentCapabilityElement>('agent-capability')) cap.handler = () => ({ ran: cap.getAttribute('name') });
    surface.authority = devAuthority();
    surface.consumers = { webmcp: grant };
    // The capabilities register once the authority is set (a lazy chunk, an async check): the adapter
    // starting first would publish none of them yet, and settled() would have nothing to wait for.
    await waitUntil(() => surface.registry?.snapshot({ consumer: { id: 'test', kind: 'embedded' } }).capabilities.length === 3, 'the capabilities never registered');
    const box = document.createElement('div');
    box.innerHTML = `<agent-webmcp ${attributes}></agent-webmcp>`;
    el = box.querySelector('agent-webmcp')!;
    before?.(el);
    surface.append(box);
    await waitUntil(() => el!.status !== 'idle' && el!.status !== 'starting', `<agent-webmcp> stayed ${el.status}`);
    await el.settled();
    return el;
  }

  it('titles each tool (the contract’s title, else a readable id, a row’s instance quoted) and marks it debugging: false, as the host, an agent over DevTools and a tool source read them', async () => {
    await agent.enable();
    const webmcp = await page({ prefix }, `prefix="${prefix}"`);
    expect(webmcp.status).to.equal('active');
    const names = webmcp.toolNames();
    expect(names).to.have.length(3);
    const rename = names.find((n) => n.endsWith('domain_devices__rename'))!;
    const power = names.find((n) => n.endsWith('domain_devices__setPower'))!;
    const row = names.find((n) => n.includes('select'))!;

    // What the host keeps and lists.
    const titles = Object.fromEntries((await listed()).map((t) => [t.name, t.title]));
    expect(titles).to.deep.equal({ [rename]: 'Rename a device', [power]: 'Devices: set power', [row]: 'Devices row: select ("kitchen")' });

    // What an agent driving the browser lists: every tool for end users (debugging false), the hints from the contract.
    await agent.waitForNames(names, (n) => n.startsWith(prefix));
    const seen = new Map((await agent.tools()).map((t) => [t.name, t]));
    for (const name of names) expect(seen.get(name)!.annotations?.debugging, name).to.equal(false);
    expect(seen.get(power)!.annotations?.consequential).to.equal(true);
    expect(seen.get(rename)!.annotations?.consequential).to.equal(false);

    // What a page-side agent reads back through createWebMcpSource: the same titles and hints, and
    // the tools are not left out as developer tooling.
    const source = createWebMcpSource();
    try {
      const tools = new Map((await source.discover()).tools.map((t) => [t.name, t]));
      expect(names.map((n) => tools.get(n)?.title)).to.deep.equal(names.map((n) => titles[n]));
      expect(tools.get(power)!.consequential).to.equal(true);
      expect(tools.get(rename)!.consequential).to.equal(false);
      expect(tools.get(rename)!.readOnly).to.equal(false);
    } finally {
      source.dispose();
    }
  });

  it('exposed-to hands the host exposedTo: a frame of that origin sees and calls the tools; rewritten to an origin the grant does not list, everything is withdrawn', async () => {
    const peer = await peerFrame();
    try {
      // Any URL of a granted origin names that origin.
      const webmcp = await page({ prefix, exposedTo: [otherOrigin()] }, `prefix="${prefix}" exposed-to="${otherOrigin()}/help/chat"`);
      expect(webmcp.status).to.equal('active');
      const seen = await peer.ask();
      expect(seen.error).to.equal(undefined);
      expect(seen.names!.filter((n) => n.startsWith(prefix)).sort()).to.deep.equal(webmcp.toolNames());
      const called = await peer.ask(`${prefix}domain_devices__rename`);
      expect(content(called.result).body).to.deep.equal({ ran: 'devices.rename' });
      expect(errors.filter((e) => e.includes('WEBMCP_EXPOSED_TO_REFUSED'))).to.deep.equal([]);

      // Injected script or markup rewrites the attribute to its own origin: nothing stays published.
      webmcp.setAttribute('exposed-to', 'https://evil.example');
      await waitUntil(() => webmcp.status === 'refused', `status ${webmcp.status}`);
      await webmcp.settled();
      expect(await listed()).to.deep.equal([]);
      expect((await peer.ask()).names!.filter((n) => n.startsWith(prefix))).to.deep.equal([]);
      expect(errors.join('\n')).to.contain('WEBMCP_NOT_GRANTED').and.contain('"https://evil.example" is not an origin granted');
    } finally {
      peer.remove();
    }
  });

  it('where the host refuses exposedTo (an origin that is not potentially trustworthy), the tools are this document’s only and the element says so once', async () => {
    const said: WebMcpExposedToRefusal[] = [];
    const webmcp = await page({ prefix, exposedTo: ['http://widget.example'] }, `prefix="${prefix}" exposed-to="http://widget.example"`, (e) =>
      e.addEventListener('agent-webmcp-exposed-to-refused', (event) => said.push(event.detail)),
    );
    expect(webmcp.status).to.equal('active');
    expect((await listed()).map((t) => t.name).sort()).to.deep.equal(webmcp.toolNames());
    expect(webmcp.toolNames()).to.have.length(3);
    expect(said.map((r) => [r.errorName, r.exposedTo])).to.deep.equal([['SecurityError', ['http://widget.example']]]);
    expect(errors.filter((e) => e.includes('WEBMCP_EXPOSED_TO_REFUSED'))).to.have.length(1);
    expect(errors.find((e) => e.includes('WEBMCP_EXPOSED_TO_REFUSED'))).to.contain('registered for this document only');
  });

  it('injected <agent-webmcp exposed-to> on a page whose grant opens no origin publishes nothing, to the page or to any frame', async () => {
    const peer = await peerFrame();
    try {
      const webmcp = await page({ prefix }, `prefix="${prefix}" exposed-to="${otherOrigin()}"`);
      expect(webmcp.status).to.equal('refused');
      expect(webmcp.toolNames()).to.deep.equal([]);
      expect(await listed()).to.deep.equal([]);
      expect((await peer.ask()).names!.filter((n) => n.startsWith(prefix))).to.deep.equal([]);
    } finally {
      peer.remove();
    }
  });
});
