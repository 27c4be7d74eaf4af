import { ContextConsumer, ContextProvider } from '@lit/context';
import { ReactiveElement, unsafeCSS } from '@lit/reactive-element';
import { DEV_MODE, issueError, issueWarning } from '../core/dev.js';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { ensureContextRoot, registryContext, viewContext, type AgentViewContextValue } from './context.js';
import { compareTreeOrder } from './tree-order.js';
import { AgentCapabilityRefusedEvent } from './events.js';
import { instanceIdProblem } from '../core/live-text.js';

/**
 * Views without an `instance`, grouped by registry and name. Two or more with one name get
 * instance ids so their capabilities stay apart: the views present together at first get "1", "2", …
 * in document order; a view that joins later gets the next number, and a number once given is
 * never taken back or handed to another view while its holder stays. So a copy inserted above the
 * page's own view (injected markup, say) cannot renumber it and take its place. A view alone keeps
 * no instance id, and keeps none when others join.
 */
interface ViewGroup {
  readonly members: Set<AgentViewElement>;
  /** The last number given (the first view alone counts as 1). */
  last: number;
}
const groups = new WeakMap<AgentSurfaceRegistry, Map<string, ViewGroup>>();
const dirtyGroups = new Set<ViewGroup>();

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
 * @attr {string} instance - Which instance of the view this is (a record id, a tab id): 1 to 64 characters of `A-Z a-z 0-9 _ - . :`, or the view is refused. Needed when one view is rendered more than once.
 *
 * @fires {AgentCapabilityRefusedEvent} agent-capability-refused - The view was refused (no name, inside another view, an `instance` that is not a token); nothing inside it registers.
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
  /** Whether this view was given its place (a number, or none while alone) in `#group`. */
  #placed = false;
  #connecting = false;
  #group: ViewGroup | undefined;
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
    // The contexts come back one by one while connecting: judge once both are in, so a moved view
    // never seems to leave its group for a moment (it would lose its number).
    this.#connecting = true;
    try {
      super.connectedCallback();
    } finally {
      this.#connecting = false;
    }
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

  static #schedule(group: ViewGroup): void {
    if (!dirtyGroups.size) queueMicrotask(AgentViewElement.#flush);
    dirtyGroups.add(group);
  }

  static #flush(): void {
    const pending = [...dirtyGroups];
    dirtyGroups.clear();
    for (const group of pending) {
      const members = [...group.members].sort(compareTreeOrder);
      if (members.length > 1 && DEV_MODE) {
        const name = members[0]!.name;
        issueWarning(
          'duplicate-view',
          name,
          `${members.length} <agent-view name="${name}"> elements have no instance="…": give each a distinct instance ` +
            `so agents can tell them apart. Until then they get instance ids "1", "2", … in the order they arrived.`,
        );
      }
      // Only newcomers get a place; the others keep theirs, whatever the document order now is.
      const alone = members.length === 1 && group.last === 0;
      for (const view of members) {
        if (view.#placed) continue;
        view.#placed = true;
        const auto = alone ? undefined : String(++group.last);
        if (alone) group.last = 1;
        view.#auto = auto;
        view.#refresh();
      }
    }
  }

  // Runs synchronously on connect so children that connect right after see the right context.
  #refresh(): void {
    if (this.#connecting) return;
    const name = this.name;
    const instance = this.instance || undefined;
    const parent = this.isConnected ? this.#parent.value : undefined;
    // The instance id comes from the page at run time: a token, never a paragraph (live-text.ts).
    const badInstance = instance === undefined ? undefined : instanceIdProblem(instance);
    const refused = !name
      ? `<agent-view> has no name="…": give it the view's name; nothing inside it registers`
      : parent
        ? `<agent-view name="${name}"> is inside <agent-view name="${parent.name}">: views are flat, so nothing ` +
          `inside the inner one registers. Move it out of the outer view.`
        : badInstance
          ? `<agent-view name="${name}">: its ${badInstance}; nothing inside it registers`
          : undefined;
    if (refused && refused !== this.#logged && this.isConnected) {
      // Logged once per page and problem (a flood of broken views logs one line); each view still fires its event.
      issueError('INVALID_VIEW', refused, refused);
      this.dispatchEvent(
        new AgentCapabilityRefusedEvent({
          code: 'INVALID_REGISTRATION',
          message: refused,
          details: { reason: !name ? 'no-view-name' : parent ? 'nested-view' : 'invalid-instance-id' },
        }),
      );
    }
    this.#logged = refused;

    // Join the group of same-named views without an instance in this registry (or leave it).
    const registry = this.isConnected && !refused && !instance ? this.#registry.value : undefined;
    let group: ViewGroup | undefined;
    if (registry) {
      let byName = groups.get(registry);
      if (!byName) groups.set(registry, (byName = new Map()));
      group = byName.get(name);
      if (!group) byName.set(name, (group = { members: new Set(), last: 0 }));
    }
    if (group !== this.#group) {
      const old = this.#group;
      if (old) {
        old.members.delete(this);
        // An empty group starts over: there is no view left whose number could change.
        if (!old.members.size) old.last = 0;
        AgentViewElement.#schedule(old);
      }
      this.#group = group;
      this.#placed = false;
      if (group) {
        group.members.add(this);
        AgentViewElement.#schedule(group);
      } else {
        this.#auto = undefined;
      }
    }

    const next: AgentViewContextValue = refused
      ? { name: name ?? '', refused }
      : instance
        ? { name, instance }
        : group && !this.#placed
          ? { name, placing: true }
          : this.#auto
            ? { name, instance: this.#auto }
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
