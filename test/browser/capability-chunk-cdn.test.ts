// An <agent-capability>'s registration (batches, claims, refusals, agent-invoke) comes with the
// element's lazy chunk (src/elements/declared.ts, in every build), the one that reads markup
// contracts. Checked through the built file as a page loads it from `/offline-cdn/`, where the test
// server can make every chunk fail (scripts/wtr-plugins.mjs): capabilities given their contract in
// code wait for the chunk before they first register, and `updateComplete` / `<agent-surface>.ready`
// cover that wait; while the chunk cannot load nothing registers, nothing runs and the page author
// hears why once; once the network is back the next update registers them, a call with a `.handler`
// runs it and one without fires `agent-invoke` synchronously. Same-named views without an instance
// get their numbers from the same chunk, once any element's load of it succeeds. `node scripts/test.mjs` builds dist/ first.
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
  // Two same-named views without an instance: their numbers ("1", "2") come with the chunk too.
  const row = '<agent-view name="lamps.row"><agent-capability name="dim" kind="action" effect="local-state" description="Dim this lamp."></agent-capability></agent-view>';
  host.innerHTML = `<agent-surface><agent-capability id="handled"></agent-capability><agent-capability id="evented"></agent-capability>${row}${row}</agent-surface>`;
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
  const rows = [...host.querySelectorAll('agent-view agent-capability')] as Capability[];
  for (const [i, dim] of rows.entries()) dim.handler = () => ({ dimmed: i });
  surface.authority = kit.devAuthority();
  document.body.append(host);
  const ids = () =>
    surface
      .registry!.snapshot({ consumer })
      .capabilities.map((d) => (d.instanceId !== undefined ? `${d.capabilityId}#${d.instanceId}` : d.capabilityId))
      .sort();
  return { surface, handled, evented, rows, heard, ids, remove: () => host.remove() };
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
    const { surface, handled, evented, rows, heard, ids, remove } = mount(kit);
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

      // The network is back: the elements' next update loads the chunk and they register, within
      // `ready`. The views did not update again: they number themselves once anyone's load succeeds.
      expect(await network(false)).to.equal('up');
      for (const capability of [handled, evented, ...rows]) capability.setAttribute('note', 'back online');
      await surface.ready;
      expect(ids()).to.deep.equal(['domain:lamp.status', 'domain:lamp.toggle', 'view:lamps.row.dim#1', 'view:lamps.row.dim#2']);
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

  it('once the chunk is there, capabilities and views register within their first update', async () => {
    const kit = (await import('/offline-cdn/agent-surface.min.js' as string)) as Kit;
    const { surface, handled, evented, rows, ids, remove } = mount(kit);
    try {
      expect(await handled.updateComplete).to.equal(true);
      expect(await evented.updateComplete).to.equal(true);
      expect(await rows[1]!.updateComplete).to.equal(true);
      expect(ids()).to.deep.equal(['domain:lamp.status', 'domain:lamp.toggle', 'view:lamps.row.dim#1', 'view:lamps.row.dim#2']);
      await surface.ready;
    } finally {
      remove();
    }
  });
});
