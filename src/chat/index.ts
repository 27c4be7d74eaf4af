/**
 * agent-surface-kit/chat: `<agent-chat>` and the AgentAdapter stream contract (DESIGN section 7).
 * The reducer and the types are DOM-free and run in Node too.
 */
export type * from './types.js';
