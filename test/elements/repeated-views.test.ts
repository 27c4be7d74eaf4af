// Repeated views: a table whose every row is an <agent-view instance> holding one compiled
// <agent-capability>, inserted, re-rendered and removed at once. Behaviour only (every row registered,
// one agent-surface-changed per operation); the times are bench/elements.bench.mjs's. Also the cases
// where a view appears around capabilities that were already there, which the no-view providers must
// still hand over (a component that renders its view around slotted content after that content).
import { expect, fixture, html } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import '../../src/elements/index.js';
import type { AgentSurfaceAuthority, CapabilityContract } from '../../src/core/types.js';
import type { AgentCapabilityElement, AgentCapabilityRefusedEvent, AgentSurfaceElement } from '../../src/elements/index.js';
import { compiledAuthority, settle, spyConsole, tokenOf, visibleIds } from './helpers.js';

const ROWS = 600;
const SCHEMA =
  '{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string"}}},"required":["ids"],"additionalProperties":false}';

/** `n` table rows, each a `devices` view instance with the compiled selectRows capability. */
function rows(n: number, prefix = 'd'): HTMLTableSectionElement {
  const table = document.createElement('table');
  let markup = '';
  for (let i = 0; i < n; i++) {
    markup +=
      `<tr><td><agent-view name="devices" instance="${prefix}${i}">` +
      `<agent-capability name="selectRows" effect="local-state" description="Select rows of the devices table by id." token="${tokenOf('view:devices.selectRows')}">` +
      `<script type="application/schema+json">${SCHEMA}</script></agent-capability>` +
      `</agent-view></td><td>Device ${i}</td></tr>`;
  }
  table.innerHTML = `<tbody>${markup}</tbody>`;
  return table.tBodies[0]!;
}

const ids = (n: number, prefix = 'd') =>
  Array.from({ length: n }, (_, i) => `view:devices.selectRows@${prefix}${i}`).sort();

const capabilitiesIn = (node: ParentNode) => [...node.querySelectorAll<AgentCapabilityElement>('agent-capability')];

/** Counts the surface's agent-surface-changed events until `stop()`. */
function countChanges(surface: AgentSurfaceElement) {
  let count = 0;
  const listener = () => (count += 1);
  surface.addEventListener('agent-surface-changed', listener);
  return {
    get count() {
      return count;
    },
    stop: () => surface.removeEventListener('agent-surface-changed', listener),
  };
}

