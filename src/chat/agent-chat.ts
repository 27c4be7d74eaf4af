import { ContextConsumer } from '@lit/context';
import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AgentSurfaceRegistry, JsonValue, PendingConfirmation } from '../core/types.js';
import { canonicalJson } from '../core/canonical-json.js';
import { encodeWireName } from '../core/wire-names.js';
import { consumerGrantsOf } from '../core/consumer-grants.js';
import { chatConsumer } from './consumer.js';
import { ensureContextRoot, registryContext } from '../elements/context.js';
import { formatInput, formatRemaining, reveal } from '../elements/format-input.js';
import type { ToolSource } from '../webmcp/types.js';
import { lazy } from './lazy.js';
import { messageOf } from './call-tool.js';
import type { ApprovalGuard } from '../elements/approval-guard.js';
import { createMarkdownStream, type MarkdownStream } from './markdown.js';
import { fallbackId, runAdapter, type ActiveCall } from './run.js';
import { createSessionState, messageText, outputText, sessionReducer, type SessionEvent, type SessionState } from './session.js';
import { chatStyles } from './styles.js';
import { registryProvider, sourceProvider, type ChatTool, type ChatToolProvider } from './tools.js';
import type { AdapterStatus, AgentAdapter, AgentErrorCode, AgentMessage, AgentToolPart, ModelChoice, ToolCallState, WebAgent } from './types.js';

export type ChatPersist = 'none' | 'session' | 'local';

const ADAPTER_KEY = 'agent-chat:adapter';
/**
 * Where a conversation is kept: `agent-chat:<id or "chat">`, except that an id `adapter`, `adapter~`,
 * `adapter~~`… gets one more `~`, so no id can overwrite the adapter choice (and no two ids share a key).
 */
export const conversationKey = (id: string): string => `agent-chat:${(id || 'chat').replace(/^adapter~*$/, '$&~')}`;

/** The approval guard, a chunk shared with <agent-confirm>'s dialog; fetched when a card first needs it. */
const guardModule = lazy(() => import('../elements/approval-guard.js'));
/** Finding and measuring the page element a call acts on (the outline): fetched with the first call to show. */
const highlightModule = lazy(() => import('./highlight.js'));
const READY: AdapterStatus = { state: 'ready' };
const STATES: unknown[] = ['ready', 'unavailable', 'needs-download', 'downloading', 'loading', 'error'];

const STATE_LABEL: Record<ToolCallState, string> = {
  running: 'Running…',
  'awaiting-confirmation': 'Waiting for your approval',
  done: 'Done',
  error: 'Failed',
  cancelled: 'Cancelled',
};

/**
 * A failed call's error as the registry words it, when its text is the registry's error JSON
 * (`{ code, message, retry, details? }`, what the model reads): the card shows its message.
 */
function registryError(text: string | undefined): { code?: unknown; message: string; details?: { reason?: unknown } } | undefined {
  try {
    const e = JSON.parse(text ?? '') as { message?: unknown } | null;
    return typeof e?.message === 'string' ? (e as { message: string }) : undefined;
  } catch {
    return undefined; // some other failure's own words
  }
}

/** A call the person denied ends as an error in the contract, but the card says what happened: their answer, not a failure. */
const stateLabel = (p: AgentToolPart): string => {
  const e = p.state === 'error' ? registryError(p.error) : undefined;
  return e?.code === 'CONFIRMATION_INVALID' && e.details?.reason === 'denied' ? 'Denied by you' : (STATE_LABEL[p.state] ?? p.state);
};

const ERROR_TEXT: Record<AgentErrorCode, string> = {
  chat_disabled: 'The chat is turned off for this site.',
  rate_limited: 'Too many requests right now. Wait a moment, then try again.',
  bad_request: 'The agent refused the request.',
  network: 'The connection to the agent failed.',
};

