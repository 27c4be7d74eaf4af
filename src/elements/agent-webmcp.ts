import { ContextConsumer } from '@lit/context';
import { ReactiveElement, unsafeCSS, type PropertyValues } from '@lit/reactive-element';
import { consumerGrantsOf } from '../core/consumer-grants.js';
import type { AgentSurfaceRegistry } from '../core/types.js';
import type { WebMcpAdapter, WebMcpAdapterOptions, WebMcpAdapterStatus } from '../webmcp/types.js';
import { ensureContextRoot, registryContext } from './context.js';

/** `refused`: found in markup without a grant from the page's script (see `enable()` and `surface.consumers`). */
export type AgentWebMcpStatus = WebMcpAdapterStatus | 'error' | 'refused';

/**
 * Exposes the nearest `<agent-surface>`'s registry (or `.registry`) to the browser's WebMCP host
 * (`document.modelContext`) while connected: one tool per available capability, kept in sync, every
 * call through the registry's pipeline, confirmations answered by `<agent-confirm>` inside the call.
 * Without a host it does nothing and says so with `status="unsupported"`.
 *
 * Markup alone never publishes: the page's script must grant WebMCP for the registry
 * (`surface.consumers = { webmcp: { prefix: 'app_' } }`, or `grantConsumers(registry, …)`), and then
 * `consumer` and `prefix` may only repeat what was granted; or call `enable()` on this element,
 * which vouches for its attributes as they are. Otherwise it stays silent with `status="refused"`
 * and a console error, so injected markup cannot publish tools or borrow another consumer's id.
 *
 * @summary Runs the WebMCP adapter while connected.
 * @tag agent-webmcp
 *
 * @attr {string} scope - Scope entries (comma- or space-separated) that narrow what is exposed, e.g. `devices view:settings`.
 * @attr {string} prefix - Prepended to every tool name, to keep clear of other scripts' tools.
 * @prop {string | undefined} toolPrefix - See `prefix`.
 * @attr {string} consumer - The consumer id the calls carry (kind `webmcp`). Default `webmcp`.
 * @attr {string} exposed-to - Origins (comma- or space-separated, `https://…` or localhost; at most 32, more is a configuration error, `status="error"`) whose frames in this page may see and call the tools (the draft's `exposedTo`). Must be granted (`surface.consumers = { webmcp: { exposedTo: [...] } }`) unless script called `enable()`. Where the host refuses it, the tools register for this document only and `agent-webmcp-exposed-to-refused` says so.
 * @attr {number} confirmation-ttl - Milliseconds a call waits for a person's decision. Default 120000.
 * @attr {string} status - Reflected, read-only: `idle`, `starting`, `active`, `unsupported`, `stopped`, `refused` or `error`.
 * @prop {AgentSurfaceRegistry | undefined} registry - A registry to expose instead of the nearest `<agent-surface>`'s.
 * @prop {ModelContextLike | null | undefined} modelContext - A WebMCP host to use instead of `document.modelContext`; `null` for none.
 * @prop {Function | undefined} exposeCapability - Curation hook: skip a capability or replace its description.
 * @prop {Function | undefined} confirm - Opt-in confirmation UI for older hosts with `requestUserInteraction`.
 *
 * @fires {AgentWebMcpConflictEvent} agent-webmcp-conflict - The host refused a tool name; `detail` says which and why.
 * @fires {AgentWebMcpExposedToRefusedEvent} agent-webmcp-exposed-to-refused - The host refused `exposed-to` (the @mcp-b polyfill, an older preview, an origin that is not potentially trustworthy): the tools are this document's only; `detail: { exposedTo, errorName, message }`.
 */
export class AgentWebMcpElement extends ReactiveElement {
  // A constant: `unsafeCSS` (not the `css` tag) keeps lit's template-checking tag out of the entry.
  static override styles = unsafeCSS(`:host { display: none; }`);

  static override properties = {
    scope: {},
    toolPrefix: { attribute: 'prefix' },
    exposedTo: { attribute: 'exposed-to' },
    consumer: {},
    confirmationTtl: { type: Number, attribute: 'confirmation-ttl' },
    status: { reflect: true },
    registry: { attribute: false },
    modelContext: { attribute: false },
    exposeCapability: { attribute: false },
    confirm: { attribute: false },
  };

