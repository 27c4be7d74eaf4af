/**
 * `createAgentSurfaceRegistry` (DESIGN section 3): the execution authority of the kit. The public
 * object wraps the registry's state (`registry-core.ts`) and runs every call through one pipeline
 * (`invoke.ts`). Projections use only this object: `snapshot`, `invoke`, `confirmations`, `on`.
 *
 * The pipeline (the biggest part of the core, with the idempotency store and the list of running
 * calls it builds on its first call) is a real `import()` in every build: fetched when the first
 * registry is created, so a page pays for it after its elements are up and an agent's first call
 * rarely waits for it; in Node it is one more module read. `invoke()` keeps its contract, it never
 * rejects: if the module cannot be loaded (a page's network failed), the call fails with
 * `EXECUTION_FAILED` (`details.reason: "pipeline-unavailable"`, retry `after-delay`), runs nothing,
 * and the next call loads again. Before the first call there is nothing the pipeline owns: no
 * confirmation can be pending, no call running.
 */
import { RegistryCore } from './registry-core.js';
import { notLoaded } from './toolset-common.js';
import { lazyModule } from './util.js';
import type { AgentInvocationResult, AgentSurfaceRegistry, ConfirmationsApi, RegistryOptions } from './types.js';

const pipeline = lazyModule(() => import('./invoke.js'));

/** Runs one call through the pipeline, once it is there; never rejects. */
export function runInvocation(core: RegistryCore, request: unknown): Promise<AgentInvocationResult> {
  const loaded = pipeline.module;
  if (loaded !== undefined) return loaded.runInvocation(core, request);
  return pipeline.load().then(
    (m) => m.runInvocation(core, request),
    (error: unknown): AgentInvocationResult => {
      let id: unknown;
      try {
        id = (request as { invocationId?: unknown } | null)?.invocationId;
      } catch {
        // A hostile getter: the result carries no id.
      }
      return notLoaded('invoke pipeline', 'pipeline-unavailable', 'pipeline-unavailable', error, typeof id === 'string' ? id : '', core.surfaceVersion);
    },
  );
}

/**
 * Creates a registry. Without an `authority` it admits nothing: pass
 * `createCompilerAuthority({ manifest, validators })`, or `devAuthority()` while developing.
 * Throws a `TypeError` for malformed options (a programmer's mistake).
 */
export function createAgentSurfaceRegistry(options: RegistryOptions = {}): AgentSurfaceRegistry {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('createAgentSurfaceRegistry(options): pass { authority, policies?, limits? }');
  }
  const core = new RegistryCore(options);
  // Started now, awaited by the first call; a failure here is reported by that call.
  pipeline.load().catch(() => {});
  const store = core.confirmations;
  // The public object: exactly `AgentSurfaceRegistry`, nothing internal. Its methods work
  // detached (`const { invoke } = registry`).
  return {
    get surfaceVersion() {
      return core.surfaceVersion;
    },
    get authority() {
      return core.authority;
    },
    get disposed() {
      return core.disposed;
    },
    // Bound, as they are handed around detached (`const { approve } = registry.confirmations`).
    confirmations: Object.freeze(
      Object.fromEntries((['list', 'subscribe', 'approve', 'deny', 'waitFor'] as const).map((m) => [m, store[m].bind(store)])),
    ) as unknown as ConfirmationsApi,
    register: (registration) => core.register(registration),
    snapshot: (context) => core.snapshot(context),
    invoke: (request) => runInvocation(core, request),
    on: (type, listener) => core.on(type, listener),
    setPolicies: (policies) => core.setPolicies(policies),
    dispose: () => core.dispose(),
  };
}
