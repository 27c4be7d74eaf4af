// What each source module costs the CDN entry in gzip bytes: builds the CDN entry in memory (with
// the real terser pass and a source map), attributes every output character to the module the map
// names, and reports how much smaller the gzip of the entry gets without that module's characters.
// An estimate (terser's mappings are coarse, and gzip is not additive), but it ranks the modules
// and shows whether an edit paid. `node scripts/size-marginal.mjs [substring…]` narrows the rows.
import { rollup } from 'rollup';
import { gzipSync } from 'node:zlib';
import { TraceMap, eachMapping } from '@jridgewell/trace-mapping';
import configs from '../rollup.config.js';

const only = process.argv.slice(2);
const cdn = configs.find((c) => c.output.dir === 'dist/cdn');
const bundle = await rollup({ ...cdn, plugins: cdn.plugins.filter((p) => p.name !== 'clean-dist') });
const { output } = await bundle.generate({ ...cdn.output, sourcemap: true });
const entry = output.find((o) => o.type === 'chunk' && o.isEntry);
const code = entry.code;

const lineStarts = [0];
for (let i = 0; i < code.length; i++) if (code[i] === '\n') lineStarts.push(i + 1);
const marks = [];
eachMapping(new TraceMap(entry.map), (m) => {
  marks.push([lineStarts[m.generatedLine - 1] + m.generatedColumn, (m.source ?? '?').replace(/.*\/(src|node_modules)\//, '$1/')]);
});
marks.sort((a, b) => a[0] - b[0]);
const owner = new Array(code.length).fill('(unmapped)');
for (let i = 0; i < marks.length; i++) {
  const end = i + 1 < marks.length ? marks[i + 1][0] : code.length;
  for (let p = marks[i][0]; p < end; p++) owner[p] = marks[i][1];
}

const gzip = (text) => gzipSync(text, { level: 9 }).length;
const total = gzip(code);
const modules = [...new Set(owner)].filter((m) => !only.length || only.some((s) => m.includes(s)));
const rows = modules.map((m) => {
  let rest = '';
  let chars = 0;
  for (let p = 0; p < code.length; p++) {
    if (owner[p] === m) chars++;
    else rest += code[p];
  }
  return { m, chars, cost: total - gzip(rest) };
});
rows.sort((a, b) => b.cost - a.cost);
console.log(`CDN entry: ${code.length} bytes minified, ${total} bytes gzip -9\n`);
console.log('| module | minified chars | gzip bytes it costs |\n|---|---|---|');
for (const r of rows) console.log(`| ${r.m} | ${r.chars} | ${r.cost} |`);
