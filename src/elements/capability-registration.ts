/**
 * How an `<agent-capability>` registers: from its first update on, everything the element does with
 * a registry. It reads the contract (from `.contract` or from markup, declared-contract.ts), decides
 * whether anything changed, and registers in one batch with every other capability changed in the
 * same microtask; it settles claims on one (capability, instance), reports refusals, releases on
 * disconnect, and runs `.handler` / `.read` or fires `agent-invoke` when called. The element keeps
 * its properties and its place in the page (agent-capability.ts) and hands this module one record of
 * its registration state. It comes with the element's lazy chunk (declared.ts), whose fetch the first
 * `<agent-capability>` created begins, so a page that only registers from script never downloads it;
 * a registration that comes before the chunk waits for it, which `updateComplete` and
 * `<agent-surface>.ready` cover.
 */
import type { ContextConsumer } from '@lit/context';
import type { ReactiveElement } from '@lit/reactive-element';
import { AgentSurfaceDefinitionError } from '../core/errors.js';
import type {
  AgentSurfaceRegistry,
  CapabilityContract,
  CapabilityHandler,
  CapabilityState,
  DefinitionErrorPayload,
  ObservationReader,
  RegisterOptions,
  RegistrationHandle,
} from '../core/types.js';
import type { registryContext, ViewConsumer } from './context.js';
import { declaredContract } from './declared-contract.js';
import { elementLabel } from './element-label.js';
import { AgentCapabilityRefusedEvent } from './events.js';
import { dispatchInvoke } from './invoke-event.js';
import { REPORTS_OWN_REFUSALS, YIELDS_TO_SCRIPT } from '../core/registry-core.js';
import { DEV_MODE, issueError } from '../core/dev.js';
import { checkBehaviour } from './dev-checks.js';
import { eventParent } from './tree-order.js';
import { lazyModule } from '../core/util.js';

// The other part of the chunk: numbering views without an instance, which only the capabilities inside need.
export { placeView, regroupView } from './view-numbering.js';

/** What this module needs of the element: its script-set behaviour and lit's update cycle. */
export interface CapabilityHost extends ReactiveElement {
  contract: CapabilityContract | undefined;
  handler: CapabilityHandler | undefined;
  read: ObservationReader | undefined;
}

/**
 * A registration waiting for the next batch: where, what, and what tells a real change: the
 * contract's JSON, the token and the instance (compared one by one, so a thousand rows build no
 * key string each; `registrationKey` joins them where a refusal is remembered), and the state's key.
 */
interface Desired {
  registry: AgentSurfaceRegistry;
  json: string;
  token: string | null;
  instanceId: string | undefined;
  stateKey: string;
  options: RegisterOptions;
}

/** What `JSON.stringify([contract, token, instanceId ?? null])` gives, from the contract's JSON. */
const registrationKey = (d: Pick<Desired, 'json' | 'token' | 'instanceId'>): string =>
  `[${d.json},${JSON.stringify(d.token)},${JSON.stringify(d.instanceId ?? null)}]`;

/**
 * What the registry asks a markup registration when a registration from script claims the same
 * (capability, instance): one per element, for all its registrations.
 */
class Yielding {
  constructor(private readonly s: CapabilityRecord) {}
  yields(): boolean {
    return !scripted(this.s.el);
  }
  displaced(): void {
    displaced(this.s);
  }
}

/**
 * One element's registration state, made by the element (with its two context consumers) and
 * changed only here. `wait` is the element's: set while it waits for this module to load.
 */
export interface CapabilityRecord {
  readonly el: CapabilityHost;
  readonly registry: ContextConsumer<typeof registryContext, CapabilityHost>;
  readonly view: ViewConsumer;
  wait?: Promise<void> | undefined;
  /** The live registration and what it was made from. */
  current?: (Desired & { handle: RegistrationHandle }) | undefined;
  /** What the next batch registers (see `flush`). */
  desired?: Desired | undefined;
  /** The refused declaration, so the same one is not refused (and logged) again. */
  refusal?: { registry: AgentSurfaceRegistry; key: string } | undefined;
  waitingForParse?: boolean;
  /** The claim this element is part of, with what it would register. */
  claim?: { claim: Claim; desired: Desired } | undefined;
  /** Set when the batch is to release the registration and the claim (see `releaseLater`). */
  leaving?: boolean;
  /** Its answer to the registry about registrations from script (see `Yielding`). */
  yielding?: Yielding | undefined;
  /** The claim key of the conflict last reported, so a conflict is reported once. */
  reported?: string | undefined;
}

/** The state of a capability without `unavailable` or `note`, and its key. */
const AVAILABLE: CapabilityState = Object.freeze({ available: true });
const AVAILABLE_KEY = JSON.stringify(AVAILABLE);

