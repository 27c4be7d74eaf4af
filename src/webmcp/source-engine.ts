/**
 * What a WebMCP tool source runs once it reads the host (source.ts loads it with `import()` on the
 * first `discover()` or `execute()`): reads `getTools()`, follows `toolchange`, numbers each
 * meaningful state with a revision, refuses to run a call planned against an older one, validates
 * arguments before calling. source.ts keeps the source's own state (listeners, disposal).
 */
import { createInterpreterValidator } from '../core/authority.js';
import { checkJson } from '../core/canonical-json.js';
import type { AgentRetry, JsonObject, JsonSchema, JsonValue, ToolResult, ValueValidator } from '../core/types.js';
import { detectModelContext } from './detect.js';
import { DISPOSED_MESSAGE, ToolSourceError, failed } from './source-error.js';
import type {
  ModelContextLike,
  RegisteredTool,
  ToolActivity,
  ToolCall,
  ToolDefinition,
  ToolSnapshot,
  ToolSourceErrorPayload,
  ToolSourceResult,
  WebMcpSourceOptions,
} from './types.js';

/** The parsed JSON text, or `undefined` when it is not JSON (JSON never parses to `undefined`). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const EMPTY_SCHEMA: JsonSchema = Object.freeze({ type: 'object', properties: {} }) as JsonSchema;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Some hosts list the schema as a JSON string; a tool input is always an object. */
function readSchema(raw: RegisteredTool['inputSchema']): JsonSchema {
  const schema: unknown = typeof raw === 'string' ? parseJson(raw) : raw;
  return isPlainObject(schema) ? (schema as JsonSchema) : EMPTY_SCHEMA;
}

function isMcpResult(value: unknown): value is ToolResult {
  return isPlainObject(value) && Array.isArray(value.content);
}

/** An error payload carried in a failed MCP result (our adapter's shape), when there is one. */
function errorFromContent(result: ToolResult): ToolSourceErrorPayload {
  const structured = result.structuredContent?.error;
  const text = result.content.map((c) => (c && typeof c.text === 'string' ? c.text : '')).join('\n');
  const candidate: unknown = isPlainObject(structured) ? structured : parseJson(text);
  if (isPlainObject(candidate) && typeof candidate.code === 'string' && typeof candidate.message === 'string') {
    const payload: ToolSourceErrorPayload = {
      code: candidate.code,
      message: candidate.message,
      retry: (typeof candidate.retry === 'string' ? candidate.retry : 'no') as AgentRetry,
    };
    if (isPlainObject(candidate.details)) payload.details = candidate.details as JsonObject;
    return payload;
  }
  return { code: 'EXECUTION_FAILED', message: text || 'The tool reported an error.', retry: 'no' };
}

/** `executeTool` answers a JSON string (or null); turn it into the MCP shape a model expects. */
function readOutput(raw: unknown): ToolSourceResult {
  let value: unknown = typeof raw === 'string' ? parseJson(raw) : raw;
  if (value === undefined) value = raw;
  if (isMcpResult(value)) {
    const result: ToolResult = { ...value, isError: value.isError === true };
    if (!result.isError) return { ok: true, output: value, result };
    const error = errorFromContent(result);
    return { ok: false, code: error.code, error, result };
  }
  const text = typeof raw === 'string' ? raw : raw === undefined || raw === null ? 'null' : JSON.stringify(raw);
  const result: ToolResult = { content: [{ type: 'text', text }], isError: false };
  if (isPlainObject(value)) result.structuredContent = value as JsonObject;
  return { ok: true, output: value ?? null, result };
}

/** A stable text for one listed tool: any difference here is a meaningful change. */
function fingerprint(tools: readonly ToolDefinition[]): string {
  return JSON.stringify(
    tools.map((t) => [t.name, t.title ?? null, t.description, t.inputSchema, t.readOnly ?? null, t.consequential ?? null, t.untrustedContent ?? null]),
  );
}

