// The first <agent-capability> created on a page begins fetching the element's lazy chunk
// (src/elements/declared.ts), before it is connected or has a surface, so that its first
// registration finds the chunk there. Its own file, so that the page is fresh.
import { expect } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import type { AgentCapabilityElement, AgentSurfaceElement } from '../../src/elements/index.js';
import { elementChunk } from '../../src/elements/declared.js';
import { waitUntil } from '../until.js';
import { spyConsole, visibleIds } from './helpers.js';

describe('<agent-capability> begins loading its chunk when created', () => {
  it('loads it for a capability that is only created, and one added to a surface later registers in its first update', async () => {
    const warn = spyConsole('warn'); // devAuthority warns once per capability, by design
    const host = document.createElement('div');
    try {
      expect(elementChunk.module, 'a fresh page has not loaded the chunk').to.equal(undefined);
      const early = document.createElement('agent-capability') as AgentCapabilityElement;
      await waitUntil(() => elementChunk.module !== undefined, 'the chunk arrives with no element connected');
      expect(early.isConnected).to.equal(false);

      host.innerHTML =
        '<agent-surface><agent-capability name="lamp.toggle" effect="local-state" description="Toggle the lamp."></agent-capability></agent-surface>';
      const surface = host.querySelector('agent-surface') as AgentSurfaceElement;
      surface.authority = devAuthority();
      let changes = 0;
      surface.addEventListener('agent-surface-changed', () => (changes += 1));
      document.body.append(host);
      // The batch at the end of this microtask registers it: no wait for a fetch, no second update.
      const capability = host.querySelector('agent-capability') as AgentCapabilityElement;
      await capability.updateComplete;
      expect(visibleIds(surface.registry)).to.deep.equal(['domain:lamp.toggle']);
      expect(changes).to.equal(1);
    } finally {
      host.remove();
      warn.restore();
    }
  });
});
