import { ContextConsumer, ContextProvider } from '@lit/context';
import { ReactiveElement, css, type PropertyValues } from '@lit/reactive-element';
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

function scheduleGroup(group: Set<AgentViewElement>): void {
  if (dirtyGroups.size === 0) queueMicrotask(flushGroups);
  dirtyGroups.add(group);
}

function flushGroups(): void {
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
    members.forEach((view, i) => view._setAutoInstance(many ? String(i + 1) : undefined));
  }
}

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
  static override styles = css`
    :host {
      display: contents;
    }
  `;

  static override properties = {
    name: { reflect: true },
    instance: { reflect: true },
  };

  /** The view's name. */
  declare name: string;
  /** The instance id, when the view is rendered more than once. */
  declare instance: string | undefined;

  private _auto: string | undefined;
  private _group: Set<AgentViewElement> | undefined;
  private _logged: string | undefined;
  private _provider = new ContextProvider(this, { context: viewContext });
  private _parentValue: AgentViewContextValue | undefined;
  private _registryValue: AgentSurfaceRegistry | undefined;
  private _parent = new ContextConsumer(this, {
    context: viewContext,
    subscribe: true,
    callback: (value) => {
      this._parentValue = value;
      this._refresh();
    },
  });
  private _registry = new ContextConsumer(this, {
    context: registryContext,
    subscribe: true,
    callback: (value) => {
      this._registryValue = value;
      this._refresh();
    },
  });

  /** The view context this element provides (`undefined` before it first connects). */
  get viewContext(): AgentViewContextValue | undefined {
    return this._provider.value;
  }

  override connectedCallback(): void {
    this._parentValue = undefined;
    this._registryValue = undefined;
    ensureContextRoot(this.ownerDocument);
    super.connectedCallback();
    this._refresh();
    // A move keeps the group but may change the order (reactions run after the move: no leave/join).
    if (this._group) scheduleGroup(this._group);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this._refresh();
  }

  protected override updated(changed: PropertyValues<this>): void {
    super.updated(changed);
    if (changed.has('name') || changed.has('instance')) this._refresh();
  }

  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    // The whole shadow tree is one default slot: built with the DOM, so the entry needs no template engine.
    root.appendChild(this.ownerDocument.createElement('slot'));
    return root;
  }

  /** @internal Called by the group bookkeeping. */
  _setAutoInstance(instance: string | undefined): void {
    if (instance === this._auto) return;
    this._auto = instance;
    this._refresh();
  }

  // Runs synchronously on connect so children that connect right after see the right context.
  private _refresh(): void {
    const name = this.name;
    const instance = this.instance || undefined;
    const parent = this.isConnected ? this._parentValue : undefined;
    let refused: string | undefined;
    if (!name) {
      refused = `<agent-view> has no name="…": give it the view's name; the capabilities inside it are not registered`;
    } else if (parent) {
      refused =
        `<agent-view name="${name}"> is inside <agent-view name="${parent.name}">: views are flat, so the ` +
        `capabilities inside the inner view are not registered. Move it out, or make its capabilities part of the outer view.`;
    }
    if (refused && refused !== this._logged) console.error(`[agent-surface-kit INVALID_VIEW] ${refused}`);
    this._logged = refused;

    const registry = this.isConnected && !refused && !instance ? this._registryValue : undefined;
    this._joinGroup(registry, name);

    const next: AgentViewContextValue = refused
      ? { name: name ?? '', refused }
      : instance || this._auto
        ? { name, instance: instance || this._auto }
        : { name };
    const current = this._provider.value;
    if (
      !current ||
      current.name !== next.name ||
      current.instance !== next.instance ||
      current.refused !== next.refused
    ) {
      this._provider.setValue(next);
    }
  }

  private _joinGroup(registry: AgentSurfaceRegistry | undefined, name: string): void {
    let group: Set<AgentViewElement> | undefined;
    if (registry) {
      let byName = groups.get(registry);
      if (!byName) groups.set(registry, (byName = new Map()));
      group = byName.get(name);
      if (!group) byName.set(name, (group = new Set()));
    }
    if (group === this._group) return;
    if (this._group) {
      this._group.delete(this);
      scheduleGroup(this._group);
    }
    this._group = group;
    if (group) {
      group.add(this);
      scheduleGroup(group);
    } else {
      this._auto = undefined;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-view': AgentViewElement;
  }
}
