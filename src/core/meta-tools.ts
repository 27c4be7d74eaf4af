/**
 * Meta-tools mode (Experimental): three fixed tools, `surface_discover`, `surface_read` and
 * `surface_act`, that discover capabilities lazily. It changes the projection, not execution: every
 * read and action goes through `registry.invoke` like a direct tool.
 *
 * Also home of the scope algebra both modes share: configured scope is a floor that a model's scope
 * may narrow but never widen.
 */
import { jsonPointer, utf8Length } from './canonical-json.js';
import { deepFreeze } from './util.js';
import { issueWarning, DEV_MODE } from './dev.js';
import { errorPayload } from './errors.js';
import type {
  AgentConsumer,
  AgentErrorPayload,
  AgentInvocationResult,
  AgentSurfaceRegistry,
  AgentTool,
  AgentToolCall,
  CapabilityDescriptor,
  JsonObject,
  JsonSchema,
  JsonValue,
  SurfaceSnapshot,
} from './types.js';

// ---------------------------------------------------------------------------------------------
// Scope algebra

/**
 * One scope entry: an optional plane and a segment prefix (`view:devices` → view, ["devices"];
 * `view:` → the whole view plane, path []).
 */
export interface ScopeEntry {
  plane?: 'view' | 'domain';
  path: string[];
}

/**
 * Parses a scope entry in the registry's syntax (scope.ts): `devices.table`, `view:devices`,
 * `view:` (a whole plane); a trailing `.*` or `.` says the same as without. Stricter than the
 * registry, which ignores what it cannot read: `undefined` for a blank entry, an unknown plane or
 * an empty segment, so a typo in a configured scope is an error instead of a silent no-op.
 */
export function parseScopeEntry(text: unknown): ScopeEntry | undefined {
  if (typeof text !== 'string') return undefined;
  let rest = text.trim();
  let plane: ScopeEntry['plane'];
  const colon = rest.indexOf(':');
  if (colon >= 0) {
    const p = rest.slice(0, colon);
    if (p !== 'view' && p !== 'domain') return undefined;
    plane = p;
    rest = rest.slice(colon + 1);
  }
  if (rest === '*') rest = '';
  else if (rest.endsWith('.*')) rest = rest.slice(0, -2);
  else if (rest.endsWith('.')) rest = rest.slice(0, -1);
  if (rest === '') return plane === undefined ? undefined : { plane, path: [] };
  if (rest.includes(':') || rest.includes('*')) return undefined;
  const path = rest.split('.');
  if (path.some((segment) => segment.trim() !== segment || segment.length === 0)) return undefined;
  return plane === undefined ? { path } : { plane, path };
}

export function formatScopeEntry(entry: ScopeEntry): string {
  return (entry.plane ? `${entry.plane}:` : '') + entry.path.join('.');
}

function isPathPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== path[i]) return false;
  return true;
}

/** The entry both `a` and `b` allow, or `undefined` when they share nothing. */
export function intersectScopeEntries(a: ScopeEntry, b: ScopeEntry): ScopeEntry | undefined {
  if (a.plane && b.plane && a.plane !== b.plane) return undefined;
  const plane = a.plane ?? b.plane;
  let path: string[];
  if (isPathPrefix(a.path, b.path)) path = b.path;
  else if (isPathPrefix(b.path, a.path)) path = a.path;
  else return undefined;
  return plane === undefined ? { path } : { plane, path };
}

export interface NarrowedScope {
  /** `undefined`: no restriction at all. `[]`: nothing is in scope. */
  scope: string[] | undefined;
  rejected: string[];
}

/**
 * Narrows the configured floor with a model-supplied scope. An empty or absent request means no
 * extra narrowing; a requested prefix wider than the floor is cut down to the floor; a prefix that
 * shares nothing with the floor is rejected.
 */
export function narrowScope(
  floor: readonly ScopeEntry[] | undefined,
  requested: readonly ScopeEntry[] | undefined,
): NarrowedScope {
  const floorText = floor?.map(formatScopeEntry);
  if (!requested || requested.length === 0) return { scope: floorText, rejected: [] };
  if (!floor) return { scope: dedupe(requested.map(formatScopeEntry)), rejected: [] };
  const scope: string[] = [];
  const rejected: string[] = [];
  for (const want of requested) {
    let any = false;
    for (const base of floor) {
      const both = intersectScopeEntries(want, base);
      if (both) {
        scope.push(formatScopeEntry(both));
        any = true;
      }
    }
    if (!any) rejected.push(formatScopeEntry(want));
  }
  return { scope: dedupe(scope), rejected: dedupe(rejected) };
}