/** Records whose registration waits for the batch at the end of this microtask. */
const queued = new Set<CapabilityRecord>();

/**
 * The elements that claim one (capability, instance) of one registry. Two or more never resolve by
 * document order or by who came first: the one whose behaviour the page's script set (`.handler`,
 * `.read`) is registered, and when none or several have one, none is (see `resolve`).
 */
interface Claim {
  readonly members: Set<CapabilityRecord>;
  readonly byKey: Map<string, Claim>;
  readonly key: string;
}
const claims = new WeakMap<AgentSurfaceRegistry, Map<string, Claim>>();
/** Claims whose members changed, settled at the end of the batch. */
const dirtyClaims = new Set<Claim>();
let flushQueued = false;
const conflicts = lazyModule(() => import('./capability-conflict.js'));

// One observer for every capability (a thousand observers cost more than a thousand observations).
// An observation outlives a disconnection, so each element is observed once, on its first update;
// records from disconnected ones just find nothing to change.
let observer: MutationObserver | undefined;
const observed = new WeakSet<Node>();

function onMutations(records: MutationRecord[]): void {
  for (const record of records) {
    let node: Node | null = record.target;
    while (node && !observed.has(node)) node = node.parentNode;
    (node as CapabilityHost | null)?.requestUpdate();
  }
}

/**
 * What the element's `updateComplete` still waits for, or `undefined` once it has registered, been
 * refused or found nothing to register with: the end of parsing (schema scripts may follow), the
 * batch at the end of the microtask (`null`: one more turn), a view placing itself, a contested
 * claim (once the conflict rules are here).
 */
export function capabilitySettling(s: CapabilityRecord): Promise<unknown> | null | undefined {
  const { el } = s;
  const claim = s.claim?.claim;
  if (queued.has(s) || (claim && dirtyClaims.has(claim)) || (el.isConnected && s.view.value?.placing)) return null;
  if (!conflicts.module && (claim?.members.size ?? 0) > 1) return conflicts.load().catch(() => {});
  const doc = el.ownerDocument;
  if (s.waitingForParse && doc.readyState === 'loading') {
    return new Promise<unknown>((go) => doc.addEventListener('DOMContentLoaded', go, { once: true }));
  }
  return undefined;
}

// lit batches every attribute, property, context and child change of one microtask into one update.
export function updateCapability(s: CapabilityRecord): void {
  const { el } = s;
  if (!observed.has(el)) {
    observed.add(el);
    (observer ??= new MutationObserver(onMutations)).observe(el, {
      childList: true,
      subtree: true,
      characterData: true,
      // (`attributes: true` is implied by the filter.)
      attributeFilter: ['type', 'data-schema'],
    });
  }
  // Decided afresh by every update: an element that left and came back within the batch keeps its registration.
  s.leaving = false;
  const registry = el.isConnected ? s.registry.value : undefined;
  const view = s.view.value;
  if (registry && !registry.disposed && view?.refused) {
    // The view logged why; each capability inside still tells its listeners it was refused.
    refuse(
      s,
      registry,
      `view:${view.refused}`,
      { code: 'INVALID_REGISTRATION', message: `its <agent-view> was refused: ${view.refused}` },
      undefined,
      true,
    );
    return;
  }
  if (!registry || registry.disposed || view?.refused || view?.placing || (!view && viewPending(el))) {
    releaseLater(s);
    return;
  }
  const doc = el.ownerDocument;
  let contract = el.contract;
  // The contract's JSON, which tells a real change.
  let json: string | undefined;
  if (doc.readyState === 'loading' && !contract) {
    // Still being parsed: the schema scripts may not be here yet. Register once they all are.
    releaseLater(s);
    if (!s.waitingForParse) {
      s.waitingForParse = true;
      doc.addEventListener('DOMContentLoaded', () => el.requestUpdate(), { once: true });
    }
    return;
  }

  if (!contract) {
    const built = declaredContract(el, view?.name ?? null);
    if (!built.ok) {
      const { problems } = built;
      refuse(s, registry, `problems:${problems.join('\n')}`, {
        code: 'INVALID_CONTRACT',
        message: problems.join('; '),
        details: { problems },
      });
      return;
    }
    ({ contract, json } = built);
  }

  if (DEV_MODE) checkBehaviour(el, contract.kind, el.handler, el.read);
  const token = el.getAttribute('token');
  const instanceId = view?.instance;
  // A contract read from markup comes with its JSON; one set by script is serialized here.
  json ??= JSON.stringify(contract);
  const reason = el.getAttribute('unavailable');
  const note = el.getAttribute('note');
  // Most capabilities are plainly available: one shared state and key for them, and the registry's own default.
  let state = AVAILABLE;
  let stateKey = AVAILABLE_KEY;
  if (reason !== null || note) {
    state = { available: reason === null };
    if (reason) state.unavailableReason = reason;
    if (note) state.note = note;
    stateKey = JSON.stringify(state);
  }

  const current = s.current;
  if (current?.registry === registry && current.json === json && current.token === token && current.instanceId === instanceId) {
    if (stateKey !== current.stateKey) {
      current.stateKey = stateKey;
      current.handle.update(state);
    }
    return;
  }
  const desired = { registry, json, token, instanceId, stateKey } as Desired;
  if (s.refusal?.registry === registry && s.refusal.key === registrationKey(desired)) return;

  releaseLater(s);
  const options = {
    contract,
    token,
    // The element logs a refusal itself, naming its start tag: one console error, not two.
    [REPORTS_OWN_REFUSALS]: 1,
    // Without a behaviour set by script, a registration from script takes its place.
    [YIELDS_TO_SCRIPT]: (s.yielding ??= new Yielding(s)),
  } as RegisterOptions & { [REPORTS_OWN_REFUSALS]: 1; [YIELDS_TO_SCRIPT]: unknown };
  if (instanceId !== undefined) options.instanceId = instanceId;
  if (state !== AVAILABLE) options.state = state;
  // Calls reach `.handler` / `.read` as they are at call time; without them, `agent-invoke`.
  if (contract.kind === 'observation')
    options.read = (ctx, input) => (el.read ? el.read(ctx, input) : dispatchInvoke(el, s.current?.handle.capabilityId ?? '', 'observation', input ?? {}, ctx));
  else options.handler = (input, ctx) => (el.handler ? el.handler(input, ctx) : dispatchInvoke(el, s.current?.handle.capabilityId ?? '', 'action', input, ctx));
  desired.options = options;
  s.desired = desired;
  // Registration is two-phase across elements: every element changed in one task releases its old
  // registration, then all register, in one batch at the end of the microtask. Two capabilities
  // trading an id or an instance (views swapped, names exchanged) so never collide on the way, and a
  // re-render that replaces every element changes the surface once (one agent-surface-changed).
  scheduleFlush();
  queued.add(s);
}

