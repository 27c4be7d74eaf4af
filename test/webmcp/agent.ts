/**
 * The test plays a browser agent against Chromium's native WebMCP host through the DevTools
 * `WebMCP` domain (scripts/wtr-webmcp.mjs runs the protocol side in Node).
 */
import { executeServerCommand } from '@web/test-runner-commands';
import { SAFETY_NET_MS, waitUntil } from '../until.js';

export interface CdpTool {
  name: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnly: boolean; untrustedContent: boolean; consequential: boolean; debugging: boolean };
  frameId: string;
}

export interface CdpResponse {
  invocationId: string;
  status: 'Completed' | 'Canceled' | 'Error' | 'Timeout' | 'InvokeFailed';
  output?: unknown;
  errorText?: string;
  exception?: string;
}

export interface CdpLogEntry {
  type: 'added' | 'removed';
  name: string;
  frameId: string;
}

function command<T>(action: string, payload: Record<string, unknown> = {}): Promise<T> {
  return executeServerCommand<T, Record<string, unknown>>('webmcp-agent', { action, ...payload });
}

export const agent = {
  async enable(): Promise<CdpTool[]> {
    return (await command<{ tools: CdpTool[] }>('enable')).tools;
  },
  async tools(): Promise<CdpTool[]> {
    return (await command<{ tools: CdpTool[] }>('tools')).tools;
  },
  async toolNames(): Promise<string[]> {
    return (await agent.tools()).map((t) => t.name).sort();
  },
  async log(since = 0): Promise<{ log: CdpLogEntry[]; length: number }> {
    return command('log', { since });
  },
  async invoke(toolName: string, input: unknown = {}): Promise<{ invocationId?: string; error?: string }> {
    return command('invoke', { toolName, input });
  },
  async result(invocationId: string, timeoutMs = SAFETY_NET_MS): Promise<CdpResponse> {
    return command('result', { invocationId, timeoutMs });
  },
  async call(toolName: string, input: unknown = {}, timeoutMs = SAFETY_NET_MS): Promise<CdpResponse> {
    return command('call', { toolName, input, timeoutMs });
  },
  async cancel(invocationId: string): Promise<{ ok: boolean; error?: string }> {
    return command('cancel', { invocationId });
  },
  async disable(): Promise<void> {
    await command('disable');
  },
  /** Waits until the host lists exactly `names` (sorted compare) among the tools matching `filter`. */
  async waitForNames(names: string[], filter: (name: string) => boolean = () => true, timeout = SAFETY_NET_MS): Promise<void> {
    const want = [...names].sort().join(',');
    let last = '';
    await waitUntil(
      async () => {
        last = (await agent.toolNames()).filter(filter).join(',');
        return last === want;
      },
      `the host never listed [${want}]`,
      { timeout, interval: 20 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last seen [${last}]`);
    });
  },
};

/** The MCP content an agent got back, parsed: `{ isError, body }` where body is the text's JSON. */
export function parseOutput(response: CdpResponse): { isError: boolean; body: Record<string, unknown> } {
  const out = (typeof response.output === 'string' ? JSON.parse(response.output) : response.output) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  return { isError: out.isError === true, body: JSON.parse(out.content[0]!.text) as Record<string, unknown> };
}
