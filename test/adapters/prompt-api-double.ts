// A double of Chrome's Prompt API (`LanguageModel`) written from its published Web IDL, for the
// states and designs this Chromium build cannot reach (it reports "unavailable", and its `tools`
// option is off). Sources:
// - the spec draft, https://webmachinelearning.github.io/prompt-api/ (index.bs, 2026-06): 
//     static Promise<LanguageModel> create(optional LanguageModelCreateOptions options = {});
//     static Promise<Availability> availability(optional LanguageModelCreateCoreOptions options = {});
//     Promise<LanguageModelPromptResult> prompt(LanguageModelPrompt input, optional LanguageModelPromptOptions options = {});
//     ReadableStream promptStreaming(LanguageModelPrompt input, optional LanguageModelPromptOptions options = {});
//     undefined destroy();
//     dictionary LanguageModelCreateCoreOptions { topK; temperature; samplingMode; expectedInputs; expectedOutputs; tools; };
//     dictionary LanguageModelCreateOptions : LanguageModelCreateCoreOptions { signal; monitor; initialPrompts; };
//     dictionary LanguageModelPromptOptions { object responseConstraint; boolean omitResponseConstraintInput; AbortSignal signal; };
//     dictionary LanguageModelTool { name; description; inputSchema; required LanguageModelToolFunction execute; };
//     CreateMonitor : EventTarget, fires "downloadprogress" ProgressEvents (loaded of total 1).
// - webref's IDL of the same spec as Chromium ships it behind AIPromptAPIToolUse
//   (web-platform-tests/wpt interfaces/prompt-api.idl):
//     dictionary LanguageModelToolDeclaration { name; description; inputSchema; };  (no execute)
//     typedef (DOMString or sequence<LanguageModelMessageContent>) LanguageModelPromptResult;
//     enum LanguageModelMessageType { "text", "image", "audio", "tool-call", "tool-response" };
//     interface LanguageModelToolCall { callId; name; object? arguments; };
//     interface LanguageModelToolSuccess { callId; name; FrozenArray<LanguageModelToolResultContent> result; };
//     interface LanguageModelToolError { callId; name; errorMessage; };
//   Chromium spells the id `callID`; the classes below take either.
// Activation (index.bs, create()): a model still to download ("downloadable" or "downloading") is
//     created only while the page has transient activation, read when create() is called; else
//     a "NotAllowedError" DOMException. On with `requireActivation`.
// Refusals (index.bs, "initialize the language model" and "validating and canonicalizing a prompt"):
//     create() whose options' availability is "unavailable" rejects with a "NotSupportedError"
//     DOMException, and so does a prompt with content the model was not set up for; an assistant
//     message whose content is not text is a "NotSupportedError" too. The errors table: a
//     NotSupportedError is input "not provided properly in the call to create()".
// Web IDL's dictionary conversion reads each member the dictionary declares, by name, and nothing
// else: `convert` does the same, so an option a design does not declare is never seen, as in a
// browser that does not know it.
import type { LanguageModelLike } from '../../src/adapters/local/index.js';

export type Availability = 'unavailable' | 'downloadable' | 'downloading' | 'available';
export type Design = 'none' | 'execute' | 'declared';

const CORE = ['expectedInputs', 'expectedOutputs', 'samplingMode', 'temperature', 'topK'];
const CREATE = ['initialPrompts', 'monitor', 'signal'];
const PROMPT = ['omitResponseConstraintInput', 'responseConstraint', 'signal'];
const TYPES = ['text', 'image', 'audio', 'tool-call', 'tool-response'];

function convert(options: unknown, members: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (options === undefined || options === null) return out;
  for (const m of members) {
    const v = (options as Record<string, unknown>)[m];
    if (v !== undefined) out[m] = v;
  }
  return out;
}

