import { expect } from '@open-wc/testing';
import { createWebMcpSource, ToolSourceError } from '../../src/webmcp/index.js';
import type { ModelContextLike, RegisteredTool } from '../../src/webmcp/types.js';
import { sourceScenario } from './source-scenario.js';

describe('createWebMcpSource on Chromium’s native host', () => {
  sourceScenario({
    host: () => (document as unknown as { modelContext: ModelContextLike }).modelContext,
    keepsConsequentialHint: true,
  });
});

describe('createWebMcpSource edge cases (injected hosts)', () => {
  it('constructs without a host and throws UNSUPPORTED_WEBMCP from the first discover', async () => {
    const source = createWebMcpSource({ modelContext: null });
    const error = await source.discover().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ToolSourceError);
    expect((error as ToolSourceError).code).to.equal('UNSUPPORTED_WEBMCP');
    const result = await source.execute({ name: 'x', input: {} }, 1);
    expect(result.ok ? undefined : result.error.code).to.equal('UNSUPPORTED_WEBMCP');
  });

  it('skips tools of other windows and reads JSON-string schemas', async () => {
    const frame = document.createElement('iframe');
    document.body.append(frame);
    try {
      const tools: RegisteredTool[] = [
        { name: 'here', description: 'mine', inputSchema: '{"type":"object","properties":{"q":{"type":"string"}}}', window },
        { name: 'there', description: 'a frame’s', inputSchema: { type: 'object' }, window: frame.contentWindow },
        { name: 'nowindow', description: 'an older host lists no window' },
      ];
      const host: ModelContextLike = { getTools: async () => tools, executeTool: async () => 'null' };
      const source = createWebMcpSource({ modelContext: host });
      const snapshot = await source.discover();
      expect(snapshot.tools.map((t) => t.name)).to.deep.equal(['here', 'nowindow']);
      expect(snapshot.tools[0]!.inputSchema).to.deep.equal({ type: 'object', properties: { q: { type: 'string' } } });
      expect(snapshot.tools[1]!.inputSchema).to.deep.equal({ type: 'object', properties: {} });
      expect(snapshot.tools[1]!.readOnly).to.equal(undefined);
      source.dispose();
    } finally {
      frame.remove();
    }
  });

  it('reports a rejected executeTool as EXECUTION_FAILED and an aborted one as CANCELLED', async () => {
    let running!: () => void;
    const hostHasIt = new Promise<void>((resolve) => (running = resolve));
    const host: ModelContextLike = {
      getTools: async () => [{ name: 'boom', description: 'fails', window }],
      executeTool: (_tool, _input, options) =>
        new Promise((_resolve, reject) => {
          if (!options?.signal) reject(new DOMException('Tool was executed but the invocation failed.', 'UnknownError'));
          else {
            options.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
            running();
          }
        }),
    };
    const source = createWebMcpSource({ modelContext: host });
    const { revision } = await source.discover();
    const failed = await source.execute({ name: 'boom', input: {} }, revision);
    expect(failed.ok ? undefined : failed.error).to.deep.include({ code: 'EXECUTION_FAILED' });
    const controller = new AbortController();
    const pending = source.execute({ name: 'boom', input: {} }, revision, controller.signal);
    // Cancelled while the host runs it, not before it got there.
    await hostHasIt;
    controller.abort();
    const cancelled = await pending;
    expect(cancelled.ok ? undefined : cancelled.error.code).to.equal('CANCELLED');
    source.dispose();
  });
});
