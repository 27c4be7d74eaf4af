/**
 * The rules every approval control of the kit follows (`<agent-confirm>`'s dialog, the chat's tool
 * cards), kept apart from any element so each control applies the same checks the same way.
 *
 * A person's approval counts only when all of these hold, checked at the moment of the click:
 * - it is a real, trusted `Event` (`instanceof Event && isTrusted`): never `element.click()`, a
 *   dispatched event, or an object shaped like one;
 * - the page is not framed by another origin, unless the page's script called
 *   {@link allowFramedApprovals};
 * - the request's controls have stayed in place, on screen, for the activation delay: the delay
 *   starts when they are first tracked and starts over when the Approve or Deny control moves or
 *   resizes (a request withdrawn above it, a layout shift, a scroll), when the control under a
 *   resting pointer changes (something slid under it or stopped covering it), when the Approve
 *   control became visible again (IntersectionObserver v2, where the browser has it), and when the
 *   page was hidden;
 * - for Approve: hit-testing at the click's point (the control's centre for a keyboard click) finds
 *   the Approve control itself, which is visible (`checkVisibility`, and IntersectionObserver v2
 *   `isVisible` where available), has a size, lies inside the approval surface's own box, and does
 *   not overlap Deny. A page style on `::part(approve)` that stretches it over Deny, moves it out of
 *   the dialog or hides it makes Approve refuse, never turns another click into an approval.
 *
 * Deny needs a trusted event and the delay (a stray click must not decide either way), not the
 * geometry: denying is always safe.
 *
 * Use:
 * ```ts
 * const guard = new ApprovalGuard({ delay: () => el.activationDelay, onChange: () => el.requestUpdate() });
 * guard.connect();                                   // when the control connects
 * guard.track([{ key, approve, deny, box }]);        // after every render: the requests on screen
 * button.ariaDisabled = String(!guard.ready(key));   // what to show
 * setTimeout(rerender, guard.readyIn(key));          // when it will change without any event
 * const verdict = guard.check(event, key, 'approve'); // in the click handler
 * if (verdict.ok) registry.confirmations.approve(key);
 * guard.disconnect();                                // when the control disconnects
 * ```
 *
 * The activation delay itself: `activationDelayFromMarkup` turns an attribute into a delay (a
 * value that is not a number, negative, empty or absent means `ACTIVATION_DELAY_DEFAULT_MS`;
 * nothing below `ACTIVATION_DELAY_FLOOR_MS`); `activationDelayFromScript` is for a
 * property set by script, which may go below the floor in development builds only.
 *
 * What this cannot stop: input that the browser itself reports as trusted, such as an agent driving
 * the page through the DevTools protocol, or a person who approves without reading.
 */
export {
  ACTIVATION_DELAY_DEFAULT_MS,
  ACTIVATION_DELAY_FLOOR_MS,
  activationDelayFromMarkup,
  activationDelayFromScript,
  allowFramedApprovals,
} from './approval-config.js';
import { framedApprovalsAllowed } from './approval-config.js';

let trustedGetter: (() => unknown) | undefined;

/**
 * Whether `value` is a real event the browser made from a person's input. `isTrusted` is read
 * through the browser's own getter (taken from a real event), so an object that only inherits from
 * `Event.prototype` and defines its own `isTrusted: true` is refused too.
 */
export function isTrustedEvent(value: unknown): value is Event {
  if (typeof Event !== 'function' || !(value instanceof Event)) return false;
  trustedGetter ??= Object.getOwnPropertyDescriptor(new Event('probe'), 'isTrusted')?.get as (() => unknown) | undefined;
  try {
    return (trustedGetter ? trustedGetter.call(value) : value.isTrusted) === true;
  } catch {
    return false;
  }
}

