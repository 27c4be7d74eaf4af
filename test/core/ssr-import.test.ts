// Importing the elements entry in Node (server-side rendering, test runners) must not throw:
// define.ts only touches customElements and document in a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';

test('importing src/elements in Node does not throw and defines nothing', async () => {
  assert.equal(typeof (globalThis as { document?: unknown }).document, 'undefined');
  const elements = await import('../../src/elements/index.js');
  assert.equal(typeof elements.AgentSurfaceElement, 'function');
  assert.equal(typeof elements.AgentCapabilityElement, 'function');
  assert.equal(typeof elements.defineAgentElements, 'function');
  // Running the definition again is still a no-op without a DOM.
  elements.defineAgentElements();
  const registry = (globalThis as { customElements?: CustomElementRegistry }).customElements;
  assert.equal(registry?.get('agent-surface'), undefined);
});

test('the event classes work without a DOM', async () => {
  const { AgentSurfaceChangedEvent } = await import('../../src/elements/events.js');
  const event = new AgentSurfaceChangedEvent('v1');
  assert.equal(event.type, 'agent-surface-changed');
  assert.equal(event.detail.surfaceVersion, 'v1');
  assert.equal(event.bubbles, true);
});
