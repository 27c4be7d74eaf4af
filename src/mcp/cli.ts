/**
 * `agent-surface mcp <module>`: serves the registry a module exports, over stdio (default, for
 * clients that spawn the command) or Streamable HTTP (`--http`). Kept apart from the compiler's
 * command line, which only hands `mcp …` over to `runMcpCommand`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentSurfaceRegistry, ToolsetMode } from '../core/types.js';
import { MCP_DETAILS, MCP_OPTIONS, MCP_SYNOPSIS } from './command-help.js';
import { serveMcpHttp } from './http.js';
import { serveMcpStdio } from './stdio.js';
import type { McpConfirmationMode, McpHttpOptions } from './types.js';

/** `agent-surface mcp --help` as the command table prints it (its text lives in command-help.ts). */
function usage(): string {
  const width = Math.max(...MCP_OPTIONS.map((o) => o.flag.length));
  return [
    `Usage: agent-surface mcp ${MCP_SYNOPSIS}`,
    '',
    MCP_DETAILS,
    '',
    'Options:',
    ...MCP_OPTIONS.map((o) => `  ${o.flag.padEnd(width)}  ${o.help}`),
  ].join('\n');
}

export interface McpCliArgs {
  module?: string;
  http: boolean;
  port?: number;
  host?: string;
  path?: string;
  origins: string[];
  tokenEnv?: string;
  stateless: boolean;
  mode?: ToolsetMode;
  scope: string[];
  consumer?: string;
  confirmations?: McpConfirmationMode;
  help: boolean;
  errors: string[];
}

export function parseMcpArgs(argv: readonly string[]): McpCliArgs {
  const args: McpCliArgs = { http: false, origins: [], scope: [], stateless: false, help: false, errors: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    const value = (): string | undefined => {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) {
        args.errors.push(`${flag} needs a value`);
        return undefined;
      }
      return v;
    };
    switch (flag) {
      case '--http':
        args.http = true;
        break;
      case '--stateless':
        args.stateless = true;
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      case '--port': {
        const v = value();
        if (v !== undefined) {
          const n = Number(v);
          if (!Number.isInteger(n) || n < 0 || n > 65535)
            args.errors.push(`--port must be 0–65535, got "${v}"`);
          else args.port = n;
        }
        break;
      }
      case '--host':
      case '--path':
      case '--token-env':
      case '--consumer': {
        const v = value();
        if (v !== undefined) {
          if (flag === '--host') args.host = v;
          else if (flag === '--path') args.path = v;
          else if (flag === '--token-env') args.tokenEnv = v;
          else args.consumer = v;
        }
        break;
      }
      case '--allow-origin': {
        const v = value();
        if (v !== undefined) args.origins.push(v);
        break;
      }
      case '--scope': {
        const v = value();
        if (v !== undefined) args.scope.push(v);
        break;
      }
      case '--mode': {
        const v = value();
        if (v === 'direct' || v === 'meta') args.mode = v;
        else if (v !== undefined) args.errors.push(`--mode must be "direct" or "meta", got "${v}"`);
        break;
      }
      case '--confirmations': {
        const v = value();
        if (v === 'elicit' || v === 'wait' || v === 'two-phase') args.confirmations = v;
        else if (v !== undefined)
          args.errors.push(`--confirmations must be "elicit", "wait" or "two-phase", got "${v}"`);
        break;
      }
      default:
        if (a.startsWith('-')) args.errors.push(`unknown option ${a}`);
        else if (args.module === undefined) args.module = a;
        else args.errors.push(`unexpected argument "${a}": give one module`);
    }
  }
  if (!args.help && args.module === undefined) args.errors.push('no module given');
  if (!args.http) {
    for (const [given, flag] of [
      [args.port !== undefined, '--port'],
      [args.host !== undefined, '--host'],
      [args.path !== undefined, '--path'],
      [args.origins.length > 0, '--allow-origin'],
      [args.tokenEnv !== undefined, '--token-env'],
      [args.stateless, '--stateless'],
    ] as const) {
      if (given) args.errors.push(`${flag} applies to --http only`);
    }
  }
  return args;
}

