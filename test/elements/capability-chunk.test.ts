// The first registrations on a page and the element's lazy chunk (src/elements/declared.ts): the
// first <agent-capability> created starts the chunk's fetch; capabilities that update with a registry
// before it has arrived wait for it, then register in one batch, without a second update each. Its
// own file, so that the page is fresh: nothing has loaded the chunk before the first test.
import { expect } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import { AgentCapabilityElement, type AgentSurfaceElement } from '../../src/elements/index.js';
import { elementChunk } from '../../src/elements/declared.js';
import { spyConsole, visibleIds } from './helpers.js';

const capability = (name: string) =>
  `<agent-capability name="${name}" effect="local-state" description="Toggle the ${name} lamp.">` +
  '<script type="application/schema+json">{"type":"object","properties":{"on":{"type":"boolean"}}}</script></agent-capability>';

describe('<agent-capability> and its lazy chunk', () => {
  let warn: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    warn = spyConsole('warn'); // devAuthority warns once per capability, by design
  });
  afterEach(() => warn.restore());

  it('capabilities that update before the chunk is here wait for it, then all register in one batch, each in its one update', async () => {
    expect(elementChunk.module, 'a fresh page has not loaded the chunk').to.equal(undefined);
    // Count the element's updates: the chunk's arrival must not cost each capability a second one.
    const updates = new Map<Element, number>();
    const proto = AgentCapabilityElement.prototype as unknown as { updated(this: Element, ...args: unknown[]): void };
    const updated = proto.updated;
    proto.updated = function (this: Element, ...args: unknown[]) {
      updates.set(this, (updates.get(this) ?? 0) + 1);
      updated.apply(this, args);
    };
    const host = document.createElement('div');
    try {
      host.innerHTML = `<agent-surface>${capability('porch')}${capability('hall')}${capability('desk')}</agent-surface>`;
      const surface = host.querySelector('agent-surface') as AgentSurfaceElement;
      surface.authority = devAuthority();
      let changes = 0;
      surface.addEventListener('agent-surface-changed', () => (changes += 1));
      document.body.append(host);
      // Created, connected and given a registry in this task: the fetch they began cannot be done yet.
      expect(elementChunk.module).to.equal(undefined);
      await surface.ready;
      expect(elementChunk.module).to.not.equal(undefined);
      expect(visibleIds(surface.registry)).to.deep.equal(['domain:desk', 'domain:hall', 'domain:porch']);
      expect(changes, 'one agent-surface-changed for the three').to.equal(1);
      const elements = [...host.querySelectorAll('agent-capability')];
      expect(elements.map((el) => updates.get(el))).to.deep.equal([1, 1, 1]);
      expect(elements.every((el) => typeof (el as AgentCapabilityElement).registrationId === 'string')).to.equal(true);
    } finally {
      proto.updated = updated;
      host.remove();
    }
  });

});
