/** Test helpers: `createTestSurface`. */
export { createTestSurface } from './test-surface.js';
export type { TestSurface, TestSurfaceOptions, TestCapabilityOptions, TestSurfaceEvent, TestInvocationResult } from './test-surface.js';
