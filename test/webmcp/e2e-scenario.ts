/**
 * End to end: <agent-surface> + <agent-capability> + <agent-webmcp> + <agent-confirm> on a real page,
 * with a test playing the browser agent through a driver for each host (native over DevTools,
 * @mcp-b polyfill through executeTool, an injected legacy host through its tools' execute).
 */
import { aTimeout, expect, fixture, html } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { sendMouse } from '@web/test-runner-commands';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import type { AgentCapabilityElement, AgentConfirmElement, AgentSurfaceElement, AgentWebMcpElement } from '../../src/elements/index.js';
import type { ModelContextLike } from '../../src/webmcp/types.js';

export interface DrivenTool {
  description: string;
  inputSchema?: unknown;
  annotations: { readOnly?: boolean; consequential?: boolean; untrustedContent?: boolean };
}

export interface DrivenCall {
  /** The MCP content the agent got, text parsed as JSON. */
  result(): Promise<{ isError: boolean; body: Record<string, unknown> }>;
}

export interface AgentDriver {
  /** Before each test (enable the DevTools domain, …). */
  setup?(): Promise<void>;
  /** The tools the host lists now whose names start with `prefix`, sorted. */
  names(prefix: string): Promise<string[]>;
  tool(name: string): Promise<DrivenTool>;
  call(name: string, input: unknown): Promise<DrivenCall>;
  /** Cancels a call the way the agent would (native host only). */
  cancel?(call: DrivenCall): Promise<void>;
  /** Host registration traffic since `mark()`: `+name` / `-name`, when the driver can see it. */
  mark?(): Promise<void>;
  traffic?(): Promise<string[]>;
  /** What the host keeps of our hints. */
  keeps: { consequential: boolean; untrustedContent: boolean };
  /** Passed to <agent-webmcp> as `.modelContext` (injected hosts). */
  modelContext?: () => ModelContextLike;
}

const idSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false };
const renameSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string', minLength: 1 } },
  required: ['id', 'name'],
  additionalProperties: false,
};

let page = 0;

