// Tool projections through dist/cdn/agent-surface.min.js, as a no-build page uses them: what a tool
// runs when called (confirmation handling, the meta verbs, the gateway's checks) is a chunk beside
// the entry, fetched when a toolset or a gateway is created. Each test opens fixtures/cdn.html (two
// compiled capabilities, one destructive with required confirmation) in a fresh iframe and takes the
// kit from the page's own module map, so every test starts with the chunk not yet loaded.
// `node scripts/test.mjs` builds dist/ before running this file.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import type * as KitModule from '../../src/index.js';
import type { AgentInvocationResult, AgentSurfaceRegistry, AgentTool } from '../../src/core/types.js';

type Kit = typeof KitModule;

const ENTRY = '/dist/cdn/agent-surface.min.js';
const CHUNK = /\/dist\/cdn\/tool-execution-[\w-]+\.min\.js$/;
const consumer = { id: 'toolset-cdn-test', kind: 'test' };

interface Page {
  win: Window & typeof globalThis;
  kit: Kit;
  registry: AgentSurfaceRegistry;
  /** The kit's files this page fetched so far. */
  kitFiles(): string[];
  close(): void;
}

async function openPage(): Promise<Page> {
  const frame = document.createElement('iframe');
  frame.src = '/test/browser/fixtures/cdn.html';
  document.body.append(frame);
  await waitUntil(() => frame.contentDocument?.documentElement?.dataset.ready === 'true', 'cdn.html did not get ready', {
    timeout: 10000,
  });
  const win = frame.contentWindow as Window & typeof globalThis;
  // The page's own instance of the CDN file (the one cdn-page.js imported), not this test's.
  const kit = (await (win as unknown as { eval(code: string): Promise<Kit> }).eval(`import(${JSON.stringify(ENTRY)})`)) as Kit;
  const surface = frame.contentDocument!.querySelector('agent-surface') as unknown as { registry: AgentSurfaceRegistry };
  await waitUntil(() => surface.registry?.snapshot({ consumer }).capabilities.length === 2, 'both compiled capabilities register', {
    timeout: 5000,
  });
  return {
    win,
    kit,
    registry: surface.registry,
    kitFiles: () =>
      win.performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name).pathname)
        .filter((p) => p.startsWith('/dist/') || p.startsWith('/src/') || p.includes('node_modules')),
    close: () => frame.remove(),
  };
}

const chunkFetched = (page: Page) => page.kitFiles().some((p) => CHUNK.test(p));

function byName(page: Page, tools: readonly AgentTool[], capabilityId: string): AgentTool {
  const name = page.kit.encodeWireName(capabilityId);
  const found = tools.find((t) => t.name === name);
  expect(found, name).to.not.equal(undefined);
  return found!;
}

async function pendingFor(registry: AgentSurfaceRegistry, invocationId: string) {
  await waitUntil(() => registry.confirmations.list().some((r) => r.invocationId === invocationId), `a confirmation for ${invocationId}`, {
    timeout: 5000,
  });
  return registry.confirmations.list().find((r) => r.invocationId === invocationId)!;
}

const codeOf = (result: AgentInvocationResult) => (result.ok ? 'OK' : result.error.code);

