import { ContextConsumer } from '@lit/context';
import { ReactiveElement } from '@lit/reactive-element';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { lazyModule } from '../core/util.js';
import { activationDelayFromMarkup, activationDelayFromScript } from './approval-config.js';
import { ensureContextRoot, registryContext } from './context.js';
import { DEV_MODE } from '../core/dev.js';
import { checkInsideSurface } from './dev-checks.js';

/** @internal How the element fetches its dialog chunk; a test swaps `load` to play a failed download. */
export const confirmDialogChunk = { load: () => import('./confirm-dialog.js') };

const DIALOG_ATTRIBUTES = {
  part: 'dialog',
  role: 'alertdialog',
  'aria-modal': 'true',
  'aria-labelledby': 'title',
};

/** One download per page; a failed one is forgotten so the next element tries again. */
const dialogChunk = lazyModule(() => confirmDialogChunk.load());

/**
 * The person's approval UI. Shows every pending confirmation of the nearest `<agent-surface>`'s
 * registry (or of `.registry`), newest first, in a modal dialog: what the capability does, its
 * effect, which agent asks, the input as escaped text, and the time left before the request expires.
 *
 * Approve and Deny act only on trusted input (a real click or key press, never `element.click()`
 * from a script) and only once a request has been on screen, in place, for the activation delay, so
 * a request that appears or slides under the pointer cannot be approved by a click meant for
 * something else (the delay starts over when its buttons move, when another control comes to rest
 * under the pointer, and when the tab was hidden). Approve also checks that the click landed on the
 * Approve button itself, visible, unobscured, inside the dialog and clear of Deny, whatever the
 * page's styles do to `::part(approve)`; and refuses while the page is framed by another origin
 * unless the page's script called `allowFramedApprovals()` (see `approval-guard.ts`).
 *
 * Markup cannot weaken it: `activation-delay` below 300 ms counts as 300, and an invalid value as
 * the default; only script (`el.activationDelay = 100`) can go lower, and only in development
 * builds. A second `<agent-confirm>` for a registry that already has one is refused (with a console
 * error) unless the page's script gave it its registry through `.registry`.
 * Escape denies the focused request (or the newest). Focus stays inside the dialog while it is open
 * and returns where it was when it closes.
 *
 * @summary Lets a person approve or deny an agent's pending calls.
 * @tag agent-confirm
 *
 * @attr {number} activation-delay - Milliseconds a request must be shown, in place, before Approve and Deny respond. Default 500; at least 300; an invalid value means the default.
 * @prop {number} activationDelay - The delay in effect. Set from script it overrides the attribute and may go below 300 in development builds only; `undefined` returns to the attribute.
 * @prop {AgentSurfaceRegistry | undefined} registry - The registry whose confirmations to show; default: the nearest `<agent-surface>`'s.
 *
 * @csspart dialog - The modal `<dialog>`.
 * @csspart title - The dialog's heading.
 * @csspart notice - Why approvals are turned off (the page is framed by another origin).
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
export class AgentConfirmElement extends ReactiveElement {
  static override properties = {
    registry: { attribute: false },
  };

  // Not a reactive property: lit would route the attribute through the setter, and the setter is how
  // script (and only script) may go below the floor. The attribute is read where the delay is used.

  declare registry: AgentSurfaceRegistry | undefined;
  #scriptDelay: number | undefined;

  get activationDelay(): number {
    return this.#scriptDelay !== undefined
      ? activationDelayFromScript(this.#scriptDelay)
      : activationDelayFromMarkup(this.getAttribute('activation-delay'));
  }

  set activationDelay(value: number | undefined) {
    this.#scriptDelay = value === undefined || value === null ? undefined : (value as number);
    this.requestUpdate();
  }


  /** Settles when the dialog chunk has loaded (and is attached) or failed to load. */
  #dialogReady: Promise<void>;
  #context = new ContextConsumer(this, { context: registryContext, subscribe: true });

  constructor() {
    super();
    // Fetched per element, not at import: a page without <agent-confirm> never downloads the dialog.
    this.#dialogReady = dialogChunk.load().then(
      ({ ConfirmDialog }) => {
        // The dialog's content and behaviour: a controller that follows the registry's confirmations,
        // fills and drives the shell's <dialog>, and records the person's decisions.
        this.addController(
          new ConfirmDialog(this, () => (this.isConnected ? (this.registry ?? this.#context.value) : undefined)),
        );
        this.requestUpdate();
      },
      (error: unknown) => {
        // Nothing is approved or denied: the pending requests expire on their own TTL.
        console.error(
          '<agent-confirm>: the approval dialog did not load; pending confirmations will expire unanswered.',
          error,
        );
      },
    );
  }

  /** Also waits for the dialog chunk and the render that follows it. */
  protected override async getUpdateComplete(): Promise<boolean> {
    await this.#dialogReady;
    return super.getUpdateComplete();
  }

  override connectedCallback(): void {
    if (DEV_MODE) checkInsideSurface(this);
    this.#context.value = undefined;
    ensureContextRoot(this.ownerDocument);
    super.connectedCallback();
  }

  protected override createRenderRoot(): HTMLElement | DocumentFragment {
    const root = super.createRenderRoot();
    // The closed, empty <dialog> is there from the first connection; the chunk fills it, opens it and
    // listens to it. Built with the DOM, so the entry needs no template engine.
    const dialog = this.ownerDocument.createElement('dialog');
    for (const [name, value] of Object.entries(DIALOG_ATTRIBUTES)) dialog.setAttribute(name, value);
    root.appendChild(dialog);
    return root;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-confirm': AgentConfirmElement;
  }
}