/** The origins of the page's ancestor frames that are not its own (empty when not framed by another origin). */
export function foreignAncestorOrigins(win: Window = window): string[] {
  if (win.top === win) return [];
  const own = win.location.origin;
  const ancestors = win.location.ancestorOrigins as DOMStringList | undefined;
  if (ancestors) return Array.from(ancestors as unknown as ArrayLike<string>).filter((o) => o !== own);
  // Without ancestorOrigins (Firefox): a parent of another origin throws on reading its location.
  const foreign: string[] = [];
  for (let w: Window = win; w !== w.top && w.parent; w = w.parent) {
    try {
      if (w.parent.location.origin !== own) foreign.push(w.parent.location.origin);
    } catch {
      foreign.push('(another origin)');
    }
  }
  return foreign;
}

/** Why approvals are off in this frame, or `undefined` when they may act. */
export function framingRefusal(win: Window = window): string | undefined {
  const foreign = foreignAncestorOrigins(win);
  if (!foreign.length) return undefined;
  const allowed = framedApprovalsAllowed();
  if (allowed === '*' || (allowed && foreign.every((o) => allowed.has(o)))) return undefined;
  return `approvals are turned off while this page is framed by ${foreign.join(', ')}; the page's script can allow it with allowFramedApprovals()`;
}


/** One request's controls, as an approval surface draws them. */
export interface ApprovalControls {
  /** The request's id (a confirmationId). */
  key: string;
  approve: HTMLElement;
  deny?: HTMLElement | undefined;
  /** The approval surface's own box (the dialog, the card): Approve must lie inside it. */
  box: Element;
}

export type ApprovalRefusal =
  | 'untrusted'
  | 'framed'
  | 'unknown'
  | 'early'
  | 'hidden'
  | 'outside-box'
  | 'overlaps-deny'
  | 'obscured';

export type ApprovalVerdict = { ok: true } | { ok: false; reason: ApprovalRefusal; message: string };

export interface ApprovalGuardOptions {
  /** The activation delay in milliseconds, read at each check. */
  delay: () => number;
  /** Called when a request's readiness may have changed (a restart, the page hidden or shown, visibility). */
  onChange?: () => void;
}

interface Tracked {
  controls: ApprovalControls;
  /** performance.now() when the controls were last found in place. */
  since: number;
  geometry: string;
  /** IntersectionObserver v2 verdict for Approve; `undefined` until the first report. */
  visible: boolean | undefined;
}

type TrackVisibilityEntry = IntersectionObserverEntry & { isVisible?: boolean };

/** Whether the browser implements IntersectionObserver v2 (`trackVisibility`, `entry.isVisible`). */
function hasTrackVisibility(): boolean {
  return typeof IntersectionObserverEntry === 'function' && 'isVisible' in IntersectionObserverEntry.prototype;
}

function geometryOf(c: ApprovalControls): string {
  const r = (e: Element | undefined) => {
    if (!e) return '-';
    const b = e.getBoundingClientRect();
    return `${b.x},${b.y},${b.width},${b.height}`;
  };
  return `${r(c.approve)}|${r(c.deny)}`;
}

