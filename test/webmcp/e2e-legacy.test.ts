import { BatchHost, LegacyHost, content } from './fake-hosts.js';
import { e2eScenario } from './e2e-scenario.js';

// Older WebMCP previews, injected through <agent-webmcp>'s `.modelContext`.

describe('WebMCP end to end on an injected legacy host (registerTool + unregisterTool, provideContext)', () => {
  let host: LegacyHost;
  let mark = 0;
  e2eScenario({
    async setup() {
      host = new LegacyHost();
    },
    modelContext: () => host,
    async names(prefix) {
      return host.names().filter((n) => n.startsWith(prefix));
    },
    async tool(name) {
      const t = host.tool(name);
      return { description: t.description, inputSchema: t.inputSchema, annotations: { readOnly: t.annotations?.readOnlyHint, consequential: t.annotations?.consequentialHint } };
    },
    async call(name, input) {
      // The preview passed a client as the second argument; this one has no requestUserInteraction.
      const pending = host.execute(name, input, {});
      return { result: async () => content(await pending) };
    },
    async mark() {
      mark = host.calls.length;
    },
    async traffic() {
      return host.calls.slice(mark).map((c) => (c.startsWith('register ') ? `+${c.slice(9)}` : c.startsWith('unregister ') ? `-${c.slice(11)}` : c));
    },
    keeps: { consequential: true, untrustedContent: true },
  });
});

describe('WebMCP end to end on an injected batch-only host (provideContext / clearContext)', () => {
  let host: BatchHost;
  e2eScenario({
    async setup() {
      host = new BatchHost();
    },
    modelContext: () => host,
    async names(prefix) {
      return host.names().filter((n) => n.startsWith(prefix));
    },
    async tool(name) {
      const t = host.tool(name);
      return { description: t.description, inputSchema: t.inputSchema, annotations: { readOnly: t.annotations?.readOnlyHint, consequential: t.annotations?.consequentialHint } };
    },
    async call(name, input) {
      const pending = host.execute(name, input);
      return { result: async () => content(await pending) };
    },
    keeps: { consequential: true, untrustedContent: true },
  });
});
