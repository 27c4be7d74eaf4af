/**
 * The help of `agent-surface mcp`: read by the CLI's command table (command.ts) and by the command
 * itself (cli.ts) for `--help`. Apart from both, so neither imports the other back.
 */
export const MCP_DETAILS = `Serves the registry that <module> exports (named export "registry" or the default export: a
registry, or a function that returns one) as an MCP server: over stdio by default, for clients that
spawn this command (stdout is the protocol's; messages go to stderr), or over Streamable HTTP with
--http, on loopback unless --host says otherwise (then --token-env is required).`;

export const MCP_OPTIONS: ReadonlyArray<{ flag: string; help: string }> = [
  { flag: '--http', help: 'serve Streamable HTTP instead of stdio' },
  { flag: '--port <n>', help: 'HTTP port (default 0: any free port, printed on stderr)' },
  { flag: '--host <host>', help: 'HTTP host (default 127.0.0.1)' },
  { flag: '--path <path>', help: 'HTTP endpoint path (default /mcp)' },
  { flag: '--allow-origin <origin>', help: 'a browser origin allowed to call the HTTP server (repeatable)' },
  {
    flag: '--token-env <VAR>',
    help: 'require "Authorization: Bearer <token>", the token read from environment variable VAR',
  },
  { flag: '--stateless', help: 'HTTP without sessions (confirmations are then two-phase)' },
  { flag: '--mode <direct|meta>', help: 'one tool per capability (default), or the three meta tools' },
  { flag: '--scope <prefix>', help: 'expose only capabilities under this prefix (repeatable)' },
  {
    flag: '--consumer <id>',
    help: 'the consumer id policies and confirmations see (default mcp-stdio / mcp-http)',
  },
  {
    flag: '--confirmations <elicit|wait|two-phase>',
    help: 'how a call that needs approval is completed (default elicit)',
  },
];

export const MCP_SYNOPSIS =
  '<module> [--http [--port N] [--host H] [--allow-origin O]… [--token-env VAR]] [--mode direct|meta] [--scope P]…';
