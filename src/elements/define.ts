/**
 * The only module that calls `customElements.define`. Importing it twice, or next to another copy
 * of the kit, is harmless (a tag already defined is left alone), and in Node (SSR) it does nothing.
 */
import { ContextRoot } from '@lit/context';
import { AgentCapabilityElement } from './agent-capability.js';
import { AgentConfirmElement } from './agent-confirm.js';
import { AgentSurfaceElement } from './agent-surface.js';
import { AgentViewElement } from './agent-view.js';

const ELEMENTS: ReadonlyArray<readonly [string, CustomElementConstructor]> = [
  ['agent-surface', AgentSurfaceElement],
  ['agent-view', AgentViewElement],
  ['agent-capability', AgentCapabilityElement],
  ['agent-confirm', AgentConfirmElement],
];

const ROOT = Symbol.for('agent-surface-kit/context-root');

/** Defines every element that is not defined yet; runs on import. */
export function defineAgentElements(): void {
  if (typeof document === 'undefined' || typeof customElements === 'undefined') return;
  // Requests from elements that upgrade before their provider are kept here and answered once the
  // provider appears: what lets the tags be defined (or loaded) in any order.
  const root = globalThis as { [ROOT]?: ContextRoot };
  if (!root[ROOT]) {
    root[ROOT] = new ContextRoot();
    root[ROOT].attach(document.documentElement);
  }
  for (const [tag, element] of ELEMENTS) {
    if (!customElements.get(tag)) customElements.define(tag, element);
  }
}

defineAgentElements();
