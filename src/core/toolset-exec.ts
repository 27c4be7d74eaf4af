/**
 * How the tool projections reach their execution side (`tool-execution.ts`): a real `import()` in
 * every build, started when the first toolset or gateway is created, so a page pays for it only
 * where tools are projected, and an agent's first call rarely waits for it. Once loaded, calls go
 * straight to it; `tools()` and the catalog never need it.
 * A tool's `execute` keeps its contract: it never rejects. If the chunk cannot be loaded (the
 * network failed), the call fails with `EXECUTION_FAILED` (`details.reason: "load-failed"`, retry
 * `after-delay`), runs nothing, and the next call tries again.
 */
import { callInvocationId, notLoaded } from './toolset-common.js';
import { lazyModule } from './util.js';
import type { AgentInvocationResult, AgentToolCall } from './types.js';

type Execution = typeof import('./tool-execution.js');

const execution = lazyModule<Execution>(() => import('./tool-execution.js'));

export function prepareToolExecution(): void {
  // Started now, awaited by the first call; a failure here is reported by that call.
  execution.load().catch(() => {});
}

/**
 * Runs `fn` of the execution chunk on `args` (the provider's call last): at once when the chunk is
 * loaded, else once it loads, or answers that it could not (with the surface version read when the
 * load failed).
 */
export function execute<K extends keyof Execution>(
  fn: K,
  surfaceVersion: () => string,
  ...args: Parameters<Execution[K]>
): Promise<AgentInvocationResult> {
  const go = (m: Execution) => (m[fn] as (...a: typeof args) => Promise<AgentInvocationResult>)(...args);
  const loaded = execution.module;
  return loaded
    ? go(loaded)
    : execution.load().then(go, (error: unknown) => {
        // The chunk did not load (see `notLoaded`): the call's id when it can be read.
        let invocationId = '';
        try {
          invocationId = callInvocationId(args[args.length - 1] as AgentToolCall | undefined);
        } catch {
          // A hostile getter on the call: the result carries no id.
        }
        return notLoaded('tool execution code', 'tool-execution-unavailable', 'load-failed', error, invocationId, surfaceVersion());
      });
}
