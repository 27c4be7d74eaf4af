/**
 * Cold start in Node (issue 12 item 6): the first registration of 1 000 compiled capabilities in a
 * fresh process, beside the warmed figure (the same work repeated in that process).
 *
 *   node --import tsx bench/cold-start.bench.ts
 *
 * The parent compiles 1 000 contracts once (ajv + esbuild), writes the manifest and validators to
 * .tmp/, and starts PROCESSES fresh Node processes; each imports the registry and the authority,
 * times its first register() of the 1 000, then 20 more rounds on fresh registries.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const N = 1000;
const here = fileURLToPath(import.meta.url);

if (process.argv[2] === 'child') {
  const start = performance.now();
  const { createCompilerAuthority } = await import('../src/core/authority.js');
  const { createAgentSurfaceRegistry } = await import('../src/core/registry.js');
  const { manifest, validators } = await import(pathToFileURL(process.argv[3]!).href);
  const imported = performance.now() - start;
  const authority = createCompilerAuthority({ manifest, validators });
  const ids = Object.keys(manifest.contracts);
  const round = (): number => {
    const registry = createAgentSurfaceRegistry({ authority });
    const t = performance.now();
    for (const id of ids) {
      const entry = authority.contract(id)!;
      registry.register({ contract: entry.contract, token: entry.token, handler: () => null });
    }
    const ms = performance.now() - t;
    registry.dispose();
    return ms;
  };
  const cold = round();
  const warm: number[] = [];
  for (let i = 0; i < 20; i++) warm.push(round());
  warm.sort((a, b) => a - b);
  console.log(JSON.stringify({ imported, cold, warm: warm[10] }));
} else {
  const { compileContracts } = await import('../src/compiler/compile.js');
  const contracts = Array.from({ length: N }, (_, i) => ({
    id: `view:bench.cold.item${i}`,
    kind: 'action' as const,
    effect: 'local-state' as const,
    description: `Cold-start capability number ${i}.`,
    inputSchema: { type: 'object', properties: { row: { type: 'integer', minimum: 0 } }, additionalProperties: false },
  }));
  const { source } = await compileContracts(contracts);
  const dir = join(dirname(here), '..', '.tmp', `cold-start-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'contracts.mjs');
  writeFileSync(file, source);
  const PROCESSES = Number(process.env.COLD_START_PROCESSES ?? 5);
  const runs: { imported: number; cold: number; warm: number }[] = [];
  for (let i = 0; i < PROCESSES; i++) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', here, 'child', file], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    runs.push(JSON.parse(child.stdout.trim().split('\n').pop()!));
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const cold = med(runs.map((r) => r.cold));
  const warm = med(runs.map((r) => r.warm));
  console.log(`Node ${process.version}, ${PROCESSES} fresh processes, ${N} compiled capabilities registered (medians)\n`);
  console.log('| measure | ms |');
  console.log('|---|---|');
  console.log(`| importing the registry, the authority and the compiled module (through tsx) | ${med(runs.map((r) => r.imported)).toFixed(1)} |`);
  console.log(`| first register() of ${N} in a fresh process (cold) | ${cold.toFixed(2)} |`);
  console.log(`| the same, warmed (median of 20 more rounds in that process) | ${warm.toFixed(2)} |`);
  console.log(`| cold ÷ warmed | ${(cold / warm).toFixed(2)} |`);
}
