/** WebMCP both ways: `createWebMcpAdapter` (producer), `createWebMcpSource` (consumer), `detectModelContext`. */
export {};
