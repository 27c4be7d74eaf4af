/** What was thrown, in words: its message, else the value itself as text. */
export const why = (e: unknown, or?: string): string => (e as Error)?.message || or || String(e);