  /** Scope entries (comma- or space-separated) that narrow what is exposed, e.g. `devices view:settings`. */
  declare scope: string | undefined;
  /** The `prefix` attribute (`Element.prefix` is the DOM's namespace prefix, hence the name). */
  declare toolPrefix: string | undefined;
  /** The consumer id the calls carry (kind `webmcp`). Default `webmcp`. */
  declare consumer: string | undefined;
  /** Origins (comma- or space-separated, at most 32) whose frames may see the tools; only granted ones (reflects `exposed-to`). */
  declare exposedTo: string | undefined;
  /** Milliseconds a call waits for a person's decision. Default 120000. */
  declare confirmationTtl: number | undefined;
  /** Reflected, read-only: `idle`, `starting`, `active`, `unsupported`, `stopped`, `refused` or `error`. */
  declare status: AgentWebMcpStatus;
  declare registry: AgentSurfaceRegistry | undefined;
  declare modelContext: WebMcpAdapterOptions['modelContext'];
  declare exposeCapability: WebMcpAdapterOptions['exposeCapability'];
  declare confirm: WebMcpAdapterOptions['confirm'];

  #adapter: WebMcpAdapter | undefined;
  #enabled = false;
  /** The configuration the running adapter was started with, to restart only on a real change. */
  #running: readonly unknown[] | undefined;
  /** Starts and stops run one after the other, so a name is always withdrawn before it is taken again. */
  #queue: Promise<void> = Promise.resolve();
  /** Aborted when a newer configuration takes over: a start in progress then leaves `status` alone. */
  #run: AbortController | undefined;
  /** The latest start's completion (status updated), for `settled()`. */
  #starting: Promise<void> = Promise.resolve();

  // The consumer requests an update whenever the surface's registry changes.
  #context = new ContextConsumer(this, { context: registryContext, subscribe: true });

  constructor() {
    super();
    this.status = 'idle';
  }

  override connectedCallback(): void {
    ensureContextRoot(this.ownerDocument);
    super.connectedCallback();
    // A reconnected element with an explicit `.registry` gets no context callback: start from here.
    this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#reconfigure(undefined);
  }

  /**
   * Lets this element run with its attributes as they are, without a grant on the registry: the
   * page's script vouches for it. (Markup cannot call it, which is the point.)
   */
  enable(): void {
    this.#enabled = true;
    this.requestUpdate();
  }

  /** @internal Whether script called `enable()`. */
  get enabled(): boolean {
    return this.#enabled;
  }

  /** The tool names currently registered with the host. */
  toolNames(): string[] {
    return this.#adapter?.toolNames() ?? [];
  }

  /** Resolves once starts, stops and host calls in progress have settled. */
  async settled(): Promise<void> {
    await this.updateComplete;
    let queue: Promise<void>;
    let starting: Promise<void>;
    do {
      queue = this.#queue;
      starting = this.#starting;
      await queue;
      await starting;
    } while (queue !== this.#queue || starting !== this.#starting);
    await this.#adapter?.settled();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    const registry = this.registry ?? this.#context.value;
    this.#reconfigure(
      this.isConnected && registry
        ? [registry, this.scope ?? '', this.toolPrefix ?? '', this.exposedTo ?? '', this.consumer ?? '', this.confirmationTtl, this.modelContext, this.exposeCapability, this.confirm, this.#enabled, consumerGrantsOf(registry)]
        : undefined,
    );
  }

  #reconfigure(config: readonly unknown[] | undefined): void {
    const running = this.#running;
    if (config === running || (config && running && config.every((v, i) => Object.is(v, running[i])))) return;
    this.#running = config;
    this.#run?.abort();
    const { signal } = (this.#run = new AbortController());
    const previous = this.#adapter;
    this.#adapter = undefined;
    const registry = config?.[0] as AgentSurfaceRegistry | undefined;
    this.#queue = this.#queue.then(async () => {
      // Nothing to stop, nothing (or nothing current) to start: no need for the adapter's module.
      if (!previous && (!registry || signal.aborted)) return;
      try {
        // The adapter and the stop-and-start loaded on first start, so pages that only use the other
        // elements never download them.
        await (await import('./webmcp-restart.js')).restartAgentWebMcp(this, previous, registry, signal, (adapter, starting) => {
          this.#adapter = adapter;
          this.#starting = starting;
        });
      } catch (error) {
        console.error('[agent-surface-kit WEBMCP_CONFIG] <agent-webmcp> cannot start:', error);
        this.status = 'error';
      }
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-webmcp': AgentWebMcpElement;
  }
}
