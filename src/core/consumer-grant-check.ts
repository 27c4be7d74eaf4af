/**
 * The check every markup-declared projection runs before it starts (see consumer-grants.ts): was
 * it granted for this registry by script, and do its attributes only repeat what was granted?
 */
import { consumerGrantsOf } from './consumer-grants.js';

export type ConsumerGrantVerdict =
  | { ok: true; consumer: string; prefix: string | undefined }
  | { ok: false; reason: 'not-granted' | 'consumer-mismatch' | 'prefix-mismatch'; message: string };

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
/** Markup's words in a console message: quoted, bounded. */
const quote = (v: string): string => JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}…` : v);

/**
 * Whether a projection declared in markup may run: `projection` (`webmcp`, `chat`) must be granted
 * for `registry`; `asked.consumer` (an attribute, absent or empty for none) must be the granted
 * consumer id (`defaultConsumer` when the grant names none); `asked.prefix` must be the granted
 * prefix when the grant sets one. On success, the identity and prefix to use.
 */
export function checkConsumerGrant(
  registry: object,
  projection: string,
  asked: { consumer?: string | null | undefined; prefix?: string | null | undefined },
  defaultConsumer: string,
): ConsumerGrantVerdict {
  const entry = consumerGrantsOf(registry)?.[projection];
  const grant = entry === true ? {} : entry;
  if (!grant || typeof grant !== 'object') {
    return {
      ok: false,
      reason: 'not-granted',
      message:
        `the page's script has not granted the "${projection}" projection for this registry ` +
        `(surface.consumers = { ${projection}: {} }, or call enable() on the element)`,
    };
  }
  const consumer = text(grant.consumer) ?? defaultConsumer;
  const askedConsumer = text(asked.consumer);
  if (askedConsumer !== undefined && askedConsumer !== consumer) {
    return {
      ok: false,
      reason: 'consumer-mismatch',
      message: `consumer ${quote(askedConsumer)} is not the one granted to "${projection}" (${quote(consumer)})`,
    };
  }
  const granted = text(grant.prefix);
  const askedPrefix = text(asked.prefix);
  if (granted !== undefined && askedPrefix !== undefined && askedPrefix !== granted) {
    return {
      ok: false,
      reason: 'prefix-mismatch',
      message: `prefix ${quote(askedPrefix)} is not the one granted to "${projection}" (${quote(granted)})`,
    };
  }
  return { ok: true, consumer, prefix: granted ?? askedPrefix };
}
