/**
 * Cold start in Node (issue 12 item 6): the first registration of 1 000 compiled capabilities in a
 * fresh process, beside the warmed figure, with the engine's part told apart from the code's.
 *
 *   node --import tsx bench/cold-start.bench.ts
 *
 * The parent compiles 1 000 contracts once (ajv + esbuild), plus 20 others for the pre-touch, writes
 * the manifest and validators to .tmp/, and starts COLD_START_PROCESSES (5) fresh Node processes per
 * engine setting. Each child imports the registry and the authority and times, on the process's CPU
 * clock and on the wall clock:
 *   - cold: its first register() of the 1 000 (each contract's first admission included);
 *   - warmed: 20 more rounds, each on a fresh registry and a fresh authority, so each pays first
 *     admissions as the cold one did (the median is reported);
 *   - warmed, admissions remembered: 20 rounds on one authority (the registry remembers what an
 *     authority admitted), what re-registering the same contracts on a page costs.
 * Engine settings: the default; `--jitless` (no JIT at all: every round runs in the interpreter, so
 * there is no warm-up to wait for, and what cold still costs over warmed is first-call compilation
 * of each function and the code's own first-time work); and the default with the code paths
 * pre-touched (20 other capabilities registered and released first, on their own authority), which
 * leaves only the JIT's warm-up of the hot loop.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const N = 1000;
const TOUCH = 20;
const ROUNDS = 20;
const here = fileURLToPath(import.meta.url);

/**
 * The process's CPU time, in ms (getrusage: exact to the microsecond, all threads, so the engine's
 * background compilation and GC count too). The main thread's /proc schedstat would leave those out
 * but only moves at scheduler ticks, too coarse for rounds of a few milliseconds.
 */
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

interface Sample {
  ms: number;
  cpu: number;
}

if (process.argv[2] === 'child') {
  const touch = process.argv[4] === 'touch';
  const start = performance.now();
  const { createCompilerAuthority } = await import('../src/core/authority.js');
  const { createAgentSurfaceRegistry } = await import('../src/core/registry.js');
  const { manifest, validators } = await import(pathToFileURL(process.argv[3]!).href);
  const imported = performance.now() - start;
  const all = Object.keys(manifest.contracts);
  const ids = all.filter((id) => !id.startsWith('view:bench.touch.'));
  const touchIds = all.filter((id) => id.startsWith('view:bench.touch.'));
  type Authority = ReturnType<typeof createCompilerAuthority>;
  const round = (authority: Authority, list: string[]): Sample => {
    const registry = createAgentSurfaceRegistry({ authority });
    const entries = list.map((id) => authority.contract(id)!);
    const c = cpuNow();
    const t = performance.now();
    for (const entry of entries) registry.register({ contract: entry.contract, token: entry.token, handler: () => null });
    const sample = { ms: performance.now() - t, cpu: cpuNow() - c };
    registry.dispose();
    return sample;
  };
  const fresh = () => createCompilerAuthority({ manifest, validators });
  if (touch) round(fresh(), touchIds);
  const cold = round(fresh(), ids);
  const median = (xs: Sample[]): Sample => {
    const by = (k: keyof Sample) => xs.map((x) => x[k]).sort((a, b) => a - b)[xs.length >> 1]!;
    return { ms: by('ms'), cpu: by('cpu') };
  };
  const warm = median(Array.from({ length: ROUNDS }, () => round(fresh(), ids)));
  const once = fresh();
  round(once, ids);
  const remembered = median(Array.from({ length: ROUNDS }, () => round(once, ids)));
  console.log(JSON.stringify({ imported, cold, warm, remembered }));
} else {
  const { compileContracts } = await import('../src/compiler/compile.js');
  const contract = (name: string, i: number) => ({
    id: `view:bench.${name}${i}`,
    kind: 'action' as const,
    effect: 'local-state' as const,
    description: `Cold-start capability number ${i}.`,
    inputSchema: { type: 'object', properties: { row: { type: 'integer', minimum: 0 } }, additionalProperties: false },
  });
  const contracts = [
    ...Array.from({ length: N }, (_, i) => contract('cold.item', i)),
    ...Array.from({ length: TOUCH }, (_, i) => contract('touch.item', i)),
  ];
  const { source } = await compileContracts(contracts);
  const dir = join(dirname(here), '..', '.tmp', `cold-start-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'contracts.mjs');
  writeFileSync(file, source);
  const PROCESSES = Number(process.env.COLD_START_PROCESSES ?? 5);
  type Run = { imported: number; cold: Sample; warm: Sample; remembered: Sample };
  const settings: { label: string; flags: string[]; touch?: boolean }[] = [
    { label: 'default engine', flags: [] },
    { label: '`--jitless` (no JIT: no warm-up)', flags: ['--jitless'] },
    { label: 'default engine, code paths pre-touched', flags: [], touch: true },
  ];
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const results = settings.map((s) => ({ s, runs: [] as Run[] }));
  // Interleaved, so every setting sees the same machine.
  for (let i = 0; i < PROCESSES; i++) {
    for (const r of results) {
      const args = [...r.s.flags, '--import', 'tsx', here, 'child', file, r.s.touch ? 'touch' : ''];
      const child = spawnSync(process.execPath, args, { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(child.stderr);
      r.runs.push(JSON.parse(child.stdout.trim().split('\n').pop()!));
    }
  }
  console.log(
    `Node ${process.version}, ${PROCESSES} fresh processes per setting, ${N} compiled capabilities registered; ` +
      'medians; CPU = the process\'s CPU time (all threads)\n',
  );
  console.log(
    '| engine | first register() of 1 000, fresh process: CPU ms (wall) | warmed, first admissions: CPU ms (wall) | cold ÷ warmed (CPU) | warmed, admissions remembered: CPU ms | imports ms |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const { s, runs } of results) {
    const f = (k: 'cold' | 'warm' | 'remembered', m: keyof Sample) => med(runs.map((r) => r[k][m]));
    console.log(
      `| ${s.label} | ${f('cold', 'cpu').toFixed(2)} (${f('cold', 'ms').toFixed(2)}) | ${f('warm', 'cpu').toFixed(2)} (${f('warm', 'ms').toFixed(2)}) | ` +
        `${med(runs.map((r) => r.cold.cpu / r.warm.cpu)).toFixed(2)} | ${f('remembered', 'cpu').toFixed(2)} | ${med(runs.map((r) => r.imported)).toFixed(0)} |`,
    );
  }
}
