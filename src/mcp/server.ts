/**
 * `createMcpServer`: an SDK `Server` whose tools are a projection of the registry. The SDK does the
 * protocol (JSON-RPC, initialization, cancellation, ping); this module answers `tools/list` and
 * `tools/call` and sends `notifications/tools/list_changed`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentSurfaceRegistry } from '../core/types.js';
import { createMcpProjection, type McpCallContext, type McpProjection } from './projection.js';
import type { McpServerOptions } from './types.js';

/** Reported in the handshake unless `version` is given. */
export const KIT_VERSION = '0.1.0';

/**
 * The registry for any MCP client: direct mode (one tool per visible capability instance) or meta
 * mode (the three fixed tools), projected exactly as `createAgentToolset` does. Connect it to any
 * SDK transport (`server.connect(transport)`); closing the server releases the projection.
 * Throws a `TypeError` for invalid options.
 */
export function createMcpServer(registry: AgentSurfaceRegistry, options: McpServerOptions): Server {
  return bindMcpServer(createMcpProjection(registry, options), options, { notify: true, owns: true });
}

/** Internals shared with serveMcpHttp's stateless mode, where many servers share one projection. */
export function bindMcpServer(
  projection: McpProjection,
  options: Pick<McpServerOptions, 'name' | 'version'>,
  { notify, owns }: { notify: boolean; owns: boolean },
): Server {
  const server = new Server(
    { name: options.name ?? 'agent-surface-kit', version: options.version ?? KIT_VERSION },
    // The meta tools never change, so there is nothing to announce in meta mode.
    { capabilities: { tools: { listChanged: notify && projection.mode === 'direct' } } },
  );

  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({
    tools: projection.tools() as ListToolsResult['tools'],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const context: McpCallContext = {
      signal: extra.signal,
      canElicit() {
        const elicitation = server.getClientCapabilities()?.elicitation;
        // An empty `elicitation: {}` is the 2025-06 form of "form mode".
        return !!elicitation && (elicitation.form !== undefined || elicitation.url === undefined);
      },
      async elicit(message, signal, timeoutMs) {
        const result = await server.request(
          {
            method: 'elicitation/create',
            params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
          },
          ElicitResultSchema,
          // On the call's own stream (Streamable HTTP), and cancelled with it.
          { signal, relatedRequestId: extra.requestId, timeout: timeoutMs },
        );
        return result.action;
      },
    };
    return (await projection.call(request.params.name, request.params.arguments, context)) as CallToolResult;
  });

  let unsubscribe: (() => void) | undefined;
  if (notify && projection.mode === 'direct') {
    unsubscribe = projection.subscribe(() => {
      // Not connected yet, or the client went away: nothing to tell.
      server.sendToolListChanged().catch(() => {});
    });
  }
  const previous = server.onclose;
  server.onclose = () => {
    unsubscribe?.();
    unsubscribe = undefined;
    if (owns) projection.dispose();
    previous?.();
  };
  return server;
}