const isRegistry = (value: unknown): value is AgentSurfaceRegistry =>
  !!value &&
  typeof value === 'object' &&
  ['snapshot', 'invoke', 'on'].every((m) => typeof (value as Record<string, unknown>)[m] === 'function');

/** The registry a module exports: `registry`, else the default export; a function is called (and awaited). */
export async function loadRegistry(specifier: string): Promise<AgentSurfaceRegistry> {
  const mod = (await import(pathToFileURL(resolve(specifier)).href)) as Record<string, unknown>;
  let found = mod.registry ?? mod.default;
  if (typeof found === 'function') found = await (found as () => unknown)();
  if (!isRegistry(found))
    throw new Error(
      `${specifier} exports no registry: export "registry" (or a default export) made by createAgentSurfaceRegistry()`,
    );
  return found;
}

/**
 * Once the user's module is loaded, the command is the process, and its end is the process's end:
 * the module's own work (a timer, a connection) would keep it running without a client, and the
 * command's SIGINT/SIGTERM handlers took away those signals' own exit. The process exits with
 * `code` right after the command resolves with it.
 */
function ended(code: number): number {
  setImmediate(() => process.exit(code));
  return code;
}

/** Runs `agent-surface mcp …`; resolves to the exit code once the server has stopped (and the process then exits). */
export async function runMcpCommand(argv: readonly string[]): Promise<number> {
  const args = parseMcpArgs(argv);
  // stdout is the protocol's in stdio mode: everything for people goes to stderr.
  const say = (line: string) => process.stderr.write(`agent-surface: ${line}\n`);
  if (args.help) {
    say(usage());
    return 0;
  }
  if (args.errors.length) {
    for (const e of args.errors) say(`error: ${e}`);
    say(usage());
    return 1;
  }
  let token: string | undefined;
  if (args.tokenEnv !== undefined) {
    token = process.env[args.tokenEnv];
    if (!token) {
      say(`error: environment variable ${args.tokenEnv} (--token-env) is empty`);
      return 1;
    }
  }
  let registry: AgentSurfaceRegistry;
  try {
    registry = await loadRegistry(args.module!);
  } catch (error) {
    say(`error: ${error instanceof Error ? error.message : String(error)}`);
    return ended(1);
  }
  const common = {
    ...(args.mode ? { mode: args.mode } : {}),
    ...(args.scope.length ? { scope: args.scope } : {}),
    ...(args.confirmations ? { confirmations: args.confirmations } : {}),
    ...(args.consumer ? { consumer: { id: args.consumer, kind: 'mcp' } } : {}),
  };

  // Heard from before the server says it is up: a signal sent as soon as it does still stops it cleanly.
  const signalled = new Promise<void>((resolveSignal) => {
    process.once('SIGINT', resolveSignal);
    process.once('SIGTERM', resolveSignal);
  });
  let stop: () => Promise<void>;
  let stopped: Promise<void>;
  try {
    if (args.http) {
      const expected = token === undefined ? undefined : `Bearer ${token}`;
      const options: McpHttpOptions = {
        ...common,
        ...(args.port !== undefined ? { port: args.port } : {}),
        ...(args.host !== undefined ? { host: args.host } : {}),
        ...(args.path !== undefined ? { path: args.path } : {}),
        ...(args.origins.length ? { allowedOrigins: args.origins } : {}),
        ...(args.stateless ? { stateless: true } : {}),
        ...(expected !== undefined ? { authorize: (req) => req.headers.authorization === expected } : {}),
      };
      const served = await serveMcpHttp(registry, options);
      say(`MCP server on ${served.url}`);
      stop = () => served.close();
      stopped = new Promise(() => {});
    } else {
      const served = await serveMcpStdio(registry, common);
      stop = () => served.close();
      stopped = served.closed;
    }
  } catch (error) {
    say(`error: ${error instanceof Error ? error.message : String(error)}`);
    return ended(1);
  }
  await Promise.race([stopped, signalled]);
  await stop();
  // The process is ending: pending confirmations and their timers go with it.
  registry.dispose();
  return ended(0);
}