describe('repeated views: a table of row views', () => {
  let error: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    error = spyConsole('error');
  });
  afterEach(() => error.restore());

  it(`registers all ${ROWS} rows inserted at once with one agent-surface-changed, then a re-render and a removal each change the surface once`, async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface></agent-surface>`);
    surface.authority = compiledAuthority();
    await surface.ready;
    const registry = surface.registry!;

    // Insert the whole table in one operation.
    const table = document.createElement('table');
    table.append(rows(ROWS));
    let changes = countChanges(surface);
    surface.append(table);
    await settle();
    changes.stop();
    expect(changes.count).to.equal(1);
    const first = capabilitiesIn(table);
    expect(first.every((c) => typeof c.registrationId === 'string')).to.equal(true);
    expect(new Set(first.map((c) => c.registrationId)).size).to.equal(ROWS);
    expect(visibleIds(registry)).to.deep.equal(ids(ROWS));

    // A re-render: every row replaced by new elements for the same devices.
    const body = table.tBodies[0]!;
    const next = rows(ROWS);
    changes = countChanges(surface);
    body.replaceChildren(...next.childNodes);
    await settle();
    changes.stop();
    expect(changes.count).to.equal(1);
    expect(first.filter((c) => c.registrationId !== undefined)).to.have.length(0);
    const second = capabilitiesIn(table);
    expect(second).to.have.length(ROWS);
    expect(second.every((c) => typeof c.registrationId === 'string')).to.equal(true);
    expect(visibleIds(registry)).to.deep.equal(ids(ROWS));
    const live = new Set(registry.snapshot({ consumer: { id: 't', kind: 'test' } }).capabilities.map((c) => c.registrationId));
    expect(second.every((c) => live.has(c.registrationId!))).to.equal(true);

    // A re-render that renders other devices: the old instances go, the new ones come, in one change.
    changes = countChanges(surface);
    body.replaceChildren(...rows(ROWS / 2, 'e').childNodes);
    await settle();
    changes.stop();
    expect(changes.count).to.equal(1);
    expect(visibleIds(registry)).to.deep.equal(ids(ROWS / 2, 'e'));

    // Removal unregisters every row, again in one change.
    const third = capabilitiesIn(table);
    changes = countChanges(surface);
    table.remove();
    await settle();
    changes.stop();
    expect(changes.count).to.equal(1);
    expect(third.filter((c) => c.registrationId !== undefined)).to.have.length(0);
    expect(visibleIds(registry)).to.deep.equal([]);
    expect(error.messages).to.deep.equal([]);
  });

  it('reads the contract of rows with the same markup once, frozen, and a row whose markup changes registers what it now declares, alone', async () => {
    const compiled = compiledAuthority();
    const admitted: CapabilityContract[] = [];
    const authority: AgentSurfaceAuthority = { ...compiled, admit: (contract, token) => (admitted.push(contract), compiled.admit(contract, token)) };
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface></agent-surface>`);
    surface.authority = authority;
    const table = document.createElement('table');
    table.append(rows(3));
    surface.append(table);
    await surface.ready;
    expect(visibleIds(surface.registry)).to.deep.equal(ids(3));
    // One object for the three rows, which no authority (or anything it hands it to) can change for the next row.
    expect(admitted).to.have.length(3);
    expect(admitted[1]).to.equal(admitted[0]);
    expect(admitted[2]).to.equal(admitted[0]);
    expect(Object.isFrozen(admitted[0]) && Object.isFrozen(admitted[0]!.inputSchema)).to.equal(true);
    expect(() => ((admitted[0] as { description: string }).description = 'Something else.')).to.throw(TypeError);

    // The second row's schema changes: it alone is read again, and the build did not authorize that.
    const [, second] = capabilitiesIn(table);
    const refused = new Promise<AgentCapabilityRefusedEvent>((go) => second!.addEventListener('agent-capability-refused', go, { once: true }));
    second!.querySelector('script')!.textContent = '{"type":"object","additionalProperties":false}';
    expect((await refused).detail.error.details?.reason).to.equal('contract-differs');
    await surface.ready;
    expect(second!.registrationId).to.equal(undefined);
    expect(visibleIds(surface.registry)).to.deep.equal(ids(3).filter((id) => !id.endsWith('@d1')));
    // Back to the markup the build saw: it registers again, with the contract the other rows share.
    second!.querySelector('script')!.textContent = SCHEMA;
    await surface.ready;
    expect(visibleIds(surface.registry)).to.deep.equal(ids(3));
    expect(admitted.at(-1)).to.equal(admitted[0]);
    expect(error.messages.filter((m) => m.includes('UNAUTHORIZED_CONTRACT'))).to.have.length(1);
  });

  it('gives a row that differs from the row before it by one attribute, one script or its view its own contract, in one insertion', async () => {
    const compiled = compiledAuthority();
    const admitted: CapabilityContract[] = [];
    const authority: AgentSurfaceAuthority = { ...compiled, admit: (contract, token) => (admitted.push(contract), compiled.admit(contract, token)) };
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface></agent-surface>`);
    surface.authority = authority;
    await surface.ready;
    const body = rows(10);
    const capabilities = capabilitiesIn(body);
    // Each change follows a row that is exactly like the others, whose contract the reader just handed out.
    capabilities[2]!.setAttribute('description', 'Select rows of the devices table by id, quietly.');
    capabilities[4]!.insertAdjacentHTML('beforeend', '<script type="application/schema+json" data-schema="output">{"type":"object"}</script>');
    capabilities[6]!.querySelector('script')!.type = 'application/json';
    capabilities[7]!.append(document.createElement('span'));
    body.rows[8]!.querySelector('agent-view')!.setAttribute('name', 'devices.other');
    capabilities[9]!.querySelector('script')!.remove();
    const table = document.createElement('table');
    table.append(body);
    surface.append(table);
    await surface.ready;
    // Rows 0, 1, 3, 5 and 7 (a child that is not a script changes nothing) declare what the build saw.
    expect(visibleIds(surface.registry)).to.deep.equal(['d0', 'd1', 'd3', 'd5', 'd7'].map((d) => `view:devices.selectRows@${d}`));
    expect(capabilities.map((c) => c.registrationId !== undefined)).to.deep.equal([true, true, false, true, false, true, false, true, false, false]);
    expect(admitted).to.have.length(10);
    for (const i of [1, 3, 5, 7]) expect(admitted[i]).to.equal(admitted[0]);
    expect(admitted[2]!.description).to.equal('Select rows of the devices table by id, quietly.');
    expect(admitted[4]!.outputSchema).to.deep.equal({ type: 'object' });
    // A script of another type is no schema: no input schema at all.
    expect(admitted[6]!.inputSchema).to.equal(undefined);
    expect(admitted[8]!.id).to.equal('view:devices.other.selectRows');
    expect(admitted[9]!.inputSchema).to.equal(undefined);
    for (const i of [2, 4, 6, 8, 9]) expect(admitted[i]).not.to.equal(admitted[0]);
  });

  it('registers rows that a component renders into its own shadow root', async () => {
    class DeviceTable extends HTMLElement {
      connectedCallback() {
        const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
        const table = document.createElement('table');
        table.append(rows(ROWS));
        root.replaceChildren(table);
      }
    }
    customElements.define('device-table-rows', DeviceTable);
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface></agent-surface>`);
    surface.authority = compiledAuthority();
    await surface.ready;
    const changes = countChanges(surface);
    surface.append(document.createElement('device-table-rows'));
    await settle();
    changes.stop();
    expect(changes.count).to.equal(1);
    expect(visibleIds(surface.registry)).to.deep.equal(ids(ROWS));
    expect(error.messages).to.deep.equal([]);
  });
});

