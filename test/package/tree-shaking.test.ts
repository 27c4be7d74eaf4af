// The packed package as an app's bundler reads it: esbuild, bundling one model adapter or the core
// entry from `agent-surface-kit` (the installed tarball, its package.json exports and sideEffects),
// drops as much as it drops from the source. The npm build's chunks once grouped every adapter in one
// shared chunk that the local adapter's lazy chunk imports from; esbuild wraps such a chunk whole for
// lazy evaluation and keeps all of it, so an app of the cloud adapter alone carried the local
// adapter's grammar. And `import 'agent-surface-kit/chat'` (or `/elements`), bundled, still defines
// the elements: the definitions sit in files package.json marks as having side effects (a shared
// chunk once held `<agent-chat>`'s, and the development build's both, so bundlers dropped them).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { projectFolder, packedDir } from './packed.js';

const repo = join(import.meta.dirname, '../..');
// The kit's own code only: its dependencies are the same package either way.
const EXTERNAL = [
  'lit',
  'lit/*',
  '@lit/*',
  '@lit-labs/*',
  '@cfworker/*',
  '@modelcontextprotocol/*',
  '@wllama/*',
  'eventsource-parser',
  'streaming-markdown',
];
// Terser's minified chunks, minified again by esbuild, come out a few bytes off esbuild's own minify
// of the source, either way; what a shared chunk kept was 4 to 8 per cent of an adapter.
const SLACK = 1.01;

let app: string;
let kit: string;

before(() => {
  app = projectFolder('tree-shaking');
  kit = realpathSync(join(packedDir(), 'node_modules/agent-surface-kit'));
});

/** esbuild's minified bundle of `contents` (resolved from `dir`), platform neutral, and its gzip -9 size. */
async function bundle(
  contents: string,
  dir: string,
  conditions?: string[],
): Promise<{ code: string; gzip: number }> {
  const out = await build({
    ...(conditions ? { conditions } : {}),
    stdin: { contents, resolveDir: dir, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
    external: EXTERNAL,
  });
  const file = out.outputFiles[0]!;
  return { code: file.text, gzip: gzipSync(file.contents, { level: 9 }).length };
}

describe('the packed package, bundled by an app', () => {
  for (const name of ['createOpenAICompatibleAdapter', 'createAnthropicAdapter', 'createCloudAdapter']) {
    it(`${name} alone from agent-surface-kit/adapters is no bigger than from the source, without the local adapter's code`, async () => {
      const published = await bundle(`export { ${name} } from 'agent-surface-kit/adapters';`, app);
      const source = await bundle(`export { ${name} } from './src/adapters/index.ts';`, repo);
      assert.doesNotMatch(source.code, /::=/, 'the source bundle leaves the grammar out');
      assert.doesNotMatch(published.code, /::=/, "the local adapter's grammar is left out");
      assert.ok(
        published.gzip <= source.gzip * SLACK,
        `published ${published.gzip} B, source ${source.gzip} B`,
      );
    });
  }

  it('the core entry from agent-surface-kit is no bigger than from the source', async () => {
    const published = await bundle(`export * from 'agent-surface-kit';`, app);
    const source = await bundle(`export * from './src/index.ts';`, repo);
    assert.ok(
      published.gzip <= source.gzip * SLACK,
      `published ${published.gzip} B, source ${source.gzip} B`,
    );
  });

  for (const conditions of [[], ['development']]) {
    const which = conditions.length ? 'the development build' : 'the default build';
    it(`an app that imports agent-surface-kit/elements or /chat for its elements gets their definitions (${which})`, async () => {
      const elements = await bundle(`import 'agent-surface-kit/elements';`, app, conditions);
      assert.match(elements.code, /customElements\.define\(/);
      for (const tag of ['agent-surface', 'agent-view', 'agent-capability', 'agent-confirm', 'agent-webmcp'])
        assert.ok(elements.code.includes(`"${tag}"`), tag);
      const chat = await bundle(`import 'agent-surface-kit/chat';`, app, conditions);
      assert.match(chat.code, /customElements\.define\("agent-chat"/);
    });
  }

  it('every packed file that defines elements is one package.json says has side effects', () => {
    const { sideEffects } = JSON.parse(readFileSync(join(kit, 'package.json'), 'utf8')) as {
      sideEffects: string[];
    };
    const marked = (file: string) =>
      sideEffects.some((pattern) =>
        pattern.endsWith('/*') ? file.startsWith(pattern.slice(0, -1)) : file === pattern,
      );
    const defining = (readdirSync(join(kit, 'dist'), { recursive: true }) as string[])
      .map((f) => join(kit, 'dist', f))
      .filter((f) => f.endsWith('.js') && readFileSync(f, 'utf8').includes('customElements.define('))
      .map((f) => `./${relative(kit, f)}`);
    assert.ok(
      defining.includes('./dist/elements.js') && defining.includes('./dist/chat.js'),
      defining.join(),
    );
    assert.deepEqual(
      defining.filter((f) => !marked(f)),
      [],
    );
  });
});
