import { ContextConsumer } from '@lit/context';
import { LitElement, css, html, nothing, render, type PropertyValues } from 'lit';
import type { AgentSurfaceRegistry, PendingConfirmation } from '../core/types.js';
import { ensureContextRoot, registryContext } from './context.js';
import { describeEffect, formatInput, formatRemaining } from './format-input.js';

/** The element that has focus, looking into shadow roots. */
function deepActiveElement(): HTMLElement | undefined {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : undefined;
}

/**
 * The person's approval UI. Shows every pending confirmation of the nearest `<agent-surface>`'s
 * registry (or of `.registry`), newest first, in a modal dialog: what the capability does, its
 * effect, which agent asks, the input as escaped text, and the time left before the request expires.
 *
 * Approve and Deny act only on trusted input (a real click or key press, never `element.click()`
 * from a script) and only once a record has been on screen for `activation-delay` milliseconds, so a
 * request that appears under the pointer cannot be approved by a click meant for something else
 * (the delay starts over whenever the tab was hidden).
 * Escape denies the focused request (or the newest). Focus stays inside the dialog while it is open
 * and returns where it was when it closes.
 *
 * @summary Lets a person approve or deny an agent's pending calls.
 * @tag agent-confirm
 *
 * @attr {number} activation-delay - Milliseconds a request must be shown before Approve and Deny respond. Default 500.
 * @prop {number} activationDelay - See `activation-delay`.
 * @prop {AgentSurfaceRegistry | undefined} registry - The registry whose confirmations to show; default: the nearest `<agent-surface>`'s.
 *
 * @csspart dialog - The modal `<dialog>`.
 * @csspart title - The dialog's heading.
 * @csspart list - The list of pending requests.
 * @csspart item - One pending request.
 * @csspart description - The capability's description.
 * @csspart details - Effect, agent and capability id.
 * @csspart input - The input the agent sent.
 * @csspart countdown - The time left before the request expires.
 * @csspart actions - The row of buttons.
 * @csspart button - Both buttons.
 * @csspart approve - The Approve button.
 * @csspart deny - The Deny button.
 *
 * @cssprop --agent-confirm-background - Dialog background. Default `#fff`.
 * @cssprop --agent-confirm-color - Text color. Default `#1b1b1f`.
 * @cssprop --agent-confirm-muted - Secondary text color. Default `#474747`.
 * @cssprop --agent-confirm-accent - Approve button background. Default `#0b57d0`.
 * @cssprop --agent-confirm-on-accent - Approve button text. Default `#fff`.
 * @cssprop --agent-confirm-border - Borders and separators. Default `#c4c7c5`.
 * @cssprop --agent-confirm-radius - Corner radius. Default `12px`.
 * @cssprop --agent-confirm-font - Font family. Default `system-ui, sans-serif`.
 * @cssprop --agent-confirm-backdrop - Backdrop color. Default `rgb(0 0 0 / 0.45)`.
 * @cssprop --agent-confirm-width - Dialog width. Default `min(34rem, calc(100vw - 2rem))`.
 */
export class AgentConfirmElement extends LitElement {
  static override styles = css`
    :host {
      display: contents;
    }
    dialog {
      box-sizing: border-box;
      width: var(--agent-confirm-width, min(34rem, calc(100vw - 2rem)));
      max-height: calc(100vh - 2rem);
      overflow: auto;
      padding: 1.25rem;
      border: 1px solid var(--agent-confirm-border, #c4c7c5);
      border-radius: var(--agent-confirm-radius, 12px);
      background: var(--agent-confirm-background, #fff);
      color: var(--agent-confirm-color, #1b1b1f);
      font: 0.9375rem/1.45 var(--agent-confirm-font, system-ui, sans-serif);
    }
    dialog::backdrop {
      background: var(--agent-confirm-backdrop, rgb(0 0 0 / 0.45));
    }
    h2 {
      margin: 0 0 0.75rem;
      font-size: 1.125rem;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    li + li {
      margin-top: 1rem;
      padding-top: 1rem;
      border-top: 1px solid var(--agent-confirm-border, #c4c7c5);
    }
    h3 {
      margin: 0 0 0.5rem;
      font-size: 1rem;
      font-weight: 600;
    }
    dl {
      display: grid;
      grid-template-columns: max-content 1fr;
      gap: 0.125rem 0.75rem;
      margin: 0 0 0.5rem;
    }
    dt {
      color: var(--agent-confirm-muted, #474747);
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    [part~='input'] dd,
    code {
      font-family: ui-monospace, monospace;
      white-space: pre-wrap;
    }
    p {
      margin: 0 0 0.5rem;
    }
    [part~='countdown'] {
      color: var(--agent-confirm-muted, #474747);
    }
    [part~='actions'] {
      display: flex;
      justify-content: flex-end;
      gap: 0.5rem;
    }
    button {
      font: inherit;
      padding: 0.4rem 1rem;
      border-radius: calc(var(--agent-confirm-radius, 12px) / 2);
      border: 1px solid var(--agent-confirm-border, #c4c7c5);
      background: var(--agent-confirm-background, #fff);
      color: var(--agent-confirm-color, #1b1b1f);
      cursor: pointer;
    }
    [part~='approve'] {
      border-color: var(--agent-confirm-accent, #0b57d0);
      background: var(--agent-confirm-accent, #0b57d0);
      color: var(--agent-confirm-on-accent, #fff);
    }
    button[aria-disabled='true'] {
      opacity: 0.55;
      cursor: default;
    }
    button:focus-visible {
      outline: 2px solid var(--agent-confirm-accent, #0b57d0);
      outline-offset: 2px;
    }
  `;

