/**
 * `<agent-confirm>`'s dialog: its styles, templates, focus handling and the checks on a person's
 * decision. A lazy chunk: the element imports it when it is constructed, so pages without the
 * element never fetch it, and the elements entry stays small. It is the only element code that
 * uses lit-html (through `lit/html.js`, not `lit`, so LitElement stays out of the chunk too).
 */
import { adoptStyles, unsafeCSS, type ReactiveController, type ReactiveControllerHost } from '@lit/reactive-element';
import { html, nothing, render } from 'lit/html.js';
import { issueError, issueWarning, DEV_MODE } from '../core/dev.js';
import type { AgentSurfaceRegistry, PendingConfirmation } from '../core/types.js';
import { ApprovalGuard, framingRefusal } from './approval-guard.js';
import { describeEffect, formatInput, formatRemaining } from './format-input.js';

/**
 * What the dialog needs from its element beyond the public API (a closure keeps the element's state
 * private): the registry whose confirmations to show, `undefined` while there is none or the element
 * is disconnected.
 */
export type ConfirmDialogPort = () => AgentSurfaceRegistry | undefined;

/**
 * The dialog that shows each registry's confirmations by right of being found through the context
 * first. Another one found the same way is refused: markup injected into the page must not open a
 * second dialog on top of the page's own. A dialog the page's script bound (`.registry`) is always shown.
 */
const contextDialogs = new WeakMap<AgentSurfaceRegistry, ConfirmDialog>();

/**
 * The element the dialog lives in (`<agent-confirm>`), by what the dialog uses of it: the element
 * loads the dialog, never the reverse.
 */
export interface ConfirmDialogHost extends ReactiveControllerHost, Pick<HTMLElement, 'isConnected' | 'ownerDocument'> {
  readonly renderRoot: HTMLElement | DocumentFragment;
  /** Milliseconds a freshly shown request ignores clicks. */
  readonly activationDelay: number;
  /** The registry the page's script gave the element (`.registry`), if any. */
  readonly registry: AgentSurfaceRegistry | undefined;
}

/**
 * @internal A constant, given to `unsafeCSS` rather than the `css` tag so that neither this chunk nor
 * the entry needs lit's template-checking tag.
 */
export const confirmDialogStyles = unsafeCSS(`
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
  /* Not opacity: a translucent Approve is one the browser does not report as visible (IntersectionObserver v2). */
  button[aria-disabled='true'] {
    color: var(--agent-confirm-muted, #474747);
    cursor: default;
  }
  [part~='approve'][aria-disabled='true'] {
    border-color: var(--agent-confirm-border, #c4c7c5);
    background: var(--agent-confirm-border, #c4c7c5);
    color: var(--agent-confirm-color, #1b1b1f);
  }
  button:focus-visible {
    outline: 2px solid var(--agent-confirm-accent, #0b57d0);
    outline-offset: 2px;
  }
`);

/** The element that has focus, looking into shadow roots. */
function deepActiveElement(): HTMLElement | undefined {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : undefined;
}

/**
 * @internal The dialog's content and behaviour, as a controller of its `<agent-confirm>`. The element
 * builds the (closed, empty) `<dialog>` itself, so it exists from the first connection; this listens
 * to it, fills it, opens and closes it, and runs its timer.
 */
export class ConfirmDialog implements ReactiveController {
  /** The activation delay, input protection and framing rules for the buttons. */
  private readonly _guard: ApprovalGuard;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * One `<li>` per request on screen, by confirmationId. Kept and never moved while its request
   * stays (new ones go in above it), so focus never jumps to another request's buttons.
   */
  private _items = new Map<string, HTMLLIElement>();
  private _returnFocus: HTMLElement | undefined;
  /** The element's `<dialog>`, once this controller has seen the element connected. */
  private _dialog: HTMLDialogElement | undefined;
  /** The registry's confirmations as last listed or notified. */
  private _pending: readonly PendingConfirmation[] = [];
  private _subscribed: AgentSurfaceRegistry | undefined;
  private _unsubscribe: (() => void) | undefined;
  /** Listeners of one connection. */
  private _connection: AbortController | undefined;

  constructor(
    private readonly host: ConfirmDialogHost,
    private readonly port: ConfirmDialogPort,
  ) {
    this._guard = new ApprovalGuard({ delay: () => host.activationDelay, onChange: () => host.requestUpdate() });
  }

  private get _root(): ShadowRoot {
    return this.host.renderRoot as ShadowRoot;
  }

  hostConnected(): void {
    // A tab coming back into view restarts the activation delay (see hostUpdated).
    this._connection = new AbortController();
    this._guard.connect(this.host.ownerDocument);
    // Runs once the shadow root exists, whether the chunk arrived before or after the element connected.
    if (this._dialog) return;
    const root = this._root;
    adoptStyles(root, [confirmDialogStyles]);
    const dialog = (this._dialog = root.querySelector('dialog')!);
    dialog.addEventListener('keydown', this._onKeydown);
    // The browser closes a modal dialog on Escape through `cancel`; requests still wait, so it stays open.
    dialog.addEventListener('cancel', (event) => event.preventDefault());
    dialog.addEventListener('close', () => this.host.requestUpdate());
  }

  hostDisconnected(): void {
    clearTimeout(this._timer);
    this._close();
    this._connection?.abort();
    this._guard.disconnect();
    this._subscribe(undefined);
  }

