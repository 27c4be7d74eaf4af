// ES builds per subpath (lit external) in dist/ (shared code in dist/chunks/, a chunk per source
// module), a development build in dist/dev/, and one minified CDN entry with lit bundled in
// dist/cdn/. Types come from `tsc -p tsconfig.build.json`.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import esbuild from 'rollup-plugin-esbuild';
import { resolve as resolvePath } from 'node:path';
import { rmSync } from 'node:fs';
import ts from 'typescript';

// Chunk names carry content hashes: without a clean start, chunks of earlier builds would pile up in
// dist/ (and in the published package). Once per build, before the first output is written; dist/types
// comes from tsc and stays.
let cleaned = false;
const cleanDist = {
  name: 'clean-dist',
  buildStart() {
    if (cleaned) return;
    cleaned = true;
    for (const dir of ['dist/chunks', 'dist/cdn', 'dist/dev']) rmSync(dir, { recursive: true, force: true });
  },
};

const browserEntries = {
  index: 'src/index.ts',
  elements: 'src/elements/index.ts',
  webmcp: 'src/webmcp/index.ts',
  chat: 'src/chat/index.ts',
  adapters: 'src/adapters/index.ts',
  testing: 'src/testing/index.ts',
  dev: 'src/dev/index.ts',
};
const nodeEntries = {
  compiler: 'src/compiler/index.ts',
  cli: 'src/compiler/cli.ts',
  server: 'src/server/index.ts',
  mcp: 'src/mcp/index.ts',
};

const external = (id) =>
  /^(lit|@lit\/|@lit-labs\/|@cfworker\/|@modelcontextprotocol\/|@wllama\/|ajv|esbuild|parse5|eventsource-parser|streaming-markdown|node:)/.test(id);

const esbuildTs = (prod) =>
  esbuild({
    target: 'es2022',
    tsconfig: './tsconfig.json',
    define: prod ? { AGENT_SURFACE_PROD: 'true' } : {},
  });

/**
 * Browsers remember a failed module fetch: `import()` of the same URL fails again without asking the
 * network, so a lazy chunk that failed once (a flaky connection) would stay out of reach until the
 * page reloads. In the CDN build every `import()` of a chunk goes through `load`, which asks for a
 * chunk that failed before under a fresh URL (`?retry=n`). Each chunk gets its own copy (terser drops
 * it where a chunk imports nothing lazily).
 */
const retryableImports = {
  name: 'retryable-imports',
  renderDynamicImport({ targetChunk }) {
    return targetChunk ? { left: '__kitLoadChunk(', right: ')' } : null;
  },
  renderChunk(code) {
    if (!code.includes('__kitLoadChunk(')) return null;
    // Appended (a hoisted declaration, usable during the chunk's own evaluation): no line moves, so
    // the source map stays as it is.
    const helper =
      'function __kitLoadChunk(path){const failed=__kitLoadChunk.failed??=new Map,n=failed.get(path);' +
      'return import(n?path+"?retry="+n:path).catch(e=>{failed.set(path,(n??0)+1);throw e})}';
    return { code: `${code}\n${helper}\n`, map: null };
  },
};

/**
 * The CDN file stays one file when the chat's entry shares its modules: every module the kit's entry
 * reaches statically goes in agent-surface.min.js (which then exports what the chat needs), instead of
 * rollup moving the shared ones into a chunk both entries import.
 */
function keepSurfaceWhole(id, { getModuleInfo }) {
  keepSurfaceWhole.closure ??= (() => {
    const seen = new Set();
    const entry = [...(this?.getModuleIds?.() ?? [])].find((m) => m.endsWith('/src/cdn.ts')) ?? resolvePath('src/cdn.ts');
    const walk = (m) => {
      if (seen.has(m)) return;
      seen.add(m);
      for (const dep of getModuleInfo(m)?.importedIds ?? []) walk(dep);
    };
    walk(entry);
    return seen;
  })();
  // The start tag console messages name an element by: besides the registration chunk, only the
  // development checks use it, whose every call sits behind DEV_MODE (none in this production
  // build), so it travels with the registration instead of in every page's first download.
  if (id.endsWith('/src/elements/element-label.ts') || id.endsWith('/src/elements/capability-registration.ts')) return 'capability-registration';
  return keepSurfaceWhole.closure.has(id) ? 'agent-surface.min' : undefined;
}

/**
 * npm builds: a module that more than one entry reaches (the target of a lazy `import()` counts as an
 * entry) gets a chunk of its own, named by its path in src/ (unique), instead of sharing a chunk per
 * set of entries; a module one entry alone reaches stays in that entry's file. An app's bundler finds
 * the modules it finds in src/ and drops the same unused code: a bundler that inlines `import()`
 * (esbuild without code splitting) wraps every module a lazy chunk imports for lazy evaluation, and
 * keeps all of a wrapped module, so a shared chunk of many modules kept the constants of those an
 * app never uses (the local adapter's grammar in an app of the cloud adapter alone). The element
 * definitions stay in dist/elements.js and dist/chat.js, which package.json's `sideEffects` lists: a
 * shared chunk that held one was, to bundlers, free of side effects (test/package/tree-shaking.test.ts).
 */
