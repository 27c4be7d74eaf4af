// `npm run analyze` (cem analyze --config custom-elements-manifest.config.mjs) writes custom-elements.json;
// `npm run check` verifies the committed one is fresh. Only the public API goes in: private and
// protected members, `_`-prefixed internals and lit's static plumbing are dropped.
const LIT_STATICS = new Set(['styles', 'properties', 'shadowRootOptions']);

function publicApiOnly() {
  return {
    name: 'agent-surface-kit/public-api-only',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules ?? []) {
        for (const decl of mod.declarations ?? []) {
          if (decl.attributes) decl.attributes = decl.attributes.filter((a) => !a.name.startsWith('_'));
          // Events come from the JSDoc @fires tags; the analyzer's guesses from `dispatchEvent(new X(arg))`
          // read the first constructor argument as the event name.
          if (decl.events) {
            const documented = decl.events.filter((e) => e.description);
            decl.events = documented.length
              ? documented
              : decl.events.filter((e) => /^[a-z]+(-[a-z]+)+$/.test(e.name ?? ''));
          }
          if (!decl.members) continue;
          decl.members = decl.members.filter(
            (m) =>
              m.privacy !== 'private' &&
              m.privacy !== 'protected' &&
              !m.name.startsWith('_') &&
              !m.name.startsWith('#') &&
              !(m.static && LIT_STATICS.has(m.name)) &&
              // lifecycle callbacks are not API
              !/^(connectedCallback|disconnectedCallback|attributeChangedCallback|render|updated|willUpdate|firstUpdated)$/.test(
                m.name,
              ),
          );
        }
      }
    },
  };
}

export default {
  globs: ['src/elements/**/*.ts', 'src/chat/**/*.ts'],
  // *.cdn.ts are the CDN build's variants of seam modules (rollup.config.js), not more API.
  exclude: ['**/*.test.ts', '**/*.d.ts', '**/*.cdn.ts'],
  outdir: '.',
  litelement: true,
  dependencies: false,
  packagejson: false,
  plugins: [publicApiOnly()],
};
