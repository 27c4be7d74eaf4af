/**
 * The part of a WebMCP grant that opens tools to other origins' frames (`<agent-webmcp exposed-to>`,
 * the draft's `exposedTo`): markup may list only origins the page's script granted. Apart from
 * `checkConsumerGrant` because only the WebMCP projection needs it.
 */
import { consumerGrantsOf } from './consumer-grants.js';

export type ExposedToVerdict = { ok: true; exposedTo: string[] | undefined } | { ok: false; message: string };

/** An origin as the host compares it (`https://a.example/x` → `https://a.example`); as written when it does not parse. */
export function originOf(text: string): string {
  try {
    const origin = new URL(text).origin;
    return origin === 'null' ? text : origin;
  } catch {
    return text;
  }
}

/**
 * Whether markup's `asked` origins are all in the `exposedTo` of `projection`'s grant for `registry`
 * (compared as origins). On success the origins to use: the asked ones, or the grant's when none
 * were asked, or `undefined` for none. A grant without `exposedTo` opens no origin.
 */
export function checkExposedToGrant(registry: object, projection: string, asked: readonly string[] | undefined): ExposedToVerdict {
  const entry = consumerGrantsOf(registry)?.[projection];
  const granted = entry && entry !== true && Array.isArray(entry.exposedTo) ? entry.exposedTo : [];
  const allowed = granted.filter((o): o is string => typeof o === 'string').map(originOf);
  const wanted = asked?.length ? asked.map(originOf) : allowed;
  const stray = wanted.find((o) => !allowed.includes(o));
  if (stray !== undefined) {
    const shown = JSON.stringify(stray.length > 64 ? `${stray.slice(0, 64)}…` : stray);
    return { ok: false, message: `exposed-to ${shown} is not an origin granted to "${projection}" (grant it with exposedTo: [...])` };
  }
  return { ok: true, exposedTo: wanted.length ? wanted : undefined };
}
