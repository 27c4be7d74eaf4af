/**
 * Document order across shadow roots: `compareDocumentPosition` says nothing useful for nodes in
 * different trees, so compare the composed ancestor chains instead (a shadow root sorts before its
 * host's light-DOM children). Gives `<agent-view>` deterministic automatic instance ids. Only the
 * element's lazy chunk uses these (view-numbering.ts, capability-registration.ts).
 */
import { treeParent } from './tree-parent.js';

function composedChain(node: Node): Node[] {
  const chain: Node[] = [];
  for (let n: Node | null = node; n; n = treeParent(n)) chain.push(n);
  return chain.reverse();
}

/** Negative when `a` comes first, positive when `b` does, 0 for the same node or unrelated trees. */
export function compareTreeOrder(a: Node, b: Node): number {
  if (a === b) return 0;
  const ca = composedChain(a);
  const cb = composedChain(b);
  let i = 0;
  while (i < ca.length && i < cb.length && ca[i] === cb[i]) i++;
  if (i === 0) return 0;
  if (i === ca.length) return -1; // a is an ancestor of b
  if (i === cb.length) return 1;
  const x = ca[i]!;
  const y = cb[i]!;
  if (x instanceof ShadowRoot) return -1;
  if (y instanceof ShadowRoot) return 1;
  return x.compareDocumentPosition(y) & 4 /* Node.DOCUMENT_POSITION_FOLLOWING */ ? -1 : 1;
}

/**
 * Sorts elements into document order (shadow-including). Two siblings compare by a walk along their
 * sibling list, so a flood of sibling views sorted pair by pair took quadratic time: positions
 * within one tree come from one `querySelectorAll` of the tree instead.
 */
export function sortInTreeOrder<T extends Element>(elements: T[]): T[] {
  const at = new Map<Node, number>();
  if (elements.length > 8)
    for (const el of elements)
      if (!at.has(el)) (el.getRootNode() as ParentNode).querySelectorAll(el.localName).forEach((e, i) => at.set(e, i));
  return elements.sort((a, b) =>
    at.has(a) && a.localName === b.localName && a.getRootNode() === b.getRootNode() ? at.get(a)! - at.get(b)! : compareTreeOrder(a, b),
  );
}

/** The next node up the path a (composed) event or context request travels: into assigned slots, out of shadow roots. */
export function eventParent(n: Node): Node | null {
  return (n as Element).assignedSlot ?? treeParent(n);
}