function sourceModuleChunks() {
  const src = resolvePath('src') + '/';
  // Per build: rollup hands each build its own getModuleInfo.
  const owners = new WeakMap();
  const entriesReaching = (getModuleIds, getModuleInfo) => {
    const reach = new Map();
    const ids = [...getModuleIds()];
    const entries = new Set(ids.filter((id) => getModuleInfo(id)?.isEntry));
    for (const id of ids) for (const lazy of getModuleInfo(id)?.dynamicallyImportedIds ?? []) entries.add(lazy);
    for (const entry of entries) {
      const stack = [entry];
      while (stack.length) {
        const id = stack.pop();
        const info = getModuleInfo(id);
        if (!info || info.isExternal) continue;
        const set = reach.get(id) ?? reach.set(id, new Set()).get(id);
        if (set.has(entry)) continue;
        set.add(entry);
        stack.push(...info.importedIds);
      }
    }
    return reach;
  };
  return (id, { getModuleIds, getModuleInfo }) => {
    if (!owners.has(getModuleInfo)) owners.set(getModuleInfo, entriesReaching(getModuleIds, getModuleInfo));
    if (!id.startsWith(src) || (owners.get(getModuleInfo).get(id)?.size ?? 0) < 2) return undefined;
    return id.slice(src.length).replace(/\.ts$/, '');
  };
}

/**
 * Stylesheets given to `unsafeCSS` as a plain template literal lose their comments, the
 * whitespace CSS never needs (runs of it become one space; none around `{`, `}`, `;`, `,` or after
 * `:`) and the `;` before a `}`, in the minified builds only: terser leaves the insides of strings
 * alone.
 */
const compactStyles = {
  name: 'compact-styles',
  transform(code, id) {
    if (!/\/src\/.*\.ts$/.test(id) || !code.includes('unsafeCSS(`')) return null;
    const out = code.replace(/unsafeCSS\(`([^`$\\]*)`\)/g, (_, css) =>
      `unsafeCSS(\`${css.replace(/\/\*[^]*?\*\//g, '').replace(/\s+/g, ' ').replace(/\s*([{};,])\s*/g, '$1').replace(/:\s+/g, ':').replace(/;}/g, '}').trim()}\`)`,
    );
    return out === code ? null : { code: out, map: null };
  },
};

/**
 * lit templates (`html\`…\``) in the minified builds lose the indentation after each line break of
 * their markup: a line break alone stays, so whitespace stays whitespace and text nodes keep their
 * place. Found with TypeScript's parser, so only the static parts of `html` tagged templates change.
 */
const compactTemplates = {
  name: 'compact-templates',
  transform(code, id) {
    if (!/\/src\/.*\.ts$/.test(id) || !code.includes('html`')) return null;
    const sf = ts.createSourceFile(id, code, ts.ScriptTarget.Latest, true);
    const edits = [];
    const visit = (node) => {
      if (ts.isTaggedTemplateExpression(node) && node.tag.getText(sf) === 'html') {
        const t = node.template;
        const parts = ts.isNoSubstitutionTemplateLiteral(t) ? [t] : [t.head, ...t.templateSpans.map((s) => s.literal)];
        for (const p of parts) {
          const start = p.getStart(sf) + 1;
          const end = p.getEnd() - (ts.isTemplateHead(p) || ts.isTemplateMiddle(p) ? 2 : 1);
          const raw = code.slice(start, end);
          const compact = raw.replace(/\n[ \t]+/g, '\n');
          if (compact !== raw) edits.push([start, end, compact]);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    if (!edits.length) return null;
    let out = code;
    for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
    return { code: out, map: null };
  },
};

// `hoist_funs` moves function declarations to the top of their scope, where JavaScript puts them
// anyway: the code runs the same, and the file gzips smaller (the declarations sit together).
const terserOptions = { ecma: 2022, module: true, compress: { passes: 2, hoist_funs: true }, format: { comments: false } };

export default [
  {
    input: browserEntries,
    external,
    plugins: [cleanDist, compactStyles, compactTemplates, esbuildTs(true), terser(terserOptions)],
    output: { dir: 'dist', format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', manualChunks: sourceModuleChunks() },
  },
  {
    input: browserEntries,
    external,
    plugins: [esbuildTs(false)],
    output: { dir: 'dist/dev', format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', manualChunks: sourceModuleChunks() },
  },
  {
    input: nodeEntries,
    external,
    plugins: [esbuildTs(false)],
    output: { dir: 'dist', format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/node-[name]-[hash].js' },
  },
  {
    // Two entries, one module graph: agent-chat.min.js imports agent-surface.min.js (src/cdn-chat.ts
    // imports src/cdn.ts), so every module both reach stays in agent-surface.min.js and the chat file
    // imports it from there: one copy of lit and of the core on a page that loads both.
    input: { 'agent-surface.min': 'src/cdn.ts', 'agent-chat.min': 'src/cdn-chat.ts' },
    // Lazy chunks import what they share with the entry from the entry itself (extra, short-named
    // exports) instead of rollup moving the entry's code into a chunk behind a re-exporting facade.
    preserveEntrySignatures: 'allow-extension',
    plugins: [nodeResolve({ browser: true }), compactStyles, compactTemplates, esbuildTs(true), retryableImports, terser(terserOptions)],
    output: {
      dir: 'dist/cdn',
      format: 'es',
      entryFileNames: '[name].js',
      // Six characters of content hash tell a chunk's versions apart as well as eight (the file
      // names the entry imports are part of what every page downloads).
      chunkFileNames: '[name]-[hash:6].min.js',
      manualChunks: keepSurfaceWhole,
    },
  },
];