const scripted = (el: CapabilityHost) => typeof el.handler === 'function' || typeof el.read === 'function';

function scheduleFlush(): void {
  if (flushQueued) return;
  flushQueued = true;
  queueMicrotask(flush);
}

/** The batch at the end of the microtask: claims first, then each changed claim settles. */
function flush(): void {
  flushQueued = false;
  const batch = [...queued];
  queued.clear();
  for (const s of batch) if (s.leaving) letGo(s);
  for (const s of batch) join(s);
  const settle = [...dirtyClaims];
  dirtyClaims.clear();
  for (const claim of settle) resolve(claim);
}

/** Joins the claim on what this element would register. */
function join(s: CapabilityRecord): void {
  const desired = s.desired;
  s.desired = undefined;
  if (!desired || !s.el.isConnected || desired.registry.disposed) return;
  const { contract, instanceId } = desired.options;
  const key = `${String(contract.id)}\u0000${instanceId ?? ''}`;
  let byKey = claims.get(desired.registry);
  if (!byKey) claims.set(desired.registry, (byKey = new Map()));
  let claim = byKey.get(key);
  if (!claim) byKey.set(key, (claim = { members: new Set(), byKey, key }));
  claim.members.add(s);
  s.claim = { claim, desired };
  dirtyClaims.add(claim);
}

/** Leaves the claim (on release): the others settle again at the end of the batch. */
function leave(s: CapabilityRecord): void {
  const mine = s.claim;
  s.claim = undefined;
  if (!mine) return;
  const { claim } = mine;
  claim.members.delete(s);
  if (!claim.members.size) claim.byKey.delete(claim.key);
  else {
    dirtyClaims.add(claim);
    scheduleFlush();
  }
}

/**
 * One element per claim registers. Alone, it does; with others the authority admits, the rules in
 * capability-conflict.ts pick (loaded on the first conflict; until then none of them registers that
 * was not registered already).
 */
function resolve(claim: Claim): void {
  let members = [...claim.members];
  // A declaration the authority refuses is no claimant (capability-conflict.ts): it is refused here,
  // before the rules are fetched too, so unauthorized markup never unsettles the page's own.
  if (members.length > 1) members = members.filter((m) => admissible(m) || (take(m), false));
  if (members.length < 2) {
    if (members[0]) take(members[0]);
    return;
  }
  const settle = conflicts.module?.settleConflict;
  if (!settle) {
    // Until the rules are here no claimant registers, and one registered already stays until they
    // decide: unregistering it meanwhile would void every call and approval waiting on it.
    conflicts.load().then(
      () => {
        dirtyClaims.add(claim);
        scheduleFlush();
      },
      (error: unknown) => issueError('DECLARATION_UNAVAILABLE', 'conflict', String(error)),
    );
    return;
  }
  const { contract, instanceId } = members[0]!.claim!.desired.options;
  settle(
    members.map((m) => ({
      scripted: scripted(m.el),
      admissible: () => admissible(m),
      take: () => take(m),
      drop: (error: DefinitionErrorPayload) => drop(m, error),
    })),
    String(contract.id),
    instanceId,
  );
}

