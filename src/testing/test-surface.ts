/**
 * `createTestSurface()`: a registry wired for tests (Node or browser), with a test consumer and
 * short helpers to register capabilities, invoke them with fresh invocation ids, and answer
 * confirmations as the person would. Everything goes through the registry's public API, so what
 * passes here passes for every projection.
 *
 * ```ts
 * const surface = createTestSurface();
 * surface.action('domain:devices.disable', (input) => ({ disabled: input.id }), {
 *   effect: 'server-mutation',
 *   inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
 * });
 * const result = await surface.invoke('domain:devices.disable', { id: 'd1' });
 * ```
 */
import { devAuthority } from '../core/authority.js';
import { createAgentSurfaceRegistry } from '../core/registry.js';
import type {
  AgentConsumer,
  AgentInvocationResult,
  AgentSurfaceAuthority,
  AgentSurfaceRegistry,
  CapabilityContract,
  CapabilityHandler,
  CapabilityState,
  InvokeRequest,
  ObservationReader,
  PendingConfirmation,
  RegisterOptions,
  RegistrationHandle,
  RegistryEventMap,
  RegistryOptions,
  SurfaceSnapshot,
} from '../core/types.js';

export interface TestSurfaceOptions extends RegistryOptions {
  /** Default: `devAuthority()`. Pass a compiler authority to test against a real manifest. */
  authority?: AgentSurfaceAuthority;
  /** Default: `{ id: "test", kind: "test" }`. */
  consumer?: AgentConsumer;
}

/** Contract fields for the shorthand helpers; everything but the id has a default. */
export interface TestCapabilityOptions extends Partial<Omit<CapabilityContract, 'id' | 'kind'>> {
  instanceId?: string;
  state?: Partial<CapabilityState>;
  /** Default: the authority's token for this id, if it knows one. */
  token?: string | null;
}

export type TestSurfaceEvent = RegistryEventMap[keyof RegistryEventMap];

/**
 * A result from the test surface: on failure, `cause` is the error behind it for the developer (what
 * the handler threw, or which output field JSON cannot carry); agents never see it.
 */
export type TestInvocationResult = AgentInvocationResult & { cause?: unknown };

export interface TestSurface {
  readonly registry: AgentSurfaceRegistry;
  readonly authority: AgentSurfaceAuthority;
  readonly consumer: AgentConsumer;
  /** Every registry event since creation, in order (`surface-changed`, `invocation`, `confirmation`, `refused`). */
  readonly events: TestSurfaceEvent[];
  /** The events of one type. */
  eventsOf<K extends keyof RegistryEventMap>(type: K): RegistryEventMap[K][];
  /**
   * The contract the shorthand helpers register: with no fields given and an authority that knows
   * `id`, the authority's own contract; else defaults (effect `local-state` for actions, `read` for
   * observations, a generated description) overridden by `fields`.
   */
  contract(id: string, kind: 'action' | 'observation', fields?: TestCapabilityOptions): CapabilityContract;
  /** Registers an action answered by `handler`. */
  action(id: string, handler: CapabilityHandler, options?: TestCapabilityOptions): RegistrationHandle;
  /** Registers an observation answered by `read`. */
  observation(id: string, read: ObservationReader, options?: TestCapabilityOptions): RegistrationHandle;
  /** `registry.register` as is. */
  register(options: RegisterOptions): RegistrationHandle;
  /** `registry.snapshot` for the test consumer. */
  snapshot(scope?: readonly string[]): SurfaceSnapshot;
  /** A fresh invocation id (`test-1`, `test-2`, …). */
  nextInvocationId(): string;
  /**
   * Invokes with a fresh invocationId, the test consumer and the current surfaceVersion; `request`
   * overrides any field (pass `surfaceVersion: undefined` to send none).
   */
  invoke(capabilityId: string, input?: unknown, request?: Partial<InvokeRequest>): Promise<TestInvocationResult>;
  /**
   * Invokes; if the call needs a confirmation, decides it as the person would (`approve` by
   * default) and retries with the same invocationId and the confirmationId. Returns the final result.
   */
  invokeConfirmed(
    capabilityId: string,
    input?: unknown,
    options?: { decision?: 'approve' | 'deny'; reason?: string; request?: Partial<InvokeRequest> },
  ): Promise<TestInvocationResult>;
  /** The oldest pending confirmation this surface has not handed out yet, waiting for one if needed. */
  nextConfirmation(options?: { timeoutMs?: number }): Promise<PendingConfirmation>;
  /** Waits for the next confirmation and approves it. */
  approveNext(options?: { timeoutMs?: number }): Promise<PendingConfirmation>;
  /** Waits for the next confirmation and denies it. */
  denyNext(reason?: string, options?: { timeoutMs?: number }): Promise<PendingConfirmation>;
  dispose(): void;
}

const DEFAULT_CONSUMER: AgentConsumer = Object.freeze({ id: 'test', kind: 'test' });

let surfaces = 0;

