// Open-ended inputs to the MCP projection (fast-check): whatever toolName answers, the listed names
// are valid MCP tool names, unique, and each reaches its own capability; whatever arguments a client
// sends, a call answers a tool result (never a protocol error, never a crash).
import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createMcpServer } from '../../src/mcp/index.js';
import { createTestSurface } from '../../src/testing/index.js';
import { connectMemory, textJson } from './helpers.js';

before(() => mock.method(console, 'warn', () => {}));
after(() => mock.restoreAll());
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const IDS = ['domain:a.one', 'domain:a.two', 'domain:b.three', 'view:c.four'];

describe('MCP projection, property-based', () => {
  it('any toolName gives valid, unique names that each call their own capability', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant(undefined),
            fc.string({ maxLength: 140 }),
            fc.constantFrom('same', 'x.y-z', ''),
          ),
          {
            minLength: IDS.length,
            maxLength: IDS.length,
          },
        ),
        async (answers) => {
          const surface = createTestSurface();
          for (const id of IDS) surface.action(id, () => ({ ran: id }));
          const server = createMcpServer(surface.registry, {
            consumer: { id: 'fuzz', kind: 'mcp' },
            toolName: (id) => answers[IDS.indexOf(id)],
          });
          const client = await connectMemory(server);
          try {
            const { tools } = await client.client.listTools();
            const names = tools.map((t) => t.name);
            assert.equal(names.length, IDS.length);
            assert.equal(new Set(names).size, names.length);
            for (const name of names) assert.match(name, MCP_NAME);
            const reached = new Set<string>();
            for (const tool of tools) {
              const result = await client.client.callTool({ name: tool.name, arguments: {} });
              assert.equal(result.isError, false, JSON.stringify(result));
              const { ran } = textJson(result) as { ran: string };
              // The tool's title is its capability id: the name reaches that one.
              assert.equal(ran, tool.title);
              reached.add(ran);
            }
            assert.equal(reached.size, IDS.length);
          } finally {
            await client.close();
            surface.dispose();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('any arguments answer a tool result', async () => {
    const surface = createTestSurface();
    surface.action('domain:a.rename', (input) => ({ ok: (input as { id: string }).id }), {
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1 } },
        required: ['id'],
        additionalProperties: false,
      },
    });
    const client = await connectMemory(
      createMcpServer(surface.registry, { consumer: { id: 'fuzz', kind: 'mcp' } }),
    );
    cleanup.push(
      () => client.close(),
      () => surface.dispose(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
        async (args) => {
          const result = await client.client.callTool({ name: 'domain_a__rename', arguments: args });
          const body = textJson(result);
          if (result.isError) assert.ok(['INVALID_INPUT'].includes(body.code), JSON.stringify(body));
          else assert.deepEqual(body, { ok: args.id });
        },
      ),
      { numRuns: 150 },
    );
  });
});
