// The CDN file exports no input-formatting helpers: see format-exports.ts. Types cost nothing.
export type { FormattedEntry, FormattedInput } from './format-input.js';
