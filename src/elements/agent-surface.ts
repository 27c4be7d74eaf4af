import { ContextProvider } from '@lit/context';
import { ReactiveElement, css, type PropertyDeclaration, type PropertyValues } from '@lit/reactive-element';
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
import { registryContext } from './context.js';
import { AgentConfirmationEvent, AgentInvocationEvent, AgentSurfaceChangedEvent } from './events.js';
import { NoViewProvider } from './no-view-provider.js';

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
 * @prop {RegistryLimits | undefined} limits - Limits for a registry the element creates (confirmation TTL, queue depth, sizes).
 *
 * @fires {AgentSurfaceChangedEvent} agent-surface-changed - Something model-visible changed; `detail.surfaceVersion` is the new version. Coalesced per microtask.
 * @fires {AgentInvocationEvent} agent-invocation - A call finished: `detail` is the audit record (consumer, capability, outcome, duration).
 * @fires {AgentConfirmationEvent} agent-confirmation - A confirmation was created, approved, denied, expired or consumed.
 */
export class AgentSurfaceElement extends ReactiveElement {
  static override styles = css`
    :host {
      display: contents;
    }
  `;

  static override properties = {
    authority: { attribute: false },
    registry: { attribute: false, noAccessor: true },
    policies: { attribute: false },
    limits: { attribute: false },
  };

  declare authority: AgentSurfaceAuthority | undefined;
  declare policies: readonly AgentSurfacePolicy[] | undefined;
  declare limits: RegistryLimits | undefined;

  private _given: AgentSurfaceRegistry | undefined;
  private _owned: AgentSurfaceRegistry | undefined;
  private _ownedAuthority: AgentSurfaceAuthority | undefined;
  private _appliedPolicies: readonly AgentSurfacePolicy[] | undefined;
  private _unlisten: Array<() => void> = [];
  private _listeningTo: AgentSurfaceRegistry | undefined;
  private _disposeTimer: ReturnType<typeof setTimeout> | undefined;
  private _provider = new ContextProvider(this, { context: registryContext });
  // Answers "no view" to capabilities outside any view (see NoViewProvider).
  private _noView = new NoViewProvider(this);

  get registry(): AgentSurfaceRegistry | undefined {
    return this._given ?? this._owned;
  }

  set registry(value: AgentSurfaceRegistry | undefined) {
    const old = this.registry;
    this._given = value ?? undefined;
    this.requestUpdate('registry', old);
  }

  /**
   * A tool projection of this surface's registry for a model provider (`createAgentToolset`).
   * Dispose it when done. Throws when the surface has no registry yet.
   */
  toolset(options: AgentToolsetOptions): AgentToolset {
    const registry = this.registry;
    if (!registry) {
      throw new Error(
        '<agent-surface> has no registry yet: set its .authority (or .registry) before calling toolset()',
      );
    }
    return createAgentToolset(registry, options);
  }

  override requestUpdate(
    name?: PropertyKey,
    oldValue?: unknown,
    options?: PropertyDeclaration,
    useNewValue?: boolean,
    newValue?: unknown,
  ): void {
    super.requestUpdate(name, oldValue, options, useNewValue, newValue);
    // The registry follows its inputs at once: `surface.registry` is there right after `surface.authority = …`.
    if ((name === 'authority' || name === 'registry' || name === 'policies') && this.isConnected)
      this._sync();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // A move (disconnect and reconnect within one task) keeps the registry and every registration.
    clearTimeout(this._disposeTimer);
    this._disposeTimer = undefined;
    this._sync();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this._disposeTimer);
    this._disposeTimer = setTimeout(() => {
      this._disposeTimer = undefined;
      if (!this.isConnected) this._release();
    });
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    this._sync();
  }

  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    // The whole shadow tree is one default slot: built with the DOM, so the entry needs no template engine.
    root.appendChild(this.ownerDocument.createElement('slot'));
    return root;
  }

  /** Brings registry, policies, event forwarding and the provided context in line with the properties. */
  private _sync(): void {
    if (this._given) {
      this._disposeOwned();
    } else if (this.authority && this.isConnected) {
      if (this._owned && (this._ownedAuthority !== this.authority || this._owned.disposed))
        this._disposeOwned();
      if (!this._owned) {
        this._owned = createAgentSurfaceRegistry({
          authority: this.authority,
          ...(this.policies ? { policies: this.policies } : {}),
          ...(this.limits ? { limits: this.limits } : {}),
        });
        this._ownedAuthority = this.authority;
        this._appliedPolicies = this.policies;
      }
    } else if (!this.authority) {
      this._disposeOwned();
    }
    const registry = this.registry;
    if (registry && this.policies && this._appliedPolicies !== this.policies) {
      registry.setPolicies(this.policies);
      this._appliedPolicies = this.policies;
    }
    this._listen(registry);
    this._provider.setValue(registry);
  }

  private _listen(registry: AgentSurfaceRegistry | undefined): void {
    if (registry === this._listeningTo) return;
    for (const off of this._unlisten) off();
    this._unlisten = [];
    this._listeningTo = registry;
    if (!registry) return;
    this._unlisten.push(
      registry.on('surface-changed', (e) =>
        this.dispatchEvent(new AgentSurfaceChangedEvent(e.surfaceVersion)),
      ),
      registry.on('invocation', (e) => this.dispatchEvent(new AgentInvocationEvent(e))),
      registry.on('confirmation', (e) => this.dispatchEvent(new AgentConfirmationEvent(e))),
    );
  }

  private _disposeOwned(): void {
    if (!this._owned) return;
    const owned = this._owned;
    this._owned = undefined;
    this._ownedAuthority = undefined;
    this._appliedPolicies = undefined;
    if (this._listeningTo === owned) this._listen(undefined);
    owned.dispose();
  }

  /** Removed for good: dispose the registry this element created and stop providing it. */
  private _release(): void {
    this._disposeOwned();
    // Stop listening to a given registry too: it may outlive this element.
    this._listen(undefined);
    this._provider.setValue(this.registry);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-surface': AgentSurfaceElement;
  }
}
