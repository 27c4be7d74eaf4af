/**
 * The execution side of meta mode: what `surface_discover`, `surface_read` and `surface_act` do
 * once an agent calls them (envelope checks, discovery payloads under a budget, input repair).
 * Loaded with the rest of the execution side by toolset-exec.ts (an `import()` of tool-execution.ts).
 * The tools themselves, their constant schemas and the scope syntax are in meta-tools.ts.
 */
import { isPlainObject as isPlainJsonObject, jsonPointer, utf8Length } from './canonical-json.js';
import { snapshotJson } from './json-snapshot.js';
import { DEV_MODE, issueWarning } from './dev.js';
import { errorPayload } from './errors.js';
import {
  META_TOOL_SCHEMAS,
  SCOPE_TEXT,
  formatScopeEntry,
  parseScopeEntry,
  type MetaHost,
  type MetaToolName,
  type ScopeEntry,
} from './meta-tools.js';
import { callInvocationId, failedCall } from './toolset-common.js';
import { withInstance } from './util.js';
import { runCall, type CallRequest } from './toolset-calls.js';
import type {
  AgentErrorPayload,
  AgentInvocationResult,
  AgentToolCall,
  CapabilityDescriptor,
  JsonObject,
  JsonValue,
  SurfaceSnapshot,
} from './types.js';

// ---------------------------------------------------------------------------------------------
// Scope narrowing (only a call needs it, so it lives on the execution side)

function isPathPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== path[i]) return false;
  return true;
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
      // What both allow: one plane (or the one either names), and the longer of two nested paths.
      if (want.plane && base.plane && want.plane !== base.plane) continue;
      const path = isPathPrefix(want.path, base.path) ? base.path : isPathPrefix(base.path, want.path) ? want.path : undefined;
      if (path) {
        scope.push(formatScopeEntry({ plane: want.plane ?? base.plane, path }));
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
// Envelope checks

interface Issue {
  path: string;
  message: string;
}

type Envelope = Record<string, unknown>;

/** An object literal or `Object.create(null)`, from any realm (as the registry accepts it); never an array. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && isPlainJsonObject(value);
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
// Discovery

export interface DiscoveredCapability extends JsonObject {
  capabilityId: string;
}

/** What discovery shows of every capability, after its id and instance. */
const DISCOVERED_FIELDS = ['kind', 'effect', 'confirmation', 'description', 'inputSchema'] as const;

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
  const maxBytes = budget?.maxBytes;
  // Room is reserved for the largest possible `truncated` marker, then filled greedily in order.
  let used =
    maxBytes === undefined
      ? 0
      : utf8Length(JSON.stringify({ surfaceVersion, capabilities, truncated: { droppedComponents: descriptors.length }, ...tail }));
  for (let i = 0; i < limit; i++) {
    // One capability as discovery shows it: stable fields, then live state only when it says something.
    const d = descriptors[i]!;
    const entry: DiscoveredCapability = { capabilityId: d.capabilityId, ...withInstance(d.instanceId) };
    for (const key of DISCOVERED_FIELDS) entry[key] = d[key];
    if (d.untrustedOutput) entry.untrustedOutput = true;
    if (!d.state.available || d.state.note !== undefined) {
      const state: JsonObject = { available: d.state.available };
      if (!d.state.available) state.unavailableReason = d.state.unavailableReason ?? 'not right now';
      if (d.state.note !== undefined) state.note = d.state.note;
      entry.state = state;
    }
    if (maxBytes !== undefined) {
      const bytes = utf8Length(JSON.stringify(entry)) + (i > 0 ? 1 : 0);
      if (used + bytes > maxBytes) break;
      used += bytes;
    }
    capabilities.push(entry);
  }
  const payload: JsonObject = { surfaceVersion, capabilities };
  const dropped = descriptors.length - capabilities.length;
  if (dropped > 0) payload.truncated = { droppedComponents: dropped };
  return { ...payload, ...tail };
}

// ---------------------------------------------------------------------------------------------
// The verbs

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

/** A result the toolset answers itself, without the registry. */
function fail(host: MetaHost, error: AgentErrorPayload, call: AgentToolCall | undefined): AgentInvocationResult {
  return failedCall(error, callInvocationId(call), host.registry.surfaceVersion);
}

/** The consumer's snapshot, narrowed to `scope` (by default the floor). */
function snapshot(host: MetaHost, scope = host.floor?.map(formatScopeEntry)): SurfaceSnapshot {
  return host.registry.snapshot(scope ? { consumer: host.consumer, scope } : { consumer: host.consumer });
}

