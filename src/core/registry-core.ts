/**
 * The registry's state (DESIGN section 3): it admits registrations through an authority and keeps
 * the model-visible surface (versioned, memoized snapshots), the confirmation store and the queues.
 * `registry.ts` wraps it in the public object and runs calls through the invoke pipeline
 * (`invoke.ts`), which reads this state; nothing here depends on the pipeline, so the pipeline can
 * load later (a real `import()`) without an arrow pointing back.
 */
import { deepFreeze, randomId, withInstance } from './util.js';
import { issueError } from './dev.js';
import { AgentSurfaceDefinitionError } from './errors.js';
import type { IdempotencyEntry, IdempotencyStore } from './idempotency.js';
import { ConfirmationStore } from './confirmations.js';
import type { QueueWaiter, SerialSlot } from './running.js';
import { buildSnapshot, compareRegistrations } from './snapshot.js';
import { scopeKey } from './scope.js';
import { boundLiveText, instanceIdProblem } from './live-text.js';
import type {
  Admission,
  AdmittedContract,
  AgentSurfaceAuthority,
  AgentSurfacePolicy,
  CapabilityDescriptor,
  CapabilityHandler,
  CapabilityPlane,
  CapabilityState,
  DefinitionErrorPayload,
  NormalizedContract,
  ObservationReader,
  RegisterOptions,
  RegistrationHandle,
  RegistryEventMap,
  RegistryLimits,
  RegistryOptions,
  SnapshotContext,
  SurfaceSnapshot,
  ValueValidator,
} from './types.js';

/**
 * A key in `register()` options from a caller that logs its own, richer refusal (`<agent-capability>`
 * names its element): the registry then does not log the same refusal a second time. Listeners of
 * `refused` and the thrown error are unchanged.
 */
export const REPORTS_OWN_REFUSALS = Symbol.for('agent-surface-kit/reports-own-refusals');

/**
 * A key in `register()` options from markup (`<agent-capability>`): whether the registration has no
 * behaviour the page's script set, asked when a registration from script claims the same
 * (capability, instance), which then takes its place; `displaced` tells the element. A copy in
 * markup so never keeps the page's own script registration out by arriving first.
 */
export const YIELDS_TO_SCRIPT = Symbol.for('agent-surface-kit/yields-to-script');
export interface YieldsToScript {
  yields(): boolean;
  displaced(): void;
}

/** The defaults of `RegistryLimits` (DESIGN section 3). */
export const DEFAULT_LIMITS: Readonly<Required<RegistryLimits>> = Object.freeze({
  confirmationTtlMs: 120_000,
  maxPendingConfirmations: 32,
  queueDepth: 2,
  maxInputBytes: 64 * 1024,
  maxOutputBytes: 32 * 1024,
  idempotencyEntries: 200,
  idempotencyTtlMs: 600_000,
});

/**
 * What the registry derives once per admitted contract. Shared by every registration of the same
 * authorized contract object (a compiler authority hands out one frozen object per id), so ten
 * thousand instances of one contract cost one of these.
 */
export interface ContractInfo {
  readonly contract: NormalizedContract;
  readonly token: string;
  readonly validateInput: ValueValidator;
  readonly validateOutput: ValueValidator | undefined;
  readonly plane: CapabilityPlane;
  /** The id after its plane: what scope entries match against. */
  readonly path: string;
  readonly isAction: boolean;
}

const contractInfos = new WeakMap<object, ContractInfo>();

function contractInfo({ contract, token, validateInput, validateOutput }: AdmittedContract): ContractInfo {
  const known = contractInfos.get(contract);
  if (known !== undefined && known.token === token && known.validateInput === validateInput && known.validateOutput === validateOutput) {
    return known;
  }
  const id = contract.id;
  const info: ContractInfo = Object.freeze({
    contract: deepFreeze(contract),
    token,
    validateInput,
    validateOutput,
    // Admitted ids are `view:…` or `domain:…`.
    plane: id.startsWith('view:') ? 'view' : 'domain',
    path: id.slice(id.indexOf(':') + 1),
    isAction: contract.kind === 'action',
  });
  contractInfos.set(contract, info);
  return info;
}

