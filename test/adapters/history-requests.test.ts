// Any conversation the chat's session can hold, sent as the next request: played against what the
// providers refuse, so the next run after anything (a Stop, a dropped stream, a failed call, a
// reply of whitespace) is a valid request. The SDK types check the shapes at compile time
// (openai.test.ts, anthropic.test.ts); these are the rules the types cannot say.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { anthropicBody } from '../../src/adapters/anthropic/protocol.js';
import { openAIBody } from '../../src/adapters/openai/protocol.js';
import { toTurns } from '../../src/adapters/shared/history.js';
import type { AgentMessage, AgentPart } from '../../src/chat/types.js';
import { tool } from './helpers/run.js';

const tools = [tool('search'), tool('reviews', { untrustedOutput: true })];
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('', ' ', '\n\n', 'Looking.'));
const output = fc.record({ content: fc.array(fc.record({ type: fc.constant('text' as const), text }), { maxLength: 2 }), isError: fc.boolean() });
const part = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({
    type: fc.constant('reasoning' as const),
    text,
    providerMetadata: fc.oneof(
      fc.constant(undefined),
      fc.constant({ anthropic: { signature: 'sig' } }),
      fc.constant({ anthropic: { redactedData: 'r' } }),
      fc.constant({ openaiCompatible: { field: 'reasoning_content' } }),
    ),
  }),
  fc.record({
    type: fc.constant('tool' as const),
    name: fc.constantFrom('search', 'reviews', 'gone'),
    input: fc.oneof(fc.constant({}), fc.constant({ q: 'x' }), fc.constant('not json')),
    state: fc.constantFrom('running', 'awaiting-confirmation', 'done', 'error', 'cancelled'),
    output: fc.option(output, { nil: undefined }),
    error: fc.option(fc.constantFrom('', 'Error: no', 'Error [cancelled] stopped'), { nil: undefined }),
  }),
);
const conversation = fc
  .array(fc.oneof(fc.constantFrom('hi', 'and then?').map((t) => ({ role: 'user' as const, t })), fc.array(part, { maxLength: 5 }).map((parts) => ({ role: 'assistant' as const, parts }))), { maxLength: 7 })
  .map((turns) => {
    let n = 0;
    const messages: AgentMessage[] = [{ id: 'u0', role: 'user', parts: [{ type: 'text', text: 'start' }] }];
    for (const t of turns) {
      if (t.role === 'user') messages.push({ id: `u${++n}`, role: 'user', parts: [{ type: 'text', text: t.t }] });
      else
        messages.push({
          id: `a${++n}`,
          role: 'assistant',
          // The session gives every call an id of its own.
          parts: t.parts.map((p) => (p.type === 'tool' ? ({ ...p, id: `call_${++n}` } as AgentPart) : (p as AgentPart))),
        });
    }
    messages.push({ id: 'last', role: 'user', parts: [{ type: 'text', text: 'now' }] });
    return messages;
  });

describe('the next request after any conversation', () => {
  it('Chat Completions: every call answered right after its assistant message, once; no tool message elsewhere; no empty assistant message', () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        const body = openAIBody(toTurns(messages, tools, 'mk'), tools, 'Be brief.', { model: 'm' });
        const m = body.messages;
        for (let i = 0; i < m.length; i++) {
          const msg = m[i]!;
          if (msg.role === 'tool') assert.fail(`a tool message not right after its call: ${JSON.stringify(m)}`);
          if (msg.role !== 'assistant') continue;
          const calls = msg.tool_calls?.map((c) => c.id) ?? [];
          assert.ok(calls.length || (msg.content ?? '') !== '' || msg.reasoning_content !== undefined, `empty assistant message: ${JSON.stringify(m)}`);
          const answers = m.slice(i + 1, i + 1 + calls.length).map((a) => (a.role === 'tool' ? a.tool_call_id : `not a tool message: ${a.role}`));
          assert.deepEqual([...answers].sort(), [...calls].sort(), JSON.stringify(m));
          i += calls.length;
        }
        assert.equal(m.at(-1)!.role, 'user');
      }),
      { numRuns: 1500 },
    );
  });

  it('Messages API: user first, roles alternate, every tool_use answered first thing in the next user message, no blank text, no empty is_error result', () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        const body = anthropicBody(toTurns(messages, tools, 'mk'), tools, 'Be brief.', { model: 'm' });
        const m = body.messages;
        const dump = JSON.stringify(m);
        assert.equal(m[0]!.role, 'user', dump);
        assert.equal(m.at(-1)!.role, 'user', dump);
        m.forEach((msg, i) => {
          if (i) assert.notEqual(msg.role, m[i - 1]!.role, `two ${msg.role} messages in a row: ${dump}`);
          assert.ok(msg.content.length, `empty content: ${dump}`);
          for (const b of msg.content) {
            if (b.type === 'text') assert.ok(b.text.trim(), `blank text block: ${dump}`);
            if (b.type === 'tool_result' && b.is_error) assert.ok(b.content.trim(), `empty is_error result: ${dump}`);
          }
          if (msg.role !== 'assistant') return;
          const uses = msg.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
          const next = m[i + 1]!.content;
          const results = next.slice(0, uses.length).map((b) => (b.type === 'tool_result' ? b.tool_use_id : `not a result: ${b.type}`));
          assert.deepEqual([...results].sort(), [...uses].sort(), dump);
          assert.equal(next.filter((b) => b.type === 'tool_result').length, uses.length, dump);
        });
      }),
      { numRuns: 1500 },
    );
  });
});
