/**
 * How the registry reaches the invoke pipeline and the stores only the pipeline fills
 * (confirmation records, idempotency entries). The ES build links them statically; the CDN build
 * swaps this module for `pipeline.cdn.ts` (rollup.config.js, the `*.cdn.ts` convention), which
 * loads all of them as one chunk beside the entry file. Both have the same exports.
 */
export { ConfirmationStore } from './confirmations.js';
export { IdempotencyStore } from './idempotency.js';
export { runInvocation } from './invoke.js';

/** Nothing to prepare: the pipeline is already linked. */
export function preparePipeline(): void {}
