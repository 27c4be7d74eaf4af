// Type tests for the registry's public surface: `tsc -p tsconfig.json` checks the
// `@ts-expect-error` lines; the test itself only runs the calls once.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentSurfaceRegistry, matchesScope } from '../../src/index.js';
import { devAuthority } from '../../src/dev/index.js';
import type { AgentInvocationResult, AgentSurfaceRegistry, InvocationEvent, RegistryEventMap } from '../../src/index.js';
import { createTestSurface } from '../../src/testing/index.js';
import { quietConsole } from './registry-helpers.js';

it('exposes typed events, results and registration options', async () => {
  quietConsole();
  const registry: AgentSurfaceRegistry = createAgentSurfaceRegistry({ authority: devAuthority(), limits: { queueDepth: 1 } });
  const off = registry.on('invocation', (event: InvocationEvent) => {
    const outcome: InvocationEvent['outcome'] = event.outcome;
    void outcome;
  });
  // @ts-expect-error: the listener of "surface-changed" receives a SurfaceChangedEvent
  registry.on('surface-changed', (event: RegistryEventMap['invocation']) => event.outcome);
  // @ts-expect-error: unknown event types do not type-check
  assert.throws(() => registry.on('changed', () => {}));

  const handle = registry.register({
    contract: { id: 'domain:a.run', kind: 'action', effect: 'local-state', description: 'Runs a.' },
    handler: (input, ctx) => ({ echoed: input, by: ctx.consumer.id }),
  });
  // @ts-expect-error: registrationId is read-only
  handle.registrationId = 'x';

  assert.throws(() =>
    registry.register({
      // @ts-expect-error: an effect outside the union is refused by the types (and at run time)
      contract: { id: 'domain:a.bad', kind: 'action', effect: 'teleport', description: 'Bad.' },
      handler: () => null,
    }),
  );

  const result: AgentInvocationResult = await registry.invoke({
    capabilityId: 'domain:a.run',
    invocationId: 'i1',
    consumer: { id: 'c', kind: 'embedded' },
    input: {},
  });
  if (result.ok) {
    // @ts-expect-error: a success has no error
    void result.error;
  } else {
    const code: string = result.error.code;
    void code;
  }
  assert.equal(result.ok, true);
  assert.equal(matchesScope('domain:a.run', ['a']), true);
  off();
  registry.dispose();
});

it('the test surface is typed too', async () => {
  quietConsole();
  const surface = createTestSurface();
  surface.observation('domain:a.look', (ctx, input) => ({ who: ctx.consumer.id, input }));
  // @ts-expect-error: observations take a read(ctx, input), not an input-first handler with extra arguments
  surface.observation('domain:a.other', (a: string, b: number, c: boolean) => a + b + c);
  const r = await surface.invoke('domain:a.look');
  assert.equal(r.ok, true);
  surface.dispose();
});
