// `npm run size`: builds, then prints the gzip -9 size of each dist entry together with the chunks it
// imports statically, against size-budget.json. Exits 1 when any entry is over its budget.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const budgets = JSON.parse(readFileSync(join(root, 'size-budget.json'), 'utf8'));

if (!process.argv.includes('--no-build')) {
  const built = spawnSync('npx', ['rollup', '-c', '--silent'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
}

/** The entry and every relative module it imports statically (dynamic `import()` chunks are lazy). */
function closure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(file, 'utf8');
  const re = /(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]*from\s*)?["'](\.{1,2}\/[^"']+)["']/g;
  for (const match of code.matchAll(re)) closure(resolve(dirname(file), match[1]), seen);
  return seen;
}

const gz = (buf) => gzipSync(buf, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(2)} KB`;

let over = 0;
const rows = [];
for (const [entry, budget] of Object.entries(budgets)) {
  if (entry.startsWith('$')) continue;
  const path = join(root, entry);
  if (!existsSync(path)) {
    rows.push([entry, 'missing', '', kb(budget), 'FAIL']);
    over += 1;
    continue;
  }
  const files = [...closure(path)];
  const own = gz(readFileSync(path));
  const total = gz(Buffer.concat(files.map((f) => readFileSync(f))));
  const ok = total <= budget;
  if (!ok) over += 1;
  rows.push([entry, kb(own), `${kb(total)} (${files.length} file${files.length > 1 ? 's' : ''})`, kb(budget), ok ? 'ok' : 'OVER']);
  void relative;
}

console.log('| entry | entry file gzip | with static imports gzip | budget | |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
if (over) {
  console.error(`${over} entr${over > 1 ? 'ies' : 'y'} over budget (size-budget.json)`);
  process.exit(1);
}
