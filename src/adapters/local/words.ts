/** What was thrown, in words: its message, else the value itself as text. */
export const why = (e: unknown, or?: string): string => (e as Error)?.message || or || String(e);
/** A run's (and a load's) words for a model that has to be downloaded first. */
export const NOT_HERE = 'The model is not on this device yet: download it first.';
