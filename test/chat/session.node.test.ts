import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  createSessionState,
  isTerminal,
  sessionReducer,
  toolParts,
  type SessionEvent,
  type SessionState,
} from '../../src/chat/session.js';
import type { AgentMessage, AgentStreamPart, AgentToolPart } from '../../src/chat/types.js';

const fold = (events: SessionEvent[], state = createSessionState()) => events.reduce(sessionReducer, state);
const part = (p: AgentStreamPart): SessionEvent => ({ type: 'part', part: p });
const tools = (s: SessionState): AgentToolPart[] => [...toolParts(s.messages)];

describe('sessionReducer: one run', () => {
  it('folds a send and a stream into a user and an assistant message', () => {
    const s = fold([
      { type: 'send', text: 'hello', id: 'u1' },
      part({ type: 'message-start', messageId: 'm1' }),
      part({ type: 'reasoning', messageId: 'm1', text: 'think', providerMetadata: { signature: 'sig' } }),
      part({ type: 'text-delta', messageId: 'm1', delta: 'Hi ' }),
      part({ type: 'text-delta', messageId: 'm1', delta: 'there' }),
      part({ type: 'finish', reason: 'stop' }),
    ]);
    assert.equal(s.status, 'done');
    assert.equal(s.finish, 'stop');
    assert.deepEqual(s.messages, [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] },
      {
        id: 'm1',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'think', providerMetadata: { signature: 'sig' } },
          { type: 'text', text: 'Hi there' },
        ],
      },
    ]);
    // Serializable: a JSON round trip gives the same state.
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s);
  });

  it('gives each tool call one terminal state; Error [cancelled] is cancelled; an unanswered call is cancelled at finish', () => {
    const s = fold([
      { type: 'send', text: 'go' },
      part({ type: 'message-start', messageId: 'm' }),
      part({ type: 'tool-call', messageId: 'm', id: 'a', name: 't', input: { x: 1 }, providerMetadata: { itemId: 'i' } }),
      part({ type: 'tool-result', id: 'a', output: { content: [{ type: 'text', text: 'ok' }] } }),
      part({ type: 'tool-error', id: 'a', error: 'late' }),
      part({ type: 'tool-call', messageId: 'm', id: 'b', name: 't', input: {} }),
      part({ type: 'tool-error', id: 'b', error: 'Error [cancelled]: stopped' }),
      part({ type: 'tool-call', messageId: 'm', id: 'c', name: 't', input: {} }),
      part({ type: 'tool-error', id: 'c', error: 'boom' }),
      part({ type: 'tool-call', messageId: 'm', id: 'd', name: 't', input: {} }),
      part({ type: 'finish', reason: 'stop' }),
    ]);
    const [a, b, c, d] = tools(s);
    assert.equal(a!.state, 'done');
    assert.deepEqual(a!.providerMetadata, { itemId: 'i' });
    assert.equal(a!.error, undefined);
    assert.equal(b!.state, 'cancelled');
    assert.equal(c!.state, 'error');
    assert.equal(c!.error, 'boom');
    assert.equal(d!.state, 'cancelled');
  });

  it('marks a confirmation wait with its prompt and returns to running when it settles', () => {
    let s = fold([
      { type: 'send', text: 'go' },
      part({ type: 'tool-call', messageId: 'm', id: 'a', name: 't', input: {} }),
      { type: 'confirmation', id: 'a', prompt: 'Approve or deny in this card' },
    ]);
    assert.equal(tools(s)[0]!.state, 'awaiting-confirmation');
    assert.equal(tools(s)[0]!.prompt, 'Approve or deny in this card');
    s = sessionReducer(s, { type: 'approve', id: 'a' });
    assert.equal(tools(s)[0]!.state, 'running');
    assert.equal(tools(s)[0]!.prompt, undefined);
  });

  it('stop ends the run aborted, cancels open calls and drops later parts', () => {
    const s = fold([
      { type: 'send', text: 'go' },
      part({ type: 'tool-call', messageId: 'm', id: 'a', name: 't', input: {} }),
      { type: 'stop' },
      part({ type: 'tool-result', id: 'a', output: { content: [] } }),
      part({ type: 'text-delta', messageId: 'm', delta: 'late' }),
    ]);
    assert.equal(s.status, 'aborted');
    assert.equal(s.finish, 'aborted');
    assert.equal(tools(s)[0]!.state, 'cancelled');
    assert.equal(s.messages[1]!.parts.length, 1);
  });

  it('an error part ends the run with its code', () => {
    const s = fold([{ type: 'send', text: 'go' }, part({ type: 'error', error: 'slow down', code: 'rate_limited' })]);
    assert.equal(s.status, 'error');
    assert.deepEqual(s.error, { error: 'slow down', code: 'rate_limited' });
  });

  it('ignores parts tagged with another run and types outside the contract', () => {
    let s = fold([{ type: 'send', text: 'go' }]);
    s = sessionReducer(s, { type: 'part', run: s.run - 1, part: { type: 'text-delta', messageId: 'm', delta: 'x' } });
    s = sessionReducer(s, { type: 'part', part: { type: 'approve', id: 'x' } as unknown as AgentStreamPart });
    assert.equal(s.messages.length, 1);
  });

  it('renames an assistant message whose id an earlier run used', () => {
    const run = (text: string) => [
      { type: 'send', text } as SessionEvent,
      part({ type: 'message-start', messageId: 'same' }),
      part({ type: 'text-delta', messageId: 'same', delta: text }),
      part({ type: 'finish', reason: 'stop' }),
    ];
    const s = fold([...run('one'), ...run('two')]);
    const ids = s.messages.map((m) => m.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(s.messages[3]!.parts[0]!.type === 'text' && s.messages[3]!.parts[0]!.text, 'two');
  });
});

