/**
 * agent-surface-kit/server: `createChatHandler`, the server side of `createCloudAdapter`
 * (DESIGN section 8): a Web `Request → Response` function for Node ≥ 20, Deno, Bun and workers.
 */
export {};
