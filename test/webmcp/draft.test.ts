import { expect } from '@open-wc/testing';
import type { ModelContextLike } from '../../src/webmcp/types.js';
import { draftScenario } from './draft-scenario.js';

// The default browser: Chromium 156 with --enable-features=WebMCP (web-test-runner.config.mjs).
describe('the current WebMCP draft on Chromium’s native host', () => {
  it('is the native host', () => {
    const mc = (document as unknown as { modelContext?: object }).modelContext;
    expect(mc?.constructor?.name).to.equal('ModelContext');
    expect('ontoolactivated' in mc! && 'ontoolcancel' in mc!).to.equal(true);
  });

  draftScenario({
    host: () => (document as unknown as { modelContext: ModelContextLike }).modelContext,
    keptAnnotations: ['readOnlyHint', 'untrustedContentHint', 'consequentialHint', 'debugging'],
    activityEvents: true,
    executeSignal: true,
    input: (value) => value,
  });
});
