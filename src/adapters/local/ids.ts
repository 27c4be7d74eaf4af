// The tags of a tool call in the prompt format (tool-format.ts), shared with the Prompt API engine,
// which writes its constrained JSON replies as such calls.
export const CALL_OPEN = '<tool_call>';
export const CALL_CLOSE = '</tool_call>';