export class ToolCall {
  callID: string;
  callId: string;
  name: string;
  arguments: object | null;
  constructor(init: { callID?: string; callId?: string; name: string; arguments?: object }) {
    this.callID = this.callId = String(init.callID ?? init.callId);
    this.name = init.name;
    this.arguments = init.arguments ?? null;
  }
}
export class ToolSuccess {
  callID: string;
  name: string;
  result: ReadonlyArray<{ type: string; value: unknown }>;
  constructor(init: { callID?: string; callId?: string; name: string; result: Array<{ type: string; value: unknown }> }) {
    this.callID = String(init.callID ?? init.callId);
    this.name = init.name;
    this.result = Object.freeze([...init.result]);
  }
}
export class ToolError {
  callID: string;
  name: string;
  errorMessage: string;
  constructor(init: { callID?: string; callId?: string; name: string; errorMessage: string }) {
    this.callID = String(init.callID ?? init.callId);
    this.name = init.name;
    this.errorMessage = init.errorMessage;
  }
}

const CLASSES = { LanguageModelToolCall: ToolCall, LanguageModelToolSuccess: ToolSuccess, LanguageModelToolError: ToolError };

/** Exposes the `declared` design's classes on the window, as Chromium does behind its flag. Returns the undo. */
export function exposeToolClasses(): () => void {
  const g = globalThis as Record<string, unknown>;
  for (const [k, v] of Object.entries(CLASSES)) g[k] = v;
  return () => {
    for (const k of Object.keys(CLASSES)) delete g[k];
  };
}

export interface DoubleTool {
  name: string;
  description: string;
  inputSchema: object;
  execute?: (input: unknown) => Promise<string>;
}

export interface PromptContext {
  input: unknown;
  options: Record<string, unknown>;
  create: Record<string, unknown>;
  tools: DoubleTool[];
  signal?: AbortSignal;
}

export type Reply = string | Array<{ type: string; value: unknown }>;

/** create() waits on the test to move a download along (`step`), so no timing is involved. */
export class LanguageModelDouble implements LanguageModelLike {
  availabilityValue: Availability;
  /** Which tool design this browser implements. */
  design: Design;
  /** availability() for options that declare tools (a model that cannot use tools says "unavailable"). */
  toolAvailability?: Availability;
  /** Every create() and availability() call's options, as the browser converted them. */
  createCalls: Array<Record<string, unknown>> = [];
  availabilityCalls: Array<Record<string, unknown>> = [];
  prompts: PromptContext[] = [];
  destroyed = 0;
  failCreate?: DOMException;
  /** create() of a model still to download needs `navigator.userActivation.isActive` when it is called. */
  requireActivation = false;
  /**
   * A browser that reads the tools (so the probe finds its design) and still refuses them with a
   * NotSupportedError: when a session is created with tools, or at that session's first prompt.
   */
  refuseTools?: 'create' | 'prompt';
  /** The spec draft's prompt rule: an assistant message holds only text (else NotSupportedError). */
  assistantTextOnly = false;
  /** How many times the browser refused (each a NotSupportedError). */
  refusals = 0;
  /** False: a build whose prompt options lack `responseConstraint` (it is then never read). */
  knowsResponseConstraint = true;
  reply: (c: PromptContext) => Reply | Promise<Reply> = () => 'Hello from the built-in model.';
  private pendingDownload?: { monitor: EventTarget; resolve: () => void; reject: (e: unknown) => void };

  constructor(availability: Availability, design: Design = 'none') {
    this.availabilityValue = availability;
    this.design = design;
  }

  private convertCore(options: unknown, extra: string[]): Record<string, unknown> {
    const o = convert(options, [...CORE, ...extra].sort());
    for (const list of [o.expectedInputs, o.expectedOutputs] as Array<Array<{ type: string }> | undefined>) {
      for (const e of list ?? []) if (!TYPES.includes(e.type)) throw new TypeError(`The provided value '${e.type}' is not a valid enum value of type LanguageModelMessageType.`);
    }
    if (this.design !== 'none') {
      const tools = (options as Record<string, unknown> | undefined)?.tools as unknown[] | undefined;
      if (tools !== undefined) {
        const members = this.design === 'execute' ? ['description', 'execute', 'inputSchema', 'name'] : ['description', 'inputSchema', 'name'];
        o.tools = tools.map((t) => {
          const tool = convert(t, members) as unknown as DoubleTool;
          for (const m of members) if (!(m in tool)) throw new TypeError(`Failed to read the '${m}' property from 'LanguageModelTool': Required member is undefined.`);
          return tool;
        });
      }
    }
    return o;
  }

