/**
 * Snapshots (DESIGN section 3): what one consumer may discover at one surface version. Descriptors
 * are frozen, built once per registration change and shared by every snapshot; the list is sorted
 * by capability id, then instance id (code-unit order, so the same on every engine). The registry
 * memoizes them per (version, consumer, scope).
 */
import { issueError } from './dev.js';
import { compileScopeParts } from './scope.js';
import type { AgentConsumer, AgentSurfacePolicy, CapabilityDescriptor, SnapshotContext, SurfaceSnapshot } from './types.js';

/** What a snapshot needs from a registration. */
export interface SnapshotSource {
  readonly capabilityId: string;
  /** The id split at its first colon: what scope entries match against. */
  readonly info: { readonly plane: string; readonly path: string };
  descriptor(): CapabilityDescriptor;
}

const EMPTY: readonly CapabilityDescriptor[] = Object.freeze([]);

/**
 * Whether every policy lets `consumer` discover `capability`. A policy that throws hides it
 * (fail closed) and is reported once.
 */
export function discoverable(
  policies: readonly AgentSurfacePolicy[],
  consumer: AgentConsumer,
  capability: CapabilityDescriptor,
): boolean {
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i];
    if (typeof policy.discover !== 'function') continue;
    let visible: unknown;
    try {
      visible = policy.discover({ consumer, capability });
    } catch (error) {
      issueError('POLICY_THREW', `discover:${policy.name}`, `Policy "${policy.name}" threw in discover(); the capability stays hidden. ${String(error)}`);
      return false;
    }
    if (visible === false) return false;
  }
  return true;
}

/** Builds a snapshot from registrations already in descriptor order; `policies` when one has `discover`. */
export function buildSnapshot(
  sources: readonly SnapshotSource[],
  context: SnapshotContext,
  policies: readonly AgentSurfacePolicy[] | undefined,
  surfaceVersion: string,
): SurfaceSnapshot {
  const inScope = compileScopeParts(context.scope);
  const capabilities: CapabilityDescriptor[] = [];
  for (let i = 0; i < sources.length; i++) {
    const source = sources[i];
    if (inScope !== undefined && !inScope(source.info.plane, source.info.path)) continue;
    const descriptor = source.descriptor();
    if (policies !== undefined && !discoverable(policies, context.consumer, descriptor)) continue;
    capabilities.push(descriptor);
  }
  return Object.freeze({
    surfaceVersion,
    capabilities: capabilities.length === 0 ? EMPTY : Object.freeze(capabilities),
  });
}

/** Orders descriptors: capability id, then instance id (none first: an instance id is never empty), by code unit. */
export function compareRegistrations(
  a: { capabilityId: string; instanceId: string | undefined },
  b: { capabilityId: string; instanceId: string | undefined },
): number {
  const x = a.capabilityId;
  const y = b.capabilityId;
  const i = a.instanceId ?? '';
  const j = b.instanceId ?? '';
  return x < y ? -1 : x > y ? 1 : i < j ? -1 : i > j ? 1 : 0;
}
