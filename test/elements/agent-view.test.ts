import { expect, fixture, html } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import { resetIssuedWarnings } from '../../src/core/dev.js';
import '../../src/elements/index.js';
import type { AgentSurfaceElement, AgentViewElement } from '../../src/elements/index.js';
import { consumer, settle, spyConsole, visibleIds } from './helpers.js';

async function surfaceWith(template: ReturnType<typeof html>) {
  const surface = await fixture<AgentSurfaceElement>(template);
  surface.authority = devAuthority();
  await settle();
  return { surface, registry: surface.registry! };
}

describe('<agent-view>', () => {
  let warn: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    resetIssuedWarnings();
    warn = spyConsole('warn');
  });
  afterEach(() => warn.restore());

  it('scopes its capabilities: id view:<name>.<child>, instanceId = instance', async () => {
    const { registry } = await surfaceWith(
      html`<agent-surface>
        <agent-view name="devices.table" instance="tab-1">
          <section>
            <agent-capability
              name="selectRows"
              effect="local-state"
              description="Select rows."
            ></agent-capability>
          </section>
        </agent-view>
        <agent-capability
          name="devices.disable"
          effect="destructive"
          description="Disable devices."
        ></agent-capability>
      </agent-surface>`,
    );
    const capabilities = registry.snapshot({ consumer }).capabilities;
    const selectRows = capabilities.find((c) => c.capabilityId === 'view:devices.table.selectRows')!;
    expect(selectRows).to.include({ plane: 'view', instanceId: 'tab-1' });
    expect(capabilities.find((c) => c.capabilityId === 'domain:devices.disable')!.instanceId).to.equal(
      undefined,
    );
  });

  it('re-registers its capabilities when its instance changes', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-view name="editor" instance="doc-1">
          <agent-capability
            name="save"
            effect="server-mutation"
            description="Save the document."
          ></agent-capability>
        </agent-view>
      </agent-surface>`,
    );
    const cap = surface.querySelector('agent-capability')!;
    const before = cap.registrationId;
    surface.querySelector<AgentViewElement>('agent-view')!.instance = 'doc-2';
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['view:editor.save@doc-2']);
    expect(cap.registrationId).to.not.equal(before);
  });

  it('follows a capability that is a view\'s own child from view to view, out of any view, and into a view defined later', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-view name="editor" instance="doc-1">
          <agent-capability name="save" effect="server-mutation" description="Save the document."></agent-capability>
        </agent-view>
        <agent-view name="editor" instance="doc-2"></agent-view>
        <agent-view name="viewer"></agent-view>
      </agent-surface>`,
    );
    const cap = surface.querySelector('agent-capability')!;
    const [, second, viewer] = surface.querySelectorAll<AgentViewElement>('agent-view');
    expect(visibleIds(registry)).to.deep.equal(['view:editor.save@doc-1']);
    second!.append(cap);
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['view:editor.save@doc-2']);
    // Its view's answer changes with the view: a new instance re-registers it.
    second!.instance = 'doc-3';
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['view:editor.save@doc-3']);
    viewer!.append(cap);
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['view:viewer.save']);
    surface.append(cap);
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['domain:save']);
    // An element that becomes a view around it later (a tag of its own, so the test can define it): the
    // capability is a domain one until then, and joins the view once it is upgraded.
    const late = document.createElement('late-view-h12');
    late.setAttribute('name', 'late');
    late.append(cap);
    surface.append(late);
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['domain:save']);
    customElements.define('late-view-h12', class extends (customElements.get('agent-view') as typeof AgentViewElement) {});
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['view:late.save']);
  });

  it('refuses a view nested in another view with a clear console error; nothing inside it registers', async () => {
    const error = spyConsole('error');
    try {
      const { registry } = await surfaceWith(
        html`<agent-surface>
          <agent-view name="outer">
            <agent-capability name="a" effect="read" description="A."></agent-capability>
            <agent-view name="inner">
              <agent-capability name="b" effect="read" description="B."></agent-capability>
            </agent-view>
          </agent-view>
        </agent-surface>`,
      );
      expect(visibleIds(registry)).to.deep.equal(['view:outer.a']);
      expect(error.messages.join('\n')).to.match(
        /<agent-view name="inner"> is inside <agent-view name="outer">: views are flat/,
      );
    } finally {
      error.restore();
    }
  });

  it('lets the inner view register once it is moved out of the outer one', async () => {
    const error = spyConsole('error');
    try {
      const { surface, registry } = await surfaceWith(
        html`<agent-surface>
          <agent-view name="outer">
            <agent-view name="inner">
              <agent-capability name="b" effect="read" description="B."></agent-capability>
            </agent-view>
          </agent-view>
        </agent-surface>`,
      );
      expect(visibleIds(registry)).to.deep.equal([]);
      surface.append(surface.querySelector('agent-view[name="inner"]')!);
      await settle();
      expect(visibleIds(registry)).to.deep.equal(['view:inner.b']);
    } finally {
      error.restore();
    }
  });

  it('reaches capabilities across shadow roots and slots', async () => {
    // A component that renders its own view around slotted content, and one that renders a capability.
    class CardFrame extends HTMLElement {
      connectedCallback() {
        this.attachShadow({ mode: 'open' }).innerHTML =
          '<agent-view name="card" instance="c1"><slot></slot></agent-view>';
      }
    }
    class CardButton extends HTMLElement {
      connectedCallback() {
        this.attachShadow({ mode: 'open' }).innerHTML =
          '<agent-capability name="archive" effect="local-state" description="Archive the card."></agent-capability>';
      }
    }
    customElements.define('card-frame', CardFrame);
    customElements.define('card-button', CardButton);
    const { registry } = await surfaceWith(
      html`<agent-surface>
        <card-frame>
          <agent-capability name="open" effect="navigation" description="Open the card."></agent-capability>
        </card-frame>
        <agent-view name="list"><card-button></card-button></agent-view>
      </agent-surface>`,
    );
    expect(visibleIds(registry)).to.deep.equal(['view:card.open@c1', 'view:list.archive']);
  });

  it('gives two same-name views without instance ids from document order, kept through moves, with a dev warning', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-view name="card" id="first">
          <agent-capability name="open" effect="navigation" description="Open the card."></agent-capability>
        </agent-view>
        <agent-view name="card" id="second">
          <agent-capability name="open" effect="navigation" description="Open the card."></agent-capability>
        </agent-view>
      </agent-surface>`,
    );
    expect(visibleIds(registry)).to.deep.equal(['view:card.open@1', 'view:card.open@2']);
    const [first, second] = surface.querySelectorAll('agent-capability');
    const instanceOf = (cap: Element | undefined) =>
      registry
        .snapshot({ consumer })
        .capabilities.find((c) => c.registrationId === (cap as { registrationId?: string }).registrationId)
        ?.instanceId;
    expect([instanceOf(first), instanceOf(second)]).to.deep.equal(['1', '2']);
    expect(
      warn.messages.some((m) => /2 <agent-view name="card"> elements have no instance/.test(m)),
    ).to.equal(true);

    // Swapping the views keeps the ids: a number once given is never taken back (issue 13, item 6),
    // so a view inserted or moved above another cannot take its identity.
    surface.insertBefore(surface.querySelector('#second')!, surface.querySelector('#first'));
    await settle();
    expect([instanceOf(first), instanceOf(second)]).to.deep.equal(['1', '2']);
    expect(visibleIds(registry)).to.deep.equal(['view:card.open@1', 'view:card.open@2']);

    // One left: it keeps its number too.
    surface.querySelector('#first')!.remove();
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['view:card.open@2']);
  });
  it('numbers a flood of same-name views in document order, whatever order they connected in, across shadow roots', async () => {
    class ViewBox extends HTMLElement {
      connectedCallback() {
        if (!this.shadowRoot) this.attachShadow({ mode: 'open' }).innerHTML = '<agent-view name="flood"></agent-view>';
      }
    }
    customElements.define('view-box', ViewBox);
    const { surface } = await surfaceWith(html`<agent-surface></agent-surface>`);
    const make = (id: string) => Object.assign(document.createElement('agent-view'), { name: 'flood', id });
    // One microtask: 20 siblings appended, 10 more put before them, a component's view in between.
    // The numbers follow the document, not the order they connected in.
    surface.append(...Array.from({ length: 20 }, (_, i) => make(`late${i}`)));
    surface.prepend(...Array.from({ length: 10 }, (_, i) => make(`early${i}`)));
    surface.insertBefore(document.createElement('view-box'), surface.querySelector('#late0'));
    await settle();
    const box = surface.querySelector('view-box')!.shadowRoot!.querySelector<AgentViewElement>('agent-view')!;
    const numbers = [...surface.querySelectorAll<AgentViewElement>('agent-view')].map((v) => v.viewContext?.instance);
    expect(numbers.slice(0, 10)).to.deep.equal(Array.from({ length: 10 }, (_, i) => String(i + 1)));
    expect(box.viewContext?.instance).to.equal('11');
    expect(numbers.slice(10)).to.deep.equal(Array.from({ length: 20 }, (_, i) => String(i + 12)));
  });

  it('takes what it needs from its surroundings once its attributes call for it: a name given later, an instance taken away', async () => {
    const error = spyConsole('error');
    try {
      const { surface, registry } = await surfaceWith(
        html`<agent-surface>
          <agent-view name="outer">
            <agent-view id="nameless"><agent-capability name="b" effect="read" description="B."></agent-capability></agent-view>
          </agent-view>
          <agent-view name="tab" id="own"><agent-capability name="c" effect="read" description="C."></agent-capability></agent-view>
          <agent-view name="tab" instance="t9" id="given"><agent-capability name="c" effect="read" description="C."></agent-capability></agent-view>
        </agent-surface>`,
      );
      expect(error.messages.join('\n')).to.match(/<agent-view> has no name/);
      expect(visibleIds(registry)).to.deep.equal(['view:tab.c', 'view:tab.c@t9']);

      // Named now, it finds the view around it and is refused for nesting.
      surface.querySelector<AgentViewElement>('#nameless')!.name = 'inner';
      await settle();
      expect(error.messages.join('\n')).to.match(/<agent-view name="inner"> is inside <agent-view name="outer">/);

      // Without its instance, it joins the same-name view's numbering and takes the next number.
      surface.querySelector<AgentViewElement>('#given')!.instance = undefined;
      await settle();
      expect(visibleIds(registry)).to.deep.equal(['view:tab.c', 'view:tab.c@2']);
    } finally {
      error.restore();
    }
  });
});

