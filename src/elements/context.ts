/**
 * The context keys the elements share through `@lit/context`. Keys are global symbols
 * (`Symbol.for`) so two copies of the kit on one page (an app bundle and the CDN file) still meet.
 */
import { ContextEvent, ContextProvider, ContextRoot, createContext, type ContextCallback } from '@lit/context';
import type { ReactiveControllerHost } from '@lit/reactive-element';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { eventParent } from './tree-order.js';

/**
 * The registry of the nearest `<agent-surface>`. `undefined` while the surface has no registry yet
 * (no `.authority` and no `.registry`): consumers subscribe and act once a registry arrives.
 */
export const registryContext = createContext<AgentSurfaceRegistry | undefined>(
  Symbol.for('agent-surface-kit/registry'),
);

/** What an `<agent-view>` tells the capabilities inside it. */
export interface AgentViewContextValue {
  /** The view's `name`: capabilities inside get the id `view:<name>.<capability name>`. */
  readonly name: string;
  /** The instance id the capabilities register with (`instance` or one derived from document order). */
  readonly instance?: string;
  /** Set when the view itself is refused (nested in another view, no name): nothing inside registers. */
  readonly refused?: string;
  /**
   * Set for the moment (a microtask) a view without `instance` waits for its place among same-name
   * views: what's inside registers once it has its instance id, never first without one.
   */
  readonly placing?: true;
}

/** The nearest `<agent-view>`. */
export const viewContext = createContext<AgentViewContextValue | undefined>(
  Symbol.for('agent-surface-kit/view'),
);

type ViewCallback = ContextCallback<AgentViewContextValue | undefined>;

/** Up the shadow-including tree: parents, then from a shadow root to its host (never through slots). */
const treeParent = (n: Node): Node | null => n.parentNode ?? (n instanceof ShadowRoot ? n.host : null);

/** Built-in elements that can hold a shadow root (custom elements all can). */
const SHADOW_HOSTS = /^(article|aside|blockquote|body|div|footer|h[1-6]|header|main|nav|p|section|span|.*-.*)$/;

/**
 * The answer "no view here" to view requests, from `<agent-surface>` (capabilities outside any
 * view stop there) and from the document's body (views and capabilities outside any surface), so no
 * view request waits at the document's ContextRoot, which would replay every waiting one each time
 * any view connects.
 *
 * When an `<agent-view>` (or a surface) connects below, lit would re-send every subscriber's request
 * so the new provider can take over: with a thousand rows, each new row view would re-check every
 * earlier one. A subscriber can move under a new provider only if it sits inside it in the tree, or
 * is a light child of an element whose shadow root holds the provider (a slot). So subscribers are
 * filed under the elements that can hold a shadow root on their way up, and a new provider looks up
 * only itself and the hosts of the shadow roots it sits in: the cost follows what can change, not
 * the page. (A subscriber's place changes only by a move, which disconnects it and ends its
 * subscription; slots are followed by the exact check before anything is re-sent.)
 */
export class NoViewProvider extends ContextProvider<typeof viewContext, HTMLElement & ReactiveControllerHost> {
  /** Subscribers by the elements they sit under (through a light child). */
  #under = new Map<Node, Set<ViewCallback>>();

  constructor(host: HTMLElement) {
    super(host as HTMLElement & ReactiveControllerHost, { context: viewContext });
    host.removeEventListener('context-provider', this.onProviderRequest);
    this.onProviderRequest = (event) => {
      const child = (event.contextTarget ?? event.composedPath()[0]) as Node;
      if (event.context !== viewContext || child === this.host) return;
      event.stopPropagation();
      const candidates = new Set(this.#under.get(child));
      for (let n: Node | null = child; n && n !== this.host; n = treeParent(n)) {
        if (n instanceof ShadowRoot) this.#under.get(n.host)?.forEach((c) => candidates.add(c));
      }
      for (const callback of candidates) {
        const consumer = this.subscriptions.get(callback)?.consumerHost;
        if (consumer && consumer !== child && inside(consumer, child)) {
          consumer.dispatchEvent(new ContextEvent(viewContext, consumer, callback, true));
        }
      }
    };
    host.addEventListener('context-provider', this.onProviderRequest);
  }

  override addCallback(callback: ViewCallback, consumerHost: Element, subscribe?: boolean): void {
    if (subscribe && !this.subscriptions.has(callback)) {
      const filed: Node[] = [];
      for (let n: Node = consumerHost, p = treeParent(n); p && p !== this.host; n = p, p = treeParent(n)) {
        if (n.parentNode === p && SHADOW_HOSTS.test((p as Element).localName)) {
          let set = this.#under.get(p);
          if (!set) this.#under.set(p, (set = new Set()));
          set.add(callback);
          filed.push(p);
        }
      }
      // lit's record, with a disposer that also takes the subscriber out of the files.
      this.subscriptions.set(callback, {
        consumerHost,
        disposer: () => {
          this.subscriptions.delete(callback);
          for (const n of filed) {
            const set = this.#under.get(n)!;
            set.delete(callback);
            if (!set.size) this.#under.delete(n);
          }
        },
      });
    }
    super.addCallback(callback, consumerHost, subscribe);
  }
}

/** Whether `node` sits inside `ancestor` along the path events travel (slots, shadow roots). */
function inside(node: Node, ancestor: Node): boolean {
  for (let n: Node | null = node; n; n = eventParent(n)) if (n === ancestor) return true;
  return false;
}

const ROOT = Symbol.for('agent-surface-kit/context-root');
const BODY = Symbol.for('agent-surface-kit/no-view-body');

/**
 * Attaches one `ContextRoot` to the document (once per page, shared by every copy of the kit). It
 * keeps the requests of elements that upgrade before their provider and replays them when the
 * provider appears: what lets the tags be defined in any order. View requests stop before it, at a
 * NoViewProvider on the body (attached once there is one). Consumers call it before requesting.
 */
export function ensureContextRoot(document: Document): void {
  const holder = globalThis as { [ROOT]?: ContextRoot; [BODY]?: HTMLElement };
  if (!holder[ROOT]) (holder[ROOT] = new ContextRoot()).attach(document.documentElement);
  const body = document.body;
  if (body && holder[BODY] !== body) new NoViewProvider((holder[BODY] = body));
}
