/**
 * Injected WebMCP hosts with the shapes of reference/webmcp-hosts.md section 4, recording every
 * call, strict about duplicate names like the real ones.
 */
import type { ModelContextExecuteOptions, ModelContextLike, ModelContextTool } from '../../src/webmcp/types.js';

export type HostCall = `register ${string}` | `unregister ${string}` | `abort ${string}` | `provide ${string}` | 'clear';

abstract class RecordingHost {
  readonly calls: HostCall[] = [];
  readonly tools = new Map<string, ModelContextTool>();
  /** Names another script holds: registering them fails like a duplicate. */
  readonly foreign = new Set<string>();

  names(): string[] {
    return [...this.tools.keys()].sort();
  }

  tool(name: string): ModelContextTool {
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`no tool ${name}; have ${this.names().join(', ')}`);
    return tool;
  }

  protected take(tool: ModelContextTool): void {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(tool.name)) throw new DOMException('Invalid tool name', 'InvalidStateError');
    if (this.tools.has(tool.name) || this.foreign.has(tool.name)) throw new DOMException('Duplicate tool name', 'InvalidStateError');
    if (!tool.description) throw new DOMException('Empty description', 'InvalidStateError');
    this.tools.set(tool.name, tool);
  }
}

/** The current draft: `registerTool(tool, { signal })` returning a Promise; abort to unregister. */
export class CurrentHost extends RecordingHost implements ModelContextLike {
  /** The `exposedTo` each registered tool was given. */
  readonly exposedTo = new Map<string, string[] | undefined>();
  /** Refuse any non-empty `exposedTo` as the @mcp-b polyfill does (a DOMException of this name). */
  refuseExposedTo: string | undefined;

  async registerTool(tool: ModelContextTool, options: { signal?: AbortSignal; exposedTo?: string[] } = {}): Promise<void> {
    this.calls.push(`register ${tool.name}${options.exposedTo ? ` exposedTo=${options.exposedTo.join(',')}` : ''}`);
    if (this.refuseExposedTo && options.exposedTo?.length) throw new DOMException('Cross-document tool exposure is not supported', this.refuseExposedTo);
    this.take(tool);
    this.exposedTo.set(tool.name, options.exposedTo);
    options.signal?.addEventListener(
      'abort',
      () => {
        this.calls.push(`abort ${tool.name}`);
        if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name);
      },
      { once: true },
    );
    await Promise.resolve();
  }

  /** What an agent's call looks like: `execute(input, { signal })`. */
  execute(name: string, input: unknown, signal: AbortSignal = new AbortController().signal): Promise<unknown> {
    return this.tool(name).execute(input, { signal });
  }
}

/** Chrome 146–149 previews: `provideContext`, `registerTool`, `unregisterTool`, `execute(input, client)`. */
export class LegacyHost extends RecordingHost implements ModelContextLike {
  registerTool(tool: ModelContextTool): void {
    this.calls.push(`register ${tool.name}`);
    this.take(tool);
  }

  unregisterTool(name: string): void {
    this.calls.push(`unregister ${name}`);
    if (!this.tools.delete(name)) throw new DOMException('Unknown tool', 'NotFoundError');
  }

  provideContext({ tools }: { tools: ModelContextTool[] }): void {
    this.calls.push(`provide ${tools.map((t) => t.name).join(',')}`);
    this.tools.clear();
    for (const tool of tools) this.take(tool);
  }

  clearContext(): void {
    this.calls.push('clear');
    this.tools.clear();
  }

  /** The preview passed a client; `requestUserInteraction` runs page UI during the call. */
  execute(name: string, input: unknown, client?: ModelContextExecuteOptions): Promise<unknown> {
    return this.tool(name).execute(input, client ?? {});
  }
}

/** A host that only has the batch API (`provideContext` / `clearContext`). */
export class BatchHost extends RecordingHost implements ModelContextLike {
  provideContext({ tools }: { tools: ModelContextTool[] }): void {
    this.calls.push(`provide ${tools.map((t) => t.name).join(',')}`);
    this.tools.clear();
    for (const tool of tools) this.take(tool);
  }

  clearContext(): void {
    this.calls.push('clear');
    this.tools.clear();
  }

  execute(name: string, input: unknown): Promise<unknown> {
    return this.tool(name).execute(input);
  }
}

/** The MCP content a tool answered, with its JSON text parsed. */
export function content(result: unknown): { isError: boolean; body: Record<string, unknown> } {
  const r = (typeof result === 'string' ? JSON.parse(result) : result) as { content: { text: string }[]; isError?: boolean };
  return { isError: r.isError === true, body: JSON.parse(r.content[0]!.text) as Record<string, unknown> };
}
