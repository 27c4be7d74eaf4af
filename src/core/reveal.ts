/**
 * `reveal`: text a person reads before approving a call (an agent's input, a tool's name) with the
 * characters that could make it read as something else shown as escapes. Shared by every approval a
 * person sees: `<agent-confirm>`, `<agent-chat>` and the MCP projection's elicitation question.
 */

// Characters that could make the text read differently from what it is: controls, format
// characters (bidi overrides and isolates, zero-width characters, Unicode tags, which a model reads
// as text a person cannot see), private-use and unassigned ones, other invisible ones (variation
// selectors, fillers), line and paragraph separators.
const HIDDEN = /[\p{C}\p{DI}\p{Zl}\p{Zp}]/gu;

/** `text` with the hidden characters shown as `\uXXXX` (`\u{XXXXX}` past the BMP). */
export const reveal = (text: string): string =>
  text.replace(HIDDEN, (c) => {
    const n = c.codePointAt(0)!.toString(16);
    return `\\u${c[1] ? `{${n}}` : n.padStart(4, '0')}`;
  });
