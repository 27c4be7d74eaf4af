/**
 * What a toolset's or a gateway's tool runs once an agent calls it (confirmation handling, the meta
 * verbs, the gateway's checks and handler call): one module that `toolset-exec.ts` loads with
 * `import()` when the first toolset or gateway is created.
 */
export { callDirect } from './toolset-calls.js';
export { callMetaTool } from './meta-calls.js';
export { callGatewayTool } from './gateway-calls.js';
