// dist/cdn/agent-surface.min.js as a no-build page uses it: one module file with lit bundled and its
// lazy chunks beside it. The page (fixtures/cdn.html) declares capabilities in markup with compiled
// tokens; here we check what it exports, that it fetches nothing but files of its own, and that a
// call runs through registration, the pipeline, the confirmation UI and the native WebMCP host.
// `node scripts/test.mjs` builds dist/ before running this file.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import type { AgentSurfaceRegistry } from '../../src/core/types.js';

const ENTRY = '/dist/cdn/agent-surface.min.js';

type Kit = Record<string, unknown> & {
  encodeWireName(id: string): string;
};

async function openPage(): Promise<{ doc: Document; win: Window & { performance: Performance } }> {
  const frame = document.createElement('iframe');
  frame.src = '/test/browser/fixtures/cdn.html';
  document.body.append(frame);
  await waitUntil(() => frame.contentDocument?.documentElement?.dataset.ready === 'true', 'cdn.html did not get ready', {
    timeout: 10000,
  });
  return { doc: frame.contentDocument!, win: frame.contentWindow as Window & { performance: Performance } };
}

/**
 * The specifiers a built module imports: static imports and re-exports, `import("…")`, and the chunk
 * paths the CDN build's retrying loader takes (`f("./x.min.js")` once minified, see rollup.config.js).
 */
function importsOf(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(
    /(?:import|export)\s*(?:[\w*{}\s,$]*from\s*)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|["'](\.{1,2}\/[^"'\s]+\.js)["']/g,
  )) {
    out.push(m[1] ?? m[2] ?? m[3]!);
  }
  return out;
}

