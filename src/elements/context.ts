/**
 * The context keys the elements share through `@lit/context`. Keys are global symbols
 * (`Symbol.for`) so two copies of the kit on one page (an app bundle and the CDN file) still meet.
 */
import { ContextEvent, ContextProvider, createContext, type ContextCallback } from '@lit/context';
import type { ReactiveController, ReactiveControllerHost } from '@lit/reactive-element';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { treeParent } from './tree-parent.js';

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
type Host = HTMLElement & ReactiveControllerHost;

/** The view context providers of this copy of the kit's `<agent-view>` elements. */
const viewProviders = new WeakMap<object, ContextProvider<typeof viewContext>>();

/** The view context provider of an `<agent-view>`. */
export function provideView(view: Host): ContextProvider<typeof viewContext> {
  const provider = new ContextProvider(view, { context: viewContext });
  viewProviders.set(view, provider);
  return provider;
}

/**
 * The view an `<agent-capability>` sits in: lit's subscribing `ContextConsumer`, except that a
 * capability whose parent is an `<agent-view>` of this copy of the kit subscribes with that view's
 * provider directly. Its request would reach that provider first anyway (a child's path leads
 * through the view's own slot to the view), but as an event it visits every ancestor up to the
 * window on the way, and a table of a thousand row views sends a thousand of them.
 */
export class ViewConsumer implements ReactiveController {
  value: AgentViewContextValue | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(private readonly host: Host) {
    host.addController(this);
  }

  #answer: ViewCallback = (value, unsubscribe) => {
    if (unsubscribe !== this.#unsubscribe) this.#unsubscribe?.();
    this.#unsubscribe = unsubscribe;
    this.value = value;
    this.host.requestUpdate();
  };

  hostConnected(): void {
    const { host } = this;
    const provider = viewProviders.get(host.parentNode!);
    if (provider) provider.addCallback(this.#answer, host, true);
    else host.dispatchEvent(new ContextEvent(viewContext, host, this.#answer, true));
  }

  hostDisconnected(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}

/** The two contexts the kit provides. */
type KitContext = typeof registryContext | typeof viewContext;
type KitCallback = ContextCallback<AgentSurfaceRegistry | AgentViewContextValue | undefined>;

/**
 * The answer "none here" for one context, given where requests stop without a provider: "no view"
 * at `<agent-surface>` (capabilities outside any view stop there), and at the document's root
 * element "no view" and "no registry yet" (elements outside any view or surface, or whose surface
 * is not defined yet). Nothing waits anywhere else.
 *
 * When a provider of the context connects below (an `<agent-view>`, a surface defined or added
 * late), the subscribers it now encloses must move to it. lit's providers re-send every
 * subscriber's request for that: with a thousand rows, each new row view would re-check every
 * earlier one. A subscriber can come to sit inside a new provider only if it is in the provider's
 * subtree, or is a light child of an element whose shadow root holds the provider (a slot). So
 * subscribers are filed under the elements on their way up that can hold such a root (custom
 * elements, and elements that have an open one), and a new provider re-sends the requests filed
 * under itself and under the hosts of the shadow roots it sits in: the cost follows what can
 * change, not the size of the page. A subscriber changes place only by a move, which disconnects
 * it and ends its subscription; a request re-sent to one that stays outside comes back here and
 * changes nothing.
 */
export class EmptyProvider extends ContextProvider<KitContext, HTMLElement & ReactiveControllerHost> {
  // Weak keys: an element that leaves the page takes its (by then empty) file with it.
  #files = new WeakMap<Node, Set<KitCallback>>();

  constructor(host: HTMLElement, context: KitContext) {
    super(host as HTMLElement & ReactiveControllerHost, { context });
    host.removeEventListener('context-provider', this.onProviderRequest);
    this.onProviderRequest = (event) => {
      const child = (event.contextTarget ?? event.composedPath()[0]) as Node;
      if (event.context !== context || child === host) return;
      event.stopPropagation();
      const resend = new Set(this.#files.get(child));
      for (let n: Node | null = child; n && n !== host; n = treeParent(n)) {
        if (n instanceof ShadowRoot) this.#files.get(n.host)?.forEach((c) => resend.add(c));
      }
      for (const callback of resend) {
        const consumer = this.subscriptions.get(callback)?.consumerHost;
        consumer?.dispatchEvent(new ContextEvent(context, consumer, callback, true));
      }
    };
    host.addEventListener('context-provider', this.onProviderRequest);
  }

  override addCallback(callback: KitCallback, consumerHost: Element, subscribe?: boolean): void {
    if (subscribe && !this.subscriptions.has(callback)) {
      const filed: Set<KitCallback>[] = [];
      for (let n: Node = consumerHost, p = treeParent(n); p && p !== this.host; n = p, p = treeParent(n)) {
        if (n.parentNode === p && ((p as Element).shadowRoot || (p as Element).localName?.includes('-'))) {
          let file = this.#files.get(p);
          if (!file) this.#files.set(p, (file = new Set()));
          filed.push(file.add(callback));
        }
      }
      // lit's record, with a disposer that also takes the subscriber out of its files.
      this.subscriptions.set(callback, {
        consumerHost,
        disposer: () => {
          this.subscriptions.delete(callback);
          for (const file of filed) file.delete(callback);
        },
      });
    }
    super.addCallback(callback, consumerHost, subscribe);
  }
}

const ROOT = Symbol.for('agent-surface-kit/context-root');

/**
 * Puts the two EmptyProviders on the document's root element (once per page, shared by every copy
 * of the kit). A registry request that finds no `<agent-surface>` is answered "no registry yet"
 * and waits there; the surface that encloses it, defined or connected later, announces itself and
 * the request is sent again and finds it: what lets the tags be defined in any order. Consumers
 * call it before requesting.
 */
export function ensureContextRoot(document: Document): void {
  const holder = globalThis as { [ROOT]?: unknown };
  if (!holder[ROOT]) {
    const root = document.documentElement;
    new EmptyProvider(root, viewContext);
    holder[ROOT] = new EmptyProvider(root, registryContext);
  }
}
