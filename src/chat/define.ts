/**
 * Defines `<agent-chat>` (and the kit's other elements it works with are defined by
 * `agent-surface-kit/elements`). Safe to run twice, next to another copy of the kit, and in Node.
 */
import { AgentChatElement } from './agent-chat.js';

export function defineAgentChat(): void {
  if (typeof customElements === 'undefined') return;
  if (!customElements.get('agent-chat')) customElements.define('agent-chat', AgentChatElement);
}

defineAgentChat();
