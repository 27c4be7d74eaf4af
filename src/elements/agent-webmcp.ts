import { ContextConsumer } from '@lit/context';
import { ReactiveElement, css, type PropertyValues } from '@lit/reactive-element';
import type { AgentSurfaceRegistry } from '../core/types.js';
import type { WebMcpAdapter, WebMcpAdapterOptions, WebMcpAdapterStatus } from '../webmcp/types.js';
import { ensureContextRoot, registryContext } from './context.js';

export type AgentWebMcpStatus = WebMcpAdapterStatus | 'error';

/** `scope="devices, view:settings"` or space-separated: a list of scope entries. */
function parseScope(value: string | null | undefined): string[] | undefined {
  if (!value) return undefined;
  const entries = value.split(/[\s,]+/).filter(Boolean);
  return entries.length ? entries : undefined;
}

/**
 * Exposes the nearest `<agent-surface>`'s registry (or `.registry`) to the browser's WebMCP host
 * (`document.modelContext`) while connected: one tool per available capability, kept in sync, every
 * call through the registry's pipeline, confirmations answered by `<agent-confirm>` inside the call.
 * Without a host it does nothing and says so with `status="unsupported"`.
 *
 * @summary Runs the WebMCP adapter while connected.
 * @tag agent-webmcp
 *
 * @attr {string} scope - Scope entries (comma- or space-separated) that narrow what is exposed, e.g. `devices view:settings`.
 * @attr {string} prefix - Prepended to every tool name, to keep clear of other scripts' tools.
 * @prop {string | undefined} toolPrefix - See `prefix`.
 * @attr {string} consumer - The consumer id the calls carry (kind `webmcp`). Default `webmcp`.
 * @attr {number} confirmation-ttl - Milliseconds a call waits for a person's decision. Default 120000.
 * @attr {string} status - Reflected, read-only: `idle`, `starting`, `active`, `unsupported`, `stopped` or `error`.
 * @prop {AgentSurfaceRegistry | undefined} registry - A registry to expose instead of the nearest `<agent-surface>`'s.
 * @prop {ModelContextLike | null | undefined} modelContext - A WebMCP host to use instead of `document.modelContext`; `null` for none.
 * @prop {Function | undefined} exposeCapability - Curation hook: skip a capability or replace its description.
 * @prop {Function | undefined} confirm - Opt-in confirmation UI for older hosts with `requestUserInteraction`.
 *
 * @fires {AgentWebMcpConflictEvent} agent-webmcp-conflict - The host refused a tool name; `detail` says which and why.
 */
export class AgentWebMcpElement extends ReactiveElement {
  static override styles = css`
    :host {
      display: none;
    }
  `;

  static override properties = {
    scope: { type: String },
    toolPrefix: { type: String, attribute: 'prefix' },
    consumer: { type: String },
    confirmationTtl: { type: Number, attribute: 'confirmation-ttl' },
    status: { type: String, reflect: true },
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
  /** Milliseconds a call waits for a person's decision. Default 120000. */
  declare confirmationTtl: number | undefined;
  /** Reflected, read-only: `idle`, `starting`, `active`, `unsupported`, `stopped` or `error`. */
  declare status: AgentWebMcpStatus;
  declare registry: AgentSurfaceRegistry | undefined;
  declare modelContext: WebMcpAdapterOptions['modelContext'];
  declare exposeCapability: WebMcpAdapterOptions['exposeCapability'];
  declare confirm: WebMcpAdapterOptions['confirm'];

  private _contextRegistry: AgentSurfaceRegistry | undefined;
  private _adapter: WebMcpAdapter | undefined;
  /** The configuration the running adapter was started with, to restart only on a real change. */
  private _running: readonly unknown[] | undefined;
  /** Starts and stops run one after the other, so a name is always withdrawn before it is taken again. */
  private _queue: Promise<void> = Promise.resolve();
  private _generation = 0;
  /** The latest start's completion (status updated), for `settled()`. */
  private _starting: Promise<void> = Promise.resolve();

  protected readonly _registryConsumer = new ContextConsumer(this, {
    context: registryContext,
    subscribe: true,
    callback: (value) => {
      this._contextRegistry = value;
      this.requestUpdate();
    },
  });

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
    this._reconfigure(undefined);
  }

  /** The tool names currently registered with the host. */
  toolNames(): string[] {
    return this._adapter?.toolNames() ?? [];
  }

  /** Resolves once starts, stops and host calls in progress have settled. */
  async settled(): Promise<void> {
    await this.updateComplete;
    let queue: Promise<void>;
    let starting: Promise<void>;
    do {
      queue = this._queue;
      starting = this._starting;
      await queue;
      await starting;
    } while (queue !== this._queue || starting !== this._starting);
    await this._adapter?.settled();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    const registry = this.registry ?? this._contextRegistry;
    const config =
      this.isConnected && registry
        ? [registry, this.scope ?? '', this.toolPrefix ?? '', this.consumer ?? '', this.confirmationTtl, this.modelContext, this.exposeCapability, this.confirm]
        : undefined;
    this._reconfigure(config);
  }

  private _reconfigure(config: readonly unknown[] | undefined): void {
    const same =
      config === this._running ||
      (config !== undefined && this._running !== undefined && config.every((v, i) => Object.is(v, this._running![i])));
    if (same) return;
    this._running = config;
    const generation = ++this._generation;
    const previous = this._adapter;
    this._adapter = undefined;
    const registry = config?.[0] as AgentSurfaceRegistry | undefined;
    this._queue = this._queue.then(async () => {
      if (previous) {
        await previous.stop();
        if (generation === this._generation) this.status = 'stopped';
      }
      if (!registry || generation !== this._generation) return;
      let adapter: WebMcpAdapter;
      try {
        // Loaded on first start, so pages that only use the other elements don't pay for it.
        const { createWebMcpAdapter } = await import('../webmcp/adapter.js');
        // A reconfiguration while loading took over: it found no adapter to stop, so start none
        // (and say `stopped`, as if this one had started and been stopped at once).
        if (generation !== this._generation) {
          this.status = 'stopped';
          return;
        }
        const options: WebMcpAdapterOptions = { eventTarget: this };
        if (this.toolPrefix) options.prefix = this.toolPrefix;
        if (this.confirmationTtl !== undefined && this.confirmationTtl !== null) options.confirmationTtlMs = this.confirmationTtl;
        if (this.modelContext !== undefined) options.modelContext = this.modelContext;
        if (this.exposeCapability) options.exposeCapability = this.exposeCapability;
        if (this.confirm) options.confirm = this.confirm;
        adapter = createWebMcpAdapter(options);
      } catch (error) {
        console.error('[agent-surface-kit WEBMCP_CONFIG] <agent-webmcp> cannot start:', error);
        this.status = 'error';
        return;
      }
      this._adapter = adapter;
      this.status = 'starting';
      const scope = parseScope(this.scope);
      const started = adapter.start({
        registry,
        consumer: { id: this.consumer || 'webmcp', kind: 'webmcp' },
        ...(scope ? { snapshotContext: { scope } } : {}),
      });
      this._starting = started.then(
        () => {
          if (generation === this._generation && adapter.status !== 'idle') this.status = adapter.status;
        },
        (error: unknown) => {
          console.error('[agent-surface-kit WEBMCP_START] <agent-webmcp> failed to start:', error);
          if (generation === this._generation) this.status = 'error';
        },
      );
      // Not awaited here: a reconfiguration queued meanwhile stops this adapter without waiting
      // for the first registrations to finish (stop() voids a start in progress).
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-webmcp': AgentWebMcpElement;
  }
}
