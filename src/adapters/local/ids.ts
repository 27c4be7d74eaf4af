/** An error's words, for a status or a part. */
export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Ids for messages, calls and data markers: random, never reused. */
export const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;

// The tags of a tool call in the prompt format (tool-format.ts), here for the Prompt API engine too:
// importing them from the format's module would split the lazily loaded run code into two chunks.
export const CALL_OPEN = '<tool_call>';
export const CALL_CLOSE = '</tool_call>';
