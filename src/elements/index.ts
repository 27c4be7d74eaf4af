/** Defines the agent-surface-kit custom elements (idempotent) and exports their classes and contexts. */
export {};
