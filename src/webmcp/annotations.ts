/**
 * The WebMCP tool hints of a capability, from its contract alone (DESIGN section 4). Kept apart
 * from the adapter so the CDN entry can export it without loading the adapter.
 */
import type { CapabilityDescriptor } from '../core/types.js';
import type { ModelContextToolAnnotations } from './types.js';

/** The three hints the adapter always sets. */
export type ContractHints = Required<Pick<ModelContextToolAnnotations, 'readOnlyHint' | 'consequentialHint' | 'untrustedContentHint'>>;

/** Hints from the contract only (DESIGN section 4); curation never reaches them. */
export function annotationsFor(d: Pick<CapabilityDescriptor, 'kind' | 'effect' | 'confirmation' | 'untrustedOutput'>): ContractHints {
  const readOnlyHint = d.kind === 'observation' || d.effect === 'read' || d.effect === 'server-query';
  const consequentialHint =
    ['server-mutation', 'external-side-effect', 'destructive'].includes(d.effect) || d.confirmation === 'required';
  return { readOnlyHint, consequentialHint, untrustedContentHint: d.untrustedOutput === true };
}
