import { ContextEvent, ContextProvider } from '@lit/context';
import type { ReactiveControllerHost } from '@lit/reactive-element';
import { viewContext } from './context.js';
import { eventParent } from './tree-order.js';

/** Whether `node` sits inside `ancestor` along the path events travel (slots, shadow roots). */
function isInside(node: Node, ancestor: Node): boolean {
  for (let n: Node | null = node; n; n = eventParent(n)) if (n === ancestor) return true;
  return false;
}

/**
 * `<agent-surface>`'s answer to view requests: "no view here". Capabilities outside any view stop
 * their request at the surface instead of waiting at the document's ContextRoot. When an
 * `<agent-view>` connects inside the surface, lit re-sends every subscriber's request so the new
 * provider can take over; this provider re-sends only those of consumers inside the new view, so a
 * page with many capabilities does not pay for each view it renders.
 */
export class NoViewProvider extends ContextProvider<
  typeof viewContext,
  HTMLElement & ReactiveControllerHost
> {
  constructor(host: HTMLElement & ReactiveControllerHost) {
    super(host, { context: viewContext });
    host.removeEventListener('context-provider', this.onProviderRequest);
    this.onProviderRequest = (event: Event & { context?: unknown; contextTarget?: Element }) => {
      if (event.context !== viewContext) return;
      const child = (event.contextTarget ?? event.composedPath()[0]) as Node;
      if (child === this.host) return;
      event.stopPropagation();
      for (const [callback, { consumerHost }] of [...this.subscriptions]) {
        if (isInside(consumerHost, child)) {
          consumerHost.dispatchEvent(new ContextEvent(viewContext, consumerHost, callback, true));
        }
      }
    };
    host.addEventListener('context-provider', this.onProviderRequest);
  }
}
