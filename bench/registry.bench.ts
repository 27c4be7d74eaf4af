/**
 * Registry figures (issue 3): invoke throughput through the full pipeline, snapshot cost,
 * register/unregister cost and heap per registration. Prints a markdown table.
 *
 *   npx tsx bench/registry.bench.ts                      (everything but heap)
 *   node --expose-gc --import tsx bench/registry.bench.ts (with heap)
 */
import os from 'node:os';
import { createCompilerAuthority } from '../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../src/core/registry.js';
import type { AgentSurfaceAuthority, AgentSurfaceRegistry, CapabilityContract, RegistrationHandle } from '../src/core/types.js';
import { compileContracts } from '../src/compiler/compile.js';

const SIX_PROPERTIES: CapabilityContract = {
  id: 'domain:bench.update',
  kind: 'action',
  effect: 'local-state',
  description: 'Updates a bench record.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 100 },
      count: { type: 'number' },
      enabled: { type: 'boolean' },
      mode: { enum: ['fast', 'slow', 'auto'] },
      tags: { type: 'array', items: { type: 'string' } },
      meta: {
        type: 'object',
        properties: { owner: { type: 'string' }, rank: { type: 'integer' } },
        required: ['owner'],
        additionalProperties: false,
      },
    },
    required: ['name', 'count'],
    additionalProperties: false,
  },
};
const ASYNC_COPY: CapabilityContract = { ...SIX_PROPERTIES, id: 'domain:bench.updateAsync' };

const MANY = 1000;
function manyContract(i: number): CapabilityContract {
  return {
    id: `view:bench.list.item${i}`,
    kind: i % 4 === 0 ? 'observation' : 'action',
    effect: i % 4 === 0 ? 'read' : 'local-state',
    description: `Bench capability number ${i}.`,
    inputSchema: {
      type: 'object',
      properties: { row: { type: 'integer', minimum: 0 }, label: { type: 'string', maxLength: 80 } },
      additionalProperties: false,
    },
  };
}
const SHARED = 10;
function sharedContract(i: number): CapabilityContract {
  return { id: `view:bench.shared.op${i}`, kind: 'action', effect: 'local-state', description: `Shared bench contract ${i}.` };
}

const consumer = { id: 'bench', kind: 'test' };
const rows: [string, string, string][] = [];

function report(what: string, value: string, target: string): void {
  rows.push([what, value, target]);
  console.error(`${what}: ${value}`);
}

async function measureInvoke(registry: AgentSurfaceRegistry, capabilityId: string, label: string, target: string): Promise<void> {
  const modes = ['fast', 'slow', 'auto'];
  let n = 0;
  const call = () => {
    n++;
    return registry.invoke({
      capabilityId,
      invocationId: `b-${n}`,
      consumer,
      surfaceVersion: registry.surfaceVersion,
      input: {
        name: `record ${n}`,
        count: n,
        enabled: (n & 1) === 0,
        mode: modes[n % 3],
        tags: ['a', `t${n & 7}`],
        meta: { owner: 'bench', rank: n & 15 },
      },
    });
  };
  // Warm up (JIT), then measure the best of several rounds.
  for (let i = 0; i < 50_000; i++) {
    const r = await call();
    if (!r.ok) throw new Error(`bench invoke failed: ${JSON.stringify(r.error)}`);
  }
  let best = 0;
  let bestCpu = 0;
  for (let round = 0; round < 5; round++) {
    const count = 200_000;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < count; i++) await call();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    best = Math.max(best, count / (ms / 1000));
    bestCpu = Math.max(bestCpu, count / ((cpu.user + cpu.system) / 1e6));
  }
  report(
    label,
    `${Math.round(best).toLocaleString('en-US')} calls/s wall (${(1e6 / best).toFixed(2)} µs each); ` +
      `${Math.round(bestCpu).toLocaleString('en-US')} calls/s per CPU-second`,
    target,
  );
}

