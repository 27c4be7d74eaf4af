/** Test helpers: `createTestSurface`. */
export {};
