/**
 * `toToolResult`: an invocation result in the MCP tool-result shape. Error code, retry advice and
 * details travel in the text content (what every model sees) and in `structuredContent`.
 */
import type { AgentInvocationResult, JsonObject, ToolResult } from './types.js';

/**
 * `{ content: [{ type: "text", text }], isError, structuredContent }`.
 * Success: `text` is the output's JSON; `structuredContent` the output when it is an object (MCP
 * wants an object there, so a scalar or array output is carried by the text alone).
 * Failure: `text` is the error's JSON (`{ code, message, retry, details? }`), `structuredContent`
 * is `{ error }`, `isError` is true.
 */
export function toToolResult(result: AgentInvocationResult): ToolResult {
  if (result.ok) {
    const { output } = result;
    // `undefined` never crosses the registry (output must be JSON), but a custom tool may slip.
    const tool: ToolResult = {
      content: [{ type: 'text', text: output === undefined ? 'null' : JSON.stringify(output) }],
      isError: false,
    };
    if (typeof output === 'object' && output !== null && !Array.isArray(output)) tool.structuredContent = output;
    return tool;
  }
  const { code, message, retry, details } = result.error;
  const error: JsonObject = { code, message, retry };
  if (details !== undefined) error.details = details;
  return {
    content: [{ type: 'text', text: JSON.stringify(error) }],
    isError: true,
    structuredContent: { error },
  };
}
