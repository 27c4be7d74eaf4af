/**
 * `toToolResult`: an invocation result in the MCP tool-result shape. Error code, retry advice and
 * details travel in the text content (what every model sees) and in `structuredContent`.
 */
import type { AgentInvocationResult, JsonObject, JsonValue, ToolResult } from './types.js';

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `{ content: [{ type: "text", text }], isError, structuredContent }`.
 * Success: `text` is the output's JSON; `structuredContent` the output when it is an object (MCP
 * wants an object there, so a scalar or array output is carried by the text alone).
 * Failure: `text` is the error's JSON (`{ code, message, retry, details? }`), `structuredContent`
 * is `{ error }`, `isError` is true.
 */
export function toToolResult(result: AgentInvocationResult): ToolResult {
  if (result.ok) {
    const output = result.output;
    // `undefined` never crosses the registry (output must be JSON), but a custom tool may slip.
    const text = output === undefined ? 'null' : JSON.stringify(output);
    return isJsonObject(output)
      ? { content: [{ type: 'text', text }], isError: false, structuredContent: output }
      : { content: [{ type: 'text', text }], isError: false };
  }
  const error: JsonObject = {
    code: result.error.code,
    message: result.error.message,
    retry: result.error.retry,
  };
  if (result.error.details !== undefined) error.details = result.error.details;
  return {
    content: [{ type: 'text', text: JSON.stringify(error) }],
    isError: true,
    structuredContent: { error },
  };
}
