/**
 * Where the agent acts: finds the page element a call's capability lives in and measures it, for
 * `<agent-chat>`'s outline. A chunk of its own, fetched with the first call that can be shown: a
 * chat whose calls never touch an element on the page never loads it.
 */

/** The element itself, or (a `display: contents` view) its first child with a box. */
function ownBox(target: Element): Element | undefined {
  const has = (el: Element) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  };
  if (has(target)) return target;
  for (const child of target.children) if (has(child)) return child;
  return undefined;
}

/** The nearest element with a box, up from `target`: views and capabilities are `display: contents`. */
function boxOf(target: Element): Element | undefined {
  let el: Element | null = target;
  while (el && el !== target.ownerDocument.body) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 || r.height > 0) return el;
    el = el.parentElement;
  }
  return undefined;
}

/**
 * The `<agent-view>` (or the capability's own element) a call acts on, and the element to scroll
 * into view; `undefined` when there is nothing of its own to point at: a capability outside any
 * view would outline a whole region, the chat included.
 */
export function locate(chat: Element, capabilityId: string, instanceId: string | undefined): { target: Element; box: Element } | undefined {
  const root = chat.closest('agent-surface') ?? chat.ownerDocument;
  const candidates = [...root.querySelectorAll('agent-capability')].filter(
    (c) => (c as Element & { capabilityId?: string }).capabilityId === capabilityId,
  );
  const el =
    candidates.find((c) => instanceId === undefined || c.closest('agent-view')?.getAttribute('instance') === instanceId) ?? candidates[0];
  if (!el) return undefined;
  const target = el.closest('agent-view') ?? el;
  const box = ownBox(target) ?? boxOf(target);
  return box && !box.contains(chat) ? { target, box } : undefined;
}

/** The box to outline: the element's own, or (a `display: contents` element) the union of its children's. */
export function rectOf(target: Element): DOMRect | undefined {
  const own = target.getBoundingClientRect();
  if (own.width > 0 || own.height > 0) return own;
  let top = Infinity;
  let left = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const child of target.children) {
    const r = child.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    top = Math.min(top, r.top);
    left = Math.min(left, r.left);
    right = Math.max(right, r.right);
    bottom = Math.max(bottom, r.bottom);
  }
  if (top === Infinity) return boxOf(target)?.getBoundingClientRect();
  return new DOMRect(left, top, right - left, bottom - top);
}
