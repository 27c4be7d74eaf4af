/**
 * Seam (see rollup.config.js): the input-formatting helpers `agent-surface-kit/elements` exports for
 * custom approval UIs. The CDN file leaves them out (format-exports.cdn.ts): in a page only the lazily
 * loaded approval dialog uses them, and its chunk carries them.
 */
export { describeEffect, formatInput, formatRemaining, type FormattedEntry, type FormattedInput } from './format-input.js';
