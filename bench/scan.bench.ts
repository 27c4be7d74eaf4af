/**
 * Declaration scanning figures (issue 5): how long `agent-surface compile` spends reading markup.
 * HTML with N capabilities (each with an input schema), a lit module with N templates, `--write`
 * over a file with every token missing, and the tokenizer alone over a large source without
 * declarations. Prints a markdown table.
 *
 *   npx tsx bench/scan.bench.ts
 */
import { findTemplateLiterals, rewriteTokens, scanDeclarations } from '../src/compiler/scan.js';
import { computeContractToken } from '../src/compiler/compile.js';

const N = 1000;

function capability(i: number, indent: string): string {
  return `${indent}<agent-capability name="op${i}" effect="local-state"
${indent}  description="Bench capability number ${i}: updates one row of the table.">
${indent}  <script type="application/schema+json">{"type":"object","properties":{"id":{"type":"string"},"value":{"type":"number"}},"required":["id"]}</script>
${indent}</agent-capability>\n`;
}

const html = `<!doctype html>\n<agent-surface>\n  <agent-view name="bench">\n${Array.from({ length: N }, (_, i) => capability(i, '    ')).join('')}  </agent-view>\n</agent-surface>\n`;

const lit = `import { html, LitElement } from 'lit';
${Array.from(
  { length: N },
  (_, i) => `// row ${i}: a comment with a \` backtick and a /regex/
export const row${i} = (d) => html\`<agent-view name="bench">
  \${d.items.map((x) => html\`<span>\${x.label}</span>\`)}
${capability(i, '  ')}</agent-view>\`;
const ratio${i} = d.a / 2 / d.b;
`,
).join('')}`;

// A large TypeScript-like source with no declaration at all: the tokenizer alone.
const plain = Array.from(
  { length: N * 4 },
  (_, i) =>
    `export function f${i}(a: number, b: string): string {\n  const re = /[a-z]+\\/${i}/g; // note\n  return \`\${a / 2} and \${b.replace(re, '')}\` + "str'ing" + 'q"uote';\n}\n`,
).join('');

function measure(fn: () => unknown, minMs = 400): { ms: number; runs: number } {
  fn(); // warm up
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs || runs < 3) {
    fn();
    runs++;
    elapsed = performance.now() - start;
  }
  return { ms: elapsed / runs, runs };
}

const kb = (s: string) => (Buffer.byteLength(s) / 1024).toFixed(0);
const rows: string[][] = [];

const htmlScan = measure(() => scanDeclarations(html, 'bench.html'));
const htmlResult = scanDeclarations(html, 'bench.html');
if (htmlResult.declarations.length !== N || htmlResult.problems.length)
  throw new Error('bench html did not scan cleanly');
rows.push([
  `HTML, ${N} capabilities with schemas (${kb(html)} KB)`,
  htmlScan.ms.toFixed(1),
  ((htmlScan.ms / N) * 1000).toFixed(1),
]);

const litScan = measure(() => scanDeclarations(lit, 'bench.ts'));
const litResult = scanDeclarations(lit, 'bench.ts');
if (litResult.declarations.length !== N || litResult.problems.length)
  throw new Error('bench lit did not scan cleanly');
rows.push([
  `lit module, ${N} templates (+${N} nested) (${kb(lit)} KB)`,
  litScan.ms.toFixed(1),
  ((litScan.ms / N) * 1000).toFixed(1),
]);

const tokens = new Map(htmlResult.declarations.map((d) => [d.id, computeContractToken(d.contract)]));
const write = measure(() => rewriteTokens(htmlResult, (id) => tokens.get(id)));
rows.push([
  `--write: ${N} tokens inserted into the HTML`,
  write.ms.toFixed(1),
  ((write.ms / N) * 1000).toFixed(1),
]);

const tok = measure(() => findTemplateLiterals(plain));
rows.push([`tokenizer alone, ${kb(plain)} KB of TypeScript without declarations`, tok.ms.toFixed(1), '']);

console.log('| scan | ms per run | µs per declaration |');
console.log('|---|---:|---:|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