function dedupe(items: string[]): string[] {
  return [...new Set(items)];
}

// ---------------------------------------------------------------------------------------------
// Constant tool definitions

const SCOPE_TEXT = 'segment prefixes of capability paths, like "devices" or "view:devices.table"';

/** The three input schemas: the same frozen objects for every toolset and every surface state. */
export const META_TOOL_SCHEMAS = deepFreeze({
  surface_discover: {
    type: 'object',
    properties: {
      scope: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        description: `Optional narrowing: ${SCOPE_TEXT}.`,
      },
    },
    additionalProperties: false,
  },
  surface_read: {
    type: 'object',
    properties: {
      capabilityId: { type: 'string', minLength: 1, description: 'An observation id from surface_discover.' },
      instanceId: { type: 'string', description: 'The instance, when the capability has several.' },
    },
    required: ['capabilityId'],
    additionalProperties: false,
  },
  surface_act: {
    type: 'object',
    properties: {
      capabilityId: { type: 'string', minLength: 1, description: 'A capability id from surface_discover.' },
      instanceId: { type: 'string', description: 'The instance, when the capability has several.' },
      input: { type: 'object', description: "The capability's input, matching its inputSchema." },
      invocationId: {
        type: 'string',
        minLength: 1,
        description: 'Reuse it to retry the same call (after a confirmation too).',
      },
      confirmationId: {
        type: 'string',
        minLength: 1,
        description: 'From a CONFIRMATION_REQUIRED result, once the person approved.',
      },
      surfaceVersion: {
        type: 'string',
        minLength: 1,
        description: 'From surface_discover: the call fails safely if the page changed since.',
      },
    },
    required: ['capabilityId', 'input'],
    additionalProperties: false,
  },
} satisfies Record<string, JsonSchema>);

export const META_TOOL_DESCRIPTIONS = deepFreeze({
  surface_discover:
    'List what this page lets you do: capability ids, instances, kind, effect, confirmation, description, ' +
    `input schema and live state, with the surfaceVersion they belong to. Pass scope (${SCOPE_TEXT}) to narrow. ` +
    'Call it again to see changes; a new surfaceVersion means the page changed.',
  surface_read:
    'Read an observation (kind "observation") found with surface_discover. Give instanceId when it has several instances.',
  surface_act:
    'Run a capability found with surface_discover, with input matching its inputSchema. Pass surfaceVersion from ' +
    'discovery so a call planned on a changed page fails safely. To retry the same call, reuse invocationId; after a ' +
    "CONFIRMATION_REQUIRED result and the person's approval, call again with its confirmationId and invocationId.",
});

export type MetaToolName = keyof typeof META_TOOL_SCHEMAS;

// ---------------------------------------------------------------------------------------------
// Envelope checks

interface Issue {
  path: string;
  message: string;
}

type Envelope = Record<string, unknown>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks a verb's arguments against its fixed schema by hand (no validator needed for three small
 * shapes): unknown and missing properties, and wrong types, are reported with JSON pointers.
 */
function checkEnvelope(
  tool: MetaToolName,
  args: unknown,
): { ok: true; value: Envelope } | { ok: false; issues: Issue[] } {
  const schema = META_TOOL_SCHEMAS[tool] as {
    properties: Record<string, unknown>;
    required?: readonly string[];
  };
  if (args === undefined && !schema.required) return { ok: true, value: {} };
  if (!isPlainObject(args))
    return { ok: false, issues: [{ path: '', message: 'the arguments must be an object' }] };
  const issues: Issue[] = [];
  const issue = (path: string, message: string) => void issues.push({ path, message });
  for (const key of Object.keys(args)) {
    if (!Object.hasOwn(schema.properties, key)) issue(jsonPointer([key]), `unknown property "${key}"`);
  }
  for (const key of schema.required ?? []) {
    if (args[key] === undefined) issue(`/${key}`, `missing required property "${key}"`);
  }
  for (const key of ['capabilityId', 'invocationId', 'confirmationId', 'surfaceVersion']) {
    if (args[key] !== undefined && (typeof args[key] !== 'string' || args[key] === ''))
      issue(`/${key}`, `${key} must be a non-empty string`);
  }
  if (args.instanceId !== undefined && typeof args.instanceId !== 'string')
    issue('/instanceId', 'instanceId must be a string');
  const { scope, input } = args;
  if (scope !== undefined && !Array.isArray(scope)) issue('/scope', 'scope must be an array of strings');
  else
    scope?.forEach((entry: unknown, i: number) => {
      if (!parseScopeEntry(entry)) issue(`/scope/${i}`, `not a scope prefix: use ${SCOPE_TEXT}`);
    });
  if (input !== undefined && !isPlainObject(input) && typeof input !== 'string')
    issue('/input', 'input must be an object');
  return issues.length ? { ok: false, issues } : { ok: true, value: args };
}

