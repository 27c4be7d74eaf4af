import { ContextConsumer } from '@lit/context';
import { ReactiveElement } from '@lit/reactive-element';
import { chunkUnavailable, declaredContractLoaded, declaredContractReader, elementChunk, type ElementChunk } from './declared.js';
import { AgentSurfaceDefinitionError } from '../core/errors.js';
import type {
  AgentSurfaceRegistry,
  CapabilityContract,
  CapabilityHandler,
  CapabilityKind,
  CapabilityState,
  DefinitionErrorPayload,
  InvocationContext,
  JsonObject,
  ObservationReader,
  RegisterOptions,
  RegistrationHandle,
} from '../core/types.js';
import { ensureContextRoot, registryContext, viewContext } from './context.js';
import { elementLabel } from './element-label.js';
import { AgentCapabilityRefusedEvent } from './events.js';
import { REPORTS_OWN_REFUSALS, YIELDS_TO_SCRIPT } from '../core/registry-core.js';
import { connectedCapabilities } from './settling.js';
import { DEV_MODE } from '../core/dev.js';
import { checkBehaviour, checkInsideSurface } from './dev-checks.js';
import { eventParent } from './tree-order.js';
import { issueError } from '../core/dev.js';
import { lazyModule } from '../core/util.js';

/** A registration waiting for the next batch: where, what, and the keys that tell a real change. */
interface Desired {
  registry: AgentSurfaceRegistry;
  key: string;
  stateKey: string;
  options: RegisterOptions;
}

/** Elements whose registration waits for the batch at the end of this microtask. */
const queued = new Set<AgentCapabilityElement>();

/**
 * The elements that claim one (capability, instance) of one registry. Two or more never resolve by
 * document order or by who came first: the one whose behaviour the page's script set (`.handler`,
 * `.read`) is registered, and when none or several have one, none is (see `#resolve`).
 */
interface Claim {
  readonly members: Set<AgentCapabilityElement>;
  readonly byKey: Map<string, Claim>;
  readonly key: string;
}
const claims = new WeakMap<AgentSurfaceRegistry, Map<string, Claim>>();
/** Claims whose members changed, settled at the end of the batch. */
const dirtyClaims = new Set<Claim>();
let flushQueued = false;
const conflicts = lazyModule(() => import('./capability-conflict.js'));

// One observer for every capability (a thousand observers cost more than a thousand observations).
// It cannot unobserve one element: records from disconnected ones just find nothing to change.
let observer: MutationObserver | undefined;

function onMutations(records: MutationRecord[]): void {
  for (const record of records) {
    let node: Node | null = record.target;
    while (node && !(node instanceof AgentCapabilityElement)) node = node.parentNode;
    node?.requestUpdate();
  }
}

