/**
 * The browser adapters behind `import()`, for the chat's CDN file (dist/cdn/agent-chat.min.js): a
 * page that never uses an adapter never downloads its code. Same names, options and behaviour as
 * `agent-surface-kit/adapters`: each factory checks at once what the real one checks (same errors)
 * and returns an adapter with the real one's id and label. The first call that needs more
 * (`status()`, `subscribe()`, `run()`, `prepare()`…) loads the module and builds the real adapter,
 * once; from then on every call goes to it, and listeners subscribed before hear it.
 *
 * Until the code is there the status is what the real adapter reports before its first check
 * answers: `loading` while it would check its server or device, `ready` for an HTTP adapter with
 * `check: false`; `models()` is empty, as the local adapter's is until its device check ends.
 * Listeners are told when the real status is readable. A module that fails to load is an `error` status whose words say so, and a run's
 * `error` part; the next `run()`, `prepare()` or `recheck()` tries again (the CDN build fetches a
 * failed chunk under a fresh URL).
 */
import type { AdapterStatus, AgentAdapter, AgentRunRequest, AgentStreamPart, ModelChoice } from '../chat/types.js';
import type { AnthropicAdapter, AnthropicAdapterOptions } from './anthropic/index.js';
import type { CloudAdapter, CloudAdapterOptions } from './cloud.js';
import { anthropicIdentity, cloudIdentity, DEVICE_CHECK, localIdentity, openAIIdentity } from './identity.js';
import type { LocalAdapter } from './local/adapter.js';
import { modelEntries } from './local/options.js';
import type { LocalAdapterOptions } from './local/types.js';
import type { OpenAICompatibleAdapter, OpenAICompatibleAdapterOptions } from './openai/index.js';

export { BUILT_IN_MODEL_ID } from './local/options.js';

type Open = AgentAdapter & Record<string, unknown>;

const LOADING: AdapterStatus = { state: 'loading' };
const READY: AdapterStatus = { state: 'ready' };
/** What an HTTP adapter reports before its code is there: what the real one reports before its first answer. */
const before = (o: { check?: boolean }) => (o.check === false ? READY : LOADING);

/** The lazy shell: `build` makes the real adapter; `forwarded` methods wait for it. Exported for the tests. */
export function lazyAdapter<A extends AgentAdapter>(
  names: { id: string; label: string },
  build: () => Promise<A>,
  forwarded: readonly string[],
  initial: AdapterStatus = LOADING,
): A {
  let real: A | undefined;
  let loading: Promise<A> | undefined;
  let failure: string | undefined;
  // The real adapter is subscribed to only while someone listens here (subscribing starts its check).
  let off: (() => void) | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  const relay = () => {
    if (real?.subscribe && listeners.size && !off) off = real.subscribe(notify);
  };
  const load = (): Promise<A> =>
    (loading ??= build().then(
      (a) => {
        real = a;
        failure = undefined;
        relay();
        notify();
        return a;
      },
      (e: unknown) => {
        loading = undefined;
        failure = `The adapter's code could not be loaded: ${e instanceof Error ? e.message : String(e)}`;
        notify();
        throw e;
      },
    ));
  // A status read starts the load, but only the first: a failed load is not retried on every render.
  const start = () => void (failure || load().catch(() => undefined));

  const adapter: Open = {
    ...names,
    status(): AdapterStatus {
      if (real) return real.status?.() ?? READY;
      start();
      return failure ? { state: 'error', error: failure } : initial;
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      if (real) relay();
      else start();
      return () => {
        listeners.delete(listener);
        if (!listeners.size && off) off = void off();
      };
    },
    async *run(req: AgentRunRequest): AsyncGenerator<AgentStreamPart> {
      let a: A;
      try {
        a = await load();
      } catch {
        yield { type: 'error', error: failure!, code: 'network' };
        return;
      }
      yield* a.run(req);
    },
  };
  for (const name of forwarded) {
    adapter[name] = async (...args: unknown[]) => ((await load()) as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
  }
  return adapter as unknown as A;
}

/** `createOpenAICompatibleAdapter` of `agent-surface-kit/adapters`, loaded on first use. */
export function createOpenAICompatibleAdapter(o: OpenAICompatibleAdapterOptions): OpenAICompatibleAdapter {
  return lazyAdapter(openAIIdentity(o), async () => (await import('./openai/index.js')).createOpenAICompatibleAdapter(o), ['recheck'], before(o));
}

/** `createAnthropicAdapter` of `agent-surface-kit/adapters`, loaded on first use. */
export function createAnthropicAdapter(o: AnthropicAdapterOptions): AnthropicAdapter {
  return lazyAdapter(anthropicIdentity(o), async () => (await import('./anthropic/index.js')).createAnthropicAdapter(o), ['recheck'], before(o));
}

/** `createCloudAdapter` of `agent-surface-kit/adapters`, loaded on first use. */
export function createCloudAdapter(o: CloudAdapterOptions): CloudAdapter {
  return lazyAdapter(cloudIdentity(o), async () => (await import('./cloud.js')).createCloudAdapter(o), ['recheck'], before(o));
}

/**
 * `createLocalAdapter` of `agent-surface-kit/adapters`, loaded on first use (its engines load later
 * still, as there). `models()` is empty until the adapter's code is there; `unload()` before that
 * has nothing to free.
 */
export function createLocalAdapter(options: LocalAdapterOptions): LocalAdapter {
  modelEntries(options);
  let real: LocalAdapter | undefined;
  const adapter = lazyAdapter(
    localIdentity(options),
    async () => (real = (await import('./local/adapter.js')).createLocalAdapter(options)),
    ['prepare', 'selectModel'],
    DEVICE_CHECK,
  );
  adapter.models = (): readonly ModelChoice[] => (real ? real.models() : (adapter.status(), []));
  adapter.unload = () => (real ? real.unload() : Promise.resolve());
  return adapter;
}
