import { ContextProvider } from '@lit/context';
import { ReactiveElement, unsafeCSS, type PropertyValues } from '@lit/reactive-element';
import { grantConsumers, type ConsumerGrants } from '../core/consumer-grants.js';
import { createAgentSurfaceRegistry } from '../core/registry.js';
import { createAgentToolset } from '../core/toolset.js';
import type {
  AgentSurfaceAuthority,
  AgentSurfacePolicy,
  AgentSurfaceRegistry,
  AgentToolset,
  AgentToolsetOptions,
  RegistryLimits,
} from '../core/types.js';
import { EmptyProvider, registryContext, viewContext } from './context.js';
import { AgentConfirmationEvent, AgentInvocationEvent, AgentSurfaceChangedEvent } from './events.js';
import { connectedCapabilities } from './settling.js';
import { treeParent } from './tree-parent.js';
import { DEV_MODE } from '../core/dev.js';
import { checkSurface } from './dev-checks.js';

/**
 * The root of an agent surface: owns (or is given) the registry every `<agent-view>` and
 * `<agent-capability>` inside registers with, and re-dispatches the registry's events as DOM events.
 *
 * It creates its registry once it is given an `.authority` (a property only: there is no attribute,
 * so markup can never switch authorization on or off), or uses a `.registry` it is given. Capabilities
 * that connect before either wait and register as soon as the registry exists.
 *
 * @summary Owns the capability registry and provides it to the capabilities inside.
 * @tag agent-surface
 *
 * @slot - The page content: views, capabilities and any other markup.
 *
 * @prop {AgentSurfaceAuthority | undefined} authority - The contracts this page may register (`createCompilerAuthority(...)` or `devAuthority()`). Setting it creates the registry; a different authority later replaces it.
 * @prop {AgentSurfaceRegistry | undefined} registry - The registry in use: the one given, or the one created from `.authority`. Set it to share a registry made in code; a given registry is never disposed by the element.
 * @prop {readonly AgentSurfacePolicy[] | undefined} policies - Discovery and authorization policies, applied with `registry.setPolicies()`.
 * @prop {Promise<void>} ready - Resolves once every `<agent-capability>` inside at the time has registered or been refused (the same as awaiting `updateComplete`).
 * @prop {RegistryLimits | undefined} limits - Limits for a registry the element creates (confirmation TTL, queue depth, sizes).
 * @prop {ConsumerGrants | undefined} consumers - The projections markup may start on this registry, and their identities: `{ webmcp: { prefix: 'app_' }, chat: { consumer: 'chat' } }`. Script only; without a grant an `<agent-webmcp>` or `<agent-chat>` found in markup does nothing.
 *
 * @fires {AgentSurfaceChangedEvent} agent-surface-changed - Something model-visible changed; `detail.surfaceVersion` is the new version. Coalesced per microtask.
 * @fires {AgentInvocationEvent} agent-invocation - A call finished: `detail` is the audit record (consumer, capability, outcome, duration).
 * @fires {AgentConfirmationEvent} agent-confirmation - A confirmation was created, approved, denied, expired or consumed.
 */
export class AgentSurfaceElement extends ReactiveElement {
  // A constant: `unsafeCSS` (not the `css` tag) keeps lit's template-checking tag out of the entry.
  static override styles = unsafeCSS(`:host { display: contents; }`);

  static override properties = {
    authority: { attribute: false },
    registry: { attribute: false, noAccessor: true },
    policies: { attribute: false },
    limits: { attribute: false },
    consumers: { attribute: false },
  };

  declare authority: AgentSurfaceAuthority | undefined;
  declare policies: readonly AgentSurfacePolicy[] | undefined;
  declare limits: RegistryLimits | undefined;
  declare consumers: ConsumerGrants | undefined;
  /** The registry and grants last applied with grantConsumers(). */
  #granted: [AgentSurfaceRegistry | undefined, ConsumerGrants | undefined] = [undefined, undefined];

  #given: AgentSurfaceRegistry | undefined;
  /** The registry this element created, and from which authority. */
  #owned: { registry: AgentSurfaceRegistry; authority: AgentSurfaceAuthority } | undefined;
  #appliedPolicies: readonly AgentSurfacePolicy[] | undefined;
  #unlisten: Array<() => void> = [];
  #listeningTo: AgentSurfaceRegistry | undefined;
  #disposeTimer: ReturnType<typeof setTimeout> | undefined;
  #provider = new ContextProvider(this, { context: registryContext });
  // Answers "no view" to capabilities outside any view (see EmptyProvider).
  #noView = new EmptyProvider(this, viewContext);

  get registry(): AgentSurfaceRegistry | undefined {
    return this.#given ?? this.#owned?.registry;
  }

  set registry(value: AgentSurfaceRegistry | undefined) {
    const old = this.registry;
    this.#given = value ?? undefined;
    this.requestUpdate('registry', old);
  }

