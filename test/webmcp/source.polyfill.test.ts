import { expect } from '@open-wc/testing';
import { initializeWebMCPPolyfill } from '@mcp-b/webmcp-polyfill';
import type { ModelContextLike } from '../../src/webmcp/types.js';
import { sourceScenario } from './source-scenario.js';

// Runs in the `webmcp-polyfill` group: a Chromium without the WebMCP flag (web-test-runner.config.mjs).
const nativeHost = (document as unknown as { modelContext?: unknown }).modelContext !== undefined;
if (!nativeHost) initializeWebMCPPolyfill();

// In the default browser the native host owns document.modelContext: this file belongs to the other group.
// (mocha's describe.skip; the shared globals in test/elements/mocha-globals.d.ts declare describe only)
const suite = nativeHost ? (describe as typeof describe & { skip: typeof describe }).skip : describe;

suite('createWebMcpSource on the @mcp-b polyfill', () => {
  it('is the polyfill, not a native host', () => {
    const mc = (document as unknown as { modelContext: Record<string, unknown> }).modelContext;
    expect(mc).to.not.equal(undefined);
    expect(Object.getOwnPropertyNames(mc)).to.include('__isWebMCPPolyfill');
  });

  sourceScenario({
    host: () => (document as unknown as { modelContext: ModelContextLike }).modelContext,
    keepsConsequentialHint: false,
  });
});
