// `node scripts/size-breakdown.mjs`: what each chunk of the CDN build holds, module by module
// (rendered bytes before minification, so read them as shares, not as shipped sizes).
import { rollup } from 'rollup';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';
import configs from '../rollup.config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cdn = configs.find((c) => c.output?.dir === 'dist/cdn');
const bundle = await rollup({ ...cdn, onwarn() {} });
const { output } = await bundle.generate(cdn.output);
for (const chunk of output) {
  if (chunk.type !== 'chunk') continue;
  const modules = Object.entries(chunk.modules)
    .map(([id, m]) => [relative(root, id), m.renderedLength])
    .sort((a, b) => b[1] - a[1]);
  const total = modules.reduce((n, [, bytes]) => n + bytes, 0);
  const kind = chunk.isEntry ? 'entry' : chunk.isDynamicEntry ? 'lazy' : 'static';
  console.log(`\n${chunk.fileName} (${kind}): ${total} bytes rendered`);
  for (const [id, bytes] of modules) {
    if (bytes > 0) console.log(`${String(bytes).padStart(8)}  ${(100 * bytes / total).toFixed(1).padStart(5)} %  ${id}`);
  }
}
await bundle.close();
