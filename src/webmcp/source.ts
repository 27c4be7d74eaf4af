/**
 * `createWebMcpSource`: the page's WebMCP tools as a ToolSource for an in-page agent (the chat).
 * Reads `getTools()`, follows `toolchange`, numbers each meaningful state with a revision, and
 * refuses to run a call planned against an older one.
 */
import { createInterpreterValidator } from '../core/authority.js';
import { checkJson } from '../core/canonical-json.js';
import type { AgentRetry, JsonObject, JsonSchema, JsonValue, ToolResult, ValueValidator } from '../core/types.js';
import { detectModelContext } from './detect.js';
import { DISCOVERY_CANCELLED_MESSAGE, DISPOSED_MESSAGE, ToolSourceError, checkSourceOptions, failed } from './source-error.js';
import type {
  ModelContextLike,
  RegisteredTool,
  ToolCall,
  ToolDefinition,
  ToolSnapshot,
  ToolSource,
  ToolSourceErrorPayload,
  ToolSourceResult,
  WebMcpSourceOptions,
} from './types.js';

// Re-exported: `agent-surface-kit/webmcp` has always exported it from here.
export { ToolSourceError };

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
  return JSON.stringify(tools.map((t) => [t.name, t.description, t.inputSchema, t.readOnly ?? null, t.consequential ?? null, t.untrustedContent ?? null]));
}

/**
 * The page's WebMCP tools (`options.modelContext`, `document.modelContext`, `navigator.modelContext`)
 * as a ToolSource. Construction never throws; the first `discover()` throws `UNSUPPORTED_WEBMCP`
 * where there is no host.
 */
export function createWebMcpSource(options: WebMcpSourceOptions = {}): ToolSource {
  checkSourceOptions(options);
  const ownWindow = 'window' in options ? options.window : (globalThis as { window?: unknown }).window;
  const listeners = new Set<() => void>();
  let host: ModelContextLike | undefined;
  let listening = false;
  let disposed = false;
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
    if (refreshQueued || disposed) return;
    refreshQueued = true;
    queueMicrotask(() => {
      refreshQueued = false;
      if (disposed) return;
      const before = revision;
      load().then(
        () => {
          if (revision !== before) notify();
        },
        () => notify(),
      );
    });
  };

  function notify(): void {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  function requireHost(): ModelContextLike {
    if (disposed) throw new ToolSourceError('DISPOSED', DISPOSED_MESSAGE);
    host ??= detectModelContext(options);
    if (!host || typeof host.getTools !== 'function') {
      host = undefined;
      throw new ToolSourceError('UNSUPPORTED_WEBMCP', 'This page has no WebMCP host (document.modelContext) to read tools from.');
    }
    if (!listening && typeof host.addEventListener === 'function') {
      host.addEventListener('toolchange', onToolChange);
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
      const tool: ToolDefinition = {
        id: raw.name,
        name: raw.name,
        description: typeof raw.description === 'string' ? raw.description : '',
        inputSchema: readSchema(raw.inputSchema),
      };
      if (a && typeof a.readOnlyHint === 'boolean') tool.readOnly = a.readOnlyHint;
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
        if (disposed) throw new ToolSourceError('DISPOSED', DISPOSED_MESSAGE);
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
    discover(signal?: AbortSignal): Promise<ToolSnapshot> {
      if (signal?.aborted) return Promise.reject(new ToolSourceError('CANCELLED', DISCOVERY_CANCELLED_MESSAGE));
      const loading = load();
      if (!signal) return loading;
      return new Promise<ToolSnapshot>((resolve, reject) => {
        const onAbort = () => reject(new ToolSourceError('CANCELLED', DISCOVERY_CANCELLED_MESSAGE));
        signal.addEventListener('abort', onAbort, { once: true });
        loading.then(
          (s) => {
            signal.removeEventListener('abort', onAbort);
            resolve(s);
          },
          (e: unknown) => {
            signal.removeEventListener('abort', onAbort);
            reject(e);
          },
        );
      });
    },

    async execute(toolCall: ToolCall, revisionPlanned: number, signal?: AbortSignal): Promise<ToolSourceResult> {
      if (disposed) return failed('DISPOSED', DISPOSED_MESSAGE);
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
      if (disposed) return failed('DISPOSED', DISPOSED_MESSAGE);
      if (isStale(revisionPlanned)) return stale(revisionPlanned);
      if (signal?.aborted) return failed('CANCELLED', 'The call was cancelled before it ran.');
      try {
        return readOutput(await call(mc, handle, input as JsonObject, signal));
      } catch (error) {
        if (signal?.aborted) return failed('CANCELLED', 'The call was cancelled.');
        const e = error as { name?: unknown; message?: unknown };
        return failed('EXECUTION_FAILED', typeof e?.message === 'string' && e.message ? e.message : 'The tool failed.', {
          errorName: typeof e?.name === 'string' ? e.name : 'Error',
        });
      }
    },

    subscribe(listener: () => void): () => void {
      if (disposed) throw new ToolSourceError('DISPOSED', DISPOSED_MESSAGE);
      if (typeof listener !== 'function') throw new TypeError('ToolSource.subscribe(listener): listener must be a function.');
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    dispose(): void {
      if (disposed) return;
      disposed = true;
      listeners.clear();
      validators.clear();
      if (listening && host && typeof host.removeEventListener === 'function') host.removeEventListener('toolchange', onToolChange);
      listening = false;
      current = undefined;
    },
  };
}
