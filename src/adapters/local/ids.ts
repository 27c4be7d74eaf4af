/** Ids for messages, calls and data markers: random, never reused. */
export const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
