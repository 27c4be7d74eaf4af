/** Drives an adapter's `run` like `<agent-chat>` does, recording the parts and the tool calls. */
import type { AgentAdapter, AgentMessage, AgentStreamPart, ToolDescriptor, ToolOutput, WebAgent } from '../../../src/chat/types.js';

export const tool = (name: string, extra: Partial<ToolDescriptor> = {}): ToolDescriptor => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties: {}, additionalProperties: true },
  ...extra,
});

export const ok = (value: unknown): ToolOutput => ({ content: [{ type: 'text', text: JSON.stringify(value) }], isError: false });

export const user = (text: string, id = 'u1'): AgentMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

export interface RunOptions {
  messages?: AgentMessage[];
  tools?: ToolDescriptor[] | (() => ToolDescriptor[]);
  agent?: WebAgent;
  signal?: AbortSignal;
  callTool?: (call: { id: string; name: string; input: unknown }) => Promise<ToolOutput> | ToolOutput;
  /** Called with each part as it arrives (to abort at a chosen moment, say). */
  onPart?: (p: AgentStreamPart) => void;
}

export async function runAdapter(adapter: AgentAdapter, o: RunOptions = {}) {
  const parts: AgentStreamPart[] = [];
  const calls: { id: string; name: string; input: unknown }[] = [];
  let running = 0;
  const toolsOf = typeof o.tools === 'function' ? o.tools : () => (o.tools as ToolDescriptor[] | undefined) ?? [];
  const req = {
    messages: o.messages ?? [user('hi')],
    get tools() {
      return toolsOf();
    },
    signal: o.signal ?? new AbortController().signal,
    agent: o.agent,
    async callTool(call: { id: string; name: string; input: unknown }) {
      if (running++) throw new Error('two tool calls at once');
      try {
        calls.push(call);
        return o.callTool ? await o.callTool(call) : ok({ done: call.name });
      } finally {
        running--;
      }
    },
  };
  for await (const p of adapter.run(req)) {
    parts.push(p);
    o.onPart?.(p);
  }
  const text = parts.map((p) => (p.type === 'text-delta' ? p.delta : '')).join('');
  const last = parts[parts.length - 1];
  return { parts, calls, text, last, types: parts.map((p) => p.type) };
}

/** Checks the contract's shape: message-start first, every tool-call answered once, finish or error last. */
export function assertContract(parts: AgentStreamPart[]): string | undefined {
  if (parts[0]?.type !== 'message-start') return 'first part is not message-start';
  const last = parts[parts.length - 1];
  if (last?.type !== 'finish' && last?.type !== 'error') return 'last part is not finish or error';
  const open = new Set<string>();
  for (const p of parts) {
    if (p.type === 'tool-call') {
      if (open.has(p.id)) return `tool-call ${p.id} twice`;
      open.add(p.id);
    }
    if (p.type === 'tool-result' || p.type === 'tool-error') {
      if (!open.delete(p.id)) return `answer for unknown call ${p.id}`;
    }
  }
  if (open.size) return `calls never answered: ${[...open].join(', ')}`;
  return undefined;
}