/** What source.ts gives an engine: how to tell its listeners, and whether it was disposed. */
export interface EngineOwner {
  notify(): void;
  /** Hands on a `toolactivated` / `toolcancel` of the host. */
  activity(activity: ToolActivity): void;
  readonly disposed: boolean;
}

/** A source's work on the host, made once per source on its first discovery or call. */
export interface SourceEngine {
  /** The current snapshot, fetched again if a `toolchange` came since. */
  load(): Promise<ToolSnapshot>;
  execute(toolCall: ToolCall, revisionPlanned: number, signal?: AbortSignal): Promise<ToolSourceResult>;
  /** Starts listening to the host (found now, if there is one), as a discovery would. */
  watch(): void;
  /** Stops listening to the host and forgets what it read. */
  dispose(): void;
}

/** The engine of one `createWebMcpSource(options)` (options checked there). */
export function createSourceEngine(options: WebMcpSourceOptions, owner: EngineOwner): SourceEngine {
  const ownWindow = 'window' in options ? options.window : (globalThis as { window?: unknown }).window;
  let host: ModelContextLike | undefined;
  let listening = false;
  let revision = 0;
  /** Bumped by every `toolchange`: a state seen before the bump is stale even if it looks the same. */
  let changes = 0;
  let current: { revision: number; changes: number; print: string; snapshot: ToolSnapshot; handles: Map<string, RegisteredTool> } | undefined;
  let inflight: Promise<ToolSnapshot> | undefined;
  let refreshQueued = false;
  /** Set once a host took a JSON string after refusing an object (the @mcp-b polyfill). */
  let wantsString = false;
  const validators = new Map<string, { schema: string; validate: ValueValidator }>();

  const onToolChange = () => {
    changes += 1;
    if (refreshQueued || owner.disposed) return;
    refreshQueued = true;
    queueMicrotask(() => {
      refreshQueued = false;
      if (owner.disposed) return;
      const before = revision;
      load().then(
        () => {
          if (revision !== before) owner.notify();
        },
        () => owner.notify(),
      );
    });
  };

  /** `toolactivated` / `toolcancel` (Chromium's host): the event's `toolName`, passed on as data. */
  const onActivityEvent = (event: Event) => {
    const toolId = (event as Event & { toolName?: unknown }).toolName;
    if (owner.disposed || typeof toolId !== 'string' || toolId === '') return;
    owner.activity(Object.freeze({ type: event.type === 'toolcancel' ? 'cancelled' : 'activated', toolId }));
  };
  /** The activity events this host has (`ontoolactivated` / `ontoolcancel` on it): none on the polyfill. */
  const activityTypes = (mc: ModelContextLike) => ['toolactivated', 'toolcancel'].filter((type) => `on${type}` in mc);

  function requireHost(): ModelContextLike {
    if (owner.disposed) throw new ToolSourceError('DISPOSED', DISPOSED_MESSAGE);
    host ??= detectModelContext(options);
    if (!host || typeof host.getTools !== 'function') {
      host = undefined;
      throw new ToolSourceError('UNSUPPORTED_WEBMCP', 'This page has no WebMCP host (document.modelContext) to read tools from.');
    }
    if (!listening && typeof host.addEventListener === 'function') {
      host.addEventListener('toolchange', onToolChange);
      for (const type of activityTypes(host)) host.addEventListener(type, onActivityEvent);
      listening = true;
    }
    return host;
  }

  async function fetchTools(mc: ModelContextLike): Promise<{ print: string; tools: ToolDefinition[]; handles: Map<string, RegisteredTool> }> {
    const listed = await mc.getTools!();
    const tools: ToolDefinition[] = [];
    const handles = new Map<string, RegisteredTool>();
    for (const raw of Array.isArray(listed) ? listed : []) {
      if (!raw || typeof raw.name !== 'string' || raw.name === '') continue;
      // Frames are out of scope: a tool of another window cannot be run from this one.
      if (ownWindow !== undefined && raw.window !== undefined && raw.window !== ownWindow) continue;
      if (handles.has(raw.name)) continue;
      const a = raw.annotations;
      // Developer tooling (the draft's `debugging`): not for an end-user agent unless asked for.
      if (a?.debugging === true && options.includeDebugging !== true) continue;
      const tool: ToolDefinition = {
        id: raw.name,
        name: raw.name,
        description: typeof raw.description === 'string' ? raw.description : '',
        inputSchema: readSchema(raw.inputSchema),
      };
      // Chromium lists "" for a tool without one: no title, not an empty one.
      if (typeof raw.title === 'string' && raw.title.trim() !== '') tool.title = raw.title;
      if (a && typeof a.readOnlyHint === 'boolean') tool.readOnly = a.readOnlyHint;
      // Only a boolean the host kept counts: the polyfill drops the hint, and a dropped hint is not
      // known, which is not the same as `false`.
      if (a && typeof a.consequentialHint === 'boolean') tool.consequential = a.consequentialHint;
      if (a && typeof a.untrustedContentHint === 'boolean') tool.untrustedContent = a.untrustedContentHint;
      tools.push(Object.freeze(tool));
      handles.set(raw.name, raw);
    }
    tools.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    return { print: fingerprint(tools), tools, handles };
  }

  /** One fetch at a time; a `toolchange` during a fetch is caught by comparing `changes` after it. */
  function load(): Promise<ToolSnapshot> {
    if (inflight) return inflight;
    const run = (async (): Promise<ToolSnapshot> => {
      const mc = requireHost();
      for (;;) {
        const seen = changes;
        const fetched = await fetchTools(mc);
        if (owner.disposed) throw new ToolSourceError('DISPOSED', DISPOSED_MESSAGE);
        if (seen !== changes) continue;
        // A re-registration that looks identical still moves the revision (`changes` moved).
        if (!current || current.print !== fetched.print || current.changes !== seen) {
          revision += 1;
          const snapshot: ToolSnapshot = Object.freeze({ revision, tools: Object.freeze(fetched.tools) });
          current = { revision, changes: seen, print: fetched.print, snapshot, handles: fetched.handles };
        }
        return current.snapshot;
      }
    })();
    inflight = run;
    const clear = () => {
      if (inflight === run) inflight = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  function validatorFor(tool: ToolDefinition): ValueValidator {
    const text = JSON.stringify(tool.inputSchema);
    const cached = validators.get(tool.id);
    if (cached && cached.schema === text) return cached.validate;
    const validate = createInterpreterValidator(tool.inputSchema);
    validators.set(tool.id, { schema: text, validate });
    return validate;
  }

  function isStale(revisionPlanned: number): boolean {
    return !current || current.revision !== revisionPlanned || current.changes !== changes;
  }

  function stale(revisionPlanned: number): ToolSourceResult {
    return failed('STALE_TOOLS', 'The page’s tools changed since this call was planned; discover again and re-plan.', {
      plannedRevision: revisionPlanned,
      ...(current ? { currentRevision: current.revision } : {}),
    });
  }

  async function call(mc: ModelContextLike, handle: RegisteredTool, input: JsonObject, signal: AbortSignal | undefined): Promise<unknown> {
    const opts = signal ? { signal } : undefined;
    if (wantsString) return mc.executeTool!(handle, JSON.stringify(input), opts);
    try {
      return await mc.executeTool!(handle, input, opts);
    } catch (error) {
      // The @mcp-b polyfill parses its input as a JSON string and refuses an object.
      if (/failed to parse input/i.test(String((error as Error)?.message ?? ''))) {
        wantsString = true;
        return mc.executeTool!(handle, JSON.stringify(input), opts);
      }
      throw error;
    }
  }

  return {
    load,

    async execute(toolCall: ToolCall, revisionPlanned: number, signal?: AbortSignal): Promise<ToolSourceResult> {
      if (owner.disposed) return failed('DISPOSED', DISPOSED_MESSAGE);
      let mc: ModelContextLike;
      try {
        mc = requireHost();
      } catch (error) {
        return error instanceof ToolSourceError ? failed(error.code, error.message) : failed('UNSUPPORTED_WEBMCP', String(error));
      }
      if (typeof mc.executeTool !== 'function') return failed('UNSUPPORTED_WEBMCP', 'This WebMCP host cannot run tools (no executeTool).');
      if (isStale(revisionPlanned)) return stale(revisionPlanned);
      const tools = current!.snapshot.tools;
      let id = toolCall?.toolId ?? toolCall?.name;
      if (id === undefined && typeof toolCall?.id === 'string' && tools.some((t) => t.id === toolCall.id)) id = toolCall.id;
      const tool = typeof id === 'string' ? tools.find((t) => t.id === id) : undefined;
      const handle = tool ? current!.handles.get(tool.id) : undefined;
      if (!tool || !handle) return failed('TOOL_NOT_FOUND', `No tool named ${JSON.stringify(id ?? null)} on this page.`, { revision: current!.revision });

      let input: unknown = toolCall.input ?? toolCall.arguments ?? {};
      if (typeof input === 'string') {
        input = parseJson(input);
        if (input === undefined) {
          return failed('INVALID_INPUT', 'The input is not JSON.', { issues: [{ path: '', message: 'must be a JSON object' }] });
        }
      }
      const json = checkJson(input);
      if (!json.ok) return failed('INVALID_INPUT', 'The input is not JSON.', { issues: [{ path: json.path, message: json.reason }] });
      if (!isPlainObject(input)) return failed('INVALID_INPUT', 'The input must be a JSON object.', { issues: [{ path: '', message: 'must be an object' }] });
      const outcome = await validatorFor(tool)(input as JsonValue);
      if (!outcome.valid) {
        return failed('INVALID_INPUT', `The input does not match ${tool.name}'s schema.`, {
          issues: outcome.issues.map((i) => ({ path: i.path, message: i.message, ...(i.keyword ? { keyword: i.keyword } : {}) })),
        });
      }
      // Validation may have loaded the interpreter: look again before anything runs.
      if (owner.disposed) return failed('DISPOSED', DISPOSED_MESSAGE);
      if (isStale(revisionPlanned)) return stale(revisionPlanned);
      if (signal?.aborted) return failed('CANCELLED', 'The call was cancelled before it ran.');
      const seen = current!;
      try {
        // Hosts run a handle by its name and tell `toolchange` only later (a task after the
        // change): a tool replaced under that name since the list was read would run in place of
        // the planned one. So the list is read again right before the call, with nothing between.
        const fresh = await fetchTools(mc);
        if (owner.disposed) return failed('DISPOSED', DISPOSED_MESSAGE);
        // A change the host has not told yet: count it as its toolchange will, so the next
        // discovery reads the new list.
        if (fresh.print !== seen.print) onToolChange();
        if (isStale(revisionPlanned)) return stale(revisionPlanned);
        if (signal?.aborted) return failed('CANCELLED', 'The call was cancelled before it ran.');
        return readOutput(await call(mc, handle, input as JsonObject, signal));
      } catch (error) {
        if (signal?.aborted) return failed('CANCELLED', 'The call was cancelled.');
        const e = error as { name?: unknown; message?: unknown };
        return failed('EXECUTION_FAILED', typeof e?.message === 'string' && e.message ? e.message : 'The tool failed.', {
          errorName: typeof e?.name === 'string' ? e.name : 'Error',
        });
      }
    },

    watch(): void {
      try {
        requireHost();
      } catch {
        // No host (yet): the first discover() says so.
      }
    },

    dispose(): void {
      validators.clear();
      if (listening && host && typeof host.removeEventListener === 'function') {
        host.removeEventListener('toolchange', onToolChange);
        for (const type of activityTypes(host)) host.removeEventListener(type, onActivityEvent);
      }
      listening = false;
      current = undefined;
    },
  };
}