/** Stays out of the registry while its claim is contested; reports `error` once. */
function drop(s: CapabilityRecord, error?: DefinitionErrorPayload): void {
  const current = s.current;
  s.current = undefined;
  current?.handle.unregister();
  if (!error || s.reported === error.message) return;
  s.reported = error.message;
  report(s, error, String(s.claim?.desired.options.contract.id));
}

/** The page's script registered the same (capability, instance) itself: this declaration steps aside. */
function displaced(s: CapabilityRecord): void {
  const current = s.current;
  s.current = undefined;
  if (!current) return;
  // Not tried again until the declaration changes or the element reconnects.
  s.refusal = { registry: current.registry, key: registrationKey(current) };
  const id = current.handle.capabilityId;
  report(
    s,
    {
      code: 'DUPLICATE_REGISTRATION',
      message: "the page's script registered it itself (registry.register()), and this declaration has no .handler or .read, so it is not used.",
      details: { reason: 'conflicting-declarations', capabilityId: id, ...(current.handle.instanceId !== undefined ? { instanceId: current.handle.instanceId } : {}) },
    },
    id,
  );
}

function admissible(s: CapabilityRecord): boolean {
  const desired = s.claim?.desired;
  try {
    return desired?.registry.authority?.admit(desired.options.contract, desired.options.token)?.ok === true;
  } catch {
    return false;
  }
}

/** Registers what this element claims, unless it already has. */
function take(s: CapabilityRecord): void {
  const mine = s.claim;
  if (!mine || s.current) return;
  const desired = mine.desired;
  if (!s.el.isConnected || desired.registry.disposed) return;
  try {
    s.current = { ...desired, handle: desired.registry.register(desired.options) };
    s.refusal = s.reported = undefined;
  } catch (error) {
    refuse(
      s,
      desired.registry,
      registrationKey(desired),
      error instanceof AgentSurfaceDefinitionError
        ? error.toPayload()
        : { code: 'INVALID_REGISTRATION', message: error instanceof Error ? error.message : String(error) },
      desired.options.contract.id,
    );
  }
}

/** An `<agent-view>` above this element that is not upgraded yet: wait for its context. */
function viewPending(el: Element): boolean {
  for (let n = eventParent(el); n; n = eventParent(n)) {
    if (n instanceof Element && n.localName === 'agent-view') return !n.matches(':defined');
  }
  return false;
}

function refuse(s: CapabilityRecord, registry: AgentSurfaceRegistry, key: string, error: DefinitionErrorPayload, capabilityId?: string, logged?: boolean): void {
  s.desired = undefined;
  letGo(s);
  if (s.refusal?.registry === registry && s.refusal.key === key) return;
  s.refusal = { registry, key };
  if (logged) return void s.el.dispatchEvent(new AgentCapabilityRefusedEvent(error, capabilityId));
  // The compiler reads sources as UTF-8; a page decoded otherwise changes non-ASCII text, so its
  // contract no longer matches the token.
  const charset = s.el.ownerDocument.characterSet;
  if (error.code === 'UNAUTHORIZED_CONTRACT' && charset !== 'UTF-8')
    error = { ...error, message: `${error.message} (page charset ${charset}, not UTF-8: add <meta charset="utf-8">)` };
  report(s, error, capabilityId);
}

/** One console error naming the element, and `agent-capability-refused`. */
function report(s: CapabilityRecord, error: DefinitionErrorPayload, capabilityId?: string): void {
  console.error(`[agent-surface-kit ${error.code}] ${elementLabel(s.el)} was not registered: ${error.message}`);
  s.el.dispatchEvent(new AgentCapabilityRefusedEvent(error, capabilityId));
}

/** Releases the registration and the claim with the batch (see `updateCapability`); drops what was to register. */
function releaseLater(s: CapabilityRecord): void {
  s.desired = undefined;
  if (!s.current && !s.claim) return;
  s.leaving = true;
  scheduleFlush();
  queued.add(s);
}

/** Lets go of the registration and the claim; what is to register next stays. */
function letGo(s: CapabilityRecord): void {
  s.leaving = false;
  const current = s.current;
  s.current = undefined;
  current?.handle.unregister();
  leave(s);
}
