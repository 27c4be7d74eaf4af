/** `<agent-chat>` and the AgentAdapter stream contract: not built yet. */
export {};
