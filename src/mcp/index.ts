/**
 * agent-surface-kit/mcp: the registry as an MCP server (DESIGN section 9), built on
 * `@modelcontextprotocol/sdk`. `createMcpServer` runs wherever the SDK does; `serveMcpHttp` and
 * `serveMcpStdio` are its Node transports.
 */
export { createMcpServer, KIT_VERSION } from './server.js';
export { mcpAnnotations, STATE_META_KEY } from './projection.js';
export type { McpTool, McpToolResult } from './projection.js';
export { serveMcpHttp } from './http.js';
export { serveMcpStdio } from './stdio.js';
export type * from './types.js';
