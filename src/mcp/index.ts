/**
 * agent-surface-kit/mcp: the registry as an MCP server (DESIGN section 9), built on
 * `@modelcontextprotocol/sdk`.
 */
export {};
