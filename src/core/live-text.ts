/**
 * Live text: the instance ids, notes and unavailable reasons a page supplies while it runs. The
 * build never saw them (a token covers the contract, not these), and markup that reached the page
 * some other way can set them, so they are treated as data: an instance id is a short token, a note
 * or a reason is one bounded line, and projections print them quoted.
 */

/** At most this many characters (code points) in a note or an unavailable reason. */
export const MAX_LIVE_TEXT_LENGTH = 200;

// 1 to 64 of letters, digits, `_ - . :`, starting with a letter, digit or `_`: record ids, UUIDs,
// slugs, `tab:2`. No spaces, quotes, brackets or line breaks: an id cannot read as prose or markup.
const INSTANCE_ID = /^[\w][\w.:-]{0,63}$/;

/**
 * Why `value` is not a valid instance id, or `undefined` when it is one: words for the page's author
 * (a console error, a refusal's message), the value quoted and cut short.
 */
export function instanceIdProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && INSTANCE_ID.test(value)) return undefined;
  return `instance id ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value} is not a token (1-64 of A-Z a-z 0-9 _ - . :)`;
}

// C0 and C1 controls (line feeds, tabs, escape…), DEL, the Unicode line and paragraph separators,
// and the bidirectional overrides and isolates (which can make text read as something else).
const CONTROLS = /[\0-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `value` as one line of at most `MAX_LIVE_TEXT_LENGTH` code points: controls become a space, spaces
 * collapse, the ends are trimmed, and a longer text is cut with `…`. `undefined` when nothing is left.
 */
export function boundLiveText(value: string): string | undefined {
  let text = value.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  const points = text.length > MAX_LIVE_TEXT_LENGTH ? Array.from(text) : undefined;
  if (points && points.length > MAX_LIVE_TEXT_LENGTH) text = points.slice(0, MAX_LIVE_TEXT_LENGTH - 1).join('').trimEnd() + '…';
  return text || undefined;
}
