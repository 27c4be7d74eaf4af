/**
 * The only module that calls `customElements.define`. Importing it twice, or next to another copy
 * of the kit, is harmless (a tag already defined is left alone), and in Node (SSR) it does nothing.
 */
import { AgentCapabilityElement } from './agent-capability.js';
import { AgentConfirmElement } from './agent-confirm.js';
import { AgentSurfaceElement } from './agent-surface.js';
import { AgentViewElement } from './agent-view.js';
import { AgentWebMcpElement } from './agent-webmcp.js';
import { ensureContextRoot } from './context.js';

const ELEMENTS: ReadonlyArray<readonly [string, CustomElementConstructor]> = [
  ['agent-surface', AgentSurfaceElement],
  ['agent-view', AgentViewElement],
  ['agent-capability', AgentCapabilityElement],
  ['agent-confirm', AgentConfirmElement],
  ['agent-webmcp', AgentWebMcpElement],
];

/** Defines every element that is not defined yet; runs on import. */
export function defineAgentElements(): void {
  if (typeof document === 'undefined' || typeof customElements === 'undefined') return;
  ensureContextRoot(document);
  for (const [tag, element] of ELEMENTS) {
    if (!customElements.get(tag)) customElements.define(tag, element);
  }
}

defineAgentElements();
