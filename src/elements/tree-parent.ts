/** The next node up the shadow-including tree: the parent, or a shadow root's host (never through slots). */
export function treeParent(n: Node): Node | null {
  return n.parentNode ?? (n instanceof ShadowRoot ? n.host : null);
}
