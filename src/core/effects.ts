/** The capability effects (DESIGN section 2), from the least to the most consequential. */
import type { CapabilityEffect } from './types.js';

export const CAPABILITY_EFFECTS: readonly CapabilityEffect[] = Object.freeze([
  'read',
  'local-state',
  'navigation',
  'server-query',
  'server-mutation',
  'external-side-effect',
  'destructive',
]);
