/**
 * How the registry reaches the invoke pipeline, the confirmation store (only the pipeline fills
 * it) and the ending of calls (only the pipeline starts them). The ES build links them
 * statically; the CDN build swaps this module for `pipeline.cdn.ts` (rollup.config.js, the
 * `*.cdn.ts` convention), which loads all of them as one chunk beside the entry file. Both have
 * the same exports.
 */
export { ConfirmationStore } from './confirmations.js';
export { runInvocation } from './invoke.js';
export { stopCalls } from './running.js';

/** Nothing to prepare: the pipeline is already linked. */
export function preparePipeline(): void {}
