import { ContextConsumer } from '@lit/context';
import { ReactiveElement } from '@lit/reactive-element';
import type { CapabilityContract, CapabilityHandler, CapabilityKind, ObservationReader } from '../core/types.js';
import type { CapabilityRecord } from './capability-registration.js';
import { ensureContextRoot, registryContext, ViewConsumer } from './context.js';
import { elementChunk, elementChunkLoaded, prefetchElementChunk } from './declared.js';
import { connectedCapabilities } from './settling.js';
import { DEV_MODE } from '../core/dev.js';
import { checkInsideSurface } from './dev-checks.js';

/**
 * One capability an agent may call. Its contract comes from its attributes and its
 * `<script type="application/schema+json">` children (`data-schema="output"` marks the output
 * schema), built by the same function the compiler uses, or from the `.contract` property. Its id
 * comes from its place: `view:<view name>.<name>` inside an `<agent-view>`, `domain:<name>` outside.
 *
 * It registers with the nearest `<agent-surface>`'s registry once both exist, in any definition
 * order, and only if the surface's authority admits the contract together with `token`. A change to
 * a contract attribute or a schema re-registers (a new `registrationId`); `unavailable` and `note`
 * update the live state; disconnecting unregisters. A refused declaration logs a console error naming
 * the element and registers nothing.
 *
 * Calls reach `.handler` (actions) or `.read` (observations); without them the element fires
 * `agent-invoke`, answered with `event.detail.respondWith(valueOrPromise)`.
 *
 * @summary Declares one capability an agent may call.
 * @tag agent-capability
 *
 * @attr {string} name - The capability's name within its view (`selectRows`) or domain (`devices.disable`). Required.
 * @attr {string} view - The view this capability must sit in, for markup the compiler cannot see placed (a component's template). Registration is refused unless the nearest `<agent-view>` has this name.
 * @attr {"domain" | "view"} plane - States the plane where the compiler cannot see the placement; `domain` must sit outside any view.
 * @attr {"action" | "observation"} kind - Default `action`.
 * @attr {"read" | "local-state" | "navigation" | "server-query" | "server-mutation" | "external-side-effect" | "destructive"} effect - What calling it does. Required.
 * @attr {"never" | "optional" | "required"} confirmation - Whether a person must approve each call. Default `never`.
 * @attr {string} description - What it does, for the agent and for the person approving (≤ 300 characters). Required.
 * @attr {string} title - A short human label for agent UIs (WebMCP's `title`; ≤ 100 characters, one line). Part of the contract and its token. Default: a readable form of the id. (It is also HTML's tooltip attribute.)
 * @attr {"serial" | "parallel"} concurrency - Default `serial` for actions, `parallel` for observations.
 * @attr {number} timeout-ms - Call timeout in milliseconds. Default 10 000 for actions, 5 000 for observations.
 * @attr {boolean} untrusted-output - The output may carry user or third-party content.
 * @attr {string} token - The contract's token from the compiled manifest (`agent-surface compile --write` fills it in).
 * @attr {string} unavailable - Present when the capability cannot be called right now; its value is the reason shown to the agent.
 * @attr {string} note - A short live note for the agent (e.g. "3 rows selected").
 *
 * @fires {AgentInvokeEvent} agent-invoke - An agent called this capability and it has no `.handler` / `.read`: answer with `event.detail.respondWith(promise)` during dispatch.
 * @fires {AgentCapabilityRefusedEvent} agent-capability-refused - The declaration was refused (invalid markup or not authorized); nothing was registered.
 */
export class AgentCapabilityElement extends ReactiveElement {
  static override properties = {
    name: { reflect: true },
    view: { reflect: true },
    plane: { reflect: true },
    kind: { reflect: true },
    effect: { reflect: true },
    confirmation: { reflect: true },
    description: { reflect: true },
    // HTML's own `title`, observed so that changing it re-registers like any contract attribute.
    title: { reflect: true },
    concurrency: { reflect: true },
    timeoutMs: { attribute: 'timeout-ms', type: Number, reflect: true },
    untrustedOutput: { attribute: 'untrusted-output', type: Boolean, reflect: true },
    token: { reflect: true },
    unavailable: { reflect: true },
    note: { reflect: true },
    contract: { attribute: false },
    handler: { attribute: false },
    read: { attribute: false },
  };