describe('sessionReducer: retry and edit', () => {
  const base = (): SessionEvent[] => [
    { type: 'send', text: 'disable them', id: 'u1' },
    part({ type: 'message-start', messageId: 'm1' }),
    part({ type: 'text-delta', messageId: 'm1', delta: 'Reading.' }),
    part({ type: 'tool-call', messageId: 'm1', id: 'a', name: 'rows', input: {} }),
    part({ type: 'tool-result', id: 'a', output: { content: [{ type: 'text', text: '[]' }] } }),
    part({ type: 'tool-call', messageId: 'm1', id: 'b', name: 'disable', input: {} }),
    part({ type: 'error', error: 'network down', code: 'network' }),
  ];

  it('retry keeps the messages up to the last finished tool call', () => {
    const s = fold([...base(), { type: 'retry' }]);
    assert.equal(s.status, 'running');
    assert.equal(s.messages.length, 2);
    assert.deepEqual(
      s.messages[1]!.parts.map((p) => p.type),
      ['text', 'tool'],
    );
    assert.equal((s.messages[1]!.parts[1] as AgentToolPart).id, 'a');
  });

  it('retry without a finished call re-runs from the user message', () => {
    const s = fold([
      { type: 'send', text: 'hi', id: 'u1' },
      part({ type: 'text-delta', messageId: 'm', delta: 'half' }),
      part({ type: 'error', error: 'x' }),
      { type: 'retry' },
    ]);
    assert.deepEqual(
      s.messages.map((m) => m.id),
      ['u1'],
    );
  });

  it('edit-and-resend replaces the user message and drops what followed', () => {
    const s = fold([...base(), { type: 'edit', messageId: 'u1', text: 'only the first' }]);
    assert.equal(s.status, 'running');
    assert.deepEqual(s.messages, [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'only the first' }] }]);
  });

  it('send, retry and edit do nothing while a run is going', () => {
    const s = fold([{ type: 'send', text: 'a', id: 'u1' }]);
    assert.equal(sessionReducer(s, { type: 'send', text: 'b' }), s);
    assert.equal(sessionReducer(s, { type: 'retry' }), s);
    assert.equal(sessionReducer(s, { type: 'edit', messageId: 'u1', text: 'c' }), s);
  });

  it('load keeps well-formed messages and ends a run that was open when it was stored', () => {
    const stored = JSON.parse(
      JSON.stringify([
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'x' }] },
        { id: 'a', role: 'assistant', parts: [{ type: 'tool', id: 't', name: 'n', input: {}, state: 'awaiting-confirmation', prompt: 'p' }, { type: 'bogus' }] },
        { id: 'a', role: 'assistant', parts: [] },
        { id: 'z', role: 'system', parts: [] },
        null,
      ]),
    ) as AgentMessage[];
    const s = createSessionState(stored);
    assert.equal(s.status, 'idle');
    assert.equal(s.messages.length, 2);
    assert.deepEqual(s.messages[1]!.parts, [{ type: 'tool', id: 't', name: 'n', input: {}, state: 'cancelled' }]);
  });
});

