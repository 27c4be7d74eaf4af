import { ContextConsumer, ContextProvider } from '@lit/context';
import { ReactiveElement, unsafeCSS } from '@lit/reactive-element';
import { DEV_MODE, issueWarning } from '../core/dev.js';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { ensureContextRoot, registryContext, viewContext, type AgentViewContextValue } from './context.js';
import { compareTreeOrder } from './tree-order.js';

/**
 * Views without an `instance`, grouped by registry and name. Two or more with one name get
 * instance ids from document order ("1", "2", …) so their capabilities stay apart and stable.
 */
const groups = new WeakMap<AgentSurfaceRegistry, Map<string, Set<AgentViewElement>>>();
const dirtyGroups = new Set<Set<AgentViewElement>>();

/**
 * One rendered view instance. Capabilities inside get the id `view:<name>.<capability name>` and
 * register with the view's `instance` as their instance id. Views are flat: a view inside another
 * view is refused (a console error says which) and nothing inside it registers.
 *
 * @summary A view instance: scopes the ids and instance of the capabilities inside it.
 * @tag agent-view
 *
 * @slot - The view's content, including its `<agent-capability>` elements.
 *
 * @attr {string} name - The view's name, the first path segments of its capabilities' ids (`devices.table` gives `view:devices.table.selectRows`). Required.
 * @attr {string} instance - Which instance of the view this is (a record id, a tab id). Needed when one view is rendered more than once.
 */
export class AgentViewElement extends ReactiveElement {
  // A constant: `unsafeCSS` (not the `css` tag) keeps lit's template-checking tag out of the entry.
  static override styles = unsafeCSS(':host { display: contents; }');

  static override properties = {
    name: { reflect: true },
    instance: { reflect: true },
  };

  /** The view's name. */
  declare name: string;
  /** The instance id, when the view is rendered more than once. */
  declare instance: string | undefined;

  #auto: string | undefined;
  #group: Set<AgentViewElement> | undefined;
  #logged: string | undefined;
  #provider = new ContextProvider(this, { context: viewContext });
  #parent = new ContextConsumer(this, { context: viewContext, subscribe: true, callback: () => this.#refresh() });
  #registry = new ContextConsumer(this, { context: registryContext, subscribe: true, callback: () => this.#refresh() });

  /** The view context this element provides (`undefined` before it first connects). */
  get viewContext(): AgentViewContextValue | undefined {
    return this.#provider.value;
  }

  override connectedCallback(): void {
    this.#parent.value = this.#registry.value = undefined;
    ensureContextRoot(this.ownerDocument);
    super.connectedCallback();
    this.#refresh();
    // A move keeps the group but may change the order (reactions run after the move: no leave/join).
    if (this.#group) AgentViewElement.#schedule(this.#group);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#refresh();
  }

  // `name` and `instance` are its only properties; other updates (context arrivals) find nothing new.
  protected override updated(): void {
    this.#refresh();
  }

  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    // The whole shadow tree is one default slot: built with the DOM, so the entry needs no template engine.
    root.appendChild(this.ownerDocument.createElement('slot'));
    return root;
  }

  static #schedule(group: Set<AgentViewElement>): void {
    if (!dirtyGroups.size) queueMicrotask(AgentViewElement.#flush);
    dirtyGroups.add(group);
  }

  static #flush(): void {
    const pending = [...dirtyGroups];
    dirtyGroups.clear();
    for (const group of pending) {
      const members = [...group].sort(compareTreeOrder);
      const many = members.length > 1;
      if (many && DEV_MODE) {
        const name = members[0]!.name;
        issueWarning(
          'duplicate-view',
          name,
          `${members.length} <agent-view name="${name}"> elements have no instance="…": give each a distinct instance ` +
            `so agents can tell them apart. Until then they get instance ids from document order ("1", "2", …).`,
        );
      }
      members.forEach((view, i) => {
        const auto = many ? String(i + 1) : undefined;
        if (auto === view.#auto) return;
        view.#auto = auto;
        view.#refresh();
      });
    }
  }

  // Runs synchronously on connect so children that connect right after see the right context.
  #refresh(): void {
    const name = this.name;
    const instance = this.instance || undefined;
    const parent = this.isConnected ? this.#parent.value : undefined;
    const refused = !name
      ? `<agent-view> has no name="…": give it the view's name; nothing inside it registers`
      : parent
        ? `<agent-view name="${name}"> is inside <agent-view name="${parent.name}">: views are flat, so nothing ` +
          `inside the inner one registers. Move it out of the outer view.`
        : undefined;
    if (refused && refused !== this.#logged) console.error(`[agent-surface-kit INVALID_VIEW] ${refused}`);
    this.#logged = refused;

    // Join the group of same-named views without an instance in this registry (or leave it).
    const registry = this.isConnected && !refused && !instance ? this.#registry.value : undefined;
    let group: Set<AgentViewElement> | undefined;
    if (registry) {
      let byName = groups.get(registry);
      if (!byName) groups.set(registry, (byName = new Map()));
      group = byName.get(name);
      if (!group) byName.set(name, (group = new Set()));
    }
    if (group !== this.#group) {
      if (this.#group) {
        this.#group.delete(this);
        AgentViewElement.#schedule(this.#group);
      }
      this.#group = group;
      if (group) {
        group.add(this);
        AgentViewElement.#schedule(group);
      } else {
        this.#auto = undefined;
      }
    }

    const next: AgentViewContextValue = refused
      ? { name: name ?? '', refused }
      : instance || this.#auto
        ? { name, instance: instance || this.#auto }
        : { name };
    // Both built above, so equal values serialize alike; a new object would wake every consumer.
    if (JSON.stringify(next) !== JSON.stringify(this.#provider.value)) this.#provider.setValue(next);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-view': AgentViewElement;
  }
}
