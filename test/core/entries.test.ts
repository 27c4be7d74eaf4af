// The package's entries against each other: the CDN file exports exactly what the npm entries export
// for the browser, so an export added to an npm entry and forgotten in the CDN file fails here. Read
// from an esbuild bundle's metafile: the names each built entry really exports.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';

async function exportsOf(entries: Record<string, string>): Promise<Record<string, string[]>> {
  const result = await build({
    entryPoints: entries,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    outdir: 'out',
    logLevel: 'silent',
    external: ['lit', 'lit/*', '@lit/*', '@cfworker/*'],
  });
  const out: Record<string, string[]> = {};
  for (const [file, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint === undefined) continue;
    const name = Object.keys(entries).find((key) => file.endsWith(`${key}.js`))!;
    out[name] = [...meta.exports].sort();
  }
  return out;
}

describe('package entries', () => {
  it('the CDN file exports exactly what the browser-side npm entries export', async () => {
    const built = await exportsOf({
      cdn: 'src/cdn.ts',
      core: 'src/index.ts',
      elements: 'src/elements/index.ts',
      webmcp: 'src/webmcp/index.ts',
      dev: 'src/dev/index.ts',
    });
    const npm = new Set([...built.core!, ...built.elements!, ...built.webmcp!, ...built.dev!]);
    assert.deepEqual(built.cdn, [...npm].sort());
  });
});

/** What the chat's CDN file leaves out of the chat and adapters entries (src/cdn-chat.ts says why). */
const CHAT_LEFT_OUT = ['wasmEngine', 'parseLocalToolCalls', 'schemaGrammar', 'toolCallGrammar', 'localToolsPrompt'];

describe('the chat CDN file', () => {
  it('exports the chat and adapters entries, but for the sync local-model helpers it leaves out, with the adapters from adapters/lazy.ts', async () => {
    const built = await exportsOf({ cdnChat: 'src/cdn-chat.ts', chat: 'src/chat/index.ts', adapters: 'src/adapters/index.ts' });
    const npm = new Set([...built.chat!, ...built.adapters!]);
    for (const name of CHAT_LEFT_OUT) assert.ok(npm.has(name), `${name} is still exported by an npm entry`);
    const expected = [...npm].filter((name) => !CHAT_LEFT_OUT.includes(name)).sort();
    assert.deepEqual(built.cdnChat, expected);
    const cdnChat = await import('../../src/cdn-chat.js');
    const lazy = await import('../../src/adapters/lazy.js');
    for (const name of ['createOpenAICompatibleAdapter', 'createAnthropicAdapter', 'createCloudAdapter', 'createLocalAdapter'] as const) {
      assert.equal(cdnChat[name], lazy[name], name);
    }
  });
});

describe('the core entry', () => {
  it('bundled without code splitting, holds neither the interpreter nor devAuthority (agent-surface-kit/dev has them)', async () => {
    const result = await build({
      entryPoints: ['src/index.ts'],
      bundle: true,
      format: 'esm',
      write: false,
      metafile: true,
      outfile: 'out/core.js',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.deepEqual(inputs.filter((f) => /@cfworker|core\/interpreter\.ts|core\/authority\.ts/.test(f)), []);
    const [output] = Object.values(result.metafile.outputs);
    assert.equal(output!.exports.includes('devAuthority'), false);
    assert.ok(output!.exports.includes('createCompilerAuthority'));
    const dev = await import('../../src/dev/index.js');
    assert.deepEqual(Object.keys(dev).sort(), ['DEV_TOKEN', 'createInterpreterValidator', 'devAuthority']);
  });

  it('leaves the declaration rules to agent-surface-kit/compiler, which exports the very functions the elements use', async () => {
    const result = await build({
      entryPoints: ['src/index.ts'],
      bundle: true,
      format: 'esm',
      write: false,
      metafile: true,
      outfile: 'out/core.js',
      logLevel: 'silent',
    });
    assert.deepEqual(Object.keys(result.metafile.inputs).filter((f) => f.endsWith('core/declaration.ts')), []);
    const compiler = await import('../../src/compiler/index.js');
    const declaration = await import('../../src/core/declaration.js');
    for (const name of ['CONTRACT_ATTRIBUTES', 'SCHEMA_SCRIPT_TYPE', 'contractFromDeclaration', 'declarationId', 'normalizeDescription', 'schemaTextsFromScripts'] as const) {
      assert.equal(compiler[name], declaration[name], name);
    }
    assert.equal(compiler.declarationId('selectRows', 'devices'), 'view:devices.selectRows');
  });
});
