import { ContextConsumer } from '@lit/context';
import { ReactiveElement, unsafeCSS, type PropertyValues } from '@lit/reactive-element';
import { issueError } from '../core/dev.js';
import { ensureContextRoot, provideView, registryContext, viewContext, type AgentViewContextValue } from './context.js';
import { elementChunk, elementChunkLoaded } from './declared.js';
import type { ViewRecord } from './view-numbering.js';
import { AgentCapabilityRefusedEvent } from './events.js';
import { instanceIdProblem } from '../core/live-text.js';

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
  static override styles = unsafeCSS(`:host { display: contents; }`);

  static override properties = {
    name: { reflect: true },
    instance: { reflect: true },
  };

  /** The view's name. */
  declare name: string;
  /** The instance id, when the view is rendered more than once. */
  declare instance: string | undefined;

  /** Its place among same-named views without an instance (view-numbering.ts, in the element's lazy chunk). */
  #v: ViewRecord = { el: this, refresh: () => this.#refresh() };
  #connecting = false;
  #logged: string | undefined;
  #provider = provideView(this);
  #parent = new ContextConsumer(this, { context: viewContext, subscribe: true, callback: () => this.#refresh() });
  #registry = new ContextConsumer(this, { context: registryContext, subscribe: true, callback: () => this.#refresh() });
  /** Which of the two requests this connection sent (bit 1: #parent, 2: #registry). */
  #asked = 0;
  /** Constructed in place around children that may already be running (an upgrade). */
  #upgraded = this.isConnected;
  /** The `name` and `instance` the last refresh saw. */
  #sawName: string | undefined;
  #sawInstance: string | undefined;

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
    elementChunk.module?.regroupView(this.#v);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#parent.hostDisconnected();
    this.#registry.hostDisconnected();
    this.#refresh();
  }

  // `name` and `instance` are its only properties; other updates (context arrivals, which refresh
  // in their callback) find nothing new, and neither does the first update of a view whose
  // attributes were read before it connected (it refreshed on connecting).
  protected override updated(changed: PropertyValues<this>): void {
    if (changed.size && (this.name !== this.#sawName || this.instance !== this.#sawInstance)) this.#refresh();
  }

  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    // The whole shadow tree is one default slot: built with the DOM, so the entry needs no template engine.
    root.appendChild(this.ownerDocument.createElement('slot'));
    return root;
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
    const name = (this.#sawName = this.name);
    const instance = (this.#sawInstance = this.instance) || undefined;
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

    // Join the group of same-named views without an instance in this registry (or leave it). Its
    // numbering comes with the element's lazy chunk, which the capabilities inside need anyway: until
    // it is here the view is still placing itself, and it looks again once the chunk is loaded.
    const numbered = connected && !refused && !instance;
    if (numbered) this.#ask(this.#registry, 2);
    const registry = numbered ? this.#registry.value : undefined;
    const v = this.#v;
    const chunk = elementChunk.module;
    if (chunk) chunk.placeView(v, registry);
    else if (registry) void elementChunkLoaded(v.refresh);

    const next: AgentViewContextValue = refused
      ? { name: name ?? '', refused }
      : instance
        ? { name, instance }
        : registry && !v.placed
          ? { name, placing: true }
          : v.auto
            ? { name, instance: v.auto }
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
