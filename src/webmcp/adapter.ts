/**
 * `createWebMcpAdapter`: projects a registry onto the page's WebMCP host, one tool per available
 * capability (instance), kept in sync incrementally, every call through `registry.invoke`.
 *
 * This module is the adapter's state: options, status, start and stop. What a started adapter runs
 * (projection, reconciliation, calls, confirmation waits: adapter-run.ts) is a real `import()`,
 * fetched on the first start on a page that has a host, the same in every build. A page without a
 * host, or one that never starts an adapter, never fetches it.
 */
import { DEV_MODE, issueWarning } from '../core/dev.js';
import { lazyModule } from '../core/util.js';
import { DEFAULT_CONFIRMATION_TTL_MS, DEFAULT_WEBMCP_CONSUMER, checkAdapterHost, validateAdapterOptions } from './adapter-options.js';
import type { AdapterRun } from './adapter-run.js';
import { annotationsFor } from './annotations.js';
import { detectModelContext, modelContextShape } from './detect.js';
import type { ModelContextShape, WebMcpAdapter, WebMcpAdapterHost, WebMcpAdapterOptions, WebMcpAdapterStatus } from './types.js';

// Re-exported: `agent-surface-kit/webmcp` has always exported them from here.
export { DEFAULT_CONFIRMATION_TTL_MS, DEFAULT_WEBMCP_CONSUMER, annotationsFor };

const runModule = lazyModule(() => import('./adapter-run.js'));

/**
 * Exposes a registry to the page's WebMCP host (`options.modelContext`, `document.modelContext`,
 * `navigator.modelContext`). Without a host, `start` is a no-op and `status` says `unsupported`.
 * Bad options throw a TypeError here; if the run module cannot be fetched, `start` rejects with the
 * loader's error and the next `start` fetches again.
 */
export function createWebMcpAdapter(options: WebMcpAdapterOptions = {}): WebMcpAdapter {
  validateAdapterOptions(options);
  let status: WebMcpAdapterStatus = 'idle';
  let shape: ModelContextShape | undefined;
  let run: AdapterRun | undefined;
  let stopping: Promise<void> = Promise.resolve();
  /** Bumped by every stop(): a start still waiting (a withdrawal, the module) sees it and gives up. */
  let epoch = 0;
  let startPending = false;

  return {
    name: 'webmcp',
    get status() {
      return status;
    },
    get shape() {
      return shape;
    },
    async start(host: WebMcpAdapterHost): Promise<void> {
      checkAdapterHost(host);
      if (run || startPending) {
        throw new Error('WebMcpAdapter.start: already started; call stop() before starting again.');
      }
      const mine = epoch;
      startPending = true;
      let modelContext: ReturnType<typeof detectModelContext>;
      let hostShape: ModelContextShape | undefined;
      let m: typeof runModule.module;
      try {
        // A restart must not race the withdrawal of the previous run's names.
        await stopping;
        // stop() was called meanwhile: this start is void.
        if (epoch !== mine) return;
        modelContext = detectModelContext(options);
        hostShape = modelContext ? modelContextShape(modelContext) : undefined;
        if (!modelContext || !hostShape) {
          status = 'unsupported';
          shape = undefined;
          if (DEV_MODE) {
            issueWarning('WEBMCP_UNSUPPORTED', 'adapter', 'No WebMCP host on this page (document.modelContext / navigator.modelContext): the WebMCP adapter exposes nothing.');
          }
          return;
        }
        m = runModule.module ?? (await runModule.load());
      } finally {
        startPending = false;
      }
      if (epoch !== mine) return;
      const scope = host.snapshotContext?.scope ?? options.snapshotContext?.scope;
      const r = m.createAdapterRun(options, { registry: host.registry, consumer: host.consumer ?? DEFAULT_WEBMCP_CONSUMER, scope }, modelContext, hostShape);
      run = r;
      shape = hostShape;
      status = 'starting';
      r.begin();
      await r.settled();
      if (run === r) status = 'active';
    },
    stop(): Promise<void> {
      epoch += 1;
      const r = run;
      if (!r) {
        if (startPending || (status !== 'idle' && status !== 'unsupported')) status = 'stopped';
        return stopping;
      }
      run = undefined;
      status = 'stopped';
      stopping = r.stop();
      return stopping;
    },
    toolNames() {
      return run ? run.registered() : [];
    },
    async settled() {
      if (run) await run.settled();
      else await stopping;
    },
  };
}