/** One meta tool's work, on arguments that passed the envelope check. */
type Verb = (host: MetaHost, args: Envelope, call: AgentToolCall | undefined) => Promise<AgentInvocationResult>;

const discover: Verb = async (host, v, call) => {
  const requested = (v.scope as string[] | undefined)?.map(parseScopeEntry as (s: string) => ScopeEntry);
  const { scope, rejected } = narrowScope(host.floor, requested);
  // Entirely outside the floor: an empty surface (the registry reads an empty scope as "all").
  const { surfaceVersion, capabilities } =
    scope && scope.length === 0
      ? { surfaceVersion: host.registry.surfaceVersion, capabilities: [] }
      : snapshot(host, scope);
  return {
    ok: true,
    output: discoveryPayload(surfaceVersion, capabilities, host.budget, rejected),
    invocationId: callInvocationId(call),
    surfaceVersion,
  };
};

const read: Verb = async (host, v, call) => {
  const capabilityId = v.capabilityId as string;
  const instanceId = v.instanceId as string | undefined;
  if (!host.inFloor(capabilityId)) return fail(host, outOfScope(capabilityId), call);
  // surface_read has no input slot: refuse to run an action through it.
  const matches = snapshot(host).capabilities.filter((d) => d.capabilityId === capabilityId);
  if (matches.length === 0) return fail(host, outOfScope(capabilityId), call);
  if (matches.every((d) => d.kind !== 'observation')) {
    return fail(
      host,
      errorPayload('INVALID_INPUT', `"${capabilityId}" is an action: run it with surface_act`, {
        issues: [{ path: '/capabilityId', message: 'not an observation' }],
      }),
      call,
    );
  }
  // It has no slot for a confirmation either: in two-phase mode the same read, once the person
  // approved, presents the remembered one.
  return runCall(host, { capabilityId, ...withInstance(instanceId), input: {} }, call, `surface_read\u0000${capabilityId}\u0000${instanceId ?? ''}`);
};

const act: Verb = async (host, v, call) => {
  const capabilityId = v.capabilityId as string;
  if (!host.inFloor(capabilityId)) return fail(host, outOfScope(capabilityId), call);
  let input = v.input as JsonValue;
  if (typeof input === 'string') {
    const repaired = repairInput(host, capabilityId, input);
    if (repaired === undefined)
      return fail(host, invalid([{ path: '/input', message: 'input must be an object' }]), call);
    input = repaired;
  }
  const request: CallRequest = { capabilityId, input };
  // Ambiguity stays the registry's to classify: no registrationId is ever made up here.
  for (const key of ['instanceId', 'invocationId', 'confirmationId', 'surfaceVersion'] as const) {
    if (v[key] !== undefined) request[key] = v[key] as string;
  }
  return runCall(host, request, call, undefined);
};

const VERBS: Record<MetaToolName, Verb> = { surface_discover: discover, surface_read: read, surface_act: act };

/** Far above any registry's input limit; bounds the copy of a value that shares one object many times. */
const MAX_ARGS_BYTES = 1 << 22;

/** A meta tool's call: its arguments are checked against its schema before the verb sees them. */
export async function callMetaTool(
  host: MetaHost,
  name: MetaToolName,
  args: unknown,
  call: AgentToolCall | undefined,
): Promise<AgentInvocationResult> {
  // One read of the arguments into a frozen JSON copy: a hostile getter, proxy or cycle stops here.
  const snap = args === undefined ? undefined : snapshotJson(args, { maxBytes: MAX_ARGS_BYTES });
  if (snap !== undefined && !snap.ok) return fail(host, invalid([{ path: snap.path, message: snap.reason }]), call);
  const checked = checkEnvelope(name, snap?.value);
  return checked.ok ? VERBS[name](host, checked.value, call) : fail(host, invalid(checked.issues), call);
}

/**
 * Models sometimes send an object argument as its JSON text. Repaired only when the capability is
 * known and expects an object, and the text parses to one; a development warning says so.
 */
function repairInput(host: MetaHost, capabilityId: string, text: string): JsonObject | undefined {
  const schema = snapshot(host).capabilities.find((d) => d.capabilityId === capabilityId)?.inputSchema;
  const type = schema?.type;
  // Expects an object: says so, or lists properties without a type.
  if (!schema || !(type === 'object' || (Array.isArray(type) && type.includes('object')) || (type === undefined && 'properties' in schema)))
    return undefined;
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
