// sessionReducer fed what a broken or hostile adapter (and a careless framework) can hand it: any
// value where a part or an event is expected, objects without a prototype, BigInts, cycles,
// Proxies whose traps throw. The reducer never throws, the state stays plain JSON, and what the
// conversation has committed is never lost to stream parts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createSessionState, isTerminal, MAX_TOOL_NAME, sessionReducer, toolParts, type SessionEvent, type SessionState } from '../../src/chat/session.js';

const PART_TYPES = ['message-start', 'text-delta', 'reasoning', 'tool-call', 'tool-result', 'tool-error', 'step-finish', 'finish', 'error'];
const EVENT_TYPES = ['part', 'send', 'stop', 'retry', 'edit', 'confirmation', 'confirmation-settled', 'approve', 'deny', 'agent', 'load', 'clear'];

const anything = fc.anything({
  withNullPrototype: true,
  withBigInt: true,
  withMap: true,
  withSet: true,
  withBoxedValues: true,
  withSparseArray: true,
  withTypedArray: true,
  withDate: true,
  withObjectString: true,
  maxDepth: 3,
});

/** Values that break a careless reader: every property access or conversion throws. */
const hostile = fc.constantFrom<unknown>(
  new Proxy({}, { get: () => { throw new Error('trap'); }, ownKeys: () => { throw new Error('trap'); } }),
  Object.create(null),
  { toString: 1, valueOf: 1 },
  { get type() { throw new Error('getter'); } },
  (() => { const a: unknown[] = []; a.push(a); return a; })(),
  (() => { const o: Record<string, unknown> = {}; o.self = o; return o; })(),
  10n,
  Symbol('s'),
);
const value = fc.oneof(anything, hostile);
const id = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('m1', 'm2', 't1', 't2', 'u1') }, fc.constantFrom('__proto__', 'constructor', 'toString', ''), value);
const text = fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 8 }) }, value);

const part = fc.record(
  {
    type: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PART_TYPES) }, value),
    messageId: id,
    id,
    name: fc.oneof(fc.constantFrom('search', 'disable'), value),
    input: value,
    delta: text,
    text,
    output: fc.oneof(
      fc.record({ content: fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text }), value), { maxLength: 3 }), isError: value, structuredContent: value }, { requiredKeys: ['content'] }),
      value,
    ),
    error: text,
    reason: fc.oneof(fc.constantFrom('stop', 'max-steps', 'aborted'), value),
    code: fc.oneof(fc.constantFrom('chat_disabled', 'rate_limited', 'bad_request', 'network'), value),
    step: value,
    providerMetadata: value,
  },
  { requiredKeys: ['type'] },
);

const event: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ type: fc.constant('part'), part: fc.oneof({ weight: 5, arbitrary: part }, value), run: fc.option(fc.oneof(fc.nat(4), value), { nil: undefined }) }, { requiredKeys: ['type', 'part'] }) },
  { weight: 2, arbitrary: fc.constant({ type: 'send', text: 'go' }) },
  {
    weight: 3,
    arbitrary: fc.record(
      { type: fc.oneof(fc.constantFrom(...EVENT_TYPES), value), text, id, messageId: id, prompt: text, agent: fc.oneof(fc.record({ id, messages: fc.oneof(fc.array(value, { maxLength: 3 }), value) }), value), messages: fc.oneof(fc.array(value, { maxLength: 3 }), value) },
      { requiredKeys: ['type'] },
    ),
  },
  { weight: 1, arbitrary: value },
);

/** Person actions that may rewrite the conversation on purpose. */
const REWRITES = new Set(['retry', 'edit', 'load', 'clear']);
const typeOf = (e: unknown): unknown => {
  try {
    return (e as { type?: unknown })?.type;
  } catch {
    return undefined;
  }
};

const label = (v: unknown): string => {
  try {
    return String(v);
  } catch {
    return '(unprintable)';
  }
};

function plainJson(value: unknown, seen = new Set<unknown>()): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) return value.every((v) => plainJson(v, seen));
  if (proto !== Object.prototype) return false;
  return Object.values(value).every((v) => v !== undefined && plainJson(v, seen));
}

