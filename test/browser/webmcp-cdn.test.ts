// The WebMCP adapter's and tool source's lazy boundary in the CDN file, the same as in every build:
// what a started adapter runs and what a source does on the host are chunks beside the entry, fetched
// on the first start (on a page with a host) and the first discovery. Checked through the built file
// as a page loads it from `/offline-cdn/`, where the test server can make every chunk fail
// (scripts/wtr-plugins.mjs): a start while its chunk cannot load rejects and leaves nothing behind, a
// discovery fails as data (`EXECUTION_FAILED`, `details.reason: "load-failed"`), and both work once
// the network is back. `node scripts/test.mjs` builds dist/ before running this file.
import { expect } from '@open-wc/testing';
import type { AgentSurfaceAuthority, AgentSurfaceRegistry, CapabilityContract, RegisterOptions, RegistryOptions } from '../../src/core/types.js';
import type { ModelContextTool, RegisteredTool, ToolSource, WebMcpAdapter, WebMcpAdapterOptions, WebMcpSourceOptions } from '../../src/webmcp/types.js';

type Kit = {
  devAuthority(): AgentSurfaceAuthority;
  createAgentSurfaceRegistry(options: RegistryOptions): AgentSurfaceRegistry;
  createWebMcpAdapter(options?: WebMcpAdapterOptions): WebMcpAdapter;
  createWebMcpSource(options?: WebMcpSourceOptions): ToolSource;
  ToolSourceError: new (...args: never[]) => Error;
};

const network = (down: boolean) => fetch(`/__chunks?down=${down ? 1 : 0}`).then((r) => r.text());
const requestsFor = (chunk: string) =>
  performance.getEntriesByType('resource').filter((e) => new RegExp(`/${chunk}-[\\w-]+\\.min\\.js`).test(e.name)).length;

/** A producer host of the current draft's shape: `registerTool(tool, { signal })`. */
class ProducerHost {
  readonly tools = new Map<string, ModelContextTool>();
  registerTool(tool: ModelContextTool, options?: { signal?: AbortSignal }): void {
    this.tools.set(tool.name, tool);
    options?.signal?.addEventListener('abort', () => this.tools.delete(tool.name), { once: true });
  }
}

/** A consumer host: lists one tool. */
class ConsumerHost extends EventTarget {
  async getTools(): Promise<RegisteredTool[]> {
    return [{ name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: {} } }];
  }
  async executeTool(): Promise<unknown> {
    return JSON.stringify({ content: [{ type: 'text', text: '{}' }] });
  }
}

const contract: CapabilityContract = { id: 'domain:lamp.toggle', kind: 'action', effect: 'local-state', description: 'Toggle the lamp.' };

describe('the CDN file fetches the WebMCP adapter and source on first use', () => {
  const { warn } = console;
  let kit: Kit;
  before(async () => {
    console.warn = () => {}; // devAuthority() warns once per capability, by design
    expect(await network(true)).to.equal('down');
    kit = (await import('/offline-cdn/agent-surface.min.js' as string)) as Kit;
  });
  after(async () => {
    console.warn = warn;
    await network(false);
  });

  it('an adapter start while its chunk cannot load rejects and registers nothing; the next start after the network is back works', async () => {
    const registry = kit.createAgentSurfaceRegistry({ authority: kit.devAuthority() });
    registry.register({ contract, token: undefined, handler: () => ({ on: true }) } as RegisterOptions);
    const host = new ProducerHost();
    const adapter = kit.createWebMcpAdapter({ modelContext: host as never });
    expect(requestsFor('adapter-run'), 'nothing fetched at creation').to.equal(0);

    let failure: unknown;
    await adapter.start({ registry }).catch((error: unknown) => (failure = error));
    expect(failure, 'start rejects with the loader error').to.be.instanceOf(Error);
    expect(requestsFor('adapter-run')).to.be.greaterThan(0);
    expect([adapter.status, adapter.toolNames(), [...host.tools.keys()]]).to.deep.equal(['idle', [], []]);

    expect(await network(false)).to.equal('up');
    await adapter.start({ registry });
    expect([adapter.status, adapter.toolNames(), [...host.tools.keys()]]).to.deep.equal(['active', ['domain_lamp__toggle'], ['domain_lamp__toggle']]);
    await adapter.stop();
    expect([adapter.status, [...host.tools.keys()]]).to.deep.equal(['stopped', []]);
    registry.dispose();
  });

  it('a source whose engine cannot load answers EXECUTION_FAILED (load-failed) as data, and discovers once it can', async () => {
    expect(await network(true)).to.equal('down');
    const source = kit.createWebMcpSource({ modelContext: new ConsumerHost() as never });
    let heard = 0;
    source.subscribe(() => heard++);
    const thrown = await source.discover().catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(kit.ToolSourceError);
    const e = thrown as { code: string; retry: string; details?: { reason?: string } };
    expect([e.code, e.details?.reason]).to.deep.equal(['EXECUTION_FAILED', 'load-failed']);
    const call = await source.execute({ name: 'echo', input: {} }, 1);
    expect([call.ok, call.ok ? undefined : call.error.code, call.ok ? undefined : call.error.details]).to.deep.equal([
      false,
      'EXECUTION_FAILED',
      { reason: 'load-failed' },
    ]);

    expect(await network(false)).to.equal('up');
    const snapshot = await source.discover();
    expect([snapshot.revision, snapshot.tools.map((t) => t.name)]).to.deep.equal([1, ['echo']]);
    const ran = await source.execute({ name: 'echo', input: {} }, snapshot.revision);
    expect(ran.ok).to.equal(true);
    expect(heard, 'nothing changed on the host: no notification').to.equal(0);
    source.dispose();
  });
});
