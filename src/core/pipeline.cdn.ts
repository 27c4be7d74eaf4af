/**
 * The CDN build's `pipeline.ts`: the invoke pipeline (the biggest part of the core) is a chunk
 * beside the entry file, fetched when the first registry is created, so a page pays for it after
 * its elements are up, and an agent's first call rarely waits for it.
 * `registry.invoke()` keeps its contract: it never rejects. If the chunk cannot be loaded (the
 * network failed), the call fails with `EXECUTION_FAILED` and the next call tries again.
 */
import { errorPayload } from './errors.js';
import type { runInvocation as RunInvocation } from './invoke.js';
import type { RegistryCore } from './registry.js';
import type { AgentInvocationResult } from './types.js';

let run: typeof RunInvocation | undefined;
let loading: Promise<typeof RunInvocation> | undefined;

function load(): Promise<typeof RunInvocation> {
  loading ??= import('./invoke.js').then(
    (m) => (run = m.runInvocation),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

export function preparePipeline(): void {
  // Started now, awaited by the first call; a failure here is reported by that call.
  load().catch(() => {});
}

export function runInvocation(core: RegistryCore, request: unknown): Promise<AgentInvocationResult> {
  if (run) return run(core, request);
  return load().then(
    (r) => r(core, request),
    (error: unknown): AgentInvocationResult => {
      let id: unknown;
      try {
        id = (request as { invocationId?: unknown } | null)?.invocationId;
      } catch {
        // A hostile getter: the result carries no id.
      }
      return {
        ok: false,
        error: errorPayload('EXECUTION_FAILED', `The call could not run: the kit's invoke pipeline did not load (${String(error)}).`, {
          reason: 'pipeline-unavailable',
        }),
        invocationId: typeof id === 'string' ? id : '',
        surfaceVersion: core.surfaceVersion,
      };
    },
  );
}
