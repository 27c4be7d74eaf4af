// runAdapter driving an adapter that misbehaves in every way a broken or hostile one can: it
// throws (synchronously or from its stream) values whose every read throws, yields garbage, or its
// tool calls throw. The run always ends (the session is not left `running`, so the chat is not
// stuck), runAdapter never rejects, and req.callTool never rejects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { runAdapter } from '../../src/chat/run.js';
import { createSessionState, sessionReducer, type SessionState } from '../../src/chat/session.js';
import type { ChatTool } from '../../src/chat/tools.js';
import type { AgentAdapter, AgentRunRequest, ToolOutput } from '../../src/chat/types.js';

const trap = () => {
  throw new Error('trap');
};
/** Every read throws, `instanceof` included (getPrototypeOf). */
const proxy = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap });

/** Values fast-check must not read itself (its clone check would hit the traps): drawn by index. */
const THROWN: unknown[] = [proxy, new Error('plain'), 'a string', undefined, null, 42, Object.create(null), { message: proxy }];
const thrown = fc.nat({ max: THROWN.length - 1 }).map((i) => () => THROWN[i]);

async function play(adapter: AgentAdapter, tools: readonly ChatTool[] = []): Promise<SessionState> {
  let state = sessionReducer(createSessionState(), { type: 'send', text: 'hi' });
  await runAdapter(
    {
      adapter,
      tools: () => tools,
      dispatch: (e) => (state = sessionReducer(state, e)),
      state: () => state,
      randomId: () => `inv-${Math.random().toString(36).slice(2)}`,
    },
    new AbortController().signal,
  );
  return state;
}

const throwingTool: ChatTool = {
  descriptor: { name: 't', description: 'A tool that throws what it is given.', inputSchema: { type: 'object' } },
  title: 't',
  untrustedOutput: false,
  call: () => Promise.reject(proxy),
};

describe('runAdapter: an adapter that throws what cannot be read', () => {
  it('a run that throws a Proxy whose traps throw ends as an error (it was left running, and runAdapter rejected)', async () => {
    const state = await play({
      id: 'x',
      label: 'x',
      async *run() {
        throw proxy;
      },
    });
    assert.equal(state.status, 'error');
    assert.equal(state.error?.error, 'The agent stopped with an error.');
  });

  it('fast-check: thrown from run(), from next(), after some parts, or by a tool call: the run ends, nothing rejects', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('sync', 'stream', 'next', 'after-parts', 'tool'), thrown, async (where, value) => {
        const adapter: AgentAdapter = {
          id: 'x',
          label: 'x',
          run(req: AgentRunRequest) {
            if (where === 'sync') throw value();
            if (where === 'next') return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(value()) }) };
            return (async function* () {
              yield { type: 'message-start' as const, messageId: 'm' };
              if (where === 'tool') {
                yield { type: 'tool-call' as const, messageId: 'm', id: 'c1', name: 't', input: {} };
                const output: ToolOutput = await req.callTool({ id: 'c1', name: 't', input: {} });
                assert.equal(output.isError, true);
                yield { type: 'tool-error' as const, id: 'c1', error: output.content[0]!.text };
                yield { type: 'finish' as const, reason: 'stop' as const };
                return;
              }
              if (where === 'after-parts') yield { type: 'text-delta' as const, messageId: 'm', delta: 'partly' };
              throw value();
            })();
          },
        };
        const state = await play(adapter, [throwingTool]);
        assert.notEqual(state.status, 'running');
      }),
      { numRuns: 120 },
    );
  });
});