describe('sessionReducer: sub-agents', () => {
  it('nests a sub-agent run in the delegate call and cancels its open calls when the run ends', () => {
    const nested: AgentMessage[] = [
      { id: 'task', role: 'user', parts: [{ type: 'text', text: 'count' }] },
      { id: 'n1', role: 'assistant', parts: [{ type: 'tool', id: 'inner', name: 'rows', input: {}, state: 'running' }] },
    ];
    const s = fold([
      { type: 'send', text: 'go' },
      part({ type: 'tool-call', messageId: 'm', id: 'd', name: 'delegate_to_counter', input: { task: 'count' } }),
      { type: 'agent', id: 'd', agent: { id: 'counter', messages: nested } },
      { type: 'stop' },
    ]);
    const [outer, inner] = tools(s);
    assert.equal(outer!.agent!.id, 'counter');
    assert.equal(outer!.state, 'cancelled');
    assert.equal(inner!.state, 'cancelled');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const ids = fc.constantFrom('a', 'b', 'c', 'd');
const msgIds = fc.constantFrom('m1', 'm2', 'u-1', 'assistant-1');
const output = fc.record({
  content: fc.array(fc.record({ type: fc.constant('text' as const), text: fc.string({ maxLength: 5 }) }), { maxLength: 2 }),
  isError: fc.option(fc.boolean(), { nil: undefined }),
});
const streamPart: fc.Arbitrary<AgentStreamPart> = fc.oneof(
  fc.record({ type: fc.constant('message-start' as const), messageId: msgIds }),
  fc.record({ type: fc.constant('text-delta' as const), messageId: msgIds, delta: fc.string({ maxLength: 4 }) }),
  fc.record({ type: fc.constant('reasoning' as const), messageId: msgIds, text: fc.string({ maxLength: 4 }) }),
  fc.record({ type: fc.constant('tool-call' as const), messageId: msgIds, id: ids, name: fc.constantFrom('x', 'y'), input: fc.jsonValue({ maxDepth: 1 }) }),
  fc.record({ type: fc.constant('tool-result' as const), id: ids, output }),
  fc.record({ type: fc.constant('tool-error' as const), id: ids, error: fc.constantFrom('boom', 'Error [cancelled]: x') }),
  fc.record({ type: fc.constant('step-finish' as const), step: fc.nat(5) }),
  fc.record({ type: fc.constant('finish' as const), reason: fc.constantFrom('stop' as const, 'max-steps' as const, 'aborted' as const) }),
  fc.record({ type: fc.constant('error' as const), error: fc.string({ maxLength: 4 }), code: fc.constantFrom(undefined, 'network' as const) }),
);
const event: fc.Arbitrary<SessionEvent> = fc.oneof(
  { weight: 6, arbitrary: streamPart.map((p) => ({ type: 'part' as const, part: p })) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('send' as const), text: fc.constantFrom('hi', 'go', ' '), id: fc.option(msgIds, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.constant({ type: 'stop' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'retry' as const }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('edit' as const), messageId: msgIds, text: fc.constant('again') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('confirmation' as const), id: ids, prompt: fc.constant('click') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('approve' as const, 'deny' as const, 'confirmation-settled' as const), id: ids }) },
);

function toolStates(s: SessionState): Map<string, AgentToolPart> {
  return new Map(tools(s).map((t) => [t.id, t]));
}

describe('sessionReducer: properties', () => {
  it('any sequence of parts and actions yields a consistent state', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        let s = createSessionState();
        for (const e of events) {
          const before = s;
          const frozen = JSON.stringify(before);
          s = sessionReducer(s, e);
          // Pure: the previous state is untouched.
          assert.equal(JSON.stringify(before), frozen);
          // Unique message ids and tool ids.
          const mids = s.messages.map((m) => m.id);
          assert.equal(new Set(mids).size, mids.length, 'message ids unique');
          const tids = tools(s).map((t) => t.id);
          assert.equal(new Set(tids).size, tids.length, 'tool ids unique');
          // A terminal call stays what it was (same state, output and error).
          const prev = toolStates(before);
          for (const [id, t] of toolStates(s)) {
            const p = prev.get(id);
            if (p && isTerminal(p.state) && s.messages.length >= before.messages.length && e.type === 'part') {
              assert.equal(t.state, p.state, 'terminal state kept');
            }
            if (t.state !== 'awaiting-confirmation') assert.equal(t.prompt, undefined);
          }
          // No part after the run is over.
          if (before.status !== 'running' && e.type === 'part') assert.equal(s, before, 'no part after finish');
          // Once the run is over every call is terminal.
          if (s.status !== 'running') for (const t of tools(s)) assert.ok(isTerminal(t.state), `call ${t.id} ended ${t.state}`);
          // Serializable.
          assert.deepEqual(JSON.parse(JSON.stringify(s)), s);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a terminal call never changes within a run, whatever parts follow', () => {
    fc.assert(
      fc.property(fc.array(streamPart, { maxLength: 40 }), (parts) => {
        let s = sessionReducer(createSessionState(), { type: 'send', text: 'go' });
        const ended = new Map<string, string>();
        for (const p of parts) {
          s = sessionReducer(s, { type: 'part', part: p });
          for (const t of tools(s)) {
            const was = ended.get(t.id);
            const now = JSON.stringify([t.state, t.output, t.error]);
            if (was !== undefined) assert.equal(now, was);
            else if (isTerminal(t.state)) ended.set(t.id, now);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