// ---------------------------------------------------------------------------------------------
// The tools

/** What the toolset hands the meta tools: the registry seams plus its shared call path. */
export interface MetaHost {
  registry: AgentSurfaceRegistry;
  consumer: AgentConsumer;
  floor: readonly ScopeEntry[] | undefined;
  /** Whether an id is inside the floor (the registry's own matcher, so both agree). */
  inFloor(capabilityId: string): boolean;
  budget: { maxComponents?: number; maxBytes?: number } | undefined;
  /** Runs one invocation with the toolset's confirmation handling. */
  call(
    request: {
      capabilityId: string;
      instanceId?: string;
      input: unknown;
      invocationId?: string;
      confirmationId?: string;
      surfaceVersion?: string;
    },
    call: AgentToolCall | undefined,
  ): Promise<AgentInvocationResult>;
  /** A result the toolset answers itself, without the registry. */
  fail(error: AgentErrorPayload, call: AgentToolCall | undefined): AgentInvocationResult;
  newInvocationId(call: AgentToolCall | undefined): string;
}

export interface DiscoveredCapability extends JsonObject {
  capabilityId: string;
}

/** One capability as discovery shows it: stable fields, then live state only when it says something. */
export function discoveryEntry(d: CapabilityDescriptor): DiscoveredCapability {
  const entry: DiscoveredCapability = { capabilityId: d.capabilityId };
  if (d.instanceId !== undefined) entry.instanceId = d.instanceId;
  entry.kind = d.kind;
  entry.effect = d.effect;
  entry.confirmation = d.confirmation;
  entry.description = d.description;
  entry.inputSchema = d.inputSchema;
  if (d.untrustedOutput) entry.untrustedOutput = true;
  if (!d.state.available || d.state.note !== undefined) {
    const state: JsonObject = { available: d.state.available };
    if (!d.state.available) state.unavailableReason = d.state.unavailableReason ?? 'not right now';
    if (d.state.note !== undefined) state.note = d.state.note;
    entry.state = state;
  }
  return entry;
}

/**
 * The discovery payload under a budget. Capabilities keep snapshot order and are dropped from the end:
 * at most `maxComponents`, and a JSON text (as `toToolResult` writes it) of at most `maxBytes`.
 */
export function discoveryPayload(
  surfaceVersion: string,
  descriptors: readonly CapabilityDescriptor[],
  budget: { maxComponents?: number; maxBytes?: number } | undefined,
  scopeRejected: readonly string[],
): JsonObject {
  const limit = Math.min(descriptors.length, budget?.maxComponents ?? Infinity);
  const tail: JsonObject = {};
  if (scopeRejected.length) tail.scopeRejected = { prefixes: [...scopeRejected] };
  const capabilities: DiscoveredCapability[] = [];
  if (budget?.maxBytes === undefined) {
    for (let i = 0; i < limit; i++) capabilities.push(discoveryEntry(descriptors[i]!));
  } else {
    // Reserve room for the largest possible `truncated` marker, then fill greedily in order.
    const envelope = utf8Length(
      JSON.stringify({
        surfaceVersion,
        capabilities: [],
        truncated: { droppedComponents: descriptors.length },
        ...tail,
      }),
    );
    let used = envelope;
    for (let i = 0; i < limit; i++) {
      const entry = discoveryEntry(descriptors[i]!);
      const bytes = utf8Length(JSON.stringify(entry)) + (i > 0 ? 1 : 0);
      if (used + bytes > budget.maxBytes) break;
      used += bytes;
      capabilities.push(entry);
    }
  }
  const payload: JsonObject = { surfaceVersion, capabilities };
  const dropped = descriptors.length - capabilities.length;
  if (dropped > 0) payload.truncated = { droppedComponents: dropped };
  return { ...payload, ...tail };
}

function invalid(issues: Issue[]): AgentErrorPayload {
  return errorPayload(
    'INVALID_INPUT',
    `invalid arguments: ${issues.map((i) => `${i.path || '(root)'} ${i.message}`).join('; ')}`,
    { issues: issues as unknown as JsonObject[] },
  );
}

function outOfScope(capabilityId: string): AgentErrorPayload {
  return errorPayload('CAPABILITY_NOT_FOUND', `no capability "${capabilityId}" in this surface`, {
    capabilityId,
  });
}

