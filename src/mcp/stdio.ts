/**
 * `serveMcpStdio`: the registry for MCP clients that spawn a process (desktop agents, IDEs) and
 * speak JSON-RPC over its stdin and stdout, through the SDK's stdio transport.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { AgentConsumer, AgentSurfaceRegistry } from '../core/types.js';
import { createMcpServer } from './server.js';
import type { McpServerOptions, McpStdioOptions, McpStdioServer } from './types.js';

export const DEFAULT_STDIO_CONSUMER: AgentConsumer = Object.freeze({ id: 'mcp-stdio', kind: 'mcp' });

/**
 * Serves `registry` on stdin/stdout (or the given streams). Resolves once the transport listens.
 * stdout belongs to the protocol from then on: log to stderr. Throws a `TypeError` for invalid options.
 */
export async function serveMcpStdio(
  registry: AgentSurfaceRegistry,
  options: McpStdioOptions = {},
): Promise<McpStdioServer> {
  const { stdin = process.stdin, stdout = process.stdout, ...rest } = options;
  const serverOptions: McpServerOptions = { ...rest, consumer: rest.consumer ?? DEFAULT_STDIO_CONSUMER };
  const server = createMcpServer(registry, serverOptions);
  const transport = new StdioServerTransport(stdin as Readable, stdout as Writable);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const ended = () => {
    stdin.off('end', close);
    stdin.off('close', close);
    resolveClosed();
  };
  // However the connection ends: close() below, or the SDK's transport giving up on its input by
  // itself (a message over its buffer limit), after which it reads nothing more, not even the end.
  const previous = server.onclose;
  server.onclose = () => {
    previous?.();
    ended();
  };
  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    return (closing ??= server.close().then(ended, ended));
  }
  // The SDK's transport does not notice a client that went away: end of input is the end.
  stdin.once('end', close);
  stdin.once('close', close);
  await server.connect(transport);
  return { close, closed };
}
