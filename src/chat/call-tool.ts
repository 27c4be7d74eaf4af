/**
 * `callModelContextTool`: runs a WebMCP-shaped tool (`{ name, execute(input, { signal }) }`, what
 * `registerTool` takes) and always resolves to a `ToolOutput`. Whatever the tool returns or throws,
 * and whenever the signal aborts, the caller gets an MCP result, never a rejection.
 */
import type { ToolOutput } from './types.js';

/** The least a tool needs to be called: WebMCP's `ModelContextTool` fits. */
export interface CallableModelContextTool {
  readonly name?: string;
  execute(input: unknown, options?: { signal?: AbortSignal }): unknown;
}

export interface CallModelContextToolOptions {
  signal?: AbortSignal;
}

/** The text a cancelled call reports; the session shows it as cancelled, not failed. */
export const CANCELLED_TEXT = 'Error [cancelled]: the call was stopped.';

/** A failed `ToolOutput` with one text. */
export function errorOutput(text: string): ToolOutput {
  return { content: [{ type: 'text', text }], isError: true };
}

/** What was thrown, in words: its message or its text, else `fallback`; read safely (a Proxy's traps may throw). */
export function messageOf(error: unknown, fallback = 'the tool failed'): string {
  try {
    const message = typeof error === 'string' ? error : (error as { message?: unknown }).message;
    return typeof message === 'string' && message ? message : fallback;
  } catch {
    return fallback;
  }
}

function isAbort(error: unknown): boolean {
  // Whatever was thrown is read safely: a rejection with a Proxy whose traps throw must still end the call.
  try {
    return (error as { name?: unknown }).name === 'AbortError';
  } catch {
    return false;
  }
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Any value a tool returned as a `ToolOutput`: an MCP result is kept (its non-text content shown
 * as JSON text, since the chat contract carries text), a string becomes the text, anything else
 * its JSON (objects also as `structuredContent`).
 */
export function toToolOutput(value: unknown): ToolOutput {
  if (value && typeof value === 'object' && Array.isArray((value as ToolOutput).content)) {
    const result = value as { content: unknown[]; isError?: unknown; structuredContent?: unknown };
    const content = result.content.map((c) => {
      if (c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string')
        return { type: 'text' as const, text: (c as { text: string }).text };
      return { type: 'text' as const, text: safeJson(c) ?? String(c) };
    });
    const output: ToolOutput = { content };
    if (result.isError === true) output.isError = true;
    const structured = result.structuredContent;
    if (structured && typeof structured === 'object' && !Array.isArray(structured) && safeJson(structured) !== undefined)
      output.structuredContent = structured as ToolOutput['structuredContent'];
    return output;
  }
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined) return { content: [] };
  const text = safeJson(value);
  if (text === undefined) return errorOutput('Error: the tool returned a value that is not JSON.');
  const output: ToolOutput = { content: [{ type: 'text', text }] };
  if (value && typeof value === 'object' && !Array.isArray(value)) output.structuredContent = value as ToolOutput['structuredContent'];
  return output;
}

/**
 * Runs `tool.execute(input, { signal })`. Resolves to the tool's result as a `ToolOutput`; a throw
 * becomes an `isError` result with the error's message; an abort (before or during the call)
 * resolves at once with an `Error [cancelled]` result, whether or not the tool honours the signal.
 */
export function callModelContextTool(
  tool: CallableModelContextTool,
  input: unknown,
  options: CallModelContextToolOptions = {},
): Promise<ToolOutput> {
  // Everything runs inside the executor: a tool (or options) whose reads throw, a Proxy a hostile
  // script registered, becomes an isError result like any other failure, never a throw.
  return new Promise<ToolOutput>((resolve) => {
    const signal = options.signal;
    if (!tool || typeof tool.execute !== 'function') return resolve(errorOutput('Error: not a tool (it has no execute function).'));
    if (signal?.aborted) return resolve(errorOutput(CANCELLED_TEXT));
    let settled = false;
    const finish = (output: ToolOutput) => {
      if (settled) return;
      settled = true;
      resolve(output);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => finish(errorOutput(CANCELLED_TEXT));
    signal?.addEventListener('abort', onAbort, { once: true });
    let pending: unknown;
    try {
      pending = tool.execute(input, signal ? { signal } : {});
    } catch (error) {
      finish(isAbort(error) ? errorOutput(CANCELLED_TEXT) : errorOutput(`Error: ${messageOf(error)}`));
      return;
    }
    Promise.resolve(pending).then(
      (value) => {
        // A hostile result (a throwing getter) must not leave the call hanging.
        try {
          finish(toToolOutput(value));
        } catch (error) {
          finish(errorOutput(`Error: ${messageOf(error)}`));
        }
      },
      (error: unknown) => finish(isAbort(error) || signal?.aborted ? errorOutput(CANCELLED_TEXT) : errorOutput(`Error: ${messageOf(error)}`)),
    );
  }).catch((error: unknown) => errorOutput(`Error: ${messageOf(error)}`));
}
