import { expect } from '@open-wc/testing';
import { initializeWebMCPPolyfill } from '@mcp-b/webmcp-polyfill';
import type { ModelContextLike } from '../../src/webmcp/types.js';
import { draftScenario } from './draft-scenario.js';

// Runs in the `webmcp-polyfill` group: a Chromium without the WebMCP flag (web-test-runner.config.mjs).
const nativeHost = (document as unknown as { modelContext?: unknown }).modelContext !== undefined;
if (!nativeHost) initializeWebMCPPolyfill();
// In the default browser the native host owns document.modelContext: this file belongs to the other group.
const suite = nativeHost ? (describe as typeof describe & { skip: typeof describe }).skip : describe;

suite('the current WebMCP draft on the @mcp-b polyfill', () => {
  it('is the polyfill, without the activity events', () => {
    const mc = (document as unknown as { modelContext: object }).modelContext;
    expect(Object.getOwnPropertyNames(mc)).to.include('__isWebMCPPolyfill');
    expect('ontoolactivated' in mc || 'ontoolcancel' in mc).to.equal(false);
  });

  draftScenario({
    host: () => (document as unknown as { modelContext: ModelContextLike }).modelContext,
    refusesExposedTo: 'NotSupportedError',
    // It keeps two hints and drops consequentialHint and debugging at registration.
    keptAnnotations: ['readOnlyHint', 'untrustedContentHint'],
    activityEvents: false,
    executeSignal: false,
    // Its executeTool parses a JSON string.
    input: (value) => JSON.stringify(value),
  });
});
