import { type CdpResponse, agent, parseOutput } from './agent.js';
import { type DrivenCall, e2eScenario } from './e2e-scenario.js';

/** A call in flight over the DevTools WebMCP domain. */
class CdpCall implements DrivenCall {
  constructor(readonly invocationId: string) {}

  async result() {
    const response: CdpResponse = await agent.result(this.invocationId);
    if (response.status === 'Canceled') return { isError: true, body: { code: 'CANCELLED (host)' } };
    if (response.status !== 'Completed') throw new Error(`the host answered ${response.status}: ${response.errorText ?? response.exception ?? ''}`);
    return parseOutput(response);
  }
}

let mark = 0;

describe('WebMCP end to end on Chromium’s native host (DevTools WebMCP domain as the agent)', () => {
  e2eScenario({
    async setup() {
      await agent.enable();
    },
    async names(prefix) {
      return (await agent.toolNames()).filter((n) => n.startsWith(prefix));
    },
    async tool(name) {
      const tool = (await agent.tools()).find((t) => t.name === name);
      if (!tool) throw new Error(`the host does not list ${name}`);
      return { description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations ?? {} };
    },
    async call(name, input) {
      const started = await agent.invoke(name, input);
      if (!started.invocationId) throw new Error(`invokeTool failed: ${started.error}`);
      return new CdpCall(started.invocationId);
    },
    async cancel(call) {
      const done = await agent.cancel((call as CdpCall).invocationId);
      if (!done.ok) throw new Error(`cancelInvocation failed: ${done.error}`);
    },
    async mark() {
      mark = (await agent.log()).length;
    },
    async traffic() {
      return (await agent.log(mark)).log.map((e) => `${e.type === 'added' ? '+' : '-'}${e.name}`);
    },
    keeps: { consequential: true, untrustedContent: true },
  });
});
