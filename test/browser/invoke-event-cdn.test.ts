// How an <agent-capability> without .handler answers a call, `agent-invoke`, comes with the element's
// lazy chunk (src/elements/declared.ts, in every build), the one that reads markup contracts. Checked
// through the built file as a page loads it from `/offline-cdn/`, where the test server can make every
// chunk fail (scripts/wtr-plugins.mjs): an element given its contract in code registers without the
// chunk; its first call while the chunk cannot load runs nothing and fails as data (EXECUTION_FAILED,
// `details.reason: "load-failed"`, retry after-delay), and the next call once the network is back
// fires `agent-invoke` and returns the listener's answer. `node scripts/test.mjs` builds dist/ first.
import { expect } from '@open-wc/testing';
import type { AgentSurfaceAuthority, AgentSurfaceRegistry, CapabilityContract } from '../../src/core/types.js';

type Kit = Record<string, unknown> & { devAuthority(): AgentSurfaceAuthority };
type Reactive = HTMLElement & { updateComplete: Promise<boolean> };
type Surface = Reactive & { authority: AgentSurfaceAuthority | undefined; registry: AgentSurfaceRegistry | undefined };
type Capability = Reactive & { contract?: CapabilityContract; handler?: () => unknown };

const consumer = { id: 'invoke-event-cdn-test', kind: 'test' };
const network = (down: boolean) => fetch(`/__chunks?down=${down ? 1 : 0}`).then((r) => r.text());
const elementChunkRequests = () =>
  performance.getEntriesByType('resource').filter((e) => /\/declared-contract-[\w-]+\.min\.js/.test(e.name)).length;

describe('the CDN file fires agent-invoke from a lazy chunk', () => {
  const { warn } = console;
  before(() => {
    console.warn = () => {}; // devAuthority() warns once per capability, by design
  });
  after(async () => {
    console.warn = warn;
    await network(false);
  });

  it('a call while the chunk cannot load runs nothing and fails as data; the next one, online, fires agent-invoke', async () => {
    expect(await network(false)).to.equal('up');
    const kit = (await import('/offline-cdn/agent-surface.min.js' as string)) as Kit;
    const host = document.createElement('div');
    host.innerHTML = '<agent-surface><agent-capability id="handled"></agent-capability><agent-capability id="evented"></agent-capability></agent-surface>';
    const surface = host.querySelector('agent-surface') as Surface;
    const handled = host.querySelector('#handled') as Capability;
    const evented = host.querySelector('#evented') as Capability;
    handled.contract = { id: 'domain:lamp.status', kind: 'action', effect: 'read', description: 'Say whether the lamp is on.' };
    handled.handler = () => ({ on: true });
    evented.contract = { id: 'domain:lamp.toggle', kind: 'action', effect: 'local-state', description: 'Toggle the lamp.' };
    const heard: unknown[] = [];
    evented.addEventListener('agent-invoke', (event) => {
      const { detail } = event as Event & { detail: { input: unknown; respondWith(value: unknown): void } };
      heard.push(detail.input);
      detail.respondWith({ toggled: true });
    });
    surface.authority = kit.devAuthority();
    document.body.append(host);
    try {
      await surface.updateComplete;
      const ids = surface.registry!.snapshot({ consumer }).capabilities.map((d) => d.capabilityId).sort();
      expect(ids, 'contracts given in code register without the chunk').to.deep.equal(['domain:lamp.status', 'domain:lamp.toggle']);
      // A handler's call needs no element chunk (and loads the pipeline while the network is up).
      let status = await surface.registry!.invoke({ capabilityId: 'domain:lamp.status', input: {}, consumer, invocationId: 'status-1' });
      // The pipeline chunk may have failed for an earlier test file in this browser (the CDN tests
      // share the chunk URLs): the kit's next load asks again under a fresh URL.
      if (!status.ok && status.error.details?.reason === 'pipeline-unavailable') {
        status = await surface.registry!.invoke({ capabilityId: 'domain:lamp.status', input: {}, consumer, invocationId: 'status-2' });
      }
      expect(status.ok, JSON.stringify(status)).to.equal(true);
      expect(elementChunkRequests(), 'nothing needed the element chunk yet').to.equal(0);

      expect(await network(true)).to.equal('down');
      const failed = await surface.registry!.invoke({ capabilityId: 'domain:lamp.toggle', input: {}, consumer, invocationId: 'toggle-1' });
      expect(failed.ok).to.equal(false);
      expect(!failed.ok && failed.error).to.deep.include({ code: 'EXECUTION_FAILED', retry: 'after-delay', details: { reason: 'load-failed' } });
      expect(heard, 'no listener ran').to.deep.equal([]);
      expect(elementChunkRequests()).to.be.greaterThan(0);

      expect(await network(false)).to.equal('up');
      const toggled = await surface.registry!.invoke({ capabilityId: 'domain:lamp.toggle', input: {}, consumer, invocationId: 'toggle-2' });
      expect(toggled.ok, JSON.stringify(toggled)).to.equal(true);
      expect(toggled.ok && toggled.output).to.deep.equal({ toggled: true });
      expect(heard).to.deep.equal([{}]);
    } finally {
      host.remove();
    }
  });
});