describe('dist/cdn/agent-surface.min.js', () => {
  it('exports the browser-side API and defines every element but <agent-chat>', async () => {
    const kit = (await import(ENTRY)) as Kit;
    for (const name of [
      'createAgentSurfaceRegistry',
      'createCompilerAuthority',
      'devAuthority',
      'createAgentToolset',
      'toToolResult',
      'encodeWireName',
      'decodeWireName',
      'createAgentExposureGateway',
      'AgentSurfaceError',
      'createWebMcpAdapter',
      'createWebMcpSource',
      'detectModelContext',
      'AgentSurfaceElement',
      'AgentViewElement',
      'AgentCapabilityElement',
      'AgentConfirmElement',
      'AgentWebMcpElement',
    ]) {
      expect(kit[name], name).to.be.a('function');
    }
    // The input-formatting helpers for custom approval UIs, as agent-surface-kit/elements exports them.
    const helpers = kit as unknown as Record<'formatInput' | 'describeEffect' | 'formatRemaining', (value: unknown) => unknown>;
    expect(helpers.formatInput({ 'two words': 'a\u202eb' })).to.deep.equal({ entries: [{ path: '["two words"]', value: '"a\\u202eb"' }], omitted: 0 });
    expect(helpers.describeEffect('destructive')).to.equal('Deletes or disables something; may not be undone');
    expect(helpers.formatRemaining(61_000)).to.equal('1:01');
    for (const tag of ['agent-surface', 'agent-view', 'agent-capability', 'agent-confirm', 'agent-webmcp']) {
      expect(customElements.get(tag), tag).to.be.a('function');
    }
    expect(customElements.get('agent-chat')).to.equal(undefined);
  });

  it('imports nothing but its own files beside it: no bare specifier, no require()', async () => {
    const seen = new Set<string>();
    const queue = [ENTRY];
    while (queue.length) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const response = await fetch(url);
      expect(response.ok, url).to.equal(true);
      const code = await response.text();
      expect(code, url).not.to.match(/\brequire\s*\(/);
      for (const spec of importsOf(code)) {
        expect(spec, `${url} imports ${spec}`).to.match(/^\.\.?\//);
        queue.push(new URL(spec, new URL(url, location.href)).pathname);
      }
    }
    expect([...seen].every((u) => u.startsWith('/dist/cdn/'))).to.equal(true);
    // The walk reached the lazy chunks too, not only the entry.
    for (const chunk of ['invoke', 'tool-execution', 'capability-registration', 'confirm-dialog', 'adapter', 'source', 'interpreter']) {
      expect([...seen].some((u) => u.startsWith(`/dist/cdn/${chunk}-`)), chunk).to.equal(true);
    }
  });

  it('runs a plain-HTML page: tokens admit, injected markup does not, calls go through confirmation and WebMCP', async () => {
    const { doc, win } = await openPage();
    const kit = (await import(ENTRY)) as Kit;
    const surface = doc.querySelector('agent-surface') as unknown as HTMLElement & { registry: AgentSurfaceRegistry };
    const consumer = { id: 'cdn-test', kind: 'test' };
    await waitUntil(() => surface.registry?.snapshot({ consumer }).capabilities.length === 2, 'both compiled capabilities register', {
      timeout: 5000,
    });
    const ids = surface.registry.snapshot({ consumer }).capabilities.map((c) => c.capabilityId).sort();
    expect(ids).to.deep.equal(['domain:devices.disable', 'view:devices.table.rows']);

    // A destructive call must say which surface it was planned on.
    const { surfaceVersion } = surface.registry.snapshot({ consumer });
    const read = await surface.registry.invoke({ capabilityId: 'view:devices.table.rows', input: {}, consumer, invocationId: 'cdn-1' });
    expect(read.ok, JSON.stringify(read)).to.equal(true);
    expect(read.ok && read.output).to.deep.equal({ rows: [{ id: 'd1', name: 'Printer' }] });

    const bad = await surface.registry.invoke({ capabilityId: 'domain:devices.disable', input: { ids: [] }, consumer, surfaceVersion, invocationId: 'cdn-2' });
    expect(bad.ok).to.equal(false);
    expect(!bad.ok && bad.error.code).to.equal('INVALID_INPUT');

    // A destructive call needs the person: the first attempt asks, <agent-confirm> shows the request
    // (its dialog may come from a lazy chunk), and a retry after the denial is refused.
    const request = { capabilityId: 'domain:devices.disable', input: { ids: ['d1'] }, consumer, surfaceVersion, invocationId: 'cdn-3' };
    const asked = await surface.registry.invoke(request);
    expect(asked.ok).to.equal(false);
    expect(!asked.ok && asked.error.code).to.equal('CONFIRMATION_REQUIRED');
    const confirm = doc.querySelector('agent-confirm') as HTMLElement & { updateComplete: Promise<unknown> };
    await waitUntil(() => confirm.shadowRoot?.querySelector('dialog')?.open === true, 'the dialog opens', { timeout: 5000 });
    await confirm.updateComplete;
    expect(confirm.shadowRoot!.querySelector('[part~="approve"]')).to.not.equal(null);
    const [record] = surface.registry.confirmations.list();
    expect(surface.registry.confirmations.deny(record!.confirmationId, 'not now')).to.equal(true);
    const retried = await surface.registry.invoke({ ...request, invocationId: 'cdn-4', confirmationId: record!.confirmationId });
    expect(retried.ok).to.equal(false);
    expect(!retried.ok && retried.error.code).to.equal('CONFIRMATION_INVALID');
    await waitUntil(() => !confirm.shadowRoot!.querySelector('dialog')!.open, 'the dialog closes');

    // <agent-webmcp> projects both tools into Chromium's native host (--enable-features=WebMCP).
    const webmcp = doc.querySelector('agent-webmcp') as HTMLElement & { status: string; toolNames(): string[] };
    await waitUntil(() => webmcp.status === 'active', `agent-webmcp becomes active (status ${webmcp.status})`, {
      timeout: 5000,
    });
    expect(webmcp.toolNames().sort()).to.deep.equal(
      [kit.encodeWireName('domain:devices.disable'), kit.encodeWireName('view:devices.table.rows')].sort(),
    );

    // Everything the page loaded from the kit came from /dist/cdn/.
    const kitFiles = win.performance
      .getEntriesByType('resource')
      .map((e) => new URL(e.name).pathname)
      .filter((p) => p.startsWith('/dist/') || p.startsWith('/src/') || p.includes('node_modules'));
    expect(kitFiles.length).to.be.greaterThan(0);
    expect(kitFiles.every((p) => p.startsWith('/dist/cdn/')), kitFiles.join(', ')).to.equal(true);
  });
});
