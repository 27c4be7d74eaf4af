/**
 * Which consumer id `<agent-chat>` may carry on a registry (issue 13, item 4). Its own id, `chat`,
 * needs no grant: a page that uses the chat as it comes works without ceremony, and that id is
 * what the page's consumer-based policies already see for the chat. Any other id would let markup
 * (`<agent-chat consumer="panel">`, injected or an attribute slipped onto the page's own chat) borrow
 * another projection's identity to get past those policies, so it must be granted by the page's
 * script (`surface.consumers = { chat: { consumer: 'panel' } }`, or `enable()` on the element). Once
 * script grants `chat`, the grant decides, through the same check `<agent-webmcp>` runs.
 */
import { checkConsumerGrant, type ConsumerGrantVerdict } from '../core/consumer-grant-check.js';
import { consumerGrantsOf } from '../core/consumer-grants.js';

export function chatConsumer(registry: object, asked: string | null | undefined, enabled: boolean): ConsumerGrantVerdict {
  const wanted = asked || 'chat';
  if (enabled) return { ok: true, consumer: wanted, prefix: undefined };
  if (consumerGrantsOf(registry)?.chat === undefined) {
    return wanted === 'chat'
      ? { ok: true, consumer: 'chat', prefix: undefined }
      : {
          ok: false,
          reason: 'not-granted',
          message:
            `consumer ${JSON.stringify(wanted.slice(0, 64))} is not the chat's own ("chat"), and the page's script granted no other ` +
            `(surface.consumers = { chat: { consumer: ${JSON.stringify(wanted.slice(0, 64))} } }, or call enable() on the element)`,
        };
  }
  return checkConsumerGrant(registry, 'chat', { consumer: asked }, 'chat');
}