describe('repeated views: a view that appears around capabilities already there', () => {
  /** A component that renders its view around a slot only when told to (after its light children connected). */
  class LateFrame extends HTMLElement {
    render(viewAttributes: string) {
      (this.shadowRoot ?? this.attachShadow({ mode: 'open' })).innerHTML = `<agent-view ${viewAttributes}><slot></slot></agent-view>`;
    }
  }
  before(() => customElements.define('late-frame', LateFrame));

  it('hands slotted capabilities over to a view rendered after them, among many rows', async () => {
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface>
        <late-frame>
          <agent-capability name="open" effect="navigation" description="Open the card."></agent-capability>
        </late-frame>
      </agent-surface>`,
    );
    surface.authority = devAuthority();
    await settle();
    expect(visibleIds(surface.registry)).to.deep.equal(['domain:open']);
    // Row views between make the providers' bookkeeping non-trivial.
    const table = document.createElement('table');
    table.append(rows(50));
    surface.append(table);
    await settle();

    surface.querySelector<LateFrame>('late-frame')!.render('name="card" instance="c1"');
    await settle();
    const seen = visibleIds(surface.registry);
    expect(seen.filter((id) => !id.startsWith('view:devices.'))).to.deep.equal(['view:card.open@c1']);
    expect(seen).to.have.length(51);
  });

  it('refuses a view once an outer view is rendered around it through a slot', async () => {
    const error = spyConsole('error');
    try {
      const surface = await fixture<AgentSurfaceElement>(
        html`<agent-surface>
          <late-frame>
            <agent-view name="inner">
              <agent-capability name="b" effect="read" description="B."></agent-capability>
            </agent-view>
          </late-frame>
        </agent-surface>`,
      );
      surface.authority = devAuthority();
      await settle();
      expect(visibleIds(surface.registry)).to.deep.equal(['view:inner.b']);

      surface.querySelector<LateFrame>('late-frame')!.render('name="outer"');
      await settle();
      expect(visibleIds(surface.registry)).to.deep.equal([]);
      expect(error.messages.join('\n')).to.match(/<agent-view name="inner"> is inside <agent-view name="outer">: views are flat/);
    } finally {
      error.restore();
    }
  });

  it('registers nothing for row views outside any surface, and all of them once they move into one', async () => {
    const holder = await fixture<HTMLDivElement>(html`<div></div>`);
    const table = document.createElement('table');
    table.append(rows(100));
    holder.append(table);
    await settle();
    expect(capabilitiesIn(holder).some((c) => c.registrationId)).to.equal(false);
    const surface = document.createElement('agent-surface');
    surface.authority = compiledAuthority();
    holder.append(surface);
    surface.append(table);
    await settle();
    expect(visibleIds(surface.registry)).to.deep.equal(ids(100));
  });
});