/**
 * One capability an agent may call. Its contract comes from its attributes and its
 * `<script type="application/schema+json">` children (`data-schema="output"` marks the output
 * schema), built by the same function the compiler uses, or from the `.contract` property. Its id
 * comes from its place: `view:<view name>.<name>` inside an `<agent-view>`, `domain:<name>` outside.
 *
 * It registers with the nearest `<agent-surface>`'s registry once both exist, in any definition
 * order, and only if the surface's authority admits the contract together with `token`. A change to
 * a contract attribute or a schema re-registers (a new `registrationId`); `unavailable` and `note`
 * update the live state; disconnecting unregisters. A refused declaration logs a console error naming
 * the element and registers nothing.
 *
 * Calls reach `.handler` (actions) or `.read` (observations); without them the element fires
 * `agent-invoke`, answered with `event.detail.respondWith(valueOrPromise)`.
 *
 * @summary Declares one capability an agent may call.
 * @tag agent-capability
 *
 * @attr {string} name - The capability's name within its view (`selectRows`) or domain (`devices.disable`). Required.
 * @attr {string} view - The view this capability must sit in, for markup the compiler cannot see placed (a component's template). Registration is refused unless the nearest `<agent-view>` has this name.
 * @attr {"domain" | "view"} plane - States the plane where the compiler cannot see the placement; `domain` must sit outside any view.
 * @attr {"action" | "observation"} kind - Default `action`.
 * @attr {"read" | "local-state" | "navigation" | "server-query" | "server-mutation" | "external-side-effect" | "destructive"} effect - What calling it does. Required.
 * @attr {"never" | "optional" | "required"} confirmation - Whether a person must approve each call. Default `never`.
 * @attr {string} description - What it does, for the agent and for the person approving (≤ 300 characters). Required.
 * @attr {string} title - A short human label for agent UIs (WebMCP's `title`; ≤ 100 characters, one line). Part of the contract and its token. Default: a readable form of the id. (It is also HTML's tooltip attribute.)
 * @attr {"serial" | "parallel"} concurrency - Default `serial` for actions, `parallel` for observations.
 * @attr {number} timeout-ms - Call timeout in milliseconds. Default 10 000 for actions, 5 000 for observations.
 * @attr {boolean} untrusted-output - The output may carry user or third-party content.
 * @attr {string} token - The contract's token from the compiled manifest (`agent-surface compile --write` fills it in).
 * @attr {string} unavailable - Present when the capability cannot be called right now; its value is the reason shown to the agent.
 * @attr {string} note - A short live note for the agent (e.g. "3 rows selected").
 *
 * @fires {AgentInvokeEvent} agent-invoke - An agent called this capability and it has no `.handler` / `.read`: answer with `event.detail.respondWith(promise)` during dispatch.
 * @fires {AgentCapabilityRefusedEvent} agent-capability-refused - The declaration was refused (invalid markup or not authorized); nothing was registered.
 */
export class AgentCapabilityElement extends ReactiveElement {
  static override properties = {
    name: { reflect: true },
    view: { reflect: true },
    plane: { reflect: true },
    kind: { reflect: true },
    effect: { reflect: true },
    confirmation: { reflect: true },
    description: { reflect: true },
    // HTML's own `title`, observed so that changing it re-registers like any contract attribute.
    title: { reflect: true },
    concurrency: { reflect: true },
    timeoutMs: { attribute: 'timeout-ms', type: Number, reflect: true },
    untrustedOutput: { attribute: 'untrusted-output', type: Boolean, reflect: true },
    token: { reflect: true },
    unavailable: { reflect: true },
    note: { reflect: true },
    contract: { attribute: false },
    handler: { attribute: false },
    read: { attribute: false },
  };

  /** The capability's name (reflects `name`). */
  declare name: string | undefined;
  /** The view it must sit in (reflects `view`). */
  declare view: string | undefined;
  /** The declared plane (reflects `plane`). */
  declare plane: 'domain' | 'view' | undefined;
  /** `action` (default) or `observation` (reflects `kind`). */
  declare kind: CapabilityKind | undefined;
  /** What calling it does (reflects `effect`). */
  declare effect: string | undefined;
  /** `never` (default), `optional` or `required` (reflects `confirmation`). */
  declare confirmation: string | undefined;
  /** The model-visible description (reflects `description`). */
  declare description: string | undefined;
  /** A short human label for agent UIs, part of the contract (HTML's own `title`, reflected). */
  declare title: string;
  /** `serial` or `parallel` (reflects `concurrency`). */
  declare concurrency: string | undefined;
  /** Call timeout in milliseconds (reflects `timeout-ms`). */
  declare timeoutMs: number | undefined;
  /** The output may carry untrusted content (reflects `untrusted-output`). */
  declare untrustedOutput: boolean | undefined;
  /** The contract token from the compiled manifest (reflects `token`). */
  declare token: string | undefined;
  /** Why it cannot be called now; `null` when available (reflects `unavailable`). */
  declare unavailable: string | null | undefined;
  /** A live note for the agent (reflects `note`). */
  declare note: string | undefined;
  /** A contract given in code instead of attributes and schema scripts. */
  declare contract: CapabilityContract | undefined;
  /** Runs an action: `(input, ctx) => output | Promise<output>`. */
  declare handler: CapabilityHandler | undefined;
  /** Runs an observation: `(ctx, input) => value | Promise<value>`. */
  declare read: ObservationReader | undefined;

