// `npm run bench`: runs every benchmark script in bench/ one after another (Node ones through tsx,
// browser ones as plain Node scripts that drive Chromium), then `npm run size`.
// `npm run bench -- registry` runs only the scripts whose name contains "registry".
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from './setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
setup({ browser: true });

const dir = join(root, 'bench');
const scripts = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => /\.bench\.(ts|mjs)$/.test(f))
      .filter((f) => !filters.length || filters.some((w) => f.includes(w)))
      .sort()
  : [];

let failures = 0;
for (const file of scripts) {
  console.log(`\n## ${file}\n`);
  const args = file.endsWith('.ts')
    ? ['--expose-gc', '--import', 'tsx', join(dir, file)]
    : ['--expose-gc', join(dir, file)];
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failures += 1;
}
if (!filters.length || filters.includes('size')) {
  console.log('\n## size\n');
  const result = spawnSync(process.execPath, [join(root, 'scripts/size.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failures += 1;
}
process.exit(failures ? 1 : 0);
