// The one place the demo imports agent-surface-kit from. `npm start` serves the sources through the
// dev server's esbuild TypeScript transform; an app would import 'agent-surface-kit' and
// 'agent-surface-kit/elements' instead (or load dist/cdn/agent-surface.min.js with no build step).
export * from '../src/index.ts';
export * from '../src/elements/index.ts';
export { detectModelContext } from '../src/webmcp/index.ts';
export { createScriptedAdapter, defineWebAgent } from '../src/chat/index.ts';
export { createOpenAICompatibleAdapter } from '../src/adapters/index.ts';
