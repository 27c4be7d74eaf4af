/**
 * `<agent-webmcp>`'s stop-and-start, loaded with the WebMCP adapter on the element's first start (an
 * `import()`), so the element's file carries only its bookkeeping and a page that never starts an
 * adapter never downloads either. The element wraps the adapter: the arrow runs from here to
 * `src/webmcp`, never back.
 */
import { checkConsumerGrant } from '../core/consumer-grant-check.js';
import { checkExposedToGrant } from '../core/exposed-to-grant.js';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { createWebMcpAdapter } from '../webmcp/adapter.js';
import type { WebMcpAdapter, WebMcpAdapterOptions, WebMcpAdapterStatus } from '../webmcp/types.js';

/** What the restart reads and writes of `<agent-webmcp>` (its public properties). */
export interface AgentWebMcpHost extends EventTarget {
  status: WebMcpAdapterStatus | 'error' | 'refused';
  /** Whether the page's script called `enable()` (vouching for the attributes as they are). */
  readonly enabled: boolean;
  readonly scope: string | undefined;
  readonly toolPrefix: string | undefined;
  readonly exposedTo: string | undefined;
  readonly consumer: string | undefined;
  readonly confirmationTtl: number | undefined;
  readonly modelContext: WebMcpAdapterOptions['modelContext'];
  readonly exposeCapability: WebMcpAdapterOptions['exposeCapability'];
  readonly confirm: WebMcpAdapterOptions['confirm'];
}

/**
 * `<agent-webmcp>`'s restart. Stops the `previous` adapter, then creates one from the element's properties
 * (a bad option throws, for the element to report), hands it to `adopt` before anything can observe
 * it, starts it and reflects the outcome in `status`, unless `signal` (a newer configuration) aborted.
 */
export async function restartAgentWebMcp(
  el: AgentWebMcpHost,
  previous: WebMcpAdapter | undefined,
  registry: AgentSurfaceRegistry | undefined,
  signal: AbortSignal,
  adopt: (adapter: WebMcpAdapter, starting: Promise<void>) => void,
): Promise<void> {
  if (previous) {
    await previous.stop();
    if (!signal.aborted) el.status = 'stopped';
  }
  if (!registry) return;
  if (signal.aborted) {
    // A reconfiguration while the module loaded took over: it found no adapter to stop, so start
    // none (and say `stopped`, as if this one had started and been stopped at once). After a stop,
    // the newer configuration speaks for itself.
    if (!previous) el.status = 'stopped';
    return;
  }
  // Markup declares, script grants (core/consumer-grants.ts): without a grant or enable(), nothing runs.
  let consumer = el.consumer || 'webmcp';
  let prefix = el.toolPrefix;
  // `exposed-to="https://a.example, https://b.example"` or space-separated.
  let exposedTo: string[] | undefined = el.exposedTo ? el.exposedTo.split(/[\s,]+/).filter(Boolean) : undefined;
  if (!el.enabled) {
    const verdict = checkConsumerGrant(registry, 'webmcp', { consumer: el.consumer, prefix: el.toolPrefix }, 'webmcp');
    if (!verdict.ok) {
      console.error(`[agent-surface-kit WEBMCP_NOT_GRANTED] <agent-webmcp> publishes nothing: ${verdict.message}.`);
      el.status = 'refused';
      return;
    }
    consumer = verdict.consumer;
    prefix = verdict.prefix;
    // Opening the tools to another origin's frames is reach too: only origins the grant lists.
    const exposure = checkExposedToGrant(registry, 'webmcp', exposedTo);
    if (!exposure.ok) {
      console.error(`[agent-surface-kit WEBMCP_NOT_GRANTED] <agent-webmcp> publishes nothing: ${exposure.message}.`);
      el.status = 'refused';
      return;
    }
    exposedTo = exposure.exposedTo;
  }
  const options: WebMcpAdapterOptions = { eventTarget: el };
  if (prefix) options.prefix = prefix;
  // More origins than the adapter takes (32) is a configuration error the element reports, never a silent cut.
  if (exposedTo?.length) options.exposedTo = exposedTo;
  if (el.confirmationTtl != null) options.confirmationTtlMs = el.confirmationTtl;
  if (el.modelContext !== undefined) options.modelContext = el.modelContext;
  if (el.exposeCapability) options.exposeCapability = el.exposeCapability;
  if (el.confirm) options.confirm = el.confirm;
  const adapter = createWebMcpAdapter(options);
  el.status = 'starting';
  // `scope="devices, view:settings"` or space-separated: a list of scope entries.
  const scope = el.scope ? el.scope.split(/[\s,]+/).filter(Boolean) : [];
  const started = adapter.start({
    registry,
    consumer: { id: consumer, kind: 'webmcp' },
    ...(scope.length ? { snapshotContext: { scope } } : {}),
  });
  // Not awaited by the element's queue: a reconfiguration queued meanwhile stops this adapter
  // without waiting for the first registrations to finish (stop() voids a start in progress).
  adopt(
    adapter,
    started.then(
      () => {
        if (!signal.aborted && adapter.status !== 'idle') el.status = adapter.status;
      },
      (error: unknown) => {
        console.error('[agent-surface-kit WEBMCP_START] <agent-webmcp> failed to start:', error);
        if (!signal.aborted) el.status = 'error';
      },
    ),
  );
}
