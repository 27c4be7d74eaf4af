/**
 * The WebMCP tool hints of a capability, from its contract alone (DESIGN section 4). Kept apart
 * from the adapter so the CDN entry can export it without loading the adapter.
 */
import { OBSERVATION_EFFECTS } from '../core/contract.js';
import type { CapabilityDescriptor } from '../core/types.js';
import type { ModelContextToolAnnotations } from './types.js';

/** The three hints the adapter always sets. */
export type ContractHints = Required<Pick<ModelContextToolAnnotations, 'readOnlyHint' | 'consequentialHint' | 'untrustedContentHint'>>;

/** Hints from the contract only (DESIGN section 4); curation never reaches them. */
export function annotationsFor(d: Pick<CapabilityDescriptor, 'kind' | 'effect' | 'confirmation' | 'untrustedOutput'>): ContractHints {
  // The effects an observation may have are the ones that only read.
  const readOnlyHint = d.kind === 'observation' || OBSERVATION_EFFECTS.includes(d.effect);
  const consequentialHint =
    ['server-mutation', 'external-side-effect', 'destructive'].includes(d.effect) || d.confirmation === 'required';
  return { readOnlyHint, consequentialHint, untrustedContentHint: d.untrustedOutput === true };
}