/** The innermost element at a point, looking into open shadow roots. */
export function deepElementFromPoint(doc: Document, x: number, y: number): Element | null {
  let hit = doc.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

function overlaps(a: DOMRect, b: DOMRect): boolean {
  return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0;
}

function inside(inner: DOMRect, outer: DOMRect): boolean {
  const e = 0.5;
  return inner.left >= outer.left - e && inner.top >= outer.top - e && inner.right <= outer.right + e && inner.bottom <= outer.bottom + e;
}

/** See the module's documentation. One guard per approval surface. */
export class ApprovalGuard {
  readonly #options: ApprovalGuardOptions;
  readonly #tracked = new Map<string, Tracked>();
  #doc: Document | undefined;
  #connection: AbortController | undefined;
  #frame = 0;
  #pointer: { x: number; y: number } | undefined;
  #pointerMoved = false;
  #underPointer: Tracked | undefined;
  #observer: IntersectionObserver | undefined;

  constructor(options: ApprovalGuardOptions) {
    this.#options = options;
  }

  /** Starts watching the pointer, the page's visibility and the controls' geometry. */
  connect(doc: Document = document): void {
    if (this.#connection) return;
    this.#doc = doc;
    const connection = (this.#connection = new AbortController());
    const view = doc.defaultView ?? window;
    const onPointer = (event: PointerEvent | MouseEvent) => {
      this.#pointer = { x: event.clientX, y: event.clientY };
      this.#pointerMoved = true;
    };
    const listen = { capture: true, passive: true, signal: connection.signal };
    view.addEventListener('pointermove', onPointer, listen);
    view.addEventListener('pointerdown', onPointer, listen);
    view.addEventListener('mousemove', onPointer, listen);
    // Hidden and shown again: every request waits its delay again, in view.
    doc.addEventListener('visibilitychange', () => this.#restartAll(), { signal: connection.signal });
    if (hasTrackVisibility()) {
      this.#observer = new IntersectionObserver((entries) => this.#onVisibility(entries as TrackVisibilityEntry[]), {
        threshold: [0, 1],
        trackVisibility: true,
        delay: 100,
      } as IntersectionObserverInit);
      for (const t of this.#tracked.values()) this.#observer.observe(t.controls.approve);
    }
    this.#schedule();
  }

  disconnect(): void {
    this.#connection?.abort();
    this.#connection = undefined;
    this.#observer?.disconnect();
    this.#observer = undefined;
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    this.#tracked.clear();
    this.#underPointer = undefined;
  }

  /**
   * The requests on screen, after each render. A new key starts its delay now; a key missing from
   * `controls` is forgotten (it starts over if it comes back); new control elements for a known key
   * count as a move.
   */
  track(controls: Iterable<ApprovalControls>): void {
    const now = performance.now();
    const seen = new Set<string>();
    for (const c of controls) {
      seen.add(c.key);
      const t = this.#tracked.get(c.key);
      if (t && t.controls.approve === c.approve && t.controls.deny === c.deny && t.controls.box === c.box) continue;
      if (t) this.#observer?.unobserve(t.controls.approve);
      this.#tracked.set(c.key, { controls: c, since: now, geometry: geometryOf(c), visible: undefined });
      this.#observer?.observe(c.approve);
    }
    for (const [key, t] of this.#tracked) {
      if (seen.has(key)) continue;
      this.#observer?.unobserve(t.controls.approve);
      this.#tracked.delete(key);
      if (this.#underPointer === t) this.#underPointer = undefined;
    }
    this.#schedule();
  }

  /** Whether the request's controls would act now (delay passed, page shown, not refused by framing). */
  ready(key: string): boolean {
    return this.readyIn(key) === 0;
  }

  /** Milliseconds until `ready(key)` with nothing changing; `Infinity` when only an event can make it ready. */
  readyIn(key: string): number {
    const t = this.#tracked.get(key);
    const doc = this.#doc;
    if (!t || !doc || doc.visibilityState === 'hidden' || framingRefusal(doc.defaultView ?? window)) return Infinity;
    if (this.#observer && t.visible !== true) return Infinity;
    return Math.max(0, t.since + this.#options.delay() - performance.now());
  }

  /** Whether `event` may decide the request `key` (see the module's documentation). */
  check(event: unknown, key: string, action: 'approve' | 'deny'): ApprovalVerdict {
    if (!isTrustedEvent(event)) return refuse('untrusted', 'only a person\'s own click or key press decides');
    const doc = this.#doc;
    if (!doc) return refuse('unknown', 'the approval control is not connected');
    const framed = framingRefusal(doc.defaultView ?? window);
    if (framed) return refuse('framed', framed);
    // Look at the page as it is now: a shift since the last frame restarts the delay before we judge it.
    this.#sample();
    const t = this.#tracked.get(key);
    if (!t || !t.controls.approve.isConnected) return refuse('unknown', 'the request is not on screen');
    if (doc.visibilityState === 'hidden') return refuse('hidden', 'the page is hidden');
    if (performance.now() - t.since < this.#options.delay())
      return refuse('early', 'the request has not been on screen, in place, for the activation delay');
    if (action === 'deny') return { ok: true };
    return this.#checkApprove(t, event, doc);
  }

  #checkApprove(t: Tracked, event: Event, doc: Document): ApprovalVerdict {
    const { approve, deny, box } = t.controls;
    const rect = approve.getBoundingClientRect();
    const visible =
      rect.width > 0 &&
      rect.height > 0 &&
      (typeof approve.checkVisibility !== 'function' ||
        approve.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true }));
    if (!visible) return refuse('hidden', 'the Approve control is not visible');
    if (!inside(rect, box.getBoundingClientRect())) return refuse('outside-box', 'the Approve control is outside its dialog');
    if (deny && overlaps(rect, deny.getBoundingClientRect())) return refuse('overlaps-deny', 'the Approve control overlaps Deny');
    if (this.#observer && t.visible !== true) return refuse('obscured', 'the browser does not report the Approve control as visible');
    // A pointer click is judged where it landed; a keyboard click (detail 0) at the control's centre.
    const pointer = event instanceof MouseEvent && event.detail > 0;
    const x = pointer ? event.clientX : rect.left + rect.width / 2;
    const y = pointer ? event.clientY : rect.top + rect.height / 2;
    const hit = deepElementFromPoint(doc, x, y);
    if (!hit || !approve.contains(hit)) return refuse('obscured', 'the click did not land on a visible, unobscured Approve control');
    return { ok: true };
  }

  #onVisibility(entries: TrackVisibilityEntry[]): void {
    let changed = false;
    for (const entry of entries) {
      const t = [...this.#tracked.values()].find((x) => x.controls.approve === entry.target);
      if (!t) continue;
      const visible = entry.isVisible === true && entry.intersectionRatio >= 0.99;
      // Covered, then uncovered: the person has not seen it in place for the delay.
      if (visible && t.visible !== true) t.since = performance.now();
      if (visible !== t.visible) changed = true;
      t.visible = visible;
    }
    if (changed) this.#options.onChange?.();
  }

  #restartAll(): void {
    const now = performance.now();
    for (const t of this.#tracked.values()) t.since = now;
    this.#options.onChange?.();
    this.#schedule();
  }

  /** Compares the controls with the last frame: moves, and a new control under a resting pointer, restart. */
  #sample(): void {
    const doc = this.#doc;
    if (!doc) return;
    const now = performance.now();
    let changed = false;
    for (const t of this.#tracked.values()) {
      const geometry = geometryOf(t.controls);
      if (geometry === t.geometry) continue;
      t.geometry = geometry;
      t.since = now;
      changed = true;
    }
    if (this.#pointer) {
      const hit = deepElementFromPoint(doc, this.#pointer.x, this.#pointer.y);
      let under: Tracked | undefined;
      if (hit) {
        for (const t of this.#tracked.values()) {
          if (t.controls.approve.contains(hit) || t.controls.deny?.contains(hit)) under = t;
        }
      }
      if (under !== this.#underPointer) {
        // The pointer did not move, the page did: whatever is now under it has not been seen there.
        if (under && !this.#pointerMoved) {
          under.since = now;
          changed = true;
        }
        this.#underPointer = under;
      }
    }
    this.#pointerMoved = false;
    if (changed) this.#options.onChange?.();
  }

  #schedule(): void {
    if (this.#frame || !this.#connection || !this.#tracked.size) return;
    const view = this.#doc?.defaultView ?? window;
    this.#frame = view.requestAnimationFrame(() => {
      this.#frame = 0;
      this.#sample();
      this.#schedule();
    });
  }
}

function refuse(reason: ApprovalRefusal, message: string): ApprovalVerdict {
  return { ok: false, reason, message };
}
