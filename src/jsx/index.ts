/**
 * `agent-surface-kit/jsx` (types only): the kit's elements for React 19, Preact, Vue 3 and Svelte 5 at
 * once. It reads each framework's types, so a project without one of them should import the
 * framework's own file instead (`agent-surface-kit/jsx/react`, `/preact`, `/vue`, `/svelte`), unless
 * `skipLibCheck` is on. The element table is generated from custom-elements.json (elements.ts).
 */
export type * from './common.js';
export type * from './react.js';
export type * from './preact.js';
export type * from './vue.js';
export type * from './svelte.js';
