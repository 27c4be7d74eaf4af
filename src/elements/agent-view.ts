import { ContextConsumer, ContextProvider } from '@lit/context';
import { ReactiveElement, unsafeCSS, type PropertyValues } from '@lit/reactive-element';
import { DEV_MODE, issueError, issueWarning } from '../core/dev.js';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { ensureContextRoot, registryContext, viewContext, type AgentViewContextValue } from './context.js';
import { sortInTreeOrder } from './tree-order.js';
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
  /** Which of the two requests this connection sent (bit 1: #parent, 2: #registry). */
  #asked = 0;
  /** Constructed in place around children that may already be running (an upgrade). */
  #upgraded = this.isConnected;

  constructor() {
    super();
    // The requests go out when the view needs their answer, not on every connect: a view without a
    // name is refused whatever encloses it, and only views without an `instance` need the registry
    // (to number them), so a flood of such views sends none (#refresh asks). The provider's
    // announcement is for consumers that subscribed elsewhere before this view enclosed them: see
    // connectedCallback.
    for (const controller of [this.#provider, this.#parent, this.#registry]) this.removeController(controller);
  }

  /** The view context this element provides (`undefined` before it first connects). */
  get viewContext(): AgentViewContextValue | undefined {
    return this.#provider.value;
  }

  override connectedCallback(): void {
    this.#parent.value = this.#registry.value = undefined;
    ensureContextRoot(this.ownerDocument);
    // The contexts come back one by one while connecting: judge once both are in, so a moved view
    // never seems to leave its group for a moment (it would lose its number).
    this.#asked = 0;
    this.#connecting = true;
    try {
      super.connectedCallback();
      // Only two kinds of consumer can have subscribed elsewhere before this view enclosed them:
      // children already running when the view was upgraded in place, and a shadow host's light
      // children that a <slot> inside the view takes in. Anything else inside connects after the
      // view and asks it directly, so otherwise the announcement (an event up the whole tree) is skipped.
      if (this.#upgraded || this.querySelector('slot')) this.#provider.hostConnected();
      this.#upgraded = false;
    } finally {
      this.#connecting = false;
    }
    this.#refresh();
    // A move keeps the group but may change the order (reactions run after the move: no leave/join).
    if (this.#group) AgentViewElement.#schedule(this.#group);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#parent.hostDisconnected();
    this.#registry.hostDisconnected();
    this.#refresh();
  }

  // `name` and `instance` are its only properties; other updates (context arrivals, which refresh
  // in their callback) find nothing new.
  protected override updated(changed: PropertyValues<this>): void {
    if (changed.size) this.#refresh();
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
      const members = [...group.members];
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
      for (const view of sortInTreeOrder(members.filter((view) => !view.#placed))) {
        view.#placed = true;
        const auto = alone ? undefined : String(++group.last);
        if (alone) group.last = 1;
        view.#auto = auto;
        view.#refresh();
      }
    }
  }

  /** Sends a request once per connection; its synchronous answer must not re-enter `#refresh`. */
  #ask(consumer: ContextConsumer<typeof viewContext | typeof registryContext, this>, bit: number): void {
    if (this.#asked & bit) return;
    this.#asked |= bit;
    // dispatchEvent reports a listener's exception instead of throwing it, so no finally is needed.
    this.#connecting = true;
    consumer.hostConnected();
    this.#connecting = false;
  }

  // Runs synchronously on connect so children that connect right after see the right context.
  #refresh(): void {
    if (this.#connecting) return;
    const name = this.name;
    const instance = this.instance || undefined;
    const connected = this.isConnected;
    if (connected && name) this.#ask(this.#parent, 1);
    const parent = connected && name ? this.#parent.value : undefined;
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
    const numbered = connected && !refused && !instance;
    if (numbered) this.#ask(this.#registry, 2);
    const registry = numbered ? this.#registry.value : undefined;
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