export function createTestSurface(options: TestSurfaceOptions = {}): TestSurface {
  const authority = options.authority ?? devAuthority();
  const consumer = options.consumer ?? DEFAULT_CONSUMER;
  const registry = createAgentSurfaceRegistry({ authority, policies: options.policies, limits: options.limits });
  const events: TestSurfaceEvent[] = [];
  const unsubscribe = (['surface-changed', 'invocation', 'confirmation', 'refused'] as const).map((type) =>
    registry.on(type, (event: TestSurfaceEvent) => {
      events.push(event);
    }),
  );
  const surfaceNo = ++surfaces;
  let seq = 0;
  const handedOut = new Set<string>();

  const contract = (id: string, kind: 'action' | 'observation', fields: TestCapabilityOptions = {}): CapabilityContract => {
    const { instanceId: _i, state: _s, token: _t, ...contractFields } = fields;
    const known = authority.contract(id);
    if (known && Object.keys(contractFields).length === 0) return known.contract;
    return {
      id,
      kind,
      effect: kind === 'action' ? 'local-state' : 'read',
      description: `Test ${kind} ${id}.`,
      // Without a schema the shorthand takes any object (a contract's own default takes none), so
      // `surface.action(id, ({ id }) => …)` answers `{ id: 'd1' }`; pass inputSchema to test validation.
      inputSchema: { type: 'object' },
      ...contractFields,
    } as CapabilityContract;
  };

  const registerShorthand = (
    id: string,
    kind: 'action' | 'observation',
    fn: CapabilityHandler | ObservationReader,
    fields: TestCapabilityOptions = {},
  ): RegistrationHandle => {
    const c = contract(id, kind, fields);
    const token = 'token' in fields ? fields.token : authority.contract(c.id)?.token;
    // An absent instanceId or state is the same as none given.
    return registry.register({
      contract: c,
      token,
      instanceId: fields.instanceId,
      state: fields.state,
      [kind === 'action' ? 'handler' : 'read']: fn,
    });
  };

  /** Failed results get the developer-facing error behind them (from the invocation event) as `cause`. */
  const withCause = (result: AgentInvocationResult): TestInvocationResult => {
    if (result.ok) return result;
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i];
      if (e.type === 'invocation' && e.invocationId === result.invocationId)
        // Not enumerable: results still compare (and serialize) as the agent's result does.
        return e.cause === undefined ? result : Object.defineProperty({ ...result }, 'cause', { value: e.cause });
    }
    return result;
  };

  const nextInvocationId = () => `test-${surfaceNo}-${++seq}`;

  const invoke = (capabilityId: string, input?: unknown, request: Partial<InvokeRequest> = {}) =>
    registry
      .invoke({
        capabilityId,
        input,
        invocationId: nextInvocationId(),
        consumer,
        surfaceVersion: registry.surfaceVersion,
        ...request,
      } as InvokeRequest)
      .then(withCause);

  const nextConfirmation = ({ timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<PendingConfirmation> => {
    const take = (): PendingConfirmation | undefined => {
      const next = registry.confirmations.list().find((c) => !handedOut.has(c.confirmationId));
      if (next) handedOut.add(next.confirmationId);
      return next;
    };
    const now = take();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`createTestSurface: no confirmation was requested within ${timeoutMs} ms`));
      }, timeoutMs);
      const stop = registry.confirmations.subscribe(() => {
        const next = take();
        if (!next) return;
        clearTimeout(timer);
        stop();
        resolve(next);
      });
    });
  };

  const decideNext = async (opts?: { timeoutMs?: number }, reason?: string, deny = false): Promise<PendingConfirmation> => {
    const next = await nextConfirmation(opts);
    if (deny) registry.confirmations.deny(next.confirmationId, reason);
    else registry.confirmations.approve(next.confirmationId);
    return next;
  };

  const surface: TestSurface = {
    registry,
    authority,
    consumer,
    events,
    eventsOf: <K extends keyof RegistryEventMap>(type: K) => events.filter((e) => e.type === type) as RegistryEventMap[K][],
    contract,
    action: (id, handler, fields) => registerShorthand(id, 'action', handler, fields),
    observation: (id, read, fields) => registerShorthand(id, 'observation', read, fields),
    register: (opts) => registry.register(opts),
    snapshot: (scope) => registry.snapshot(scope === undefined ? { consumer } : { consumer, scope }),
    nextInvocationId,
    invoke,
    async invokeConfirmed(capabilityId, input, { decision = 'approve', reason, request = {} } = {}) {
      const invocationId = request.invocationId ?? nextInvocationId();
      const first = await invoke(capabilityId, input, { ...request, invocationId });
      if (first.ok || first.error.code !== 'CONFIRMATION_REQUIRED') return first;
      const confirmationId = String(first.error.details?.confirmationId);
      handedOut.add(confirmationId);
      if (decision === 'approve') registry.confirmations.approve(confirmationId);
      else registry.confirmations.deny(confirmationId, reason);
      return invoke(capabilityId, input, { ...request, invocationId, confirmationId });
    },
    nextConfirmation,
    approveNext: (opts) => decideNext(opts),
    denyNext: (reason, opts) => decideNext(opts, reason, true),
    dispose() {
      for (const off of unsubscribe) off();
      registry.dispose();
    },
  };
  return surface;
}
