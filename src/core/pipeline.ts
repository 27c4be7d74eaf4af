/**
 * How the registry reaches the invoke pipeline. The ES build links it statically; the CDN build
 * swaps this module for `pipeline.cdn.ts` (rollup.config.js, the `*.cdn.ts` convention), which loads the pipeline as a
 * chunk beside the entry file. Both have the same exports.
 */
export { runInvocation } from './invoke.js';

/** Nothing to prepare: the pipeline is already linked. */
export function preparePipeline(): void {}
