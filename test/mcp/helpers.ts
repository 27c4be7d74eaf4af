// Shared by the MCP tests (not a test file itself): SDK clients over each transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';

export type Elicit = (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;

export interface TestClient {
  client: Client;
  /** Elicitation requests the client received. */
  elicitations: ElicitRequest[];
  /** How many `notifications/tools/list_changed` arrived. */
  listChanged(): number;
  /** Resolves on the next `list_changed`. */
  nextListChanged(): Promise<void>;
  close(): Promise<void>;
}

function makeClient(elicit: Elicit | undefined): Omit<TestClient, 'close'> {
  const client = new Client(
    { name: 'agent-surface-kit-tests', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: {} } : {} },
  );
  const elicitations: ElicitRequest[] = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request);
      return elicit(request);
    });
  }
  let count = 0;
  let waiters: (() => void)[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    count++;
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  });
  return {
    client,
    elicitations,
    listChanged: () => count,
    nextListChanged: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
}

export async function connectHttp(
  url: string,
  options: { elicit?: Elicit; headers?: Record<string, string> } = {},
): Promise<TestClient> {
  const made = makeClient(options.elicit);
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    options.headers ? { requestInit: { headers: options.headers } } : undefined,
  );
  await made.client.connect(transport);
  return { ...made, close: () => made.client.close() };
}

export async function connectMemory(server: Server, options: { elicit?: Elicit } = {}): Promise<TestClient> {
  const made = makeClient(options.elicit);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await made.client.connect(clientSide);
  return { ...made, close: () => made.client.close() };
}

/** The JSON in a result's text content (loosely typed: tests read whatever fields they check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function textJson(result: unknown): any {
  const content = (result as CallToolResult).content;
  const first = content[0];
  if (!first || first.type !== 'text') throw new Error(`no text content in ${JSON.stringify(result)}`);
  return JSON.parse(first.text);
}

export const accept: Elicit = () => ({ action: 'accept', content: {} });
export const decline: Elicit = () => ({ action: 'decline' });
