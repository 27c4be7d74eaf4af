/**
 * A bounded in-memory event store for one Streamable HTTP session: what lets a client that lost
 * its SSE stream mid-call reconnect with `Last-Event-ID` and still receive the answer (SSE
 * resumability). Also what makes the SDK's transport send the priming event and `retry` field.
 * Bounded by count and by bytes; the oldest events go first, and a client asking to resume from
 * one of those gets an error (its answer is lost, as with no store at all).
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface StoredEvent {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

export function createMemoryEventStore({ maxEvents = 256, maxBytes = 1024 * 1024 } = {}): EventStore {
  const events: StoredEvent[] = [];
  const byId = new Map<string, StoredEvent>();
  let bytes = 0;
  let sequence = 0;
  return {
    async storeEvent(streamId, message) {
      const event: StoredEvent = {
        id: `${++sequence}`,
        streamId,
        message,
        // Priming events are `{}`; everything else is a JSON-RPC message as it will be written.
        bytes: JSON.stringify(message).length,
      };
      events.push(event);
      byId.set(event.id, event);
      bytes += event.bytes;
      while (events.length > maxEvents || (bytes > maxBytes && events.length > 1)) {
        const old = events.shift()!;
        byId.delete(old.id);
        bytes -= old.bytes;
      }
      return event.id;
    },
    async getStreamIdForEventId(eventId) {
      return byId.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const from = byId.get(lastEventId);
      if (!from)
        throw new Error(
          `no event ${JSON.stringify(lastEventId)} to resume after (too old, or from another session)`,
        );
      for (const event of events) {
        if (Number(event.id) <= Number(from.id) || event.streamId !== from.streamId) continue;
        // A priming event carries no message: nothing to replay.
        if (Object.keys(event.message).length === 0) continue;
        await send(event.id, event.message);
      }
      return from.streamId;
    },
  };
}