async function compile(contracts: CapabilityContract[]): Promise<AgentSurfaceAuthority> {
  const { manifest, validators } = await compileContracts(contracts);
  return createCompilerAuthority({ manifest, validators });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  // -- invoke ------------------------------------------------------------------------------
  {
    const authority = await compile([SIX_PROPERTIES, ASYNC_COPY]);
    const registry = createAgentSurfaceRegistry({ authority });
    const entry = authority.contract(SIX_PROPERTIES.id)!;
    registry.register({ contract: entry.contract, token: entry.token, handler: () => ({ ok: true }) });
    const asyncEntry = authority.contract(ASYNC_COPY.id)!;
    registry.register({ contract: asyncEntry.contract, token: asyncEntry.token, handler: async () => ({ ok: true }) });
    await measureInvoke(registry, SIX_PROPERTIES.id, 'invoke, sync handler, 6-property compiled schema, awaited one by one', '≥ 200 000 calls/s');
    await measureInvoke(registry, ASYNC_COPY.id, 'invoke, async handler (timeout armed), same schema', '(no target)');
    registry.dispose();
  }

  // -- snapshot and register/unregister of 1 000 capabilities ----------------------------------
  const contracts = Array.from({ length: MANY }, (_, i) => manyContract(i));
  const compiled = await compileContracts(contracts);
  const authority = createCompilerAuthority(compiled);
  const entries = contracts.map((c) => authority.contract(c.id)!);
  const handler = () => null;
  const read = () => null;
  // As code registers: the authority's own (frozen) contract objects.
  const registerAll = (registry: AgentSurfaceRegistry): RegistrationHandle[] =>
    entries.map((e) =>
      registry.register(
        e.contract.kind === 'action' ? { contract: e.contract, token: e.token, handler } : { contract: e.contract, token: e.token, read },
      ),
    );
  // As <agent-capability> registers: a contract object of its own, declared without defaults.
  const registerDeclared = (registry: AgentSurfaceRegistry): RegistrationHandle[] =>
    contracts.map((c, i) => {
      const declared = { ...c };
      const token = entries[i].token;
      return registry.register(c.kind === 'action' ? { contract: declared, token, handler } : { contract: declared, token, read });
    });
  {
    const registry = createAgentSurfaceRegistry({ authority });
    const handles = registerAll(registry);
    for (let i = 0; i < 2000; i++) registry.snapshot({ consumer });
    const memoRounds = 200_000;
    let t0 = performance.now();
    for (let i = 0; i < memoRounds; i++) registry.snapshot({ consumer });
    const memo = (performance.now() - t0) / memoRounds;
    report('snapshot of 1 000 capabilities, memoized', `${(memo * 1000).toFixed(3)} µs`, '≤ 10 µs (0.01 ms)');

    const cold: number[] = [];
    for (let i = 0; i < 3000; i++) {
      handles[i % MANY].update({ note: `note ${i}` });
      t0 = performance.now();
      registry.snapshot({ consumer });
      cold.push(performance.now() - t0);
    }
    report('snapshot of 1 000 capabilities, cold (after one update)', `${(median(cold.slice(1000)) * 1000).toFixed(1)} µs median`, '≤ 300 µs (0.3 ms)');

    const scoped: number[] = [];
    for (let i = 0; i < 3000; i++) {
      handles[i % MANY].update({ note: `scoped ${i}` });
      t0 = performance.now();
      registry.snapshot({ consumer, scope: ['view:bench.list'] });
      scoped.push(performance.now() - t0);
    }
    report('snapshot of 1 000 capabilities, cold, with a scope', `${(median(scoped.slice(1000)) * 1000).toFixed(1)} µs median`, '(no target)');
    registry.dispose();
  }
  {
    // Median wall and CPU time of registering and unregistering all 1 000, over 30 rounds.
    const rounds = (authorityFor: () => AgentSurfaceAuthority, register: (r: AgentSurfaceRegistry) => RegistrationHandle[]) => {
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let round = 0; round < 30; round++) {
        const registry = createAgentSurfaceRegistry({ authority: authorityFor() });
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const handles = register(registry);
        for (const h of handles) h.unregister();
        wall.push(performance.now() - t0);
        const used = process.cpuUsage(cpu0);
        cpu.push((used.user + used.system) / 1000);
        registry.dispose();
      }
      return `${median(wall.slice(10)).toFixed(2)} ms wall, ${median(cpu.slice(10)).toFixed(2)} ms CPU`;
    };
    // The registry's own share: an authority that hands back ready admissions.
    const ready = new Map(entries.map((e) => [e.contract as object, authority.admit(e.contract, e.token)]));
    const instant: AgentSurfaceAuthority = { kind: 'compiler', contract: (id) => authority.contract(id), admit: (c) => ready.get(c)! };
    report('register + unregister 1 000: the registry alone (admissions precomputed)', rounds(() => instant, registerAll), '≤ 10 ms');
    report(
      'register + unregister 1 000: compiler authority, its own contract objects, admitted before',
      rounds(() => authority, registerAll),
      '≤ 10 ms',
    );
    const fresh: AgentSurfaceAuthority[] = Array.from({ length: 30 }, () => createCompilerAuthority(compiled));
    let nextFresh = 0;
    report(
      'register + unregister 1 000: compiler authority, first admission of each contract',
      rounds(() => fresh[nextFresh++], registerAll),
      '≤ 10 ms',
    );
    report(
      'register + unregister 1 000: compiler authority, a fresh declared contract object each (as <agent-capability>)',
      rounds(() => authority, registerDeclared),
      '≤ 10 ms',
    );
  }

  // -- heap ----------------------------------------------------------------------------------
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    const shared = Array.from({ length: SHARED }, (_, i) => sharedContract(i));
    const sharedAuthority = await compile(shared);
    const sharedEntries = shared.map((c) => sharedAuthority.contract(c.id)!);
    const count = 10_000;
    const handlerFor = () => null;
    const measure = (withSnapshot: boolean): number => {
      gc();
      gc();
      const before = process.memoryUsage().heapUsed;
      const registry = createAgentSurfaceRegistry({ authority: sharedAuthority });
      const handles: RegistrationHandle[] = [];
      for (let i = 0; i < count; i++) {
        const e = sharedEntries[i % SHARED];
        handles.push(registry.register({ contract: e.contract, token: e.token, instanceId: `row-${i}`, handler: handlerFor }));
      }
      if (withSnapshot) registry.snapshot({ consumer });
      gc();
      gc();
      const after = process.memoryUsage().heapUsed;
      // Keep both alive until measured.
      if (handles.length !== count || registry.disposed) throw new Error('unreachable');
      registry.dispose();
      return after - before;
    };
    measure(false);
    const bytes = measure(false);
    const withSnapshot = measure(true);
    report(
      'heap for 10 000 registrations of 10 shared contracts',
      `${(bytes / 1024 / 1024).toFixed(2)} MB (${Math.round(bytes / count)} B each); ${(withSnapshot / 1024 / 1024).toFixed(2)} MB after a snapshot built every descriptor`,
      '≤ 8 MB',
    );
  } else {
    console.error('(run with node --expose-gc --import tsx for the heap figure)');
  }

  console.log(`Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end\n`);
  console.log('| measure | result | target |');
  console.log('|---|---|---|');
  for (const [what, value, target] of rows) console.log(`| ${what} | ${value} | ${target} |`);
}

await main();