describe('sessionReducer under hostile input', () => {
  it('never throws, whatever it is fed; the state stays plain JSON and its invariants hold', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        let s: SessionState = createSessionState();
        for (const e of events) {
          const before = s;
          const snapshot = JSON.stringify(before);
          s = sessionReducer(s, e as SessionEvent);
          assert.equal(JSON.stringify(before), snapshot, 'the previous state is never mutated');
          assert.ok(plainJson(s), `plain JSON after ${label(typeOf(e))}`);
          assert.deepEqual(JSON.parse(JSON.stringify(s)), s);
          const mids = s.messages.map((m) => m.id);
          assert.equal(new Set(mids).size, mids.length, 'message ids unique');
          const tids = [...toolParts(s.messages)].map((t) => t.id);
          assert.equal(new Set(tids).size, tids.length, 'tool ids unique');
          if (s.status !== 'running') for (const t of toolParts(s.messages)) assert.ok(isTerminal(t.state), `call ${t.id} left ${t.state}`);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('never loses a committed message: no stream part, decision or stop removes or changes a message of an earlier run', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        let s: SessionState = createSessionState();
        for (const e of events) {
          const before = s;
          s = sessionReducer(s, e as SessionEvent);
          const type = typeOf(e);
          if (typeof type === 'string' && REWRITES.has(type)) continue;
          // Every message stays, in order; user messages and the messages of runs that ended stay as they were.
          const after = new Map(s.messages.map((m, i) => [m.id, { m, i }]));
          let last = -1;
          const current = before.status === 'running' ? lastUserIndex(before) : before.messages.length;
          before.messages.forEach((m, i) => {
            const kept = after.get(m.id);
            assert.ok(kept, `message ${m.id} was lost to ${label(type)}`);
            assert.ok(kept.i > last, 'order kept');
            last = kept.i;
            if (m.role === 'user' || i < current) assert.deepEqual(kept.m, m, `message ${m.id} changed by ${label(type)}`);
          });
        }
      }),
      { numRuns: 600 },
    );
  });

  it('a stream after a well-formed run changes nothing once the run has finished', () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 20 }), (parts) => {
        let s = sessionReducer(createSessionState(), { type: 'send', text: 'go' });
        s = sessionReducer(s, { type: 'part', part: { type: 'message-start', messageId: 'a' } });
        s = sessionReducer(s, { type: 'part', part: { type: 'text-delta', messageId: 'a', delta: 'done.' } });
        s = sessionReducer(s, { type: 'part', part: { type: 'finish', reason: 'stop' } });
        const finished = s;
        for (const p of parts) s = sessionReducer(s, { type: 'part', part: p as never });
        assert.equal(s, finished);
      }),
      { numRuns: 200 },
    );
  });

  it('examples: a prototype-less message id, a cyclic input, a BigInt in metadata, a Proxy part', () => {
    const cyclic: Record<string, unknown> = { q: 'x' };
    cyclic.self = cyclic;
    let s = sessionReducer(createSessionState(), { type: 'send', text: 'go' });
    s = sessionReducer(s, { type: 'part', part: { type: 'message-start', messageId: Object.create(null) } });
    s = sessionReducer(s, { type: 'part', part: { type: 'tool-call', messageId: 'a', id: 't1', name: { toString: 1 } as never, input: cyclic, providerMetadata: { n: 1n } } });
    s = sessionReducer(s, { type: 'part', part: new Proxy({}, { get: () => { throw new Error('trap'); } }) as never });
    s = sessionReducer(s, { type: 'part', part: { type: 'tool-result', id: 't1', output: { content: [{ type: 'text', text: 'ok' }], structuredContent: { big: 2n } as never } } });
    s = sessionReducer(s, { type: 'part', part: { type: 'finish', reason: 'stop' } });
    const calls = [...toolParts(s.messages)];
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0], { type: 'tool', id: 't1', name: '', input: {}, state: 'done', output: { content: [{ type: 'text', text: 'ok' }] } });
    assert.equal(s.status, 'done');
    assert.doesNotThrow(() => JSON.stringify(s));
  });

  it('a tool name longer than any tool has is cut, live and when a stored conversation comes back', () => {
    const huge = 'x'.repeat(1_000_000);
    let s = sessionReducer(createSessionState(), { type: 'send', text: 'go' });
    s = sessionReducer(s, { type: 'part', part: { type: 'message-start', messageId: 'a' } });
    s = sessionReducer(s, { type: 'part', part: { type: 'tool-call', messageId: 'a', id: 't1', name: huge, input: {} } });
    assert.equal([...toolParts(s.messages)][0]!.name, huge.slice(0, MAX_TOOL_NAME));
    const stored = [{ id: 'm', role: 'assistant', parts: [{ type: 'tool', id: 't2', name: huge, input: {}, state: 'done' }] }];
    const back = sessionReducer(createSessionState(), { type: 'load', messages: stored as never });
    assert.equal([...toolParts(back.messages)][0]?.name.length, MAX_TOOL_NAME);
  });

  it('the state does not alias what the adapter handed over: changing its objects later changes nothing', () => {
    const input = { ids: ['d1'] };
    const meta = { signature: 'abc' };
    const structured = { rows: [1, 2] };
    let s = sessionReducer(createSessionState(), { type: 'send', text: 'go' });
    s = sessionReducer(s, { type: 'part', part: { type: 'tool-call', messageId: 'a', id: 't1', name: 'search', input, providerMetadata: meta } });
    s = sessionReducer(s, { type: 'part', part: { type: 'tool-result', id: 't1', output: { content: [], structuredContent: structured } } });
    const before = JSON.stringify(s);
    input.ids.push('d2');
    meta.signature = 'forged';
    structured.rows.push(3);
    assert.equal(JSON.stringify(s), before);
  });
});

function lastUserIndex(s: SessionState): number {
  for (let i = s.messages.length - 1; i >= 0; i--) if (s.messages[i]!.role === 'user') return i;
  return -1;
}