  #registry = new ContextConsumer(this, { context: registryContext, subscribe: true });
  #view = new ContextConsumer(this, { context: viewContext, subscribe: true });
  /** The live registration and what it was made from. */
  #current: (Desired & { handle: RegistrationHandle }) | undefined;
  /** What the next batch registers (see `flush`). */
  #desired: Desired | undefined;
  /** The refused declaration, so the same one is not refused (and logged) again. */
  #refusal: { registry: AgentSurfaceRegistry; key: string } | undefined;
  #waitingForParse = false;
  /** Set while the markup reader loads for this element (see declared.ts). */
  #readerWait: Promise<void> | undefined;
  /** The claim this element is part of, with what it would register. */
  #claim: { claim: Claim; desired: Desired } | undefined;
  /** Set when the batch is to release the registration and the claim (see `#releaseLater`). */
  #leaving = false;
  /** The claim key of the conflict last reported, so a conflict is reported once. */
  #reported: string | undefined;

  /** The current registration's id, or `undefined` while not registered. */
  get registrationId(): string | undefined {
    return this.#current?.handle.registrationId;
  }

  /** The id this element is registered under, or `undefined` while not registered. */
  get capabilityId(): string | undefined {
    return this.#current?.handle.capabilityId;
  }

  override connectedCallback(): void {
    // Context values are re-requested on every connection: a moved element must not keep an old view.
    this.#registry.value = this.#view.value = undefined;
    ensureContextRoot(this.ownerDocument);
    connectedCapabilities.add(this);
    if (DEV_MODE) checkInsideSurface(this);
    super.connectedCallback();
    (observer ??= new MutationObserver(onMutations)).observe(this, {
      childList: true,
      subtree: true,
      characterData: true,
      // (`attributes: true` is implied by the filter.)
      attributeFilter: ['type', 'data-schema'],
    });
    this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    connectedCapabilities.delete(this);
    // Unregisters in the coming update unless the element is back by then (a move keeps its registration).
    this.requestUpdate();
  }

