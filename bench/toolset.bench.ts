/**
 * Tool projection figures (issue 4): `tools()` cold, after one change and memoized for 1 000
 * capabilities; what a surface change costs an idle and a subscribed toolset; bytes of the provider
 * tool block in direct mode against the meta tools and their discovery payload. Prints a markdown table.
 *
 *   npx tsx bench/toolset.bench.ts
 */
import { createCompilerAuthority } from '../src/core/authority.js';
import { utf8Length } from '../src/core/canonical-json.js';
import { createAgentSurfaceRegistry } from '../src/core/registry.js';
import { toToolResult } from '../src/core/tool-result.js';
import { createAgentToolset } from '../src/core/toolset.js';
import type {
  AgentSurfaceAuthority,
  AgentSurfaceRegistry,
  AgentTool,
  CapabilityContract,
  RegistrationHandle,
} from '../src/core/types.js';
import { compileContracts } from '../src/compiler/compile.js';

const consumer = { id: 'bench-panel', kind: 'embedded' };
const rows: [string, string, string][] = [];

function report(what: string, value: string, target: string): void {
  rows.push([what, value, target]);
  console.error(`${what}: ${value}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const EFFECTS = ['local-state', 'server-mutation', 'navigation', 'destructive'] as const;

/** A realistic catalog: feature areas, view and domain capabilities, small object schemas. */
function contract(i: number): CapabilityContract {
  const area = `area${Math.floor(i / 25)}`;
  if (i % 5 === 0) {
    return {
      id: `domain:${area}.summary${i}`,
      kind: 'observation',
      effect: 'read',
      description: `Summarize the records of ${area} (item ${i}): totals, status and the latest changes.`,
    };
  }
  return {
    id: i % 2 === 0 ? `view:${area}.table.selectRows${i}` : `domain:${area}.records.update${i}`,
    kind: 'action',
    effect: EFFECTS[i % EFFECTS.length]!,
    confirmation: i % 7 === 0 ? 'required' : 'never',
    description: `Update record fields in ${area} (operation ${i}); returns the updated record.`,
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, description: 'Record id.' },
        fields: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['id'],
      additionalProperties: false,
    },
  };
}

async function catalog(
  n: number,
): Promise<{
  registry: AgentSurfaceRegistry;
  handles: RegistrationHandle[];
  authority: AgentSurfaceAuthority;
}> {
  const contracts = Array.from({ length: n }, (_, i) => contract(i));
  const { manifest, validators } = await compileContracts(contracts);
  const authority = createCompilerAuthority({ manifest, validators });
  const registry = createAgentSurfaceRegistry({ authority });
  const handles = contracts.map((c) => {
    const e = authority.contract(c.id)!;
    return registry.register(
      c.kind === 'action'
        ? { contract: e.contract, token: e.token, handler: () => null }
        : { contract: e.contract, token: e.token, read: () => null },
    );
  });
  return { registry, handles, authority };
}

const providerBlock = (tools: readonly AgentTool[]) =>
  utf8Length(
    JSON.stringify(
      tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    ),
  );

const kb = (bytes: number) => `${bytes.toLocaleString('en-US')} B (${(bytes / 1024).toFixed(1)} KiB)`;

async function main(): Promise<void> {
  const { registry, handles } = await catalog(1000);

  // -- tools() ---------------------------------------------------------------------------------
  {
    // Warm the JIT on the whole path first.
    for (let i = 0; i < 300; i++) {
      handles[i % 1000]!.update({ note: `warm ${i}` });
      createAgentToolset(registry, { consumer, topology: 'embedded' }).tools();
    }
    // Truly cold: every capability changed (new descriptors: nothing projected before), a new
    // toolset, a snapshot the registry has not memoized.
    const cold: number[] = [];
    const coldSnapshot: number[] = [];
    for (let i = 0; i < 200; i++) {
      for (const h of handles) h.update({ note: `cold ${i}` });
      const toolset = createAgentToolset(registry, { consumer, topology: 'embedded' });
      let t0 = performance.now();
      registry.snapshot({ consumer });
      coldSnapshot.push(performance.now() - t0);
      t0 = performance.now();
      const tools = toolset.tools();
      cold.push(performance.now() - t0);
      if (tools.length !== 1000) throw new Error('bench: wrong catalog size');
    }
    report(
      'tools(), 1 000 capabilities, cold (all 1 000 never projected, new toolset), projection only',
      `${(median(cold.slice(50)) * 1000).toFixed(0)} µs median`,
      '≤ 1 ms',
    );
    report(
      '  plus registry.snapshot() building 1 000 new descriptors (registry side)',
      `${(median(coldSnapshot.slice(50)) * 1000).toFixed(0)} µs median`,
      '(registry: ≤ 300 µs)',
    );

    const toolset = createAgentToolset(registry, { consumer, topology: 'embedded' });
    toolset.tools();
    const after: number[] = [];
    const snapshotOnly: number[] = [];
    for (let i = 0; i < 3000; i++) {
      handles[(i * 13) % 1000]!.update({ note: `change ${i}` });
      let t0 = performance.now();
      registry.snapshot({ consumer });
      snapshotOnly.push(performance.now() - t0);
      handles[(i * 13) % 1000]!.update({ note: `change ${i}b` });
      t0 = performance.now();
      toolset.tools();
      after.push(performance.now() - t0);
    }
    report(
      'tools(), 1 000 capabilities, after one capability changed (999 tool objects reused)',
      `${(median(after.slice(1000)) * 1000).toFixed(0)} µs median`,
      '≤ 1 ms',
    );
    report(
      '  of which registry.snapshot() (cold)',
      `${(median(snapshotOnly.slice(1000)) * 1000).toFixed(0)} µs median`,
      '(registry)',
    );

    const rounds = 5_000_000;
    let t0 = performance.now();
    let sink = 0;
    for (let i = 0; i < rounds; i++) sink += toolset.tools().length;
    const memo = (performance.now() - t0) / rounds;
    if (sink !== rounds * 1000) throw new Error('bench: memo broke');
    report(
      'tools(), 1 000 capabilities, nothing changed (memoized)',
      `${(memo * 1e6).toFixed(1)} ns`,
      '≤ 1 µs',
    );

    t0 = performance.now();
    for (let i = 0; i < 1000; i++) toolset.capabilityState();
    report(
      'capabilityState(), 1 000 capabilities, nothing changed',
      `${(((performance.now() - t0) / 1000) * 1000).toFixed(1)} µs`,
      '(no target)',
    );
  }

  // -- what a surface change costs toolsets ------------------------------------------------------
  {
    const changeCost = async (setup: () => () => void, label: string | undefined, target: string) => {
      const teardown = setup();
      const times: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const t0 = performance.now();
        handles[(i * 31) % 1000]!.update({ note: `idle ${i}` });
        // Let the registry's coalesced surface-changed and any listener's microtask run.
        await Promise.resolve();
        await Promise.resolve();
        await Promise.resolve();
        times.push(performance.now() - t0);
      }
      teardown();
      const m = median(times.slice(500));
      if (label !== undefined) report(label, `${(m * 1000).toFixed(1)} µs per change`, target);
      return m;
    };
    // A listener so the registry emits surface-changed at all (as any app with a projection does).
    const offBase = registry.on('surface-changed', () => {});
    await changeCost(() => () => {}, undefined, ''); // warm-up
    const base = await changeCost(
      () => () => {},
      'surface change, no toolset (baseline: update + event)',
      '(baseline)',
    );
    const idle = await changeCost(
      () => {
        const sets = Array.from({ length: 10 }, () =>
          createAgentToolset(registry, { consumer, topology: 'embedded' }),
        );
        for (const s of sets) s.tools();
        return () => sets.forEach((s) => s.dispose());
      },
      'surface change, 10 idle toolsets (built, nobody calling tools())',
      'O(1): no rebuild',
    );
    report(
      '  extra cost per idle toolset',
      `${Math.max(0, ((idle - base) / 10) * 1000).toFixed(2)} µs`,
      '0: no listener, no rebuild',
    );
    const subscribed = await changeCost(
      () => {
        const s = createAgentToolset(registry, { consumer, topology: 'embedded' });
        const off = s.subscribe(() => {});
        return () => {
          off();
          s.dispose();
        };
      },
      'surface change, 1 subscribed toolset (relevance check: one snapshot, identity compare)',
      '(no target; peer: 3 ms rebuild)',
    );
    report(
      '  extra cost of the subscription',
      `${Math.max(0, (subscribed - base) * 1000).toFixed(1)} µs`,
      '(no target)',
    );
    offBase();
  }
  registry.dispose();

  // -- bytes -----------------------------------------------------------------------------------
  for (const n of [100, 1000]) {
    const { registry: r } = await catalog(n);
    const direct = createAgentToolset(r, { consumer, topology: 'embedded' });
    report(
      `direct mode: provider tool block, ${n} capabilities`,
      kb(providerBlock(direct.tools())),
      '(report)',
    );
    const metaTools = createAgentToolset(r, { consumer, mode: 'meta', topology: 'embedded' });
    const unbounded = utf8Length(toToolResult(await metaTools.tools()[0]!.execute({})).content[0]!.text);
    const budgeted = createAgentToolset(r, {
      consumer,
      mode: 'meta',
      topology: 'embedded',
      budget: { maxBytes: 16 * 1024 },
    });
    const block = providerBlock(budgeted.tools());
    const result = await budgeted.tools()[0]!.execute({});
    const payload = utf8Length(toToolResult(result).content[0]!.text);
    const dropped = result.ok
      ? ((result.output as { truncated?: { droppedComponents: number } }).truncated?.droppedComponents ?? 0)
      : -1;
    report(`meta mode: provider tool block (3 tools), ${n} capabilities`, kb(block), '(report)');
    report(`meta mode: surface_discover payload, ${n} capabilities, no budget`, kb(unbounded), '(report)');
    report(
      `meta mode: surface_discover payload, ${n} capabilities, budget maxBytes 16 KiB`,
      `${kb(payload)}, ${n - dropped} listed, truncated.droppedComponents ${dropped}`,
      '≤ 16 KiB',
    );
    r.dispose();
  }

  console.log('| measure | value | target |');
  console.log('|---|---|---|');
  for (const [what, value, target] of rows) console.log(`| ${what} | ${value} | ${target} |`);
}

void main();
