/**
 * The options of the MCP projection (DESIGN section 9). Plain interfaces; the SDK's own types stay
 * in the modules that talk to it.
 */
import type { IncomingMessage } from 'node:http';
import type { AgentConsumer, ToolsetMode } from '../core/types.js';

/**
 * How a call that needs the person's approval is completed.
 * - `"elicit"` (default): in the same call through MCP elicitation where the client declared it,
 *   else two-phase (the call answers `CONFIRMATION_REQUIRED`; the same call made again after the
 *   person approved elsewhere runs once), as a toolset with `topology: "remote"` does.
 * - `"wait"`: elicitation where the client declared it, else the call waits (bounded by the
 *   confirmation's TTL) for a decision made elsewhere, e.g. `<agent-confirm>` or your own UI
 *   on `registry.confirmations`.
 * - `"two-phase"`: never asks in the call.
 */
export type McpConfirmationMode = 'elicit' | 'wait' | 'two-phase';

/** Maps a capability (and instance) to an MCP tool name; `undefined` keeps the wire name. */
export type McpToolNamer = (capabilityId: string, instanceId: string | undefined) => string | undefined;

export interface McpServerOptions {
  /** Who calls, for policies, idempotency and confirmations: `{ id, kind }`. */
  consumer: AgentConsumer;
  /** `"direct"` (default): one tool per visible capability instance; `"meta"`: the three fixed tools. */
  mode?: ToolsetMode;
  /** Discovery floor: segment prefixes such as `"devices"` or `"view:devices.table"`. */
  scope?: readonly string[];
  /** Server name in the MCP handshake. Default `"agent-surface-kit"`. */
  name?: string;
  /** Server version in the MCP handshake. Default the kit's version. */
  version?: string;
  /** Direct mode: your tool names instead of wire names (reversed through the catalog's own map). */
  toolName?: McpToolNamer;
  confirmations?: McpConfirmationMode;
}

/**
 * What `authorize` answers: `true` lets the request through with the server's consumer; an
 * `AgentConsumer` lets it through as that consumer (a session stays bound to it); `false` refuses
 * it with 401.
 */
export type McpAuthorization = boolean | AgentConsumer;

export interface McpHttpOptions extends Partial<McpServerOptions> {
  /** Default 0: any free port (read it from the returned `port`). */
  port?: number;
  /** Default `"127.0.0.1"`. A host that is not loopback requires `authorize`. */
  host?: string;
  /** Default `"/mcp"`. */
  path?: string;
  /**
   * Origins (`scheme://host[:port]`) whose browser pages may call the server. A request with any
   * other `Origin` header is refused with 403 (DNS-rebinding protection); requests without one
   * (desktop clients, the SDK's client in Node) are not affected. The server's own origin is
   * always allowed. A listed origin gets CORS answers (its preflight is answered before
   * `authorize`; no credentials across origins). Default: none.
   */
  allowedOrigins?: readonly string[];
  /**
   * `Host` header names accepted besides the loopback names (`localhost`, `127.0.0.1`, `[::1]`)
   * and the bound host. A request for any other host is refused with 403.
   */
  allowedHosts?: readonly string[];
  /** Called on every request (each request of a session too), e.g. to check a bearer token. */
  authorize?: (request: IncomingMessage) => McpAuthorization | Promise<McpAuthorization>;
  /** Requests with a larger body are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Concurrent sessions. At the bound a new session replaces the one idle the longest (no request
   * or stream open); when all are busy, the `initialize` gets 503. Default 64.
   */
  maxSessions?: number;
  /** A session without any request for this long is closed. Default 30 minutes; 0 never. */
  sessionIdleMs?: number;
  /**
   * The stateless revision of Streamable HTTP: no sessions, one server per request, no
   * server-to-client requests (no elicitation, no `list_changed`): confirmations are two-phase.
   */
  stateless?: boolean;
}

export interface McpHttpServer {
  /** `http://host:port/path`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Open sessions. */
  readonly sessionCount: number;
  /** Stops accepting, closes every session and stream, and resolves once the port is free. Safe to call twice. */
  close(): Promise<void>;
}

export interface McpStdioOptions extends Partial<McpServerOptions> {
  /** Default `process.stdin`. */
  stdin?: NodeJS.ReadableStream;
  /** Default `process.stdout`. Nothing else may write to it. */
  stdout?: NodeJS.WritableStream;
}

export interface McpStdioServer {
  /** Closes the transport and releases the projection. Safe to call twice. */
  close(): Promise<void>;
  /** Resolves when the client goes away (stdin ends) or `close()` ran. */
  readonly closed: Promise<void>;
}