function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return '';
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} KB`;
}

/** A progress from the adapter, 0 to 1 whatever it sent (NaN or a string must not break the <progress>). */
const unit = (p: number) => (p > 0 ? Math.min(1, p) : 0);
const percent = (p: number) => `${Math.round(unit(p) * 100)}%`;

/**
 * Reads the stored `key` of `persist`'s storage (localStorage or sessionStorage), or writes `value()`
 * there (computed only when there is such a storage). Storage can be blocked (privacy settings,
 * sandboxed frames) or full: the chat works without it, and nothing is kept.
 */
function stored(persist: string | undefined, key: string, value?: () => string): string | null | undefined {
  try {
    const storage = persist === 'local' ? localStorage : persist === 'session' ? sessionStorage : undefined;
    if (!value) return storage?.getItem(key);
    storage?.setItem(key, value());
  } catch {
    // Blocked or full.
  }
  return undefined;
}

/** A call's input as the registry records it (a JSON string is parsed, nothing means `{}`), as canonical text; `undefined` when it is not JSON. */
function canonicalInput(input: unknown): string | undefined {
  let value: unknown = input ?? {};
  try {
    if (typeof value === 'string') value = JSON.parse(value) as unknown;
    return canonicalJson(value);
  } catch {
    return undefined;
  }
}

interface Binding {
  record: PendingConfirmation;
  call: ActiveCall;
}

interface MarkdownEntry {
  el: HTMLElement;
  stream: MarkdownStream;
  text: string;
  ended: boolean;
}

/**
 * An in-page agent chat over the `AgentAdapter` contract. It renders what an adapter streams
 * (Markdown text, tool calls as cards, approvals, sub-agent runs) and never calls a model itself.
 * Its tools come from the nearest `<agent-surface>` (a toolset with topology `embedded`, consumer
 * id from `consumer`) or from `.source` (any ToolSource, such as `createWebMcpSource()`),
 * filtered through `.agent`.
 *
 * A call that needs the person's approval shows Approve and Deny in its card, bound to the
 * registry's pending confirmation (the same record `<agent-confirm>` shows: deciding in either
 * settles both). The buttons respond only to trusted input after `activation-delay` ms on screen.
 *
 * @summary Chat with an agent that uses this page's capabilities.
 * @tag agent-chat
 *
 * @attr {string} consumer - The consumer id the chat's calls carry. Default `chat`. Any other id must be granted by the page's script (`surface.consumers = { chat: { consumer: 'panel' } }`, or `enable()`), else the chat is refused and says why.
 * @attr {string} placeholder - The composer's placeholder. Default `Ask the agent…`.
 * @attr {"none" | "session" | "local"} persist - Keep the conversation across reloads in sessionStorage or localStorage (key `agent-chat:<id or "chat">`). Default `none`.
 * @attr {string} highlight - `off` stops scrolling to and outlining the page element a call acts on. Default on.
 * @attr {number} activation-delay - Milliseconds an approval must be on screen, in place, before its buttons respond. Default 500; markup cannot go below 300 (an invalid value means 500).
 * @prop {number} activationDelay - The delay in effect; set from script it overrides the attribute and may go below 300 in development builds only.
 * @prop {AgentAdapter | readonly AgentAdapter[] | undefined} adapters - The agent(s) to talk to; a switcher shows when there are several (the choice is kept by adapter id).
 * @prop {WebAgent | undefined} agent - The page's agent (`defineWebAgent`): instructions, tool filter, sub-agents.
 * @prop {ToolSource | undefined} source - Tools from a ToolSource instead of the nearest `<agent-surface>`.
 * @prop {AgentSurfaceRegistry | undefined} registry - The registry to use instead of the nearest `<agent-surface>`'s.
 * @prop {SessionState} session - The conversation (read-only; plain JSON, see `sessionReducer`).
 *
 * @fires {Event} agent-chat-change - The conversation changed (`session` has the new state).
 *
 * @csspart header - The row with the adapter switcher and the model picker.
 * @csspart adapter-select - The adapter switcher.
 * @csspart models - The model picker.
 * @csspart log - The message list.
 * @csspart message - Every message; also `user` or `assistant`.
 * @csspart markdown - Rendered Markdown text.
 * @csspart tool - A tool call's card; `tool-summary`, `tool-name`, `tool-state`, `tool-description`, `tool-input`, `tool-output`, `tool-error` inside it.
 * @csspart approval - The approval block of a card; `approve`, `deny`, `countdown` inside it.
 * @csspart nested - A sub-agent's run inside its card.
 * @csspart status - The adapter's status card (download, progress, errors).
 * @csspart notice - The last run's error with its Retry button.
 * @csspart composer - The message form; `input`, `send` and `stop` inside it.
 * @csspart reason - Why the composer is disabled.
 * @csspart highlight - The outline around the page element a call acts on.
 *
 * @cssprop --agent-chat-background - Background. Default `#fff` (dark: `#1e1f22`).
 * @cssprop --agent-chat-color - Text color.
 * @cssprop --agent-chat-muted - Secondary text.
 * @cssprop --agent-chat-accent - Buttons and links.
 * @cssprop --agent-chat-on-accent - Text on accent.
 * @cssprop --agent-chat-border - Borders.
 * @cssprop --agent-chat-user-background - The person's messages.
 * @cssprop --agent-chat-tool-background - Tool cards.
 * @cssprop --agent-chat-danger - Errors.
 * @cssprop --agent-chat-radius - Corner radius. Default `12px`.
 * @cssprop --agent-chat-font - Font family.
 * @cssprop --agent-chat-height - Height of the chat. Default `32rem`.
 * @cssprop --agent-chat-highlight - The color of the outline on the page.
 */
export class AgentChatElement extends LitElement {
  static override styles = chatStyles;

  static override properties = {
    adapters: { attribute: false },
    agent: { attribute: false },
    source: { attribute: false },
    registry: { attribute: false },
    // String attributes: lit's default converter (`type: String` says the same).
    consumer: {},
    placeholder: {},
    persist: {},
    highlight: {},
  };

