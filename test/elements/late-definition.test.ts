// Definition order: this page does not import define.ts; it defines the real tags itself, the
// capability first and <agent-surface> last, after a framework-style property set on the undefined
// elements (lit's late-provider pattern). Nothing may register early under a wrong id.
import { expect, fixture, html } from '@open-wc/testing';
import { AgentCapabilityElement } from '../../src/elements/agent-capability.js';
import { AgentSurfaceElement } from '../../src/elements/agent-surface.js';
import { AgentViewElement } from '../../src/elements/agent-view.js';
import {
  compiledAuthority,
  consumer,
  invocationId,
  settle,
  spyConsole,
  tokenOf,
  visibleIds,
} from './helpers.js';

const SELECT_ROWS_SCHEMA =
  '{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string"}}},"required":["ids"],"additionalProperties":false}';

describe('definition order: capability, then view, then surface last', () => {
  it('registers once the provider is defined, with properties set before upgrade', async () => {
    const error = spyConsole('error');
    try {
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
            <agent-capability id="count"></agent-capability>
          </agent-surface>
        </div>`,
      );
      const surface = root.querySelector('agent-surface')!;
      const [selectRows, count] = root.querySelectorAll('agent-capability');
      expect(customElements.get('agent-surface')).to.equal(undefined);

      // What a framework does before the elements upgrade: plain own properties.
      (surface as unknown as { authority: unknown }).authority = compiledAuthority();
      (selectRows as unknown as { handler: unknown }).handler = (input: { ids: string[] }) => ({
        selected: input.ids.length,
      });
      (count as unknown as { contract: unknown }).contract = {
        id: 'domain:devices.count',
        kind: 'observation',
        effect: 'read',
        description: 'How many devices are listed.',
        outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      };
      (count as unknown as { read: unknown }).read = () => ({ count: 7 });
      count!.setAttribute('token', tokenOf('domain:devices.count'));

      customElements.define('agent-capability', AgentCapabilityElement);
      await settle();
      customElements.define('agent-view', AgentViewElement);
      await settle();
      expect((selectRows as AgentCapabilityElement).registrationId).to.equal(undefined);

      customElements.define('agent-surface', AgentSurfaceElement);
      await settle();
      const registry = (surface as AgentSurfaceElement).registry!;
      expect(registry).to.not.equal(undefined);
      expect(visibleIds(registry)).to.deep.equal(['domain:devices.count', 'view:devices.selectRows']);
      // No attempt under a wrong id (a domain: id before the view upgraded) was ever refused.
      expect(error.messages).to.deep.equal([]);

      const selected = await registry.invoke({
        capabilityId: 'view:devices.selectRows',
        input: { ids: ['a', 'b'] },
        invocationId: invocationId(),
        consumer,
      });
      expect(selected).to.deep.include({ ok: true, output: { selected: 2 } });
      const counted = await registry.invoke({
        capabilityId: 'domain:devices.count',
        input: {},
        invocationId: invocationId(),
        consumer,
      });
      expect(counted).to.deep.include({ ok: true, output: { count: 7 } });
    } finally {
      error.restore();
    }
  });
});
