/**
 * Meta-tools mode (Experimental): three fixed tools, `surface_discover`, `surface_read` and
 * `surface_act`, that discover capabilities lazily. It changes the projection, not execution: every
 * read and action goes through `registry.invoke` like a direct tool.
 *
 * This module is the catalog side (the tools, their constant schemas); what the verbs do when called
 * is in meta-calls.ts, a lazy chunk of the CDN file. Also home of the scope syntax both modes
 * share (narrowing a call's scope against the configured floor is in meta-calls.ts).
 */
import { parseScopeText } from './scope.js';
import { deepFreeze } from './util.js';
import type { ToolCallState } from './toolset-calls.js';
import type { AgentInvocationResult, AgentTool, AgentToolCall, JsonSchema } from './types.js';

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
  const entry = typeof text === 'string' ? parseScopeText(text) : undefined;
  if (entry === undefined) return undefined;
  const { plane, prefix } = entry;
  if (plane !== undefined && plane !== 'view' && plane !== 'domain') return undefined;
  // A blank entry has no plane either (parseScopeText): `view:` alone is the whole plane.
  if (prefix === '') return { plane, path: [] };
  const path = prefix.split('.');
  if (/[:*]/.test(prefix) || path.some((segment) => segment.trim() !== segment || segment === '')) return undefined;
  return plane === undefined ? { path } : { plane, path };
}

export function formatScopeEntry(entry: ScopeEntry): string {
  return (entry.plane ? `${entry.plane}:` : '') + entry.path.join('.');
}

// ---------------------------------------------------------------------------------------------
// Constant tool definitions

export const SCOPE_TEXT = 'segment prefixes of capability paths, like "devices" or "view:devices.table"';

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
// The tools

/** What a meta-mode toolset hands its verbs: its call state plus the floor and the budget. */
export interface MetaHost extends ToolCallState {
  readonly floor: readonly ScopeEntry[] | undefined;
  /** Whether an id is inside the floor (the registry's own matcher, so both agree). */
  inFloor(capabilityId: string): boolean;
  readonly budget: { maxComponents?: number; maxBytes?: number } | undefined;
}

/**
 * The three meta tools of one toolset. Their schemas and descriptions never change; `call` runs a
 * verb (meta-calls.ts, reached through toolset-exec.ts).
 */
export function createMetaTools(
  call: (name: MetaToolName, args: unknown, call: AgentToolCall | undefined) => Promise<AgentInvocationResult>,
): readonly AgentTool[] {
  const state = Object.freeze({ available: true });
  const make = (name: MetaToolName): AgentTool =>
    Object.freeze({
      name,
      description: META_TOOL_DESCRIPTIONS[name],
      inputSchema: META_TOOL_SCHEMAS[name] as JsonSchema,
      state,
      execute: (args: unknown, toolCall?: AgentToolCall) => call(name, args, toolCall),
    });
  return Object.freeze([make('surface_discover'), make('surface_read'), make('surface_act')]);
}