export function e2eScenario(driver: AgentDriver): void {
  let surface: AgentSurfaceElement;
  let webmcp: AgentWebMcpElement;
  let confirm: AgentConfirmElement;
  let ran: string[];
  let prefix: string;
  const originalWarn = console.warn;

  const cap = (name: string) => surface.querySelector<AgentCapabilityElement>(`agent-capability[name="${name}"]`)!;
  const names = () => driver.names(prefix);

  beforeEach(async () => {
    console.warn = () => {}; // devAuthority() warns once per capability, by design
    await driver.setup?.();
    ran = [];
    // A fresh prefix per test: names from a previous page never mix with this one's.
    prefix = `e2e${++page}_`;
    surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name="devices.list" kind="observation" effect="read" description="List the devices."></agent-capability>
      <agent-capability name="devices.rename" effect="local-state" description="Rename a device.">
        <script type="application/schema+json">
          {"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string","minLength":1}},"required":["id","name"],"additionalProperties":false}
        </script>
      </agent-capability>
      <agent-capability name="devices.wipe" effect="destructive" confirmation="required" description="Erase a device.">
        <script type="application/schema+json">{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}</script>
      </agent-capability>
      <agent-confirm activation-delay="150"></agent-confirm>
    </agent-surface>`);
    cap('devices.list').read = () => ({ devices: ['d1', 'd2'] });
    cap('devices.rename').handler = (input) => {
      ran.push(`rename ${String(input.id)}`);
      return { renamed: input.id, to: input.name };
    };
    cap('devices.wipe').handler = (input) => {
      ran.push(`wipe ${String(input.id)}`);
      return { wiped: input.id };
    };
    confirm = surface.querySelector('agent-confirm')!;
    surface.authority = devAuthority();
    // The page's script grants WebMCP, and the identity the markup below asks for.
    surface.consumers = { webmcp: { consumer: 'browser-agent', prefix } };
    webmcp = document.createElement('agent-webmcp');
    webmcp.setAttribute('prefix', prefix);
    webmcp.setAttribute('consumer', 'browser-agent');
    if (driver.modelContext) webmcp.modelContext = driver.modelContext();
    surface.append(webmcp);
    await waitUntil(() => webmcp.status === 'active', `<agent-webmcp> became ${webmcp.status}`);
  });

  afterEach(async () => {
    webmcp.remove();
    await webmcp.settled();
    console.warn = originalWarn;
  });

  /** The approve or deny button of the only pending request, once it accepts input. */
  async function button(which: 'approve' | 'deny'): Promise<HTMLButtonElement> {
    let found: HTMLButtonElement | null = null;
    await waitUntil(
      () => {
        found = confirm.shadowRoot?.querySelector<HTMLButtonElement>(`[part~="${which}"]`) ?? null;
        return found?.getAttribute('aria-disabled') === 'false';
      },
      `the ${which} button never became active`,
      { timeout: 4000 },
    );
    return found!;
  }

  /** A real, trusted click at the button's centre, the way a person clicks. */
  async function click(element: HTMLElement): Promise<void> {
    const r = element.getBoundingClientRect();
    await sendMouse({ type: 'click', position: [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)] });
  }

  it('lists one tool per capability with wire names, schemas and contract hints', async () => {
    await waitUntil(async () => (await names()).length === 3, 'three tools are listed');
    expect(await names()).to.deep.equal([`${prefix}domain_devices__list`, `${prefix}domain_devices__rename`, `${prefix}domain_devices__wipe`]);
    expect(webmcp.getAttribute('status')).to.equal('active');
    expect(webmcp.toolNames()).to.deep.equal(await names());

    const list = await driver.tool(`${prefix}domain_devices__list`);
    expect(list.description).to.equal('List the devices.');
    expect(list.annotations.readOnly).to.equal(true);
    const rename = await driver.tool(`${prefix}domain_devices__rename`);
    expect(rename.inputSchema).to.deep.equal(renameSchema);
    expect(rename.annotations.readOnly).to.equal(false);
    const wipe = await driver.tool(`${prefix}domain_devices__wipe`);
    expect(wipe.inputSchema).to.deep.equal(idSchema);
    expect(wipe.annotations.readOnly).to.equal(false);
    if (driver.keeps.consequential) {
      expect(wipe.annotations.consequential).to.equal(true);
      expect(rename.annotations.consequential).to.equal(false);
    }
  });

  it('runs a call and returns its output as MCP content', async () => {
    const call = await driver.call(`${prefix}domain_devices__rename`, { id: 'd1', name: 'Kitchen' });
    expect(await call.result()).to.deep.equal({ isError: false, body: { renamed: 'd1', to: 'Kitchen' } });
    expect(ran).to.deep.equal(['rename d1']);
    const read = await driver.call(`${prefix}domain_devices__list`, {});
    expect((await read.result()).body).to.deep.equal({ devices: ['d1', 'd2'] });
  });

  it('answers invalid input with isError content carrying INVALID_INPUT', async () => {
    const call = await driver.call(`${prefix}domain_devices__rename`, { id: 'd1', name: '', extra: true });
    const out = await call.result();
    expect(out.isError).to.equal(true);
    expect(out.body.code).to.equal('INVALID_INPUT');
    expect(out.body.retry).to.equal('with-changes');
    const paths = ((out.body.details as { issues: { path: string }[] }).issues ?? []).map((i) => i.path).sort();
    expect(paths).to.deep.equal(['/extra', '/name']);
    expect(ran).to.deep.equal([]);
  });

  it('holds a destructive call until a person approves it with a real click', async () => {
    const call = await driver.call(`${prefix}domain_devices__wipe`, { id: 'd2' });
    const approve = await button('approve');
    expect(ran).to.deep.equal([]);
    await click(approve);
    expect(await call.result()).to.deep.equal({ isError: false, body: { wiped: 'd2' } });
    expect(ran).to.deep.equal(['wipe d2']);
  });

  it('a note that changes while the call waits (live state no tool shows) does not void the approval', async () => {
    const call = await driver.call(`${prefix}domain_devices__wipe`, { id: 'd2' });
    const approve = await button('approve');
    const before = surface.registry!.surfaceVersion;
    cap('devices.wipe').setAttribute('note', 'd2 is syncing');
    await waitUntil(() => surface.registry!.surfaceVersion !== before, 'the note reaches the registry');
    await webmcp.settled();
    await click(approve);
    expect(await call.result()).to.deep.equal({ isError: false, body: { wiped: 'd2' } });
    expect(ran).to.deep.equal(['wipe d2']);
  });

  it('a denial comes back as CONFIRMATION_INVALID and nothing runs', async () => {
    const call = await driver.call(`${prefix}domain_devices__wipe`, { id: 'd2' });
    await click(await button('deny'));
    const out = await call.result();
    expect(out.isError).to.equal(true);
    expect(out.body.code).to.equal('CONFIRMATION_INVALID');
    expect((out.body.details as { reason: string }).reason).to.equal('denied');
    expect(ran).to.deep.equal([]);
  });

  if (driver.cancel) {
    it('cancelling during the wait runs nothing and withdraws the request', async () => {
      const call = await driver.call(`${prefix}domain_devices__wipe`, { id: 'd2' });
      await button('approve');
      await driver.cancel!(call);
      await call.result();
      await waitUntil(() => !confirm.shadowRoot?.querySelector('[part~="approve"]'), 'the request leaves the dialog');
      // Only shows that nothing happens: more time can only make the check stronger.
      // eslint-disable-next-line no-restricted-syntax
      await aTimeout(50);
      expect(ran).to.deep.equal([]);
    });
  }

  it('removing <agent-webmcp> during the wait ends it; nothing runs', async () => {
    const call = await driver.call(`${prefix}domain_devices__wipe`, { id: 'd3' });
    await button('approve');
    webmcp.remove();
    const out = await call.result();
    expect(out.body.code).to.equal('CONFIRMATION_REQUIRED');
    // Only shows that nothing happens: more time can only make the check stronger.
    // eslint-disable-next-line no-restricted-syntax
    await aTimeout(50);
    expect(ran).to.deep.equal([]);
    expect(surface.registry!.confirmations.list()).to.deep.equal([]);
  });

  it('toggling `unavailable` removes and restores exactly one tool', async () => {
    await waitUntil(async () => (await names()).length === 3);
    await driver.mark?.();
    cap('devices.rename').setAttribute('unavailable', 'device is offline');
    await waitUntil(async () => !(await names()).includes(`${prefix}domain_devices__rename`), 'the tool goes away');
    expect(await names()).to.deep.equal([`${prefix}domain_devices__list`, `${prefix}domain_devices__wipe`]);
    cap('devices.rename').removeAttribute('unavailable');
    await waitUntil(async () => (await names()).includes(`${prefix}domain_devices__rename`), 'the tool comes back');
    await webmcp.settled();
    expect(await names()).to.have.length(3);
    if (driver.traffic) {
      // Only shows that no other traffic follows: more time can only make the check stronger.
      // eslint-disable-next-line no-restricted-syntax
      await aTimeout(30);
      const mine = (await driver.traffic()).filter((t) => t.slice(1).startsWith(prefix));
      expect(mine).to.deep.equal([`-${prefix}domain_devices__rename`, `+${prefix}domain_devices__rename`]);
    }
  });

  it('removing <agent-webmcp> removes every tool', async () => {
    await waitUntil(async () => (await names()).length === 3);
    webmcp.remove();
    await webmcp.settled();
    await waitUntil(async () => (await names()).length === 0, 'every tool is withdrawn');
    expect(webmcp.getAttribute('status')).to.equal('stopped');
    expect(webmcp.toolNames()).to.deep.equal([]);
  });
}
