import { initializeWebMCPPolyfill } from '@mcp-b/webmcp-polyfill';
import type { ModelContextLike, ModelContextTool, RegisteredTool } from '../../src/webmcp/types.js';
import { content } from './fake-hosts.js';
import { e2eScenario } from './e2e-scenario.js';

// Runs in the `webmcp-polyfill` group: a Chromium without the WebMCP flag (web-test-runner.config.mjs).
const nativeHost = (document as unknown as { modelContext?: unknown }).modelContext !== undefined;
if (!nativeHost) initializeWebMCPPolyfill();

const mc = () => (document as unknown as { modelContext: ModelContextLike }).modelContext;

/** Registration traffic on the polyfill (`+name` registered, `-name` withdrawn), recorded around its own methods. */
const traffic: string[] = [];
let mark = 0;
if (!nativeHost) {
  const polyfill = mc();
  const register = polyfill.registerTool!.bind(polyfill);
  polyfill.registerTool = (tool: ModelContextTool, options?: { signal?: AbortSignal }) => {
    traffic.push(`+${tool.name}`);
    options?.signal?.addEventListener('abort', () => traffic.push(`-${tool.name}`), { once: true });
    return register(tool, options);
  };
}

async function listed(): Promise<RegisteredTool[]> {
  return (await mc().getTools!()) as RegisteredTool[];
}

// In the default browser the native host owns document.modelContext: this file belongs to the other group.
// (mocha's describe.skip; the shared globals in test/elements/mocha-globals.d.ts declare describe only)
const suite = nativeHost ? (describe as typeof describe & { skip: typeof describe }).skip : describe;

suite('WebMCP end to end on the @mcp-b polyfill (no native host)', () => {
  e2eScenario({
    async names(prefix) {
      return (await listed()).map((t) => t.name).filter((n) => n.startsWith(prefix)).sort();
    },
    async tool(name) {
      const t = (await listed()).find((x) => x.name === name);
      if (!t) throw new Error(`the polyfill does not list ${name}`);
      return { description: t.description, inputSchema: t.inputSchema, annotations: { readOnly: t.annotations?.readOnlyHint, untrustedContent: t.annotations?.untrustedContentHint } };
    },
    async call(name, input) {
      const t = (await listed()).find((x) => x.name === name);
      if (!t) throw new Error(`the polyfill does not list ${name}`);
      // The polyfill wants a JSON string (an object fails with "Failed to parse input arguments").
      const pending = mc().executeTool!(t, JSON.stringify(input));
      return { result: async () => content(await pending) };
    },
    async mark() {
      mark = traffic.length;
    },
    async traffic() {
      return traffic.slice(mark);
    },
    keeps: { consequential: false, untrustedContent: true },
  });
});