  /**
   * A tool projection of this surface's registry for a model provider (`createAgentToolset`).
   * Dispose it when done. Throws when the surface has no registry yet.
   */
  toolset(options: AgentToolsetOptions): AgentToolset {
    const registry = this.registry;
    if (!registry) {
      throw new Error('<agent-surface>.toolset(): no registry yet; set .authority or .registry first');
    }
    return createAgentToolset(registry, options);
  }

  /**
   * Settles once this surface and every `<agent-capability>` inside it at the time (shadow roots of
   * components included) have registered or been refused. Await it after setting `.authority`
   * before reading `toolset(…).tools()`: a registration can wait for the end of parsing or, the
   * first ones on a page, for the markup reader's module.
   */
  protected override async getUpdateComplete(): Promise<boolean> {
    const complete = await super.getUpdateComplete();
    const inner = [...connectedCapabilities].filter((c) => inside(this, c));
    await Promise.all(inner.map((c) => c.updateComplete.catch(() => 0)));
    return complete;
  }

  /** `updateComplete` without its boolean: resolves once every capability inside has registered or been refused. */
  get ready(): Promise<void> {
    return this.updateComplete.then(() => {});
  }

  override requestUpdate(...args: Parameters<ReactiveElement['requestUpdate']>): void {
    super.requestUpdate(...args);
    // The registry follows its inputs at once: `surface.registry` is there right after `surface.authority = …`.
    // (Any property: syncing is idempotent, and `limits` only matters to a registry yet to be made.)
    if (args[0] !== undefined && this.isConnected) this.#sync();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // A move (disconnect and reconnect within one task) keeps the registry and every registration.
    clearTimeout(this.#disposeTimer);
    this.#disposeTimer = undefined;
    this.#sync();
    if (DEV_MODE) checkSurface(this, () => [...connectedCapabilities].some((c) => inside(this, c)));
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#disposeTimer);
    this.#disposeTimer = setTimeout(() => {
      this.#disposeTimer = undefined;
      if (!this.isConnected) this.#release();
    });
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    this.#sync();
  }

  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    // The whole shadow tree is one default slot: built with the DOM, so the entry needs no template engine.
    root.appendChild(this.ownerDocument.createElement('slot'));
    return root;
  }

  /** Brings registry, policies, event forwarding and the provided context in line with the properties. */
  #sync(): void {
    const { authority, policies } = this;
    if (this.#given || !authority) {
      this.#disposeOwned();
    } else if (this.isConnected) {
      const owned = this.#owned;
      if (owned && (owned.authority !== authority || owned.registry.disposed)) this.#disposeOwned();
      if (!this.#owned) {
        this.#owned = {
          authority,
          registry: createAgentSurfaceRegistry({
            authority,
            ...(policies ? { policies } : {}),
            ...(this.limits ? { limits: this.limits } : {}),
          }),
        };
        this.#appliedPolicies = policies;
      }
    }
    const registry = this.registry;
    if (registry && policies && this.#appliedPolicies !== policies) {
      registry.setPolicies(policies);
      this.#appliedPolicies = policies;
    }
    const [grantedTo, granted] = this.#granted;
    if (registry !== grantedTo || this.consumers !== granted) {
      // Withdraw what this element granted before; never touch grants script made on the registry itself.
      if (grantedTo && granted) grantConsumers(grantedTo, undefined);
      if (registry && this.consumers) grantConsumers(registry, this.consumers);
      this.#granted = [registry, this.consumers];
      // Same registry, new grants: the projections inside check again.
      this.#provider.updateObservers();
    }
    this.#listen(registry);
    this.#provider.setValue(registry);
  }

  #listen(registry: AgentSurfaceRegistry | undefined): void {
    if (registry === this.#listeningTo) return;
    for (const off of this.#unlisten) off();
    this.#listeningTo = registry;
    this.#unlisten = registry
      ? [
          registry.on('surface-changed', (e) => this.dispatchEvent(new AgentSurfaceChangedEvent(e.surfaceVersion))),
          registry.on('invocation', (e) => this.dispatchEvent(new AgentInvocationEvent(e))),
          registry.on('confirmation', (e) => this.dispatchEvent(new AgentConfirmationEvent(e))),
        ]
      : [];
  }

  #disposeOwned(): void {
    const owned = this.#owned;
    if (!owned) return;
    this.#owned = this.#appliedPolicies = undefined;
    if (this.#listeningTo === owned.registry) this.#listen(undefined);
    owned.registry.dispose();
  }

  /** Removed for good: dispose the registry this element created and stop providing it. */
  #release(): void {
    this.#disposeOwned();
    // Stop listening to a given registry too: it may outlive this element.
    this.#listen(undefined);
    this.#provider.setValue(this.registry);
  }
}

/** Whether `node` sits inside `host`, across shadow roots. */
function inside(host: Node, node: Node | null): boolean {
  while (node && node !== host) node = treeParent(node);
  return !!node;
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-surface': AgentSurfaceElement;
  }
}