  // Read by hand, as <agent-confirm> does: markup fails closed (never below the floor); only script
  // may go lower, and only in development builds.
  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'activation-delay'];
  }

  #scriptDelay: number | undefined;

  get activationDelay(): number {
    // The rules come with the guard's chunk (only the guard decides; until it loads nothing can).
    const rules = guardModule.module;
    if (!rules) return 500;
    return this.#scriptDelay !== undefined
      ? rules.activationDelayFromScript(this.#scriptDelay)
      : rules.activationDelayFromMarkup(this.getAttribute('activation-delay'));
  }

  set activationDelay(value: number | undefined) {
    this.#scriptDelay = value === undefined || value === null ? undefined : value;
    this.requestUpdate();
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (name === 'activation-delay') this.requestUpdate();
  }

  declare adapters: AgentAdapter | readonly AgentAdapter[] | undefined;
  declare agent: WebAgent | undefined;
  declare source: ToolSource | undefined;
  declare registry: AgentSurfaceRegistry | undefined;
  declare consumer: string;
  declare placeholder: string;
  declare persist: ChatPersist;
  declare highlight: string;

  #context = new ContextConsumer(this, { context: registryContext, subscribe: true });
  /** Set by `enable()`: the page's script vouches for the `consumer` attribute. */
  #enabled = false;
  /** Why the consumer identity was refused (see `chatConsumer`). */
  #refused: string | undefined;
  /** The consumer id the chat's calls carry, once granted. */
  #consumerId = 'chat';
  #session: SessionState = createSessionState();
  #run: AbortController | undefined;
  #provider: ChatToolProvider | undefined;
  #providerKey: unknown[] = [];
  #offTools: (() => void) | undefined;
  #offConfirmations: (() => void) | undefined;
  #confirmationsOf: AgentSurfaceRegistry | undefined;
  #active = new Map<string, ActiveCall>();
  /** When each active call started (Date.now(), the registry's clock for confirmations). */
  #callStarts = new WeakMap<ActiveCall, number>();
  #bindings = new Map<string, Binding>();
  /** The approval rules `<agent-confirm>` follows; loaded with the first card that needs them. */
  #guard: ApprovalGuard | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #adapterId: string | undefined;
  #subscribedAdapter: AgentAdapter | undefined;
  #offAdapter: (() => void) | undefined;
  #preparing: AbortController | undefined;
  #notice: string | undefined;
  #markdown = new Map<string, MarkdownEntry>();
  #markdownUsed = new Set<string>();
  #announced = new Map<string, string>();
  #announcedRun = -1;
  #editing: { id: string; text: string } | undefined;
  #highlightState: { target: Element; title: string; rect?: DOMRect } | undefined;
  #connection: AbortController | undefined;
  #loadedFrom: string | undefined;
  #focusApproval: string | undefined;
  /** Whether the log shows its end: new content keeps it there until the person scrolls up. */
  #followLog = true;
  /** The card to bring into the log's view on the next frame, and that frame. */
  #reveal: string | undefined;
  #scrollFrame = 0;
  #frame = 0;
  /** Tool cards the person opened: a closed card renders only its summary. */
  #openCards = new Set<string>();

  constructor() {
    super();
    this.consumer = 'chat';
    this.placeholder = 'Ask the agent…';
    this.persist = 'none';
    this.highlight = 'on';
  }

  /** The conversation: plain JSON, folded by `sessionReducer`. */
  get session(): SessionState {
    return this.#session;
  }

  /** Sends a message as the person would (when the adapter is ready and no run is going). */
  send(text: string): void {
    this.#followLog = true;
    void this.#start({ type: 'send', text });
  }

  /** Stops the run in progress: aborts its signal and ends it as `aborted`. */
  stop(): void {
    if (this.#session.status !== 'running') return;
    this.#dispatch({ type: 'stop' });
    this.#run?.abort();
    this.#run = undefined;
  }

  /** Re-runs the last message (from its last finished tool call). */
  retry(): void {
    void this.#start({ type: 'retry' });
  }

  /** Forgets the conversation (and its stored copy). */
  clear(): void {
    this.stop();
    this.#dispatch({ type: 'clear' });
  }

  override connectedCallback(): void {
    ensureContextRoot(this.ownerDocument);
    super.connectedCallback();
    this.#connection = new AbortController();
    const { signal } = this.#connection;
    this.ownerDocument.addEventListener('visibilitychange', () => this.requestUpdate(), { signal });
    globalThis.addEventListener?.('pagehide', () => this.#save(true), { signal });
    this.addEventListener('keydown', this.#onKeydown, { signal });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#save(true);
    this.stop();
    this.#connection?.abort();
    this.#preparing?.abort();
    this.#preparing = undefined;
    clearTimeout(this.#timer);
    cancelAnimationFrame(this.#scrollFrame);
    this.#scrollFrame = 0;
    this.#offAdapter?.();
    this.#offAdapter = this.#subscribedAdapter = undefined;
    this.#disposeProvider();
    this.#subscribeConfirmations(undefined);
    this.#clearHighlight();
    this.#guard?.disconnect();
    this.#guard = undefined;
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
  }

  // ---- adapters and status -------------------------------------------------------------------

  #adapterList(): readonly AgentAdapter[] {
    const a = this.adapters;
    if (!a) return [];
    return (Array.isArray(a) ? a : [a]).filter((x): x is AgentAdapter => !!x && typeof x.run === 'function');
  }

  /** The adapter in use: the one chosen last (by id), else the first. */
  get #adapter(): AgentAdapter | undefined {
    const list = this.#adapterList();
    this.#adapterId ??= stored('local', ADAPTER_KEY) ?? undefined;
    return list.find((a) => a.id === this.#adapterId) ?? list[0];
  }

  #status(adapter: AgentAdapter | undefined): AdapterStatus {
    // A consumer identity markup asked for and script never granted: fail closed, say why.
    if (this.#refused) return { state: 'unavailable', reason: this.#refused };
    if (!adapter) return { state: 'unavailable', reason: 'No agent is connected to this chat.' };
    try {
      if (!adapter.status) return READY;
      const s = adapter.status();
      // A status the widget cannot read fails closed, in words: sending stays off until it can.
      return STATES.includes(s?.state) ? s : { state: 'unavailable', reason: 'The agent reported a status this chat cannot read.' };
    } catch (error) {
      return { state: 'error', error: messageOf(error, 'The agent cannot say whether it is ready.') };
    }
  }

  #models(adapter: AgentAdapter | undefined): readonly ModelChoice[] {
    try {
      const list = adapter?.models?.();
      // Only entries the picker can use: an adapter's null or id-less entry must not break the render.
      return Array.isArray(list) ? list.filter((m) => typeof m?.id === 'string') : [];
    } catch {
      return [];
    }
  }

  #syncAdapter(): void {
    const adapter = this.#adapter;
    if (adapter === this.#subscribedAdapter) return;
    this.#offAdapter?.();
    this.#offAdapter = undefined;
    this.#subscribedAdapter = adapter;
    if (adapter?.subscribe) {
      try {
        const off = adapter.subscribe(() => this.requestUpdate());
        this.#offAdapter = typeof off === 'function' ? off : undefined;
      } catch {
        // An adapter whose subscribe throws is read on each render only.
      }
    }
  }

  // ---- tools ---------------------------------------------------------------------------------

  get #registry(): AgentSurfaceRegistry | undefined {
    return this.registry ?? this.#context.value;
  }

  #disposeProvider(): void {
    this.#offTools?.();
    this.#offTools = undefined;
    this.#provider?.dispose();
    this.#provider = undefined;
    this.#providerKey = [];
  }

  #syncTools(): void {
    const registry = this.#registry;
    const key = [this.source, this.source ? undefined : registry, this.consumer, registry && consumerGrantsOf(registry), this.#enabled];
    if (key.every((v, i) => v === this.#providerKey[i]) && (this.#provider || this.#refused)) return;
    this.#disposeProvider();
    this.#providerKey = key;
    this.#refused = undefined;
    if (this.source) this.#provider = sourceProvider(this.source);
    else if (registry && !registry.disposed) {
      // The constructor's `chat` stands for "none asked": a grant's own id then applies.
      const asked = this.consumer === 'chat' && !this.hasAttribute('consumer') ? undefined : this.consumer;
      const verdict = chatConsumer(registry, asked, this.#enabled);
      if (verdict.ok) {
        this.#consumerId = verdict.consumer;
        this.#provider = registryProvider(registry, verdict.consumer);
      } else {
        this.#refused = `This chat may not act on this page: ${verdict.message}.`;
        console.error(`[agent-surface-kit CHAT_NOT_GRANTED] <agent-chat consumer=${JSON.stringify(this.consumer)}> was refused: ${verdict.message}`);
      }
    }
    this.#offTools = this.#provider?.subscribe(() => this.requestUpdate());
    void this.#provider?.refresh();
  }

  /**
   * Lets this element use its `consumer` as it is, without a grant on the registry: the page's
   * script vouches for it, as `enable()` on `<agent-webmcp>` does. (Markup cannot call it.)
   */
  enable(): void {
    this.#enabled = true;
    this.requestUpdate();
  }

  #tool(name: string): ChatTool | undefined {
    return this.#provider?.tools().find((t) => t.descriptor.name === name);
  }

  // ---- confirmations -------------------------------------------------------------------------

  #subscribeConfirmations(registry: AgentSurfaceRegistry | undefined): void {
    if (registry === this.#confirmationsOf) return;
    this.#offConfirmations?.();
    this.#offConfirmations = undefined;
    this.#confirmationsOf = registry;
    if (registry) {
      this.#offConfirmations = registry.confirmations.subscribe((pending) => this.#onConfirmations(pending));
      this.#onConfirmations(registry.confirmations.list());
    }
  }

  /**
   * Binds pending confirmations to the calls they hold up. A registry call is matched exactly: its
   * invocation id under this chat's consumer. A ToolSource call cannot be: its request reaches the
   * registry through someone else's consumer (`<agent-webmcp>`'s, shared with every outside WebMCP
   * agent) under an invocation id the source never reports. Such a call takes a record only when the
   * record asks for the call's tool with the call's own input, was made after the call started, and
   * is the only record that does so; otherwise the card shows none and the person decides in
   * `<agent-confirm>`, which names the request, instead of on a card that may belong to another agent.
   */
  #onConfirmations(pending: readonly PendingConfirmation[]): void {
    const now = Date.now();
    const next = new Map<string, Binding>();
    const calls = [...this.#active.values()];
    const open = pending.filter((record) => record.status === 'pending' && record.expiresAt > now);
    const taken = new Set<PendingConfirmation>();
    for (const record of open) {
      const call = calls.find((c) => c.invocationId === record.invocationId && record.consumer.id === this.#consumerId);
      if (call && !next.has(call.id)) {
        next.set(call.id, { record, call });
        taken.add(record);
      }
    }
    if (this.source) {
      const candidates = new Map<ActiveCall, PendingConfirmation[]>();
      for (const call of calls) {
        if (next.has(call.id)) continue;
        const since = this.#callStarts.get(call);
        const input = canonicalInput(call.input);
        if (since === undefined || input === undefined) continue;
        candidates.set(
          call,
          open.filter((record) => {
            if (taken.has(record) || record.createdAt < since) return false;
            const wire = encodeWireName(record.capabilityId, record.instanceId);
            return (call.name === wire || call.name.endsWith(wire)) && canonicalInput(record.input) === input;
          }),
        );
      }
      for (const [call, records] of candidates) {
        const only = records.length === 1 ? records[0]! : undefined;
        // A record two calls could own belongs to neither.
        if (only && ![...candidates].some(([other, r]) => other !== call && r.includes(only))) next.set(call.id, { record: only, call });
      }
    }
    for (const [id, b] of next) {
      if (this.#bindings.get(id)?.record.confirmationId === b.record.confirmationId) continue;
      b.call.dispatch({ type: 'confirmation', id, prompt: `Approve or deny: ${b.record.description}` });
      this.#focusApproval = id;
    }
    for (const [id, b] of this.#bindings) if (!next.has(id)) b.call.dispatch({ type: 'confirmation-settled', id });
    this.#bindings = next;
    this.requestUpdate();
  }

  #decide(event: Event, id: string, approve: boolean): void {
    const binding = this.#bindings.get(id);
    const registry = this.#confirmationsOf;
    if (!binding || !registry) return;
    // The same rules as <agent-confirm>: trusted input, after the delay, on the visible Approve button
    // itself, in a page not framed by another origin. Without the guard (still loading, or it failed
    // to load) nothing is decided: the request waits, and expires on its own.
    if (!this.#guard?.check(event, binding.record.confirmationId, approve ? 'approve' : 'deny').ok) return;
    if (approve) registry.confirmations.approve(binding.record.confirmationId);
    else registry.confirmations.deny(binding.record.confirmationId, 'denied by the person in the chat');
    binding.call.dispatch({ type: approve ? 'approve' : 'deny', id });
    this.#part('log')?.focus();
  }

  // ---- runs ----------------------------------------------------------------------------------

  #dispatch = (event: SessionEvent): void => {
    const next = sessionReducer(this.#session, event);
    if (next === this.#session) return;
    this.#session = next;
    // Streamed text renders once per frame, however many deltas arrived in it: the screen shows no
    // more, and a fast stream costs a render per frame, not per delta. Everything else renders now.
    if (event.type === 'part' && event.part.type === 'text-delta' && typeof requestAnimationFrame === 'function') {
      this.#frame ||= requestAnimationFrame(() => {
        this.#frame = 0;
        this.requestUpdate();
      });
    } else this.requestUpdate();
    this.dispatchEvent(new Event('agent-chat-change'));
  };

  async #start(event: SessionEvent): Promise<void> {
    const adapter = this.#adapter;
    if (!adapter || this.#status(adapter).state !== 'ready' || this.#session.status === 'running') return;
    this.#dispatch(event);
    // Narrowing would say this cannot change; the dispatch above changed it.
    if ((this.#session as SessionState).status !== 'running') return;
    this.#notice = undefined;
    const controller = new AbortController();
    this.#run = controller;
    this.#syncTools();
    await this.#provider?.refresh(controller.signal);
    await runAdapter(
      {
        adapter,
        agent: this.agent,
        tools: () => this.#provider?.tools() ?? [],
        dispatch: this.#dispatch,
        state: () => this.#session,
        onCall: (call) => this.#onCall(call),
        randomId: () => fallbackId('chat'),
      },
      controller.signal,
    );
    if (this.#run === controller) this.#run = undefined;
    this.requestUpdate();
  }

  #onCall(call: ActiveCall): () => void {
    this.#active.set(call.invocationId, call);
    this.#callStarts.set(call, Date.now());
    this.#highlightCall(call);
    if (this.#confirmationsOf) this.#onConfirmations(this.#confirmationsOf.confirmations.list());
    return () => {
      this.#active.delete(call.invocationId);
      if (this.#bindings.has(call.id)) {
        this.#bindings.delete(call.id);
        call.dispatch({ type: 'confirmation-settled', id: call.id });
      }
      if (this.#highlightState && this.#active.size === 0) this.#clearHighlight();
    };
  }

  // ---- showing where the agent acts ----------------------------------------------------------

  #highlightCall(call: ActiveCall): void {
    if (/^(off|false|none)$/i.test(this.highlight)) return;
    const id = call.tool?.capabilityId;
    if (!id) return;
    highlightModule.load().then(
      ({ locate }) => {
        // The call may have ended while the chunk arrived: nothing to point at then.
        if (!this.#active.has(call.invocationId) || !this.isConnected) return;
        const found = locate(this, id, call.tool?.instanceId);
        if (!found) return;
        this.#highlightState = { target: found.target, title: call.tool?.title ?? call.name };
        const reduced = globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
        found.box.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: reduced ? 'auto' : 'smooth' });
        this.#trackHighlight();
      },
      // Showing where the agent acts is a help, not a condition: the call runs without it.
      () => {},
    );
  }

  #trackHighlight = (): void => {
    const state = this.#highlightState;
    if (!state || !this.isConnected) return;
    state.rect = highlightModule.module?.rectOf(state.target);
    this.requestUpdate();
    requestAnimationFrame(() => {
      if (this.#highlightState === state) setTimeout(this.#trackHighlight, 100);
    });
  };

  #clearHighlight(): void {
    this.#highlightState = undefined;
    this.requestUpdate();
  }

  // ---- persistence ---------------------------------------------------------------------------

  #load(): void {
    const key = `${this.persist}|${conversationKey(this.id)}`;
    if (this.#loadedFrom === key) return;
    this.#loadedFrom = key;
    const text = stored(this.persist, conversationKey(this.id));
    if (!text) return;
    try {
      const messages = JSON.parse(text) as unknown;
      if (Array.isArray(messages)) this.#dispatch({ type: 'load', messages: messages as AgentMessage[] });
    } catch {
      // Not ours, or damaged: start empty.
    }
  }

  #saved: AgentMessage[] | undefined;
  #save(force = false): void {
    // Without a storage to keep it in, nothing is marked saved: setting `persist` later writes it then.
    if ((this.persist !== 'local' && this.persist !== 'session') || (!force && this.#session.status === 'running')) return;
    const messages = this.#session.messages;
    if (this.#saved === messages) return;
    this.#saved = messages;
    stored(this.persist, conversationKey(this.id), () => JSON.stringify(messages));
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  /** Whether focus was in the chat before this render (see `updated`). */
  #hadFocus = false;

  protected override willUpdate(changed: PropertyValues<this>): void {
    this.#hadFocus = !!this.shadowRoot?.activeElement;
    if (changed.has('persist') || !this.#loadedFrom) this.#load();
    this.#syncAdapter();
    this.#syncTools();
    this.#subscribeConfirmations(this.isConnected ? this.#registry : undefined);
  }

  protected override updated(): void {
    this.#save();
    if (this.#hadFocus && !this.shadowRoot!.activeElement) {
      // The focused control went away with this render (Send became Stop, Stop became Send, Retry's
      // notice closed, Edit opened its box): focus goes to the first text box (the edit box while a
      // message is edited, else the composer), else to the conversation, never to the page's body.
      (this.renderRoot.querySelector<HTMLElement>('textarea:enabled') ?? this.#part('log'))!.focus();
    }
    if (this.#focusApproval) this.#reveal = this.#focusApproval;
    this.#scheduleScroll();
    this.#trackApprovals();
    if (this.#focusApproval) {
      const id = this.#focusApproval;
      this.#focusApproval = undefined;
      // Focus moves to the card that needs the person, if the person was in the chat (never stolen from the page).
      const inside = this.matches(':focus-within') || this.ownerDocument.activeElement === this.ownerDocument.body;
      const deny = this.#part('deny', this.#card(id));
      if (inside && deny) deny.focus();
    }
    this.#announce();
    for (const key of this.#markdown.keys()) if (!this.#markdownUsed.has(key)) this.#markdown.delete(key);
  }

  /**
   * Scrolls the log (only the log, never the page) so that a card waiting for the person is in
   * view: otherwise it can sit below the log's visible part, where its Approve button never becomes
   * active (the guard sees it hidden) and nothing tells the person a decision is waiting.
   */
  #scheduleScroll(): void {
    if (this.#scrollFrame || (!this.#followLog && !this.#reveal) || typeof requestAnimationFrame !== 'function') return;
    // In the next frame, before it is laid out for painting: measuring here, right after the
    // render, would lay the log out one extra time per update (a long conversation opens slower).
    this.#scrollFrame = requestAnimationFrame(() => {
      this.#scrollFrame = 0;
      const log = this.#part('log');
      if (!log || !this.isConnected) return;
      if (this.#followLog) log.scrollTop = log.scrollHeight;
      if (this.#reveal) this.#revealInLog(log, this.#reveal);
      this.#reveal = undefined;
    });
  }

  #revealInLog(log: HTMLElement, id: string): void {
    const card = this.#card(id);
    if (!card) return;
    const box = card.getBoundingClientRect();
    const view = log.getBoundingClientRect();
    if (box.bottom > view.bottom) log.scrollTop += Math.min(box.bottom - view.bottom, box.top - view.top);
    else if (box.top < view.top) log.scrollTop -= view.top - box.top;
  }

  #onLogScroll(event: Event): void {
    const log = event.currentTarget as HTMLElement;
    this.#followLog = log.scrollHeight - log.scrollTop - log.clientHeight < 8;
  }

  /** Hands the cards' controls to the guard after each render, and wakes for the next change. */
  #trackApprovals(): void {
    clearTimeout(this.#timer);
    const bindings = [...this.#bindings.entries()];
    if (bindings.length && !this.#guard) {
      const module = guardModule.module;
      if (module) {
        this.#guard = new module.ApprovalGuard({ delay: () => this.activationDelay, onChange: () => this.requestUpdate() });
        this.#guard.connect(this.ownerDocument);
      } else {
        guardModule.load().then(
          () => this.requestUpdate(),
          (error: unknown) => console.error('<agent-chat>: the approval rules did not load; approvals wait and expire unanswered.', error),
        );
        return;
      }
    }
    const guard = this.#guard;
    if (!guard) return;
    const before = bindings.map(([, b]) => guard.ready(b.record.confirmationId));
    const controls = [];
    for (const [id, b] of bindings) {
      const card = this.#card(id);
      const approve = this.#part('approve', card);
      if (!card || !approve) continue;
      controls.push({ key: b.record.confirmationId, approve, deny: this.#part('deny', card) ?? undefined, box: card });
    }
    guard.track(controls);
    if (!bindings.length) return;
    const changed = bindings.some(([, b], i) => guard.ready(b.record.confirmationId) !== before[i]);
    // Wake for a button becoming active and for the countdown.
    let next = 1000 - (Date.now() % 1000);
    for (const [, b] of bindings) {
      const left = guard.readyIn(b.record.confirmationId);
      if (left > 0) next = Math.min(next, left);
    }
    this.#timer = setTimeout(() => this.requestUpdate(), changed ? 0 : Math.max(0, next) + 5);
  }

  /** What the live region says: finished messages and tool outcomes, never every token. */
  #announce(): void {
    const s = this.#session;
    const said: string[] = [];
    const walk = (messages: readonly AgentMessage[]) => {
      for (const m of messages)
        for (const p of m.parts) {
          if (p.type !== 'tool') continue;
          const was = this.#announced.get(p.id);
          if (was !== p.state && (p.state !== 'running' || was !== undefined)) {
            if (p.state === 'awaiting-confirmation') said.push(`Approval needed: ${p.prompt ?? p.name}`);
            else if (p.state !== 'running') said.push(`${p.name}: ${stateLabel(p)}`);
          }
          this.#announced.set(p.id, p.state);
          if (p.agent) walk(p.agent.messages);
        }
    };
    walk(s.messages);
    if (s.status !== 'running' && this.#announcedRun !== s.run && s.run > 0) {
      this.#announcedRun = s.run;
      const last = s.messages[s.messages.length - 1];
      if (s.status === 'error') said.push(`The agent failed: ${s.error?.error ?? ''}`);
      else if (s.status === 'aborted') said.push('Stopped.');
      else if (last?.role === 'assistant' && s.status === 'done') said.push(`Agent: ${messageText(last).slice(0, 300)}`);
    }
    if (said.length) this.#say(said.join('. '));
  }

  /** Puts words in the polite live region. */
  #say(text: string): void {
    const region = this.#part('announcer');
    if (region) region.textContent = text;
  }

  // ---- events --------------------------------------------------------------------------------

  #onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape' && this.#session.status === 'running') {
      event.preventDefault();
      this.stop();
    }
  };

  #onComposerKeydown(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.#submit();
    }
  }

  #submit(): void {
    const input = this.#part<HTMLTextAreaElement>('input');
    if (!input || this.#session.status === 'running') return;
    const text = input.value;
    if (!text.trim() || this.#status(this.#adapter).state !== 'ready') return;
    input.value = '';
    void this.#start({ type: 'send', text });
  }

  #onPrepare(event: Event): void {
    // prepare() runs only from the person's own click (a download can be large); a second click cancels it.
    if (!event.isTrusted) return;
    const adapter = this.#adapter;
    if (!adapter?.prepare) return;
    if (this.#preparing) {
      this.#preparing.abort();
      this.#preparing = undefined;
      this.requestUpdate();
      return;
    }
    const controller = new AbortController();
    this.#preparing = controller;
    this.#notice = undefined;
    this.requestUpdate();
    adapter
      .prepare(controller.signal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) this.#notice = messageOf(error, 'The setup failed.');
      })
      .finally(() => {
        if (this.#preparing === controller) this.#preparing = undefined;
        this.requestUpdate();
      });
  }

  #onAdapterChange(event: Event): void {
    const id = (event.target as HTMLSelectElement).value;
    if (this.#session.status === 'running') return;
    this.#adapterId = id;
    stored('local', ADAPTER_KEY, () => id);
    this.#preparing?.abort();
    this.#preparing = undefined;
    this.requestUpdate();
  }

  #onModelChange(event: Event): void {
    const id = (event.target as HTMLInputElement).value;
    const adapter = this.#adapter;
    if (!adapter?.selectModel || this.#session.status === 'running') return;
    this.#notice = undefined;
    // A selectModel that throws is refused as one that rejects; either way the render puts the radio back.
    new Promise<void>((resolve) => resolve(adapter.selectModel!(id))).then(
      () => this.requestUpdate(),
      (error: unknown) => {
        this.#notice = messageOf(error, 'That model cannot be selected now.');
        this.requestUpdate();
      },
    );
  }

  async #copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.#say('Copied.');
    } catch {
      this.#say('Copying is not allowed here.');
    }
  }

  // ---- rendering -----------------------------------------------------------------------------

  /** The element with `part` in the chat (or in `within`, when it is there). */
  #part<T extends HTMLElement = HTMLElement>(part: string, within: ParentNode | null = this.renderRoot): T | null {
    return within?.querySelector<T>(`[part~="${part}"]`) ?? null;
  }

  /** A tool call's card. */
  #card(id: string): HTMLElement | null {
    return this.renderRoot.querySelector(`[data-call="${CSS.escape(id)}"]`);
  }

  #markdownNode(key: string, text: string, open: boolean): HTMLElement {
    let entry = this.#markdown.get(key);
    // Text only grows while it streams; anything else (an edit, a retry) renders afresh.
    const grows =
      entry !== undefined &&
      !entry.ended &&
      text.length >= entry.text.length &&
      text.slice(Math.max(0, entry.text.length - 16), entry.text.length) === entry.text.slice(-16);
    if (!entry || (!grows && text !== entry.text)) {
      const el = this.ownerDocument.createElement('div');
      el.className = 'md';
      el.setAttribute('part', 'markdown');
      entry = { el, stream: createMarkdownStream(el), text: '', ended: false };
      this.#markdown.set(key, entry);
    }
    if (text.length > entry.text.length) entry.stream.write(text.slice(entry.text.length));
    entry.text = text;
    if (!open && !entry.ended) {
      entry.stream.end();
      entry.ended = true;
    }
    this.#markdownUsed.add(key);
    return entry.el;
  }

  #renderInput(input: unknown): TemplateResult {
    let formatted;
    try {
      formatted = formatInput(JSON.parse(JSON.stringify(input ?? {})) as JsonValue);
    } catch {
      return html`<p part="tool-input">The input is not JSON.</p>`;
    }
    if (!formatted.entries.length) return html`<p part="tool-input">No input.</p>`;
    return html`<dl part="tool-input" aria-label="Input">
      ${formatted.entries.map((e) => html`<dt>${e.path || 'value'}</dt><dd class="input-value">${e.value}</dd>`)}
      ${formatted.omitted ? html`<dt>…</dt><dd>${formatted.omitted} more values not shown</dd>` : nothing}
    </dl>`;
  }

  #renderApproval(p: AgentToolPart): TemplateResult | typeof nothing {
    const binding = this.#bindings.get(p.id);
    if (p.state !== 'awaiting-confirmation') return nothing;
    if (!binding) return html`<div class="approval" part="approval"><p>${p.prompt ?? 'Waiting for approval.'}</p></div>`;
    const { record } = binding;
    const inactive = this.#guard?.ready(record.confirmationId) ? 'false' : 'true';
    return html`<div class="approval" part="approval" role="group" aria-label=${`Approval for ${reveal(p.name)}`}>
      <p>${p.prompt}</p>
      ${this.#renderInput(record.input)}
      <div class="actions">
        <span class="countdown" part="countdown">Expires in ${formatRemaining(record.expiresAt - Date.now())}</span>
        <button type="button" part="deny" aria-disabled=${inactive} @click=${(e: Event) => this.#decide(e, p.id, false)}>Deny</button>
        <button type="button" part="approve" aria-disabled=${inactive} @click=${(e: Event) => this.#decide(e, p.id, true)}>
          Approve
        </button>
      </div>
    </div>`;
  }

  #renderTool(p: AgentToolPart, open: boolean): TemplateResult {
    const tool = this.#tool(p.name);
    const output = outputText(p.output);
    const untrusted = tool?.untrustedOutput ?? true;
    return html`<div class="tool" part="tool" data-call=${p.id} data-state=${p.state}>
      <details
        .open=${this.#openCards.has(p.id)}
        @toggle=${(e: Event) => {
          const opened = (e.target as HTMLDetailsElement).open;
          if (opened === this.#openCards.has(p.id)) return;
          if (opened) this.#openCards.add(p.id);
          else this.#openCards.delete(p.id);
          this.requestUpdate();
        }}
      >
        <summary part="tool-summary">
          <span class="tool-name" part="tool-name">${reveal(p.name)}</span>
          <span class="tool-state" part="tool-state">${stateLabel(p)}</span>
        </summary>
        ${this.#openCards.has(p.id) ? this.#renderToolBody(p, tool, output, untrusted) : nothing}
      </details>
      ${p.state === 'error' && (p.error || output)
        ? html`<pre part="tool-error">${registryError(p.error)?.message ?? p.error ?? output}</pre>`
        : nothing}
      ${this.#renderApproval(p)}
      ${p.agent
        ? html`<div class="nested" part="nested" role="group" aria-label=${`The ${p.agent.id} agent`}>
            ${this.#renderMessages(p.agent.messages, open && p.state === 'running', `${p.id}/`)}
          </div>`
        : nothing}
    </div>`;
  }

  /** What an open card shows: the capability's description, the input, the output or the error. */
  #renderToolBody(p: AgentToolPart, tool: ChatTool | undefined, output: string, untrusted: boolean): TemplateResult {
    return html`${tool ? html`<p part="tool-description">${tool.title}</p>` : nothing}
        ${this.#renderInput(p.input)}
        ${p.state === 'done' && output
          ? untrusted
            ? html`<pre part="tool-output">${output}</pre>`
            : html`<div part="tool-output">${this.#markdownNode(`${p.id}:output`, output, false)}</div>`
          : nothing}
        ${p.state === 'cancelled' && p.error ? html`<pre part="tool-error">${p.error}</pre>` : nothing}`;
  }

  #renderMessages(messages: readonly AgentMessage[], streaming: boolean, prefix = ''): TemplateResult[] {
    const running = this.#session.status === 'running';
    return messages.map((m, mi) => {
      const lastMessage = mi === messages.length - 1;
      if (m.role === 'user') {
        const text = messageText(m);
        const editing = !prefix && this.#editing?.id === m.id;
        return html`<div class="message user" part="message user">
          ${editing
            ? html`<textarea aria-label="Edit your message" .value=${this.#editing!.text}
                  @input=${(e: Event) => (this.#editing = { id: m.id, text: (e.target as HTMLTextAreaElement).value })}></textarea>
                <div class="message-actions">
                  <button type="button" @click=${() => ((this.#editing = undefined), this.requestUpdate())}>Cancel</button>
                  <button type="button" class="primary" @click=${() => {
                    const edit = this.#editing;
                    this.#editing = undefined;
                    if (edit) void this.#start({ type: 'edit', messageId: edit.id, text: edit.text });
                  }}>Send again</button>
                </div>`
            : html`<span class="visually-hidden">${prefix ? 'Task' : 'You'}: </span>${text}
                ${prefix
                  ? nothing
                  : html`<div class="message-actions">
                      <button type="button" aria-label="Copy your message" @click=${() => this.#copy(text)}>Copy</button>
                      <button type="button" aria-label="Edit and resend" ?disabled=${running}
                        @click=${() => ((this.#editing = { id: m.id, text }), this.requestUpdate())}>Edit</button>
                    </div>`}`}
        </div>`;
      }
      const parts = m.parts;
      const text = messageText(m);
      // Who wrote a message shows in its look only (the person's are bubbles): a screen reader reads it.
      return html`<div class="message assistant" part="message assistant"><span class="visually-hidden">Agent: </span>
        ${parts.map((p, pi) => {
          const open = streaming && lastMessage && pi === parts.length - 1;
          if (p.type === 'text') return this.#markdownNode(`${prefix}${m.id}:${pi}`, p.text, open);
          if (p.type === 'tool') return this.#renderTool(p, streaming && lastMessage);
          // Reasoning is kept for the next request and never shown.
          return nothing;
        })}
        ${!prefix && text && !(streaming && lastMessage)
          ? html`<div class="message-actions">
              <button type="button" aria-label="Copy the reply" @click=${() => this.#copy(text)}>Copy</button>
            </div>`
          : nothing}
      </div>`;
    });
  }

  #renderStatus(adapter: AgentAdapter | undefined, status: AdapterStatus): TemplateResult | typeof nothing {
    const preparing = !!this.#preparing;
    const prepareButton = (label: string) =>
      adapter?.prepare
        ? html`<button type="button" class=${preparing ? '' : 'primary'} part="prepare" @click=${(e: Event) => this.#onPrepare(e)}>
            ${preparing ? 'Cancel' : label}
          </button>`
        : nothing;
    const { state } = status;
    if (state === 'error')
      // A template of its own: the card is a new alert when setup fails, not an old card that turned into one.
      return html`<div class="status error" part="status" data-state="error" role="alert">
        <p>The agent could not start: ${status.error}</p>
        ${prepareButton('Try again')}
      </div>`;
    let body;
    if (state === 'needs-download') {
      const size = formatBytes(status.bytes);
      body = html`<p>This agent runs on your device. It needs a one-time download${size ? html` of <strong>${size}</strong>` : nothing}.</p>
        ${status.note ? html`<p part="status-note">${status.note}</p>` : nothing}
        ${prepareButton(size ? `Download ${size}` : 'Download')}`;
    } else if (state === 'downloading' || (state === 'loading' && status.progress !== undefined)) {
      body = html`<p id="progress-label">${state === 'loading' ? 'Loading the model from this device…' : 'Downloading the model…'} ${percent(status.progress!)}</p>
        <progress aria-labelledby="progress-label" max="1" .value=${unit(status.progress!)}></progress>
        ${preparing ? prepareButton('Cancel') : nothing}`;
    } else if (state === 'unavailable' || state === 'loading') body = html`<p>${this.#reason(status)}</p>`;
    else return nothing;
    return html`<div class="status" part="status" data-state=${state}>${body}</div>`;
  }

  #reason(status: AdapterStatus): string {
    switch (status.state) {
      case 'ready':
        return '';
      case 'unavailable':
        return status.reason || 'The agent is not available.';
      case 'needs-download':
        return 'Download the model to start chatting.';
      case 'downloading':
        return 'The model is downloading.';
      case 'loading':
        return status.progress === undefined ? status.note || 'Checking the connection to the agent…' : 'The model is loading.';
      case 'error':
        return 'The agent could not start.';
      default:
        return 'The agent is not ready.';
    }
  }

  #renderModels(adapter: AgentAdapter | undefined, status: AdapterStatus): TemplateResult | typeof nothing {
    const models = this.#models(adapter);
    if (models.length < 2 || !adapter?.selectModel) return nothing;
    // A download or load someone else started (the page's warm-up, a run) is busy too: selectModel refuses then.
    const busy = this.#session.status === 'running' || !!this.#preparing || 'progress' in status;
    return html`<fieldset class="models" part="models" ?disabled=${busy}>
      <legend>Model</legend>
      ${models.map(
        // Lit sets a property only when its value differs from the last render's, but a click checks a
        // radio behind lit's back: a fresh [] (true) or NaN (false, never equal to itself) makes every
        // render set `checked`, so the radios show the model in use, never one selectModel refused.
        (m) => html`<label>
          <input type="radio" name="model" .value=${m.id} .checked=${m.selected ? [] : NaN} @change=${(e: Event) => this.#onModelChange(e)} />
          <strong>${m.label}</strong>${m.recommended ? ' (recommended)' : ''}
          <small>
            ${m.brief}${m.bytes !== undefined ? ` · ${formatBytes(m.bytes)}` : ''}${m.cached ? ' · on this device' : m.bytes !== undefined ? ' · download' : ''}
          </small>
        </label>`,
      )}
    </fieldset>`;
  }

  protected override render(): TemplateResult {
    this.#markdownUsed = new Set();
    const adapter = this.#adapter;
    const list = this.#adapterList();
    const status = this.#status(adapter);
    const s = this.#session;
    const running = s.status === 'running';
    const ready = status.state === 'ready';
    const reason = this.#reason(status);
    // The status card already shows these words (why the agent is unavailable, what it is checking):
    // the composer's line keeps them for the input's description, out of sight, so they read once.
    const said = status.state === 'unavailable' || (status.state === 'loading' && status.progress === undefined);
    // The outline's box goes in as a property (`.style`, through the CSSOM), never a `style`
    // attribute: a page whose CSP refuses inline style attributes still gets it placed.
    const hl = this.#highlightState;
    const problem = this.#provider?.problem();
    return html`
      <header part="header">${list.length > 1
        ? html`<label>Agent
            <select part="adapter-select" ?disabled=${running} @change=${(e: Event) => this.#onAdapterChange(e)}>
              ${list.map((a) => html`<option .value=${a.id} ?selected=${a === adapter}>${a.label}</option>`)}
            </select>
          </label>`
        : nothing}${this.#renderModels(adapter, status)}</header>
      <div
        class="log"
        part="log"
        role="region"
        tabindex="-1"
        aria-label="Conversation"
        aria-busy=${running ? 'true' : 'false'}
        @scroll=${(e: Event) => this.#onLogScroll(e)}
      >
        ${this.#renderMessages(s.messages, running)}
      </div>
      ${this.#renderStatus(adapter, status)}
      ${s.status === 'error'
        ? html`<div class="notice error" part="notice" role="alert">
            <p>${s.error?.code ? ERROR_TEXT[s.error.code] : 'The agent failed.'} ${s.error?.error ?? ''}</p>
            <button type="button" @click=${() => this.retry()} ?disabled=${!ready}>Retry</button>
          </div>`
        : s.status === 'aborted' && s.messages.length
          ? html`<div class="notice" part="notice"><p>Stopped.</p><button type="button" @click=${() => this.retry()} ?disabled=${!ready}>Retry</button></div>`
          : nothing}
      ${this.#notice ? html`<div class="notice error" part="notice" role="alert"><p>${this.#notice}</p></div>` : nothing}
      ${problem ? html`<p class="reason" part="reason">No page tools: ${problem}</p>` : nothing}
      <p class=${said ? 'reason visually-hidden' : 'reason'} part="reason" id="reason" ?hidden=${ready}>${reason}</p>
      <form part="composer" @submit=${(e: Event) => (e.preventDefault(), this.#submit())}>
        <textarea
          part="input"
          rows="1"
          aria-label="Message"
          placeholder=${this.placeholder}
          ?disabled=${!ready}
          aria-describedby=${ready ? nothing : 'reason'}
          @keydown=${(e: KeyboardEvent) => this.#onComposerKeydown(e)}
        ></textarea>
        ${running
          ? html`<button type="button" part="stop" @click=${() => this.stop()}>Stop</button>`
          : html`<button type="submit" class="primary" part="send" ?disabled=${!ready}>Send</button>`}
      </form>
      <div class="visually-hidden" part="announcer" aria-live="polite" aria-atomic="true"></div>
      ${hl?.rect
        ? html`<div class="highlight" part="highlight" aria-hidden="true"
            .style=${`top:${hl.rect.top}px;left:${hl.rect.left}px;width:${hl.rect.width}px;height:${hl.rect.height}px`}>
            <span>${hl.title}</span>
          </div>`
        : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat': AgentChatElement;
  }
}
