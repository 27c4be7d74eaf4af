// Validator throughput: the compiler's ajv standalone validators vs ajv compiling at run time (and
// the interpreter devAuthority() uses), for a 6-property schema; plus compile costs and module size.
// Run: npx tsx bench/validators.bench.ts
import { gzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Validator } from '@cfworker/json-schema';
import { build } from 'esbuild';
import { compileContracts } from '../src/compiler/compile.js';
import type { CapabilityContract, JsonSchema } from '../src/core/types.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 80 },
    count: { type: 'number', minimum: 0 },
    active: { type: 'boolean' },
    mode: { enum: ['soft', 'hard', 'auto'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
    target: {
      type: 'object',
      properties: { id: { type: 'string' }, zone: { type: 'integer' } },
      required: ['id'],
      additionalProperties: false,
    },
  },
  required: ['name', 'mode'],
  additionalProperties: false,
};
const contract: CapabilityContract = {
  id: 'domain:bench.run',
  kind: 'action',
  effect: 'local-state',
  description: 'Benchmark.',
  inputSchema: schema,
};
const good = {
  name: 'router-7',
  count: 3,
  active: true,
  mode: 'soft',
  tags: ['edge', 'eu'],
  target: { id: 'r7', zone: 2 },
};
const bad = {
  name: '',
  count: -1,
  active: 'yes',
  mode: 'medium',
  tags: ['ok', 3],
  target: { zone: 1.5 },
  extra: 1,
};

/**
 * Calls per second of each function, best of `rounds` interleaved rounds: on a shared machine the
 * best round is the least disturbed one, and interleaving gives every contender the same luck.
 */
function opsPerSecond(fns: Array<() => unknown>, rounds = 7, roundMs = 150): number[] {
  for (const fn of fns) for (let i = 0; i < 5000; i++) fn(); // warm up
  const best = fns.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    fns.forEach((fn, k) => {
      let ops = 0;
      const start = performance.now();
      let now = start;
      while (now - start < roundMs) {
        for (let i = 0; i < 1000; i++) fn();
        ops += 1000;
        now = performance.now();
      }
      best[k] = Math.max(best[k], (ops / (now - start)) * 1000);
    });
  }
  return best;
}

function meanMs(fn: () => unknown, runs: number): number {
  const start = performance.now();
  for (let i = 0; i < runs; i++) fn();
  return (performance.now() - start) / runs;
}

const fmt = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(0)} k`);

// One-time costs.
const firstCompile = performance.now();
const compiled = await compileContracts([contract]);
const firstCompileMs = performance.now() - firstCompile;
let compileMs = Infinity;
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  await compileContracts([contract]);
  compileMs = Math.min(compileMs, performance.now() - t);
}
const ajvDefaultCompileMs = meanMs(() => new Ajv().compile(schema), 50);
const ajvSameCompileMs = meanMs(() => new Ajv2020({ allErrors: true }).compile(schema), 50);
const cfCompileMs = meanMs(() => new Validator(JSON.parse(JSON.stringify(schema)), '2020-12', false), 200);

const standalone = compiled.validators['domain:bench.run'].input;
const ajvDefault = new Ajv().compile(schema);
const ajvSame = new Ajv2020({ allErrors: true }).compile(schema);
const cf = new Validator(JSON.parse(JSON.stringify(schema)), '2020-12', false);

// Sanity: every validator agrees before anything is timed.
for (const [name, ok] of [
  ['standalone', standalone(good) && !standalone(bad)],
  ['ajv default', ajvDefault(good) && !ajvDefault(bad)],
  ['ajv 2020 allErrors', ajvSame(good) && !ajvSame(bad)],
  ['cfworker', cf.validate(good).valid && !cf.validate(bad).valid],
] as const) {
  if (!ok) throw new Error(`${name} disagrees on the fixtures`);
}

const [sGood, dGood, aGood, cGood] = opsPerSecond([
  () => standalone(good),
  () => ajvDefault(good),
  () => ajvSame(good),
  () => cf.validate(good),
]);
const [sBad, dBad, aBad, cBad] = opsPerSecond([
  () => standalone(bad),
  () => ajvDefault(bad),
  () => ajvSame(bad),
  () => cf.validate(bad),
]);
const rows: Array<[string, number, number, string]> = [
  [
    'compiled standalone (agent-surface compile: 2020-12, allErrors)',
    sGood,
    sBad,
    `${compileMs.toFixed(0)} ms per build (first: ${firstCompileMs.toFixed(0)} ms); none at run time`,
  ],
  [
    '`new Ajv().compile` at run time (draft-07, first error only)',
    dGood,
    dBad,
    `${ajvDefaultCompileMs.toFixed(2)} ms per compile`,
  ],
  [
    '`new Ajv2020({ allErrors: true }).compile` at run time',
    aGood,
    aBad,
    `${ajvSameCompileMs.toFixed(2)} ms per compile`,
  ],
  [
    '@cfworker/json-schema interpreter (devAuthority)',
    cGood,
    cBad,
    `${cfCompileMs.toFixed(3)} ms per Validator`,
  ],
];

console.log('| validator | valid input / s | invalid input / s | compile cost |');
console.log('|---|---:|---:|---|');
for (const [name, ok, ko, cost] of rows) console.log(`| ${name} | ${fmt(ok)} | ${fmt(ko)} | ${cost} |`);

// Module size: this contract alone, and with a `date-time` format (which pulls in ajv-formats).
const withFormat = await compileContracts([
  {
    ...contract,
    inputSchema: {
      ...schema,
      properties: { ...(schema.properties as object), when: { type: 'string', format: 'date-time' } },
    } as JsonSchema,
  },
]);
const ten = await compileContracts(
  Array.from({ length: 10 }, (_, i) => ({ ...contract, id: `domain:bench.run${i}` })),
);
const size = (s: string) =>
  `${(Buffer.byteLength(s) / 1024).toFixed(1)} KB / ${(gzipSync(s, { level: 9 }).length / 1024).toFixed(2)} KB gzip -9`;
console.log('');
console.log('| emitted module | raw / gzip |');
console.log('|---|---:|');
console.log(`| 1 contract (6-property schema) | ${size(compiled.source)} |`);
console.log(`| 1 contract + a \`date-time\` property (ajv-formats bundled) | ${size(withFormat.source)} |`);
console.log(`| 10 such contracts (helpers shared) | ${size(ten.source)} |`);

// For scale: what compiling at run time would ship to the browser, and what devAuthority() loads.
const bundleOf = async (contents: string) =>
  (
    await build({
      stdin: { contents, resolveDir: process.cwd(), loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      minify: true,
      write: false,
      logLevel: 'silent',
    })
  ).outputFiles[0].text;
console.log(
  `| for scale: ajv 2020 + ajv-formats bundled for the browser (run-time compilation) | ${size(await bundleOf("import Ajv from 'ajv/dist/2020.js'; import f from 'ajv-formats'; export { Ajv, f };"))} |`,
);
console.log(
  `| for scale: @cfworker/json-schema (devAuthority's lazy chunk) | ${size(await bundleOf("export { Validator } from '@cfworker/json-schema';"))} |`,
);