/** The consumer's snapshot, narrowed to `scope` (by default the floor). */
function snapshot(host: MetaHost, scope = host.floor?.map(formatScopeEntry)): SurfaceSnapshot {
  return host.registry.snapshot(scope ? { consumer: host.consumer, scope } : { consumer: host.consumer });
}

/** One meta tool's work, on arguments that passed the envelope check. */
type Verb = (args: Envelope, call: AgentToolCall | undefined) => Promise<AgentInvocationResult>;

/** The three meta tools of one toolset. Their schemas and descriptions never change. */
export function createMetaTools(host: MetaHost): readonly AgentTool[] {
  const state = Object.freeze({ available: true });

  const discover: Verb = async (v, call) => {
    const requested = (v.scope as string[] | undefined)?.map((s) => parseScopeEntry(s)!);
    const { scope, rejected } = narrowScope(host.floor, requested);
    // Entirely outside the floor: an empty surface (the registry reads an empty scope as "all").
    const { surfaceVersion, capabilities } =
      scope && scope.length === 0
        ? { surfaceVersion: host.registry.surfaceVersion, capabilities: [] }
        : snapshot(host, scope);
    return {
      ok: true,
      output: discoveryPayload(surfaceVersion, capabilities, host.budget, rejected),
      invocationId: host.newInvocationId(call),
      surfaceVersion,
    };
  };

  const read: Verb = async (v, call) => {
    const capabilityId = v.capabilityId as string;
    const instanceId = v.instanceId as string | undefined;
    if (!host.inFloor(capabilityId)) return host.fail(outOfScope(capabilityId), call);
    // surface_read has no input slot: refuse to run an action through it.
    const matches = snapshot(host).capabilities.filter((d) => d.capabilityId === capabilityId);
    if (matches.length === 0) return host.fail(outOfScope(capabilityId), call);
    if (matches.every((d) => d.kind !== 'observation')) {
      return host.fail(
        errorPayload('INVALID_INPUT', `"${capabilityId}" is an action: run it with surface_act`, {
          issues: [{ path: '/capabilityId', message: 'not an observation' }],
        }),
        call,
      );
    }
    return host.call(
      instanceId === undefined ? { capabilityId, input: {} } : { capabilityId, instanceId, input: {} },
      call,
    );
  };

  const act: Verb = async (v, call) => {
    const capabilityId = v.capabilityId as string;
    if (!host.inFloor(capabilityId)) return host.fail(outOfScope(capabilityId), call);
    let input = v.input as JsonValue;
    if (typeof input === 'string') {
      const repaired = repairInput(host, capabilityId, input);
      if (repaired === undefined)
        return host.fail(invalid([{ path: '/input', message: 'input must be an object' }]), call);
      input = repaired;
    }
    const request: Parameters<MetaHost['call']>[0] = { capabilityId, input };
    // Ambiguity stays the registry's to classify: no registrationId is ever made up here.
    for (const key of ['instanceId', 'invocationId', 'confirmationId', 'surfaceVersion'] as const) {
      if (v[key] !== undefined) request[key] = v[key] as string;
    }
    return host.call(request, call);
  };

  /** A meta tool: its arguments are checked against its schema before `run` sees them. */
  const make = (name: MetaToolName, run: Verb): AgentTool =>
    Object.freeze({
      name,
      description: META_TOOL_DESCRIPTIONS[name],
      inputSchema: META_TOOL_SCHEMAS[name] as JsonSchema,
      state,
      execute: async (args: unknown, call?: AgentToolCall) => {
        const checked = checkEnvelope(name, args);
        return checked.ok ? run(checked.value, call) : host.fail(invalid(checked.issues), call);
      },
    });

  return Object.freeze([
    make('surface_discover', discover),
    make('surface_read', read),
    make('surface_act', act),
  ]);
}

/**
 * Models sometimes send an object argument as its JSON text. Repaired only when the capability is
 * known and expects an object, and the text parses to one; a development warning says so.
 */
function repairInput(host: MetaHost, capabilityId: string, text: string): JsonObject | undefined {
  const descriptor = snapshot(host).capabilities.find((d) => d.capabilityId === capabilityId);
  if (!descriptor || !expectsObject(descriptor.inputSchema)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  if (DEV_MODE) {
    issueWarning(
      'meta-input-string',
      `${host.consumer.id}:${capabilityId}`,
      `surface_act for "${capabilityId}" received input as a JSON string; it was parsed into an object. ` +
        'Ask the model (or fix the provider adapter) to pass an object.',
    );
  }
  return parsed as JsonObject;
}

function expectsObject(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const type = schema.type;
  return (
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    (type === undefined && 'properties' in schema)
  );
}
