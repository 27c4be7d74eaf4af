// The CDN file's markup reader (src/elements/declared.ts, in every build): reading an <agent-capability>'s
// contract from its attributes and schema scripts is a chunk beside the entry, fetched by the first
// element that needs it. Checked through the built file as a page loads it from `/offline-cdn/`, where
// the test server can make every chunk fail (scripts/wtr-plugins.mjs): the element's updateComplete
// waits for the reader, a failed load registers nothing and says why once, and an update after the
// network is back registers it. `node scripts/test.mjs` builds dist/ before running this file.
import { expect } from '@open-wc/testing';
import type { AgentSurfaceAuthority, AgentSurfaceRegistry } from '../../src/core/types.js';

type Kit = Record<string, unknown> & { devAuthority(): AgentSurfaceAuthority };
type Reactive = HTMLElement & { updateComplete: Promise<boolean> };
type Surface = Reactive & { authority: AgentSurfaceAuthority | undefined; registry: AgentSurfaceRegistry | undefined };

const consumer = { id: 'declared-cdn-test', kind: 'test' };
const network = (down: boolean) => fetch(`/__chunks?down=${down ? 1 : 0}`).then((r) => r.text());
const readerRequests = () =>
  performance.getEntriesByType('resource').filter((e) => /\/capability-registration-[\w-]+\.min\.js/.test(e.name)).length;

function capabilityIds(surface: Surface): string[] {
  return surface.registry!.snapshot({ consumer }).capabilities.map((d) => d.capabilityId);
}

async function mount(kit: Kit, name: string): Promise<{ surface: Surface; capability: Reactive; remove(): void }> {
  const host = document.createElement('div');
  host.innerHTML = `<agent-surface><agent-capability name="${name}" kind="action" effect="local-state" description="Add a note.">
    <script type="application/schema+json">{"type":"object","properties":{"text":{"type":"string"}}}</script>
  </agent-capability></agent-surface>`;
  const surface = host.querySelector('agent-surface') as Surface;
  surface.authority = kit.devAuthority();
  const capability = host.querySelector('agent-capability') as Reactive;
  (capability as unknown as { handler: () => unknown }).handler = () => ({ added: true });
  document.body.append(host);
  return { surface, capability, remove: () => host.remove() };
}

describe('the CDN file reads markup contracts with a lazy chunk', () => {
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

  it('fetches nothing at import, registers nothing while the chunk fails, and registers on an update once it loads', async () => {
    expect(await network(true)).to.equal('down');
    const kit = (await import('/offline-cdn/agent-surface.min.js' as string)) as Kit;
    // The compiler's declaration helpers are agent-surface-kit/compiler's, not a browser entry's.
    for (const name of ['contractFromDeclaration', 'schemaTextsFromScripts', 'declarationId', 'normalizeDescription']) {
      expect(kit[name], name).to.equal(undefined);
    }
    expect(readerRequests(), 'the reader is not fetched at import').to.equal(0);

    const { surface, capability, remove } = await mount(kit, 'notes.add');
    try {
      // updateComplete settles although the reader could not load, and nothing registered.
      expect(await capability.updateComplete).to.equal(true);
      expect(readerRequests()).to.be.greaterThan(0);
      expect(capabilityIds(surface)).to.deep.equal([]);
      const said = errors.filter((args) => String(args[0]).includes('DECLARATION_UNAVAILABLE'));
      expect(said.length, 'the page author hears of it once').to.equal(1);
      expect(String(said[0]![0])).to.contain('<agent-capability>');

      // The network is back: the element's next update loads the reader and registers.
      expect(await network(false)).to.equal('up');
      capability.setAttribute('note', 'back online');
      expect(await capability.updateComplete).to.equal(true);
      expect(capabilityIds(surface)).to.deep.equal(['domain:notes.add']);
      const [descriptor] = surface.registry!.snapshot({ consumer }).capabilities;
      expect(descriptor!.state).to.deep.equal({ available: true, note: 'back online' });
      expect(descriptor!.inputSchema).to.deep.equal({ type: 'object', properties: { text: { type: 'string' } } });
    } finally {
      remove();
    }
  });

  it('an element added once the reader is there registers within its first update', async () => {
    const kit = (await import('/offline-cdn/agent-surface.min.js' as string)) as Kit;
    const { surface, capability, remove } = await mount(kit, 'notes.clear');
    try {
      expect(await capability.updateComplete).to.equal(true);
      expect(capabilityIds(surface)).to.deep.equal(['domain:notes.clear']);
    } finally {
      remove();
    }
  });
});