  /**
   * Settles once this element has registered, been refused or found nothing to register with: it also
   * waits for the end of parsing (schema scripts may follow), the markup reader (loaded on first need), and the
   * registration batch at the end of the microtask (queued before this continuation runs).
   */
  protected override async getUpdateComplete(): Promise<boolean> {
    let complete = await super.getUpdateComplete();
    const doc = this.ownerDocument;
    // Each of these settles within the batch: a view placing itself, a claim to settle (once the
    // conflict rules are here, when it is contested).
    const claim = () => this.#claim?.claim;
    const contested = () => !conflicts.module && (claim()?.members.size ?? 0) > 1;
    const batch = () => queued.has(this) || dirtyClaims.has(claim()!) || (this.isConnected && this.#view.value?.placing);
    while (this.#readerWait || batch() || contested() || (this.#waitingForParse && doc.readyState === 'loading')) {
      if (this.#readerWait) await this.#readerWait;
      else if (contested()) await conflicts.load().catch(() => {});
      else if (batch()) await null;
      else await new Promise<unknown>((go) => doc.addEventListener('DOMContentLoaded', go, { once: true }));
      complete = await super.getUpdateComplete();
    }
    return complete;
  }

  // Nothing to render: no shadow root, so a thousand capabilities cost a thousand plain elements.
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  // lit batches every attribute, property, context and child change of one microtask into one update.
  protected override updated(): void {
    // Decided afresh by every update: an element that left and came back within the batch keeps its registration.
    this.#leaving = false;
    const registry = this.isConnected ? this.#registry.value : undefined;
    const view = this.#view.value;
    if (registry && !registry.disposed && view?.refused) {
      // The view logged why; each capability inside still tells its listeners it was refused.
      this.#refuse(
        registry,
        `view:${view.refused}`,
        { code: 'INVALID_REGISTRATION', message: `its <agent-view> was refused: ${view.refused}` },
        undefined,
        true,
      );
      return;
    }
    if (!registry || registry.disposed || view?.refused || view?.placing || (!view && this.#viewPending())) {
      this.#releaseLater();
      return;
    }
    if (this.ownerDocument.readyState === 'loading' && !this.contract) {
      // Still being parsed: the schema scripts may not be here yet. Register once they all are.
      this.#releaseLater();
      if (!this.#waitingForParse) {
        this.#waitingForParse = true;
        this.ownerDocument.addEventListener('DOMContentLoaded', () => this.requestUpdate(), { once: true });
      }
      return;
    }

    let contract = this.contract;
    if (!contract) {
      const read = declaredContractReader();
      if (!read) {
        // The markup reader is still on its way (the first elements on a page): register once it is here.
        this.#releaseLater();
        this.#readerWait ??= declaredContractLoaded().then((loaded) => {
          this.#readerWait = undefined;
          if (loaded) this.requestUpdate();
        });
        return;
      }
      const built = read(this, view?.name ?? null);
      if (!built.ok) {
        const { problems } = built;
        this.#refuse(registry, `problems:${problems.join('\n')}`, {
          code: 'INVALID_CONTRACT',
          message: problems.join('; '),
          details: { problems },
        });
        return;
      }
      contract = built.contract;
    }

    if (DEV_MODE) checkBehaviour(this, contract.kind, this.handler, this.read);
    const token = this.getAttribute('token');
    const instanceId = view?.instance;
    const key = JSON.stringify([contract, token, instanceId ?? null]);
    const state: CapabilityState = { available: !this.hasAttribute('unavailable') };
    const reason = this.getAttribute('unavailable');
    if (reason) state.unavailableReason = reason;
    const note = this.getAttribute('note');
    if (note) state.note = note;
    const stateKey = JSON.stringify(state);

    const current = this.#current;
    if (current?.registry === registry && current.key === key) {
      if (stateKey !== current.stateKey) {
        current.stateKey = stateKey;
        current.handle.update(state);
      }
      return;
    }
    if (this.#refusal?.registry === registry && this.#refusal.key === key) return;

    this.#releaseLater();
    this.#desired = {
      registry,
      key,
      stateKey,
      options: {
        contract,
        token,
        ...(instanceId !== undefined ? { instanceId } : {}),
        ...(contract.kind === 'observation' ? { read: this.#read } : { handler: this.#run }),
        state,
        // This element logs a refusal itself, naming its start tag: one console error, not two.
        [REPORTS_OWN_REFUSALS]: 1,
        // Without a behaviour set by script, a registration from script takes its place.
        [YIELDS_TO_SCRIPT]: { yields: () => typeof this.handler !== 'function' && typeof this.read !== 'function', displaced: () => this.#displaced() },
      } as RegisterOptions & { [REPORTS_OWN_REFUSALS]: 1; [YIELDS_TO_SCRIPT]: unknown },
    };
    // Registration is two-phase across elements: every element changed in one task releases its old
    // registration, then all register, in one batch at the end of the microtask. Two capabilities
    // trading an id or an instance (views swapped, names exchanged) so never collide on the way, and a
    // re-render that replaces every element changes the surface once (one agent-surface-changed).
    AgentCapabilityElement.#scheduleFlush();
    queued.add(this);
  }

  static #scheduleFlush(): void {
    if (flushQueued) return;
    flushQueued = true;
    queueMicrotask(AgentCapabilityElement.#flush);
  }

  /** The batch at the end of the microtask: claims first, then each changed claim settles. */
  static #flush(): void {
    flushQueued = false;
    const batch = [...queued];
    queued.clear();
    for (const element of batch) if (element.#leaving) element.#letGo();
    for (const element of batch) element.#join();
    const settle = [...dirtyClaims];
    dirtyClaims.clear();
    for (const claim of settle) AgentCapabilityElement.#resolve(claim);
  }

  /** Joins the claim on what this element would register. */
  #join(): void {
    const desired = this.#desired;
    this.#desired = undefined;
    if (!desired || !this.isConnected || desired.registry.disposed) return;
    const { contract, instanceId } = desired.options;
    const key = `${String(contract.id)}\u0000${instanceId ?? ''}`;
    let byKey = claims.get(desired.registry);
    if (!byKey) claims.set(desired.registry, (byKey = new Map()));
    let claim = byKey.get(key);
    if (!claim) byKey.set(key, (claim = { members: new Set(), byKey, key }));
    claim.members.add(this);
    this.#claim = { claim, desired };
    dirtyClaims.add(claim);
  }

  /** Leaves the claim (on release): the others settle again at the end of the batch. */
  #leave(): void {
    const mine = this.#claim;
    this.#claim = undefined;
    if (!mine) return;
    const { claim } = mine;
    claim.members.delete(this);
    if (!claim.members.size) claim.byKey.delete(claim.key);
    else {
      dirtyClaims.add(claim);
      AgentCapabilityElement.#scheduleFlush();
    }
  }

  /**
   * One element per claim registers. Alone, it does; with others, the rules in capability-conflict.ts
   * pick (loaded on the first conflict; until then none of them is registered).
   */
  static #resolve(claim: Claim): void {
    const members = [...claim.members];
    if (members.length < 2) {
      if (members[0]) members[0].#take();
      return;
    }
    const settle = conflicts.module?.settleConflict;
    if (!settle) {
      for (const m of members) m.#drop();
      conflicts.load().then(
        () => {
          dirtyClaims.add(claim);
          AgentCapabilityElement.#scheduleFlush();
        },
        (error: unknown) => issueError('DECLARATION_UNAVAILABLE', 'conflict', String(error)),
      );
      return;
    }
    const { contract, instanceId } = members[0]!.#claim!.desired.options;
    settle(
      members.map((m) => ({
        scripted: typeof m.handler === 'function' || typeof m.read === 'function',
        admissible: () => m.#admissible(),
        take: () => m.#take(),
        drop: (error: DefinitionErrorPayload) => m.#drop(error),
      })),
      String(contract.id),
      instanceId,
    );
  }

  /** Stays out of the registry while its claim is contested; reports `error` once. */
  #drop(error?: DefinitionErrorPayload): void {
    const current = this.#current;
    this.#current = undefined;
    current?.handle.unregister();
    if (!error || this.#reported === error.message) return;
    this.#reported = error.message;
    this.#report(error, String(this.#claim?.desired.options.contract.id));
  }

  /** The page's script registered the same (capability, instance) itself: this declaration steps aside. */
  #displaced(): void {
    const current = this.#current;
    this.#current = undefined;
    if (!current) return;
    // Not tried again until the declaration changes or the element reconnects.
    this.#refusal = { registry: current.registry, key: current.key };
    const id = current.handle.capabilityId;
    this.#report(
      {
        code: 'DUPLICATE_REGISTRATION',
        message: "the page's script registered it itself (registry.register()), and this declaration has no .handler or .read, so it is not used.",
        details: { reason: 'conflicting-declarations', capabilityId: id, ...(current.handle.instanceId !== undefined ? { instanceId: current.handle.instanceId } : {}) },
      },
      id,
    );
  }

  #admissible(): boolean {
    const desired = this.#claim?.desired;
    try {
      return desired?.registry.authority?.admit(desired.options.contract, desired.options.token)?.ok === true;
    } catch {
      return false;
    }
  }

  /** Registers what this element claims, unless it already has. */
  #take(): void {
    const mine = this.#claim;
    if (!mine || this.#current) return;
    const desired = mine.desired;
    if (!this.isConnected || desired.registry.disposed) return;
    try {
      this.#current = { ...desired, handle: desired.registry.register(desired.options) };
      this.#refusal = undefined;
      this.#reported = undefined;
    } catch (error) {
      this.#refuse(
        desired.registry,
        desired.key,
        error instanceof AgentSurfaceDefinitionError
          ? error.toPayload()
          : { code: 'INVALID_REGISTRATION', message: error instanceof Error ? error.message : String(error) },
        desired.options.contract.id,
      );
    }
  }

  /** An `<agent-view>` above this element that is not upgraded yet: wait for its context. */
  #viewPending(): boolean {
    for (let n = eventParent(this); n; n = eventParent(n)) {
      if (n instanceof Element && n.localName === 'agent-view') return !n.matches(':defined');
    }
    return false;
  }

  #refuse(registry: AgentSurfaceRegistry, key: string, error: DefinitionErrorPayload, capabilityId?: string, logged?: boolean): void {
    this.#release();
    if (this.#refusal?.registry === registry && this.#refusal.key === key) return;
    this.#refusal = { registry, key };
    if (logged) return void this.dispatchEvent(new AgentCapabilityRefusedEvent(error, capabilityId));
    // The compiler reads sources as UTF-8; a page decoded otherwise changes non-ASCII text, so its
    // contract no longer matches the token.
    const charset = this.ownerDocument.characterSet;
    if (error.code === 'UNAUTHORIZED_CONTRACT' && charset !== 'UTF-8')
      error = { ...error, message: `${error.message} (page charset ${charset}, not UTF-8: add <meta charset="utf-8">)` };
    this.#report(error, capabilityId);
  }

  /** One console error naming the element, and `agent-capability-refused`. */
  #report(error: DefinitionErrorPayload, capabilityId?: string): void {
    console.error(`[agent-surface-kit ${error.code}] ${elementLabel(this)} was not registered: ${error.message}`);
    this.dispatchEvent(new AgentCapabilityRefusedEvent(error, capabilityId));
  }

  #release(): void {
    this.#desired = undefined;
    this.#letGo();
  }

  /** Releases the registration and the claim with the batch (see `updated`); drops what was to register. */
  #releaseLater(): void {
    this.#desired = undefined;
    if (!this.#current && !this.#claim) return;
    this.#leaving = true;
    AgentCapabilityElement.#scheduleFlush();
    queued.add(this);
  }

  /** Lets go of the registration and the claim; what is to register next stays. */
  #letGo(): void {
    this.#leaving = false;
    const current = this.#current;
    this.#current = undefined;
    current?.handle.unregister();
    this.#leave();
  }

  #run = (input: JsonObject, ctx: InvocationContext): unknown =>
    this.handler ? this.handler(input, ctx) : this.#dispatchInvoke('action', input, ctx);

  #read = (ctx: InvocationContext, input: JsonObject): unknown =>
    this.read ? this.read(ctx, input) : this.#dispatchInvoke('observation', input ?? {}, ctx);

  /** Fires `agent-invoke` (invoke-event.ts, in the lazy chunk that reads markup: see declared.ts). */
  #dispatchInvoke(kind: CapabilityKind, input: JsonObject, ctx: InvocationContext): unknown {
    const capabilityId = this.#current?.handle.capabilityId ?? '';
    const go = (m: ElementChunk) => m.dispatchInvoke(this, capabilityId, kind, input, ctx);
    return elementChunk.module ? go(elementChunk.module) : elementChunk.load().then(go, chunkUnavailable);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-capability': AgentCapabilityElement;
  }
}