  async availability(options?: Record<string, unknown>): Promise<Availability> {
    const o = this.convertCore(options, []);
    this.availabilityCalls.push(o);
    if ((o.tools as unknown[] | undefined)?.length && this.toolAvailability) return this.toolAvailability;
    return this.availabilityValue;
  }

  async create(options: Record<string, unknown> = {}) {
    const o = this.convertCore(options, CREATE);
    this.createCalls.push(o);
    const signal = o.signal as AbortSignal | undefined;
    signal?.throwIfAborted();
    if (this.failCreate) throw this.failCreate;
    if (this.requireActivation && this.availabilityValue !== 'available' && !navigator.userActivation.isActive) {
      throw new DOMException('Requires a user gesture when availability is "downloading" or "downloadable".', 'NotAllowedError');
    }
    if (this.refuseTools === 'create' && (o.tools as unknown[] | undefined)?.length) this.refuse('The model cannot use the given tools.');
    if (this.assistantTextOnly) this.checkAssistant(o.initialPrompts);
    if (this.availabilityValue === 'unavailable') throw new DOMException('The model is not available.', 'NotSupportedError');
    if (this.availabilityValue !== 'available') {
      const monitor = new EventTarget();
      (o.monitor as ((m: EventTarget) => void) | undefined)?.(monitor);
      await new Promise<void>((resolve, reject) => {
        this.pendingDownload = { monitor, resolve, reject };
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      this.availabilityValue = 'available';
    }
    return this.session(o);
  }

  private refuse(message: string): never {
    this.refusals += 1;
    throw new DOMException(message, 'NotSupportedError');
  }

  private checkAssistant(messages: unknown): void {
    if (!Array.isArray(messages)) return;
    for (const m of messages as Array<{ role: string; content: unknown }>) {
      if (m.role === 'assistant' && Array.isArray(m.content) && m.content.some((c: { type: string }) => c.type !== 'text')) this.refuse("An assistant message's content must be text.");
    }
  }

  /** Moves the download on: fires a progress event, and finishes it at 1. */
  step(loaded: number): void {
    const d = this.pendingDownload!;
    d.monitor.dispatchEvent(new ProgressEvent('downloadprogress', { loaded, total: 1 }));
    if (loaded >= 1) d.resolve();
  }

  get downloadStarted(): boolean {
    return !!this.pendingDownload;
  }

  private session(create: Record<string, unknown>) {
    let prompted = false;
    const context = (input: unknown, raw: unknown): PromptContext => {
      const first = !prompted;
      prompted = true;
      if (first && this.refuseTools === 'prompt' && (create.tools as unknown[] | undefined)?.length) this.refuse('The model cannot use tools in this session.');
      if (this.assistantTextOnly) this.checkAssistant(input);
      const options = convert(raw, this.knowsResponseConstraint ? PROMPT : PROMPT.filter((m) => m !== 'responseConstraint'));
      const c = { input, options, create, tools: (create.tools as DoubleTool[] | undefined) ?? [], signal: options.signal as AbortSignal | undefined };
      this.prompts.push(c);
      return c;
    };
    // Rejects with the signal's reason as soon as it aborts, whatever the reply is doing.
    const abortable = <T>(p: Promise<T>, signal?: AbortSignal): Promise<T> =>
      signal
        ? Promise.race([p, new Promise<never>((_, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          })])
        : p;
    return {
      prompt: async (input: unknown, options?: Record<string, unknown>) => {
        const c = context(input, options);
        c.signal?.throwIfAborted();
        return abortable(Promise.resolve(this.reply(c)), c.signal);
      },
      promptStreaming: (input: unknown, options?: Record<string, unknown>) => {
        const c = context(input, options);
        let pieces: string[] | undefined;
        return new ReadableStream<string>({
          pull: async (controller) => {
            try {
              pieces ??= ((await abortable(Promise.resolve(this.reply(c)), c.signal)) as string).match(/.{1,5}/gs) ?? [];
            } catch (e) {
              return controller.error(e);
            }
            const next = pieces.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(next);
          },
        });
      },
      destroy: () => {
        this.destroyed += 1;
      },
    };
  }
}