describe('tool projections through the CDN file', () => {
  let page: Page | undefined;
  afterEach(() => {
    page?.close();
    page = undefined;
  });

  it('direct mode: the chunk comes with the first toolset, and a wait-mode call completes after the approval', async () => {
    page = await openPage();
    const { kit, registry } = page;
    expect(chunkFetched(page), 'a page with capabilities but no toolset fetches no execution code').to.equal(false);

    const toolset = kit.createAgentToolset(registry, { consumer, topology: 'embedded' });
    const tools = toolset.tools();
    expect(tools.map((t) => t.name).sort()).to.deep.equal(
      [kit.encodeWireName('domain:devices.disable'), kit.encodeWireName('view:devices.table.rows')].sort(),
    );
    // The very first call, made before the chunk can have arrived: it waits for it.
    const rows = await byName(page, tools, 'view:devices.table.rows').execute({}, { toolCallId: 'direct-1' });
    expect(rows).to.deep.equal({
      ok: true,
      output: { rows: [{ id: 'd1', name: 'Printer' }] },
      invocationId: 'direct-1',
      surfaceVersion: registry.surfaceVersion,
    });
    expect(chunkFetched(page)).to.equal(true);

    const disable = byName(page, tools, 'domain:devices.disable');
    const invalid = await disable.execute({ ids: [] }, { toolCallId: 'direct-2' });
    expect(codeOf(invalid)).to.equal('INVALID_INPUT');

    // `wait`: the call stays open while the person decides (<agent-confirm> shows it), then runs once.
    const call = disable.execute({ ids: ['d1', 'd2'] }, { toolCallId: 'direct-3' });
    const record = await pendingFor(registry, 'direct-3');
    const confirm = page.win.document.querySelector('agent-confirm') as HTMLElement;
    await waitUntil(() => confirm.shadowRoot?.querySelector('dialog')?.open === true, 'the approval dialog opens', { timeout: 5000 });
    expect(registry.confirmations.approve(record.confirmationId)).to.equal(true);
    const done = await call;
    expect(done).to.deep.equal({ ok: true, output: { disabled: 2 }, invocationId: 'direct-3', surfaceVersion: registry.surfaceVersion });
    expect(kit.toToolResult(done).isError).to.equal(false);

    // The same tools after dispose: nothing runs.
    toolset.dispose();
    const late = await disable.execute({ ids: ['d1'] }, { toolCallId: 'direct-4' });
    expect(codeOf(late)).to.equal('CANCELLED');
    expect(page.kitFiles().every((p) => p.startsWith('/dist/cdn/')), page.kitFiles().join(', ')).to.equal(true);
  });

  it('meta mode: discover, read, and a two-phase act approved between turns', async () => {
    page = await openPage();
    const { kit, registry } = page;
    const toolset = kit.createAgentToolset(registry, { consumer, mode: 'meta', topology: 'remote' });
    const [discover, read, act] = toolset.tools();
    expect([discover!.name, read!.name, act!.name]).to.deep.equal(['surface_discover', 'surface_read', 'surface_act']);

    const found = await discover!.execute({}, { toolCallId: 'meta-1' });
    expect(found.ok, JSON.stringify(found)).to.equal(true);
    const output = (found.ok ? found.output : {}) as { surfaceVersion: string; capabilities: { capabilityId: string }[] };
    expect(output.capabilities.map((c) => c.capabilityId).sort()).to.deep.equal(['domain:devices.disable', 'view:devices.table.rows']);
    expect(chunkFetched(page)).to.equal(true);

    const rows = await read!.execute({ capabilityId: 'view:devices.table.rows' }, { toolCallId: 'meta-2' });
    expect(rows.ok && rows.output).to.deep.equal({ rows: [{ id: 'd1', name: 'Printer' }] });
    expect(codeOf(await act!.execute({ capabilityId: 'domain:devices.disable' }, { toolCallId: 'meta-3' }))).to.equal('INVALID_INPUT');

    const request = { capabilityId: 'domain:devices.disable', input: { ids: ['d1'] }, surfaceVersion: output.surfaceVersion };
    const first = await act!.execute(request, { toolCallId: 'meta-4' });
    expect(codeOf(first)).to.equal('CONFIRMATION_REQUIRED');
    const details = (!first.ok && first.error.details) as { confirmationId: string; invocationId: string };
    expect(details.invocationId).to.equal('meta-4');
    expect(registry.confirmations.approve(details.confirmationId)).to.equal(true);
    // A later turn: the model echoes both ids.
    const second = await act!.execute({ ...request, confirmationId: details.confirmationId, invocationId: details.invocationId }, { toolCallId: 'meta-5' });
    expect(second).to.deep.equal({ ok: true, output: { disabled: 1 }, invocationId: 'meta-4', surfaceVersion: registry.surfaceVersion });
    toolset.dispose();
  });

  it('gateway: creating it fetches the chunk; its tools check input with the compiled validators and call the handler', async () => {
    page = await openPage();
    const { kit, win } = page;
    const { manifest, validators } = (await (win as unknown as { eval(code: string): Promise<unknown> }).eval(
      `import('/test/browser/fixtures/csp-manifest.js')`,
    )) as Parameters<Kit['createCompilerAuthority']>[0];
    const authority = kit.createCompilerAuthority({ manifest, validators });
    expect(chunkFetched(page)).to.equal(false);
    const gateway = kit.createAgentExposureGateway(authority);
    await waitUntil(() => chunkFetched(page!), 'the execution chunk is fetched when the gateway is created', { timeout: 5000 });

    // Confirmation needs a registry and a person: refused at once, synchronously.
    const disable = authority.contract('domain:devices.disable')!;
    let refused: unknown;
    try {
      gateway.expose({ ...disable, handler: () => ({ disabled: 0 }) });
    } catch (error) {
      refused = error;
    }
    // The page's realm made it: chai's constructor matching would compare against this realm's Error.
    expect(refused instanceof kit.AgentSurfaceDefinitionError).to.equal(true);
    expect((refused as { code?: string }).code).to.equal('INVALID_REGISTRATION');

    const seen: unknown[] = [];
    const rows = gateway.expose({
      ...authority.contract('view:devices.table.rows')!,
      handler: (input) => {
        seen.push(input);
        return { rows: [{ id: 'g1', name: 'Scanner' }] };
      },
    });
    const ok = await rows.execute({}, { toolCallId: 'gw-1' });
    expect(ok.ok && ok.output).to.deep.equal({ rows: [{ id: 'g1', name: 'Scanner' }] });
    expect(ok.invocationId).to.equal('gw-1');
    const bad = await rows.execute({ extra: true }, { toolCallId: 'gw-2' });
    expect(codeOf(bad)).to.equal('INVALID_INPUT');
    expect(seen).to.deep.equal([{}]);
  });
});
