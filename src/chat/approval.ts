/**
 * The rules a chat card's Approve and Deny follow, the same as `<agent-confirm>`'s: only a person's
 * own input counts (a trusted event, never `element.click()` from a script), and only once the
 * request has been on screen for the activation delay (so a card that appears under the pointer
 * cannot be approved by a click meant for something else). The delay starts over whenever the tab
 * was hidden. A page framed by another origin decides nothing (a clickjacking frame could make the
 * person click without seeing what). Anything that fails a rule does nothing: the request waits and
 * expires on its own TTL.
 */

export interface ApprovalGuard {
  /** Call on every render with the confirmation ids on screen: starts their delays, forgets the rest. */
  shown(ids: Iterable<string>): void;
  /** Whether the buttons of `id` respond yet. */
  active(id: string): boolean;
  /** Milliseconds until the next button becomes active, or `undefined` when none is waiting. */
  nextChange(): number | undefined;
  /** Whether `event` may decide `id`. */
  allows(event: Event, id: string): boolean;
}

/** Whether this document is framed by a page of another origin. */
function framedCrossOrigin(view: Window | null): boolean {
  if (!view || view.top === view) return false;
  try {
    // Reading another origin's location throws.
    return view.top!.location.origin !== view.location.origin;
  } catch {
    return true;
  }
}

export function createApprovalGuard(doc: Document, delay: () => number): ApprovalGuard {
  const shownAt = new Map<string, number>();
  return {
    shown(ids) {
      const keep = new Set(ids);
      for (const id of shownAt.keys()) if (!keep.has(id)) shownAt.delete(id);
      if (doc.visibilityState === 'hidden') {
        shownAt.clear();
        return;
      }
      const now = performance.now();
      for (const id of keep) if (!shownAt.has(id)) shownAt.set(id, now);
    },
    active(id) {
      const at = shownAt.get(id);
      return at !== undefined && performance.now() - at >= delay();
    },
    nextChange() {
      const now = performance.now();
      let next: number | undefined;
      for (const at of shownAt.values()) {
        const left = at + delay() - now;
        if (left > 0) next = next === undefined ? left : Math.min(next, left);
      }
      return next;
    },
    allows(event, id) {
      if (!event.isTrusted) return false;
      if (framedCrossOrigin(doc.defaultView)) return false;
      return this.active(id);
    },
  };
}