/** One registered capability instance: the registry's record, never handed out. */
export class Registration implements SerialSlot {
  readonly capabilityId: string;
  active = true;
  // SerialSlot
  running = false;
  waiting?: QueueWaiter<unknown>[];
  /** Set for markup registrations (see `YIELDS_TO_SCRIPT`). */
  yielding: YieldsToScript | undefined;
  #descriptor: CapabilityDescriptor | undefined;

  constructor(
    readonly id: string,
    readonly info: ContractInfo,
    readonly instanceId: string | undefined,
    readonly handler: CapabilityHandler | undefined,
    readonly read: ObservationReader | undefined,
    public state: CapabilityState,
    /** The surface counter at this registration's last model-visible change. */
    public changedAt: number,
  ) {
    this.capabilityId = info.contract.id;
  }

  /** The frozen descriptor of the current state, built once per change. */
  descriptor(): CapabilityDescriptor {
    const c = this.info.contract;
    return (this.#descriptor ??= Object.freeze({
      capabilityId: c.id,
      ...withInstance(this.instanceId),
      registrationId: this.id,
      plane: this.info.plane,
      kind: c.kind,
      effect: c.effect,
      confirmation: c.confirmation,
      description: c.description,
      ...(c.title !== undefined ? { title: c.title } : {}),
      inputSchema: c.inputSchema,
      ...(c.outputSchema !== undefined ? { outputSchema: c.outputSchema } : {}),
      untrustedOutput: c.untrustedOutput,
      state: this.state,
    }));
  }

  setState(state: CapabilityState, changedAt: number): void {
    this.state = state;
    this.changedAt = changedAt;
    this.#descriptor = undefined;
  }
}

/** The registrations of one capability id. `only` is set while there is exactly one. */
interface CapabilitySlot {
  instances: Map<string | undefined, Registration>;
  only: Registration | undefined;
}

type Listener<K extends keyof RegistryEventMap> = (event: RegistryEventMap[K]) => void;
type Listeners = { [K in keyof RegistryEventMap]: readonly Listener<K>[] };

function checkPolicies(policies: unknown, where: string): readonly AgentSurfacePolicy[] {
  if (policies === undefined || policies === null) return Object.freeze([]);
  const bad = (p: AgentSurfacePolicy | null): boolean =>
    p === null ||
    typeof p !== 'object' ||
    typeof p.name !== 'string' ||
    p.name === '' ||
    [p.discover, p.authorize].some((hook) => hook !== undefined && typeof hook !== 'function');
  // A copy: holes become undefined entries, which are refused too.
  const list = Array.isArray(policies) ? [...(policies as (AgentSurfacePolicy | null)[])] : undefined;
  if (list === undefined || list.some(bad)) {
    throw new TypeError(`${where}: policies must be an array of { name: non-empty string, discover?(ctx), authorize?(ctx) }`);
  }
  return Object.freeze(list as AgentSurfacePolicy[]);
}

/** `state` over `base` (normalized already: at most these three fields), frozen. */
function normalizeState(state: unknown, base: CapabilityState, where: string): CapabilityState {
  if (state === undefined || state === null) return base;
  const bad = (): TypeError => new TypeError(`${where}: state must be { available?: boolean, unavailableReason?: string, note?: string }`);
  if (typeof state !== 'object') throw bad();
  const s = state as Partial<CapabilityState>;
  const next: { available: boolean; unavailableReason?: string; note?: string } = { ...base };
  if ('available' in s && s.available !== undefined) {
    if (typeof s.available !== 'boolean') throw bad();
    next.available = s.available;
  }
  for (const key of ['unavailableReason', 'note'] as const) {
    if (!(key in s)) continue;
    const value = s[key];
    if (value !== undefined && value !== null && typeof value !== 'string') throw bad();
    // Live text is data from the page, not the build: one bounded line (see live-text.ts).
    const text = typeof value === 'string' ? boundLiveText(value) : undefined;
    if (text === undefined) delete next[key];
    else next[key] = text;
  }
  // A reason only means something while the capability is unavailable.
  if (next.available) delete next.unavailableReason;
  return Object.freeze(next);
}

