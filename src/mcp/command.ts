/**
 * The `agent-surface mcp` entry of the CLI's command table (src/compiler/cli.ts): its help, and a
 * `run` that loads the command itself (src/mcp/cli.ts, the SDK behind it) only when it is used.
 * It imports only its help text (command-help.ts), so the compiler's command line pays nothing more.
 */
import { MCP_DETAILS, MCP_OPTIONS, MCP_SYNOPSIS } from './command-help.js';

export { MCP_DETAILS, MCP_OPTIONS };

export const MCP_COMMAND = {
  name: 'mcp',
  summary: 'serve a module’s registry to MCP clients (stdio, or Streamable HTTP)',
  synopsis: MCP_SYNOPSIS,
  details: MCP_DETAILS,
  options: MCP_OPTIONS,
  async run(argv: readonly string[]): Promise<number> {
    const { runMcpCommand } = await import('./cli.js');
    return runMcpCommand(argv);
  },
};
