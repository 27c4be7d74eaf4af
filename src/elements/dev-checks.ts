/**
 * Development-mode warnings for markup that would otherwise fail silently: each names the element
 * (its start tag) and the fix, once per element and problem. Callers guard every call with
 * `DEV_MODE`, so the production build (and the CDN file) carries none of this.
 */
import { elementLabel } from './element-label.js';

/** The nearest composed ancestor with this tag (crossing shadow roots), if any. */
export function composedAncestor(node: Node, tag: string): Element | undefined {
  for (let n: Node | null = node.parentNode ?? (node as ShadowRoot).host ?? null; n; n = n.parentNode ?? (n as ShadowRoot).host ?? null) {
    if (n instanceof Element && n.localName === tag) return n;
  }
  return undefined;
}

/** Checks scheduled and not yet run (see `devChecksDone`). */
const pending = new Set<Promise<void>>();

/** Runs `check` after the page's own scripts had their turn: after parsing, then one more task. */
export function afterSetup(element: Element, check: () => void): void {
  const doc = element.ownerDocument;
  const done = new Promise<void>((resolve) => {
    const later = () =>
      setTimeout(() => {
        if (element.isConnected) check();
        resolve();
      });
    if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', later, { once: true });
    else later();
  });
  pending.add(done);
  void done.then(() => pending.delete(done));
}

/** Settles once every check scheduled so far has run (for tests: timers may be clamped, so no fixed wait). */
export async function devChecksDone(): Promise<void> {
  while (pending.size) await Promise.all(pending);
}

/** What each element was warned about: once per element and problem, whatever its attributes become. */
const warned = new WeakMap<Element, Set<string>>();

function warn(code: string, element: Element, text: string): void {
  let codes = warned.get(element);
  if (!codes) warned.set(element, (codes = new Set()));
  if (codes.has(code)) return;
  codes.add(code);
  console.warn(`[agent-surface-kit ${code}] ${elementLabel(element)} ${text}`);
}

/** `<agent-capability>` or `<agent-confirm>` with no `<agent-surface>` around it. */
export function checkInsideSurface(element: Element & { readonly registry?: unknown }): void {
  afterSetup(element, () => {
    if (element.registry || composedAncestor(element, 'agent-surface')) return;
    warn(
      'NO_SURFACE',
      element,
      element.localName === 'agent-confirm'
        ? 'is not inside an <agent-surface>, so it shows no requests: put it inside the surface whose confirmations it shows (or set its .registry).'
        : 'is not inside an <agent-surface>, so it never registers: put it inside one.',
    );
  });
}

/** An `<agent-surface>` nested in another, an `authority` attribute, or capabilities and no authority. */
export function checkSurface(
  surface: Element & { readonly registry: unknown },
  hasCapabilities: () => boolean,
): void {
  if (surface.hasAttribute('authority')) {
    warn(
      'AUTHORITY_ATTRIBUTE',
      surface,
      'has an authority attribute, which does nothing: authorization is set from script only (surface.authority = createCompilerAuthority({ manifest, validators })).',
    );
  }
  if (composedAncestor(surface, 'agent-surface')) {
    warn(
      'NESTED_SURFACE',
      surface,
      'is inside another <agent-surface>: the capabilities inside it register only with the inner one. Use one surface per page area, side by side, not nested.',
    );
  }
  afterSetup(surface, () => {
    if (surface.registry || !hasCapabilities()) return;
    warn(
      'NO_AUTHORITY',
      surface,
      'has capabilities but no .authority or .registry, so none of them registers: set surface.authority = createCompilerAuthority({ manifest, validators }) from script (or devAuthority() while developing).',
    );
  });
}

/** A `.handler` on an observation or a `.read` on an action: never called. */
export function checkBehaviour(capability: Element, kind: string, handler: unknown, read: unknown): void {
  if (kind === 'observation' && handler)
    warn('HANDLER_ON_OBSERVATION', capability, 'is an observation, so its .handler is never called: set .read instead.');
  if (kind !== 'observation' && read)
    warn('READ_ON_ACTION', capability, 'is an action, so its .read is never called: set .handler instead (or kind="observation").');
}