  /** The capability's name (reflects `name`). */
  declare name: string | undefined;
  /** The view it must sit in (reflects `view`). */
  declare view: string | undefined;
  /** The declared plane (reflects `plane`). */
  declare plane: 'domain' | 'view' | undefined;
  /** `action` (default) or `observation` (reflects `kind`). */
  declare kind: CapabilityKind | undefined;
  /** What calling it does (reflects `effect`). */
  declare effect: string | undefined;
  /** `never` (default), `optional` or `required` (reflects `confirmation`). */
  declare confirmation: string | undefined;
  /** The model-visible description (reflects `description`). */
  declare description: string | undefined;
  /** A short human label for agent UIs, part of the contract (HTML's own `title`, reflected). */
  declare title: string;
  /** `serial` or `parallel` (reflects `concurrency`). */
  declare concurrency: string | undefined;
  /** Call timeout in milliseconds (reflects `timeout-ms`). */
  declare timeoutMs: number | undefined;
  /** The output may carry untrusted content (reflects `untrusted-output`). */
  declare untrustedOutput: boolean | undefined;
  /** The contract token from the compiled manifest (reflects `token`). */
  declare token: string | undefined;
  /** Why it cannot be called now; `null` when available (reflects `unavailable`). */
  declare unavailable: string | null | undefined;
  /** A live note for the agent (reflects `note`). */
  declare note: string | undefined;
  /** A contract given in code instead of attributes and schema scripts. */
  declare contract: CapabilityContract | undefined;
  /** Runs an action: `(input, ctx) => output | Promise<output>`. */
  declare handler: CapabilityHandler | undefined;
  /** Runs an observation: `(ctx, input) => value | Promise<value>`. */
  declare read: ObservationReader | undefined;

  /** Its registration state, which the element's lazy chunk keeps (capability-registration.ts). */
  #s: CapabilityRecord = {
    el: this,
    registry: new ContextConsumer(this, { context: registryContext, subscribe: true }),
    view: new ViewConsumer(this),
  };

  constructor() {
    super();
    // The first capability on a page starts fetching the registration chunk, so that its first
    // update with a registry usually finds it here instead of waiting for the fetch and compile.
    prefetchElementChunk();
  }

  /** The current registration's id, or `undefined` while not registered. */
  get registrationId(): string | undefined {
    return this.#s.current?.handle.registrationId;
  }

  /** The id this element is registered under, or `undefined` while not registered. */
  get capabilityId(): string | undefined {
    return this.#s.current?.handle.capabilityId;
  }

  override connectedCallback(): void {
    // Context values are re-requested on every connection: a moved element must not keep an old view.
    this.#s.registry.value = this.#s.view.value = undefined;
    ensureContextRoot(this.ownerDocument);
    connectedCapabilities.add(this);
    if (DEV_MODE) checkInsideSurface(this);
    super.connectedCallback();
    this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    connectedCapabilities.delete(this);
    // Unregisters in the coming update unless the element is back by then (a move keeps its registration).
    this.requestUpdate();
  }

  /**
   * Settles once this element has registered, been refused or found nothing to register with: it also
   * waits for its lazy chunk (fetched from the first capability's creation on), the end of parsing (schema scripts may follow),
   * and the registration batch at the end of the microtask (queued before this continuation runs).
   */
  protected override async getUpdateComplete(): Promise<boolean> {
    let complete = await super.getUpdateComplete();
    for (let wait; (wait = this.#s.wait ?? elementChunk.module?.capabilitySettling(this.#s)) !== undefined; ) {
      await wait;
      complete = await super.getUpdateComplete();
    }
    return complete;
  }

  // Nothing to render: no shadow root, so a thousand capabilities cost a thousand plain elements.
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  // lit batches every attribute, property, context and child change of one microtask into one update.
  protected override updated(): void {
    const chunk = elementChunk.module;
    if (chunk) chunk.updateCapability(this.#s);
    // Nothing registered yet (that needs the chunk), so nothing to release. With a registry to
    // register with, the element waits for the chunk (fetched again if it failed before), then
    // does what this update would have done; an update that came meanwhile does it instead.
    else if (this.isConnected && this.#s.registry.value)
      this.#s.wait ??= elementChunkLoaded().then((loaded) => {
        this.#s.wait = undefined;
        if (loaded && !this.isUpdatePending) elementChunk.module!.updateCapability(this.#s);
      });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-capability': AgentCapabilityElement;
  }
}
