// Definition order: surface first, then the capability, and <agent-view> last. The capability sits
// inside a view that is not upgraded yet: it must wait for the view instead of registering as a
// domain capability (which the compiled authority would refuse, or worse, a dev authority admit).
import { expect, fixture, html } from '@open-wc/testing';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import { AgentCapabilityElement } from '../../src/elements/agent-capability.js';
import { AgentSurfaceElement } from '../../src/elements/agent-surface.js';
import { AgentViewElement } from '../../src/elements/agent-view.js';
import { compiledAuthority, settle, spyConsole, tokenOf, visibleIds } from './helpers.js';

const SELECT_ROWS_SCHEMA =
  '{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string"}}},"required":["ids"],"additionalProperties":false}';

describe('definition order: surface, capability, then view last', () => {
  it('waits for the enclosing view to upgrade before registering', async () => {
    const error = spyConsole('error');
    try {
      const registry = createAgentSurfaceRegistry({ authority: compiledAuthority() });
      const root = await fixture<HTMLDivElement>(
        html`<div>
          <agent-surface>
            <agent-view name="devices">
              <agent-capability
                name="selectRows"
                effect="local-state"
                description="Select rows of the devices table by id."
                token=${tokenOf('view:devices.selectRows')}
              >
                <script type="application/schema+json">
                  ${SELECT_ROWS_SCHEMA}
                </script>
              </agent-capability>
            </agent-view>
          </agent-surface>
        </div>`,
      );
      (root.querySelector('agent-surface') as unknown as { registry: unknown }).registry = registry;
      customElements.define('agent-surface', AgentSurfaceElement);
      customElements.define('agent-capability', AgentCapabilityElement);
      await settle();
      expect(visibleIds(registry)).to.deep.equal([]);
      customElements.define('agent-view', AgentViewElement);
      await settle();
      expect(visibleIds(registry)).to.deep.equal(['view:devices.selectRows']);
      expect(error.messages).to.deep.equal([]);
    } finally {
      error.restore();
    }
  });
});