/** Where an authority comes from: said by the errors about a missing or malformed one. */
const FIX = 'createCompilerAuthority({ manifest, validators }) with what `agent-surface compile` wrote, or devAuthority() while developing';

/** Snapshots kept per surface version; more distinct (consumer, scope) pairs start over. */
const MAX_MEMO = 64;

const AVAILABLE: CapabilityState = Object.freeze({ available: true });

/**
 * What the registry needs of the calls in progress, running and queued (`running.ts`): only the
 * pipeline makes calls, and it builds this on its first one.
 */
export interface CallsInProgress {
  /** Ends the calls of a registration that went away, or every call (the registry is disposed). */
  stop(registration?: Registration): void;
}

const noListeners = (): Listeners => ({ 'surface-changed': [], invocation: [], confirmation: [], refused: [] });

/**
 * The registry's state and the operations the pipeline needs. Internal: the public object is
 * `RegistryFacade`, which exposes only `AgentSurfaceRegistry`.
 */
export class RegistryCore {
  readonly authority: AgentSurfaceAuthority | undefined;
  policies!: readonly AgentSurfacePolicy[];
  hasDiscover!: boolean;
  hasAuthorize!: boolean;
  /** The limits, defaults filled in. */
  readonly limits: Readonly<Required<RegistryLimits>>;

  readonly #nonce = randomId(2);
  readonly versionPrefix = `sv-${this.#nonce}-`;
  /** Bumped on every model-visible change. */
  counter = 0;
  #version: string | undefined;
  #notifyScheduled: boolean | undefined;

  readonly slots = new Map<string, CapabilitySlot>();
  /**
   * Every active registration, and the ones released since it was last tidied. A registration is
   * appended; the next snapshot drops the released ones and, if one came out of order, sorts the
   * rest into descriptor order (`#tidy`), so a table of a thousand rows registered or released at
   * once shifts no sorted list a thousand times. The list itself stays (the pipeline's running
   * calls hold it).
   */
  readonly ordered: Registration[] = [];
  /** How many released registrations `ordered` still holds. */
  #released = 0;
  /** Whether a registration was appended after one that sorts later. */
  #unsorted: boolean | undefined;
  /**
   * Snapshots of the surface at `#memoAt`, per (consumer, scope): a repeated call returns the very
   * same frozen object. More than `MAX_MEMO` pairs start over.
   */
  readonly #memo = new Map<string, SurfaceSnapshot>();
  #memoAt = -1;
  readonly confirmations: ConfirmationStore;
  /** Built by the pipeline on the first call. */
  idempotency?: IdempotencyStore<IdempotencyEntry<Registration>>;
  /** The calls in progress (running, with their timeouts, and queued); built by the pipeline. */
  running?: CallsInProgress;
  disposed = false;
  #registrationSeq = 0;

  listeners: Listeners = noListeners();

  constructor(options: RegistryOptions) {
    const authority = options.authority;
    if (authority !== undefined && authority !== null && (typeof authority !== 'object' || typeof authority.admit !== 'function')) {
      throw new TypeError(`createAgentSurfaceRegistry: authority must come from ${FIX}`);
    }
    this.authority = authority ?? undefined;
    this.#usePolicies(checkPolicies(options.policies, 'createAgentSurfaceRegistry'));
    const given = options.limits ?? {};
    if (typeof given !== 'object') throw new TypeError('createAgentSurfaceRegistry: limits must be an object');
    const limits = {} as Record<keyof RegistryLimits, number>;
    for (const key of Object.keys(DEFAULT_LIMITS) as (keyof RegistryLimits)[]) {
      const value = given[key];
      if (value !== undefined && !(typeof value === 'number' && value > 0 && value < Infinity)) {
        throw new TypeError(`createAgentSurfaceRegistry: limits.${key} must be a positive finite number, got ${String(value)}`);
      }
      limits[key] = value === undefined ? DEFAULT_LIMITS[key] : key === 'queueDepth' ? Math.floor(value) : value;
    }
    this.limits = limits;
    this.confirmations = new ConfirmationStore({
      ttlMs: limits.confirmationTtlMs,
      maxPending: limits.maxPendingConfirmations,
      emit: (event) => this.emit('confirmation', event),
    });
  }