  hostUpdate(): void {
    let registry = this.port();
    // `.registry` is set by script only; otherwise the registry came through the page (the context).
    if (registry && !this.host.registry) {
      const holder = contextDialogs.get(registry);
      if (holder && holder !== this && holder.host.isConnected) {
        issueError(
          'second-confirm',
          '',
          '<agent-confirm>: this registry already has an <agent-confirm>; a second one found through the page ' +
            "(possibly injected markup) shows nothing. Give it the registry from script (el.registry = …) if it is the page's own.",
        );
        registry = undefined;
      } else contextDialogs.set(registry, this);
    }
    this._subscribe(registry);
  }

  private _subscribe(registry: AgentSurfaceRegistry | undefined): void {
    if (registry === this._subscribed) return;
    const previous = this._subscribed;
    if (previous && contextDialogs.get(previous) === this) contextDialogs.delete(previous);
    this._unsubscribe?.();
    this._unsubscribe = undefined;
    this._subscribed = registry;
    this._pending = registry ? registry.confirmations.list() : [];
    if (registry) {
      this._unsubscribe = registry.confirmations.subscribe((pending) => {
        this._pending = pending;
        this.host.requestUpdate();
      });
    }
  }

  /** Pending, unexpired records, newest first: what the dialog shows. */
  private _visible(): PendingConfirmation[] {
    const now = Date.now();
    return this._pending
      .filter((p) => p.status === 'pending' && p.expiresAt > now)
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** The dialog's content: the heading and the (empty) list that `_renderItems` fills. */
  private _content(count: number, framed: string | undefined) {
    return count
      ? html`<h2 id="title" part="title">
            ${count === 1 ? 'An agent asks for your approval' : `${count} agent requests need your approval`}
          </h2>
          ${framed ? html`<p part="notice" role="note">Approvals are turned off while this page is embedded in another site.</p>` : nothing}
          <ul part="list"></ul>`
      : nothing;
  }

  private readonly _onKeydown = (event: KeyboardEvent): void => {
    const root = this._root;
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

  /** Renders the list's items into the `<ul>` the template left empty (see `_items`). */
  private _renderItems(visible: readonly PendingConfirmation[]): void {
    const list = this._root.querySelector('ul');
    const now = Date.now();
    const items = new Map<string, HTMLLIElement>();
    for (const p of list ? visible : []) {
      let li = this._items.get(p.confirmationId);
      if (!li) {
        li = this.host.ownerDocument.createElement('li');
        li.setAttribute('part', 'item');
        li.setAttribute('aria-labelledby', `req-${p.confirmationId}`);
        li.dataset.confirmationId = p.confirmationId;
      }
      render(this._renderItem(p, now), li);
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

  private _renderItem(p: PendingConfirmation, now: number) {
    const inactive = this._guard.ready(p.confirmationId) ? 'false' : 'true';
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

  hostUpdated(): void {
    const host = this.host;
    const visible = this._visible();
    const dialog = this._dialog;
    // Right after the element's own (empty) update, where a LitElement would have rendered.
    if (dialog) render(this._content(visible.length, framingRefusal(host.ownerDocument.defaultView ?? window)), dialog);
    this._renderItems(visible);
    clearTimeout(this._timer);
    if (!visible.length || !dialog || !host.isConnected) {
      this._close();
      return;
    }
    if (!dialog.open) {
      this._returnFocus ??= deepActiveElement();
      dialog.showModal();
    }
    // The requests on screen: new ones start their activation delay now, ones that left are forgotten.
    const before = visible.map((p) => this._guard.ready(p.confirmationId));
    this._guard.track(
      [...this._items].map(([key, li]) => ({
        key,
        approve: li.querySelector<HTMLElement>('[part~="approve"]')!,
        deny: li.querySelector<HTMLElement>('[part~="deny"]') ?? undefined,
        box: dialog,
      })),
    );
    const fresh = visible.some((p, i) => this._guard.ready(p.confirmationId) !== before[i]);
    if (!this._root.activeElement) this._root.querySelector<HTMLElement>('[part~="deny"]')?.focus();

    // Wake up for the next thing that changes on screen: a button becoming active, an expiry, the
    // countdown. (The guard calls back itself when something restarts a delay.)
    let next = 1000 - (Date.now() % 1000);
    for (const p of visible) {
      const left = this._guard.readyIn(p.confirmationId);
      if (left > 0) next = Math.min(next, left);
      next = Math.min(next, p.expiresAt - Date.now());
    }
    this._timer = setTimeout(() => host.requestUpdate(), fresh ? 0 : Math.max(0, next) + 5);
  }

  private _close(): void {
    const dialog = this._dialog;
    this._guard.track([]);
    if (dialog?.open) dialog.close();
    const target = this._returnFocus;
    this._returnFocus = undefined;
    if (target?.isConnected) target.focus();
  }

  private _decide(event: Event, p: PendingConfirmation, approve: boolean): void {
    // Only a person's own input counts, on a request that has been in place for the delay, and for
    // Approve, a click that landed on the visible Approve button itself (see approval-guard.ts).
    const verdict = this._guard.check(event, p.confirmationId, approve ? 'approve' : 'deny');
    if (!verdict.ok) {
      if (DEV_MODE && verdict.reason !== 'early' && verdict.reason !== 'untrusted')
        issueWarning('approval-refused', verdict.reason, `<agent-confirm>: ${approve ? 'Approve' : 'Deny'} refused: ${verdict.message}.`);
      return;
    }
    // Checked: record the decision.
    const confirmations = this._subscribed?.confirmations;
    if (!confirmations) return;
    if (approve) confirmations.approve(p.confirmationId);
    else confirmations.deny(p.confirmationId, 'denied by the person');
    this._pending = this._pending.filter((x) => x.confirmationId !== p.confirmationId);
    this.host.requestUpdate();
  }
}
