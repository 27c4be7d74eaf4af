// The per-session event store behind SSE resumability: replay after an event of the same stream,
// priming events skipped, bounded by count and bytes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createMemoryEventStore } from '../../src/mcp/event-store.js';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { n },
});

async function replay(store: ReturnType<typeof createMemoryEventStore>, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => void sent.push([id, message]),
  });
  return { stream, sent };
}

describe('createMemoryEventStore', () => {
  it('replays what followed an event on its own stream, without priming events', async () => {
    const store = createMemoryEventStore();
    const priming = await store.storeEvent('s1', {} as JSONRPCMessage);
    await store.storeEvent('s1', note(1));
    await store.storeEvent('s2', note(99));
    const last = await store.storeEvent('s1', note(2));
    await store.storeEvent('s1', {} as JSONRPCMessage);
    const { stream, sent } = await replay(store, priming);
    assert.equal(stream, 's1');
    assert.deepEqual(
      sent.map(([, m]) => (m as unknown as { params: { n: number } }).params.n),
      [1, 2],
    );
    assert.equal(sent[1]![0], last);
    assert.equal(await store.getStreamIdForEventId!(last), 's1');
  });

  it('forgets the oldest events past its bounds, and refuses to resume from a forgotten one', async () => {
    const store = createMemoryEventStore({ maxEvents: 3 });
    const first = await store.storeEvent('s', note(0));
    for (let i = 1; i <= 3; i++) await store.storeEvent('s', note(i));
    await assert.rejects(replay(store, first), /no event/);
    const bytes = createMemoryEventStore({ maxBytes: 200 });
    const big = await bytes.storeEvent('s', {
      jsonrpc: '2.0',
      method: 'x',
      params: { pad: 'x'.repeat(150) },
    });
    await bytes.storeEvent('s', { jsonrpc: '2.0', method: 'y', params: { pad: 'y'.repeat(150) } });
    await assert.rejects(replay(bytes, big), /no event/);
    await assert.rejects(replay(bytes, 'not-an-id'), /no event/);
  });
});