  // -- versions and events -------------------------------------------------------------------

  get surfaceVersion(): string {
    return (this.#version ??= this.versionPrefix + this.counter);
  }

  /** Records a model-visible change; listeners hear about it once per microtask. */
  #touch(): number {
    this.#version = undefined;
    if (!this.#notifyScheduled) {
      this.#notifyScheduled = true;
      queueMicrotask(() => {
        this.#notifyScheduled = false;
        if (!this.disposed) this.emit('surface-changed', { type: 'surface-changed', surfaceVersion: this.surfaceVersion });
      });
    }
    return ++this.counter;
  }

  emit<K extends keyof RegistryEventMap>(type: K, event: RegistryEventMap[K]): void {
    // The list is replaced, never changed, when listeners come and go (see `on`).
    for (const listener of this.listeners[type] as readonly Listener<K>[]) {
      try {
        listener(event);
      } catch (error) {
        console.error(`[agent-surface-kit] a "${type}" listener threw`, error);
      }
    }
  }

  on<K extends keyof RegistryEventMap>(type: K, listener: Listener<K>): () => void {
    const all = this.listeners as Record<string, readonly unknown[]>;
    // The listener lists are the event types (a fresh set after dispose).
    if (!Object.hasOwn(all, type)) {
      throw new TypeError(`registry.on(type): unknown event type "${String(type)}"; use one of ${Object.keys(all).join(', ')}`);
    }
    if (typeof listener !== 'function') throw new TypeError(`registry.on("${type}", listener): listener must be a function`);
    if (this.disposed) return () => {};
    // Copy on write: an emit in progress keeps iterating the list it started with.
    all[type] = [...all[type], listener];
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      const list = this.listeners[type] as readonly Listener<K>[];
      const i = list.indexOf(listener);
      if (i >= 0) (this.listeners as Record<string, readonly unknown[]>)[type] = list.filter((_, j) => j !== i);
    };
  }

  // -- registration --------------------------------------------------------------------------

  /** Whether the current register() call logs its own refusals (see `REPORTS_OWN_REFUSALS`). */
  #quietRefusals: boolean | undefined;

  /** Logs the refusal once per `tag` and id, tells `refused` listeners, and throws it. */
  #refuse(
    { code, message, details }: DefinitionErrorPayload,
    capabilityId: string,
    instanceId: string | undefined,
    tag: string,
  ): never {
    if (!this.#quietRefusals) issueError(code, `${tag}:${capabilityId}`, message);
    const error = new AgentSurfaceDefinitionError(code, message, details);
    this.emit('refused', { type: 'refused', capabilityId, ...withInstance(instanceId), error: error.toPayload() });
    throw error;
  }

  /** Refuses with `INVALID_REGISTRATION`. */
  #invalid(message: string, capabilityId: string, instanceId: string | undefined, tag: string): never {
    return this.#refuse({ code: 'INVALID_REGISTRATION', message }, capabilityId, instanceId, tag);
  }

  register(options: RegisterOptions): RegistrationHandle {
    // Refusals are raised only inside register(), so the flag is always this call's.
    this.#quietRefusals = !!(options as { [REPORTS_OWN_REFUSALS]?: unknown } | null)?.[REPORTS_OWN_REFUSALS];
    if (this.disposed) {
      throw new AgentSurfaceDefinitionError('INVALID_REGISTRATION', 'register(): this registry was disposed; create a new one.');
    }
    if (options === null || typeof options !== 'object') {
      throw new AgentSurfaceDefinitionError('INVALID_REGISTRATION', 'register(options): pass { contract, token, handler | read, instanceId?, state? }');
    }
    const { contract, token, instanceId, handler, read, state } = options;
    if (contract === null || typeof contract !== 'object') {
      throw new AgentSurfaceDefinitionError('INVALID_CONTRACT', 'register(options): options.contract is missing');
    }
    const declaredId = String(contract.id);
    const where = `register("${declaredId}")`;
    const badInstance = instanceId === undefined ? undefined : instanceIdProblem(instanceId);
    if (badInstance !== undefined) {
      this.#refuse(
        {
          code: 'INVALID_REGISTRATION',
          message: `${where}: ${badInstance} (or omit instanceId)`,
          details: { capabilityId: declaredId, reason: 'invalid-instance-id' },
        },
        declaredId,
        undefined,
        'instance',
      );
    }
    // Names only: a list of (name, value) pairs would be three arrays per registration.
    for (const key of ['handler', 'read'] as const) {
      const value = options[key];
      if (value !== undefined && typeof value !== 'function') this.#invalid(`${where}: ${key} must be a function`, declaredId, instanceId, key);
    }
    const initialState = normalizeState(state, AVAILABLE, where);

    // Admission: the authority decides; without one, nothing is admitted.
    const authority = this.authority;
    if (authority === undefined) {
      this.#refuse(
        {
          code: 'UNAUTHORIZED_CONTRACT',
          message: `${where}: this registry has no authority, so it admits nothing. Give createAgentSurfaceRegistry() an authority: ${FIX}.`,
          details: { capabilityId: declaredId, reason: 'no-authority' },
        },
        declaredId,
        instanceId,
        'no-authority',
      );
    }
    let admission: Admission | undefined;
    try {
      admission = authority!.admit(contract, token);
    } catch (error) {
      this.#refuse(
        { code: 'INVALID_CONTRACT', message: `${where}: the authority threw: ${String((error as Error)?.message ?? error)}` },
        declaredId,
        instanceId,
        'admit-threw',
      );
    }
    if (admission?.ok !== true) {
      const error: DefinitionErrorPayload =
        admission?.ok === false && admission.error ? admission.error : { code: 'UNAUTHORIZED_CONTRACT', message: `${where}: the authority did not admit it.` };
      this.#refuse(error, declaredId, instanceId, `${String(token)}\u0000${error.message}`);
    }
    const info = contractInfo(admission);
    const id = info.contract.id;

    // An action is answered by handler(input, ctx), an observation by read(ctx): exactly one of them.
    if (info.isAction ? handler === undefined || read !== undefined : read === undefined || handler !== undefined) {
      this.#invalid(
        `register("${id}"): ` +
          (info.isAction ? 'an action needs handler(input, ctx), and no read()' : 'an observation needs read(ctx), and no handler'),
        id,
        instanceId,
        'answer',
      );
    }

    let slot = this.slots.get(id);
    const existing = slot?.instances.get(instanceId);
    const yielding = (options as { [YIELDS_TO_SCRIPT]?: YieldsToScript })[YIELDS_TO_SCRIPT];
    if (existing?.yielding?.yields() && !yielding) {
      this.unregister(existing);
      existing.yielding.displaced();
      slot = this.slots.get(id);
    } else if (existing !== undefined) {
      this.#refuse(
        {
          code: 'DUPLICATE_REGISTRATION',
          message:
            `register("${id}"): ${instanceId !== undefined ? `instance "${instanceId}" ` : ''}is already registered (${existing.id}). ` +
            'Unregister that handle first, or give each instance its own instanceId.',
          details: { capabilityId: id, ...withInstance(instanceId), registrationId: existing.id },
        },
        id,
        instanceId,
        `duplicate\u0000${instanceId ?? ''}`,
      );
    }

    const registration = new Registration(
      `reg-${this.#nonce}-${(++this.#registrationSeq).toString(36)}`,
      info,
      instanceId,
      handler,
      read,
      initialState,
      this.#touch(),
    );
    registration.yielding = yielding;
    if (slot === undefined) this.slots.set(id, (slot = { instances: new Map(), only: undefined }));
    slot.instances.set(instanceId, registration);
    slot.only = slot.instances.size === 1 ? registration : undefined;
    const list = this.ordered;
    this.#unsorted ||= compareRegistrations(list.at(-1) ?? registration, registration) > 0;
    list.push(registration);
    return new Handle(this, registration);
  }

  /** `ordered` with only active registrations, in descriptor order (each has its own key). */
  #tidy(): Registration[] {
    const list = this.ordered;
    let kept = 0;
    for (const registration of list) if (registration.active) list[kept++] = registration;
    list.length = kept;
    this.#released = 0;
    if (this.#unsorted) list.sort(compareRegistrations);
    this.#unsorted = false;
    return list;
  }

  update(registration: Registration, state: Partial<CapabilityState>): void {
    if (!registration.active) return;
    const next = normalizeState(state, registration.state, `update("${registration.capabilityId}")`);
    const now = registration.state;
    if (next.available === now.available && next.unavailableReason === now.unavailableReason && next.note === now.note) return;
    registration.setState(next, this.counter + 1);
    this.#touch();
  }

  unregister(registration: Registration): void {
    if (!registration.active) return;
    registration.active = false;
    // An active registration is in its slot: dispose deactivates all it clears.
    const slot = this.slots.get(registration.capabilityId)!;
    const instances = slot.instances;
    instances.delete(registration.instanceId);
    if (instances.size === 0) this.slots.delete(registration.capabilityId);
    else slot.only = instances.size === 1 ? instances.values().next().value : undefined;
    // Dropped from `ordered` by the next snapshot, or once released ones are half of it.
    if (++this.#released * 2 > this.ordered.length) this.#tidy();
    this.#touch();
    this.running?.stop(registration);
    this.confirmations.expireRegistration(registration.id);
  }

  // -- snapshot, policies, dispose -----------------------------------------------------------

  snapshot(context: SnapshotContext): SurfaceSnapshot {
    const consumer = context?.consumer;
    if (typeof consumer?.id !== 'string' || consumer.id === '' || typeof consumer.kind !== 'string') {
      throw new TypeError('registry.snapshot(): consumer must be { id: non-empty string, kind: string }');
    }
    if (context.scope !== undefined && context.scope !== null && !Array.isArray(context.scope)) {
      throw new TypeError('registry.snapshot(): scope must be an array of strings');
    }
    const counter = this.counter;
    const memo = this.#memo;
    if (this.#memoAt !== counter) {
      memo.clear();
      this.#memoAt = counter;
    }
    const key = consumer.kind + '\u0000' + consumer.id + '\u0000' + scopeKey(context.scope);
    let snapshot = memo.get(key);
    if (snapshot === undefined) {
      snapshot = buildSnapshot(this.#tidy(), context, this.hasDiscover ? this.policies : undefined, this.surfaceVersion);
      if (memo.size >= MAX_MEMO) memo.clear();
      memo.set(key, snapshot);
    }
    return snapshot;
  }

  setPolicies(policies: readonly AgentSurfacePolicy[]): void {
    const checked = checkPolicies(policies, 'registry.setPolicies');
    if (this.disposed) return;
    this.#usePolicies(checked);
    this.#touch();
  }

  #usePolicies(policies: readonly AgentSurfacePolicy[]): void {
    this.policies = policies;
    this.hasDiscover = policies.some((p) => typeof p.discover === 'function');
    this.hasAuthorize = policies.some((p) => typeof p.authorize === 'function');
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const registration of this.ordered) registration.active = false;
    this.running?.stop();
    this.ordered.length = 0;
    this.slots.clear();
    this.confirmations.dispose();
    this.idempotency?.clear();
    this.#memo.clear();
    this.counter++;
    this.#version = undefined;
    this.listeners = noListeners();
  }
}

/** The handle `register()` returns. */
class Handle implements RegistrationHandle {
  readonly registrationId: string;
  readonly capabilityId: string;
  readonly instanceId?: string;
  readonly #core: RegistryCore;
  readonly #registration: Registration;

  constructor(core: RegistryCore, registration: Registration) {
    this.registrationId = registration.id;
    this.capabilityId = registration.capabilityId;
    if (registration.instanceId !== undefined) this.instanceId = registration.instanceId;
    this.#core = core;
    this.#registration = registration;
  }

  /** Whether the registration is still live. */
  get active(): boolean {
    return this.#registration.active;
  }

  update(state: Partial<CapabilityState>): void {
    this.#core.update(this.#registration, state);
  }

  unregister(): void {
    this.#core.unregister(this.#registration);
  }
}
