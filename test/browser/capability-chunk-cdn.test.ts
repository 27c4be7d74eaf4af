// An <agent-capability>'s registration (batches, claims, refusals, agent-invoke) comes with the
// element's lazy chunk (src/elements/declared.ts, in every build), the one that reads markup
// contracts. Checked through the built file as a page loads it from `/offline-cdn/`, where the test
// server can make every chunk fail (scripts/wtr-plugins.mjs): capabilities given their contract in
// code wait for the chunk before they first register, and `updateComplete` / `<agent-surface>.ready`
// cover that wait; while the chunk cannot load nothing registers, nothing runs and the page author
// hears why once; once the network is back the next update registers them, a call with a `.handler`
// runs it and one without fires `agent-invoke` synchronously. `node scripts/test.mjs` builds dist/ first.
import { expect } from '@open-wc/testing';
import type { AgentSurfaceAuthority, AgentSurfaceRegistry, CapabilityContract } from '../../src/core/types.js';

type Kit = Record<string, unknown> & { devAuthority(): AgentSurfaceAuthority };
type Reactive = HTMLElement & { updateComplete: Promise<boolean> };
type Surface = Reactive & { authority: AgentSurfaceAuthority | undefined; registry: AgentSurfaceRegistry | undefined; ready: Promise<void> };
type Capability = Reactive & { contract?: CapabilityContract; handler?: () => unknown; registrationId?: string };

const consumer = { id: 'capability-chunk-cdn-test', kind: 'test' };
const network = (down: boolean) => fetch(`/__chunks?down=${down ? 1 : 0}`).then((r) => r.text());

function mount(kit: Kit) {
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
  const ids = () => surface.registry!.snapshot({ consumer }).capabilities.map((d) => d.capabilityId).sort();
  return { surface, handled, evented, heard, ids, remove: () => host.remove() };
}

describe('the CDN file registers capabilities with a lazy chunk', () => {
  const errors: unknown[][] = [];
  const { error, warn } = console;
  before(() => {
    console.error = (...args: unknown[]) => errors.push(args);
    console.warn = () => {}; // devAuthority() warns once per capability, by design
  });
  after(async () => {
    Object.assign(console, { error, warn });
    await network(false);
  });

  it('contracts given in code wait for the chunk; while it fails nothing registers; once it loads they register and answer', async () => {
    expect(await network(true)).to.equal('down');
    const kit = (await import('/offline-cdn/agent-surface.min.js' as string)) as Kit;
    const { surface, handled, evented, heard, ids, remove } = mount(kit);
    try {
      // Both settle although the chunk could not load, and nothing registered.
      await surface.ready;
      expect(await handled.updateComplete).to.equal(true);
      expect(ids()).to.deep.equal([]);
      expect(handled.registrationId).to.equal(undefined);
      const said = errors.filter((args) => String(args[0]).includes('DECLARATION_UNAVAILABLE'));
      expect(said.length, 'the page author hears of it once').to.equal(1);
      expect(String(said[0]![0])).to.contain('<agent-capability>');
      expect(heard).to.deep.equal([]);

      // The network is back: the elements' next update loads the chunk and both register, within `ready`.
      expect(await network(false)).to.equal('up');
      handled.setAttribute('note', 'back online');
      evented.setAttribute('note', 'back online');
      await surface.ready;
      expect(ids()).to.deep.equal(['domain:lamp.status', 'domain:lamp.toggle']);
      expect(typeof handled.registrationId).to.equal('string');

      let status = await surface.registry!.invoke({ capabilityId: 'domain:lamp.status', input: {}, consumer, invocationId: 'status-1' });
      // The pipeline chunk may have failed for an earlier test file in this browser (the CDN tests
      // share the chunk URLs, and Chromium remembers a failed module fetch): the kit's next load
      // asks again under a fresh URL.
      if (!status.ok && status.error.details?.reason === 'pipeline-unavailable') {
        status = await surface.registry!.invoke({ capabilityId: 'domain:lamp.status', input: {}, consumer, invocationId: 'status-2' });
      }
      expect(status.ok, JSON.stringify(status)).to.equal(true);
      expect(status.ok && status.output).to.deep.equal({ on: true });

      const toggled = await surface.registry!.invoke({ capabilityId: 'domain:lamp.toggle', input: {}, consumer, invocationId: 'toggle-1' });
      expect(toggled.ok, JSON.stringify(toggled)).to.equal(true);
      expect(toggled.ok && toggled.output).to.deep.equal({ toggled: true });
      expect(heard).to.deep.equal([{}]);
    } finally {
      remove();
    }
  });

  it('once the chunk is there, a capability given its contract in code registers within its first update', async () => {
    const kit = (await import('/offline-cdn/agent-surface.min.js' as string)) as Kit;
    const { surface, handled, evented, ids, remove } = mount(kit);
    try {
      expect(await handled.updateComplete).to.equal(true);
      expect(await evented.updateComplete).to.equal(true);
      expect(ids()).to.deep.equal(['domain:lamp.status', 'domain:lamp.toggle']);
      await surface.ready;
    } finally {
      remove();
    }
  });
});
