/**
 * How the tool projections reach their execution side: what a toolset's or a gateway's tool runs
 * once an agent calls it. The ES build links it statically; the CDN build swaps this module for
 * `toolset-exec.cdn.ts` (rollup.config.js, the `*.cdn.ts` convention), which loads it as a chunk
 * beside the entry file. Both have the same exports.
 */
export { callDirect } from './toolset-calls.js';
export { callMetaTool } from './meta-calls.js';
export { callGatewayTool } from './gateway-calls.js';

/** Nothing to prepare: the execution side is already linked. */
export function prepareToolExecution(): void {}
