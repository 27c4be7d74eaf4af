// The tags of a tool call in the prompt format (tool-format.ts), shared with the Prompt API engine,
// which writes its constrained JSON replies as such calls.
export const CALL_OPEN = '<tool_call>';
export const CALL_CLOSE = '</tool_call>';
// What the model reads when a call's arguments are not a JSON object (either engine's calls).
export const NOT_AN_OBJECT = 'Error: the arguments must be a JSON object.';
