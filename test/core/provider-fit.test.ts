/**
 * Provider fit: a direct catalog must be accepted as is by the tool-definition rules that the
 * major model providers publish for their function/tool APIs (Anthropic Messages `tools`, OpenAI
 * `tools[].function`): name `^[a-zA-Z0-9_-]{1,64}$`, names unique within a request, and an input
 * schema that is a JSON Schema object with `type: "object"`.
 */
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentToolset } from '../../src/core/toolset.js';
import { createTestSurface } from '../../src/testing/index.js';

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());

/** 500 tools: long ids (many over 64 characters, some sharing long prefixes), odd but registrable ids, repeated instances. */
function bigCatalog() {
  const surface = createTestSurface({ consumer: { id: 'provider-fit', kind: 'remote' } });
  const prefix = 'domain:organizationSettings.billingAccounts.invoiceLineItems.adjustments';
  const expected: Array<{ capabilityId: string; instanceId?: string }> = [];
  const add = (capabilityId: string, instanceId?: string) => {
    surface.action(capabilityId, (input) => ({ echoed: input }), {
      description: `Operation ${capabilityId}.`,
      ...(instanceId !== undefined ? { instanceId } : {}),
      inputSchema: { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false },
    });
    expected.push(instanceId === undefined ? { capabilityId } : { capabilityId, instanceId });
  };
  for (let i = 0; i < 300; i++) add(`${prefix}.taxOverrides.applyRegionalRule${i}`);
  for (let i = 0; i < 20; i++) add(`domain:legacy_api.do-thing-${i}`);
  for (let i = 0; i < 10; i++) add(`domain:café.commande${i}`);
  for (let v = 0; v < 17; v++) {
    for (let k = 0; k < 10; k++) {
      add(
        `view:warehouseInventoryDashboard.stockLevelsGrid${v}.selectRowsMatchingFilter`,
        k % 3 === 0 ? `row.${k}:region-north` : `row-${k}`,
      );
    }
  }
  assert.equal(expected.length, 500);
  return { surface, expected };
}

describe('provider fit', () => {
  it('a 500-capability direct catalog meets the providers’ tool-definition rules', () => {
    const { surface, expected } = bigCatalog();
    const toolset = createAgentToolset(surface.registry, { consumer: surface.consumer, topology: 'remote' });
    const tools = toolset.tools();
    assert.equal(tools.length, 500);
    const names = new Set<string>();
    for (const tool of tools) {
      assert.match(tool.name, PROVIDER_NAME);
      assert.ok(!names.has(tool.name), `duplicate name ${tool.name}`);
      names.add(tool.name);
      assert.equal(typeof tool.inputSchema, 'object');
      assert.ok(tool.inputSchema !== null && !Array.isArray(tool.inputSchema));
      assert.equal(tool.inputSchema.type, 'object');
      assert.ok(tool.description.length > 0 && tool.description.length <= 1024, tool.name);
    }
    // Every name leads back to its own target, only through the catalog's map.
    const targets = toolset.wireTargets();
    assert.equal(targets.size, 500);
    const seen = new Set(
      [...targets.values()].map((t) => JSON.stringify([t.capabilityId, t.instanceId ?? null])),
    );
    for (const e of expected)
      assert.ok(seen.has(JSON.stringify([e.capabilityId, e.instanceId ?? null])), e.capabilityId);
    surface.dispose();
  });

  it('keeps every name when an unrelated capability comes and goes', () => {
    const { surface } = bigCatalog();
    const toolset = createAgentToolset(surface.registry, { consumer: surface.consumer, topology: 'remote' });
    const before = new Map([...toolset.wireTargets()].map(([name, t]) => [JSON.stringify(t), name]));
    const extra = surface.action(
      'domain:organizationSettings.billingAccounts.invoiceLineItems.adjustments.taxOverrides.applyRegionalRule9x',
      () => null,
      {
        description: 'One more.',
      },
    );
    extra.unregister();
    surface.action('domain:zzz.late', () => null, { description: 'Late.' });
    const after = new Map([...toolset.wireTargets()].map(([name, t]) => [JSON.stringify(t), name]));
    for (const [target, name] of before) assert.equal(after.get(target), name, target);
    surface.dispose();
  });

  it('routes a call on a shortened, instance-qualified name to the right instance', async () => {
    const { surface } = bigCatalog();
    const toolset = createAgentToolset(surface.registry, { consumer: surface.consumer, topology: 'remote' });
    const [name, target] = [...toolset.wireTargets()].find(
      ([, t]) => t.instanceId === 'row.3:region-north' && t.capabilityId.includes('Grid5'),
    )!;
    const tool = toolset.tools().find((t) => t.name === name)!;
    const result = await tool.execute({ note: 'hi' });
    assert.equal(result.ok, true, JSON.stringify(result));
    const audit = surface.eventsOf('invocation').at(-1)!;
    assert.deepEqual([audit.capabilityId, audit.instanceId], [target.capabilityId, target.instanceId]);
    surface.dispose();
  });
});