  static override properties = {
    activationDelay: { type: Number, attribute: 'activation-delay' },
    registry: { attribute: false },
    _pending: { state: true },
  };

  declare activationDelay: number;
  declare registry: AgentSurfaceRegistry | undefined;
  declare _pending: readonly PendingConfirmation[];

  private _contextRegistry: AgentSurfaceRegistry | undefined;
  private _subscribed: AgentSurfaceRegistry | undefined;
  private _unsubscribe: (() => void) | undefined;
  /** When each record was first on screen (performance.now()), for the activation delay. */
  private _shownAt = new Map<string, number>();
  private _timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * One `<li>` per request on screen, by confirmationId. Kept and never moved while its request
   * stays (new ones go in above it), so focus never jumps to another request's buttons.
   */
  private _items = new Map<string, HTMLLIElement>();
  private _returnFocus: HTMLElement | undefined;
  private _connection: AbortController | undefined;
  private _context = new ContextConsumer(this, {
    context: registryContext,
    subscribe: true,
    callback: (value) => {
      this._contextRegistry = value;
    },
  });

  constructor() {
    super();
    this.activationDelay = 500;
    this._pending = [];
  }

  override connectedCallback(): void {
    this._contextRegistry = undefined;
    ensureContextRoot(this.ownerDocument);
    super.connectedCallback();
    this._connection = new AbortController();
    this.ownerDocument.addEventListener('visibilitychange', () => this.requestUpdate(), {
      signal: this._connection.signal,
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this._connection?.abort();
    clearTimeout(this._timer);
    this._subscribe(undefined);
    this._close();
  }

  /** Pending, unexpired records, newest first: what the dialog shows. */
  private _visible(): PendingConfirmation[] {
    const now = Date.now();
    return this._pending
      .filter((p) => p.status === 'pending' && p.expiresAt > now)
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    this._subscribe(this.isConnected ? (this.registry ?? this._contextRegistry) : undefined);
  }

  private _subscribe(registry: AgentSurfaceRegistry | undefined): void {
    if (registry === this._subscribed) return;
    this._unsubscribe?.();
    this._unsubscribe = undefined;
    this._subscribed = registry;
    this._pending = registry ? registry.confirmations.list() : [];
    if (registry) {
      this._unsubscribe = registry.confirmations.subscribe((pending) => {
        this._pending = pending;
      });
    }
  }

  protected override render() {
    const visible = this._visible();
    return html`<dialog
      part="dialog"
      role="alertdialog"
      aria-modal="true"
      aria-labelledby="title"
      @keydown=${this._onKeydown}
      @cancel=${(e: Event) => e.preventDefault()}
      @close=${() => this.requestUpdate()}
    >
      ${
        visible.length
          ? html`<h2 id="title" part="title">
                ${visible.length === 1 ? 'An agent asks for your approval' : `${visible.length} agent requests need your approval`}
              </h2>
              <ul part="list"></ul>`
          : nothing
      }
    </dialog>`;
  }

  /** Renders the list's items into the `<ul>` the template left empty (see `_items`). */
  private _renderItems(visible: readonly PendingConfirmation[]): void {
    const list = this.renderRoot.querySelector('ul');
    const now = Date.now();
    const started = performance.now();
    const items = new Map<string, HTMLLIElement>();
    for (const p of list ? visible : []) {
      let li = this._items.get(p.confirmationId);
      if (!li) {
        li = this.ownerDocument.createElement('li');
        li.setAttribute('part', 'item');
        li.setAttribute('aria-labelledby', `req-${p.confirmationId}`);
        li.dataset.confirmationId = p.confirmationId;
      }
      render(this._renderItem(p, now, started), li);
      items.set(p.confirmationId, li);
    }
    // Remove the requests that left first, so the ones that stay are never moved.
    for (const [id, li] of this._items) if (!items.has(id)) li.remove();
    this._items = items;
    let i = 0;
    for (const li of items.values()) {
      const at = list!.children[i++];
      if (at !== li) list!.insertBefore(li, at ?? null);
    }
  }

  private _renderItem(p: PendingConfirmation, now: number, started: number) {
    const shown = this._shownAt.get(p.confirmationId);
    const inactive = shown === undefined || started - shown < this.activationDelay ? 'true' : 'false';
    const input = formatInput(p.input);
    return html`<h3 id=${`req-${p.confirmationId}`} part="description">${p.description}</h3>
      <dl part="details">
        <dt>Effect</dt>
        <dd>${describeEffect(p.effect)} (${p.effect})</dd>
        <dt>Requested by</dt>
        <dd>${p.consumer.id} (${p.consumer.kind})</dd>
        <dt>Capability</dt>
        <dd><code>${p.capabilityId}</code>${p.instanceId !== undefined ? ` on ${p.instanceId}` : ''}</dd>
      </dl>
      ${
        input.entries.length
          ? html`<dl part="input" aria-label="Input">
              ${input.entries.map(
                (e) =>
                  html`<dt>${e.path || 'value'}</dt>
                    <dd>${e.value}</dd>`,
              )}
              ${
                input.omitted
                  ? html`<dt>…</dt>
                      <dd>${input.omitted} more values not shown</dd>`
                  : nothing
              }
            </dl>`
          : html`<p part="input">No input.</p>`
      }
      <p part="countdown">Expires in ${formatRemaining(p.expiresAt - now)}</p>
      <div part="actions">
        <button
          part="button deny"
          aria-disabled=${inactive}
          @click=${(e: Event) => this._decide(e, p, false)}
        >
          Deny
        </button>
        <button
          part="button approve"
          aria-disabled=${inactive}
          @click=${(e: Event) => this._decide(e, p, true)}
        >
          Approve
        </button>
      </div>`;
  }

  protected override updated(changed: PropertyValues<this>): void {
    super.updated(changed);
    const visible = this._visible();
    this._renderItems(visible);
    const dialog = this.renderRoot.querySelector('dialog');
    clearTimeout(this._timer);
    if (!visible.length || !dialog || !this.isConnected) {
      this._close();
      return;
    }
    if (!dialog.open) {
      this._returnFocus ??= deepActiveElement();
      this._shownAt.clear();
      dialog.showModal();
    }
    // Start each record's activation delay now that it is on screen; forget records that left.
    const t = performance.now();
    let fresh = false;
    const ids = new Set(visible.map((p) => p.confirmationId));
    for (const id of this._shownAt.keys()) if (!ids.has(id)) this._shownAt.delete(id);
    // A hidden tab shows nothing: the delay starts over once the person can see the dialog.
    const hidden = this.ownerDocument.visibilityState === 'hidden';
    if (hidden) this._shownAt.clear();
    for (const id of hidden ? [] : ids) {
      if (!this._shownAt.has(id)) {
        this._shownAt.set(id, t);
        fresh = true;
      }
    }
    const root = this.renderRoot as ShadowRoot;
    if (!root.activeElement) root.querySelector<HTMLElement>('[part~="deny"]')?.focus();

    // Wake up for the next thing that changes on screen: a button becoming active, an expiry, the countdown.
    let next = 1000 - (Date.now() % 1000);
    for (const shown of this._shownAt.values()) {
      const left = shown + this.activationDelay - t;
      if (left > 0) next = Math.min(next, left);
    }
    for (const p of visible) next = Math.min(next, p.expiresAt - Date.now());
    this._timer = setTimeout(() => this.requestUpdate(), fresh ? 0 : Math.max(0, next) + 5);
  }

  private _close(): void {
    const dialog = this.renderRoot?.querySelector('dialog');
    this._shownAt.clear();
    if (dialog?.open) dialog.close();
    const target = this._returnFocus;
    this._returnFocus = undefined;
    if (target?.isConnected) target.focus();
  }

  private _decide(event: Event, p: PendingConfirmation, approve: boolean): void {
    // Only a person's own input counts: script-made events and clicks before the delay do nothing.
    if (!event.isTrusted) return;
    const shown = this._shownAt.get(p.confirmationId);
    if (shown === undefined || performance.now() - shown < this.activationDelay) return;
    const confirmations = this._subscribed?.confirmations;
    if (!confirmations) return;
    if (approve) confirmations.approve(p.confirmationId);
    else confirmations.deny(p.confirmationId, 'denied by the person');
    this._pending = this._pending.filter((x) => x.confirmationId !== p.confirmationId);
  }

  private _onKeydown = (event: KeyboardEvent): void => {
    const root = this.renderRoot as ShadowRoot;
    if (event.key === 'Escape') {
      // Handle Escape ourselves: the dialog must not close while requests wait for a decision.
      event.preventDefault();
      const visible = this._visible();
      const item = (root.activeElement as Element | null)?.closest('li[data-confirmation-id]');
      const id = item?.getAttribute('data-confirmation-id');
      const target = visible.find((p) => p.confirmationId === id) ?? visible[0];
      if (target) this._decide(event, target, false);
    } else if (event.key === 'Tab') {
      const buttons = [...root.querySelectorAll<HTMLElement>('button')];
      if (!buttons.length) return;
      const first = buttons[0]!;
      const last = buttons[buttons.length - 1]!;
      const active = root.activeElement;
      if (event.shiftKey && (active === first || !active)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (active === last || !active)) {
        event.preventDefault();
        first.focus();
      }
    }
  };
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-confirm': AgentConfirmElement;
  }
}
