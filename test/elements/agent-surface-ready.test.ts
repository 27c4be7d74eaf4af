// `await surface.updateComplete` (or `surface.ready`) right after setting `.authority`: every capability
// inside at that time has registered or been refused, with no timers in between.
import { expect, fixture, html } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import type { AgentSurfaceElement } from '../../src/elements/index.js';
import { consumer, spyConsole, visibleIds } from './helpers.js';

class ReadyHost extends HTMLElement {
  connectedCallback(): void {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: 'open' }).innerHTML = `<agent-view name="panel">
      <agent-capability name="open" effect="navigation" description="Open the panel."></agent-capability>
    </agent-view>`;
  }
}
customElements.define('ready-host', ReadyHost);

describe('<agent-surface> readiness', () => {
  let warn: ReturnType<typeof spyConsole>;
  let error: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    warn = spyConsole('warn');
    error = spyConsole('error');
  });
  afterEach(() => {
    warn.restore();
    error.restore();
  });

  it('updateComplete settles once every capability inside has registered, shadow roots included', async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-view name="devices">
        <agent-capability name="selectRows" effect="local-state" description="Select rows.">
          <script type="application/schema+json">{"type":"object","properties":{"ids":{"type":"array"}}}</script>
        </agent-capability>
      </agent-view>
      <agent-capability name="devices.disable" effect="destructive" description="Disable devices."></agent-capability>
      <ready-host></ready-host>
    </agent-surface>`);
    expect(visibleIds(surface.registry)).to.deep.equal([]);
    surface.authority = devAuthority();
    // No other wait: the toolset right after the await has every tool.
    await surface.updateComplete;
    const toolset = surface.toolset({ consumer, topology: 'embedded' });
    expect(toolset.tools().map((t) => t.name).sort()).to.deep.equal([
      'domain_devices__disable',
      'view_devices__selectRows',
      'view_panel__open',
    ]);
    toolset.dispose();
  });

  it('ready resolves after refusals too, and for capabilities added in the same task', async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name="broken" description="No effect."></agent-capability>
    </agent-surface>`);
    const refused: string[] = [];
    surface.addEventListener('agent-capability-refused', (e) => refused.push((e.target as Element).getAttribute('name')!));
    const late = document.createElement('agent-capability');
    late.setAttribute('name', 'late');
    late.setAttribute('effect', 'read');
    late.setAttribute('kind', 'observation');
    late.setAttribute('description', 'Added with the authority.');
    surface.append(late);
    surface.authority = devAuthority();
    const result = await surface.ready;
    expect(result).to.equal(undefined);
    expect(refused).to.deep.equal(['broken']);
    expect(visibleIds(surface.registry)).to.deep.equal(['domain:late']);
  });

  it('settles at once when there is nothing to register with', async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name="x" effect="read" description="X."></agent-capability>
    </agent-surface>`);
    expect(await surface.updateComplete).to.equal(true);
    expect(surface.registry).to.equal(undefined);
  });
});
