/**
 * What a tool call costs on top of the registry (ES build, the execution side linked): a direct
 * tool's `execute`, meta mode's `surface_act` and `surface_discover`, and a gateway tool, against
 * `registry.invoke` alone. Prints a markdown table.
 *
 *   npx tsx bench/toolset-exec.bench.ts
 */
import { createCompilerAuthority } from '../src/core/authority.js';
import { createAgentExposureGateway } from '../src/core/gateway.js';
import { createAgentSurfaceRegistry } from '../src/core/registry.js';
import { createAgentToolset } from '../src/core/toolset.js';
import type { AgentInvocationResult, CapabilityContract } from '../src/core/types.js';
import { compileContracts } from '../src/compiler/compile.js';

const consumer = { id: 'bench-exec', kind: 'embedded' };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median µs per call over batches of sequential awaited calls (after a warm-up). */
async function perCall(call: (i: number) => Promise<AgentInvocationResult>): Promise<number> {
  const batch = 500;
  const times: number[] = [];
  for (let round = 0; round < 60; round++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) {
      const result = await call(round * batch + i);
      if (!result.ok) throw new Error(`bench: call failed ${JSON.stringify(result.error)}`);
    }
    times.push(((performance.now() - t0) * 1000) / batch);
  }
  return median(times.slice(10));
}

async function main(): Promise<void> {
  const contracts: CapabilityContract[] = Array.from({ length: 100 }, (_, i) => ({
    id: `domain:area${i % 10}.records.update${i}`,
    kind: 'action',
    effect: 'local-state',
    description: `Update a record (operation ${i}).`,
    concurrency: 'parallel',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1 }, note: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    },
  }));
  const { manifest, validators } = await compileContracts(contracts);
  const authority = createCompilerAuthority({ manifest, validators });
  const registry = createAgentSurfaceRegistry({ authority });
  for (const c of contracts) {
    const e = authority.contract(c.id)!;
    registry.register({ contract: e.contract, token: e.token, handler: (input) => ({ ok: input.id }) });
  }
  const target = 'domain:area7.records.update47';
  const input = { id: 'r1', note: 'hello' };

  const direct = createAgentToolset(registry, { consumer, topology: 'embedded' });
  const tool = direct.tools().find((t) => t.name === 'domain_area7__records__update47')!;
  const meta = createAgentToolset(registry, { consumer: { ...consumer, id: 'bench-meta' }, mode: 'meta', topology: 'embedded' });
  const [discover, , act] = meta.tools();
  const gateway = createAgentExposureGateway(authority);
  const standalone = gateway.expose({ ...authority.contract(target)!, handler: (value) => ({ ok: value.id }) });

  const rows: [string, number][] = [];
  const measure = async (label: string, call: (i: number) => Promise<AgentInvocationResult>) => {
    const us = await perCall(call);
    rows.push([label, us]);
    console.error(`${label}: ${us.toFixed(2)} µs`);
  };
  await measure('registry.invoke (baseline: no projection)', (i) =>
    registry.invoke({ capabilityId: target, input, consumer, invocationId: `base-${i}` }),
  );
  await measure('direct tool execute()', (i) => tool.execute(input, { toolCallId: `direct-${i}` }));
  await measure('meta surface_act execute()', (i) =>
    act!.execute({ capabilityId: target, input }, { toolCallId: `act-${i}` }),
  );
  await measure('meta surface_discover execute(), 100 capabilities', (i) => discover!.execute({}, { toolCallId: `disc-${i}` }));
  await measure('gateway tool execute()', (i) => standalone.execute(input, { toolCallId: `gw-${i}` }));

  console.log('| call (sequential, awaited) | µs per call, median |');
  console.log('|---|---|');
  for (const [label, us] of rows) console.log(`| ${label} | ${us.toFixed(2)} |`);
  registry.dispose();
}

void main();
