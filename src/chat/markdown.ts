/**
 * Streamed Markdown to DOM nodes. `streaming-markdown` parses incrementally (work per chunk is
 * proportional to the chunk, and it holds back the few characters it cannot decide yet, so a
 * half-written `**bold` never shows as broken markup and then jumps). It only emits tokens; this
 * renderer turns them into elements itself:
 * - never `innerHTML`: raw HTML in model output arrives as text and stays text;
 * - links only for `https:`, `http:` and `mailto:`, opened in a new tab with `rel="noopener noreferrer"`;
 *   any other scheme (`javascript:`, `data:`) leaves the link text without a link, and so does link
 *   text written as an address of another site (`https://bank.example`, `bank.example`);
 * - no remote images by default (an image URL can carry data out of the page): an image shows as
 *   its alt text and address, as text.
 */
import * as smd from 'streaming-markdown';

export interface MarkdownOptions {
  /** Load images from these origins (`https://cdn.example`); none by default. */
  imageOrigins?: readonly string[];
}

export interface MarkdownStream {
  /** Appends more Markdown. */
  write(chunk: string): void;
  /** Flushes what the parser held back: call once the text is complete. */
  end(): void;
}

const SAFE_LINK = /^(https?:|mailto:)/i;

/** Deeper nesting than this renders into the deepest element: a flood of `>` cannot build a DOM thousands of levels deep. */
const MAX_NESTING = 32;
/**
 * Markdown elements one text may open (each makes one element, a code block or a table's first row
 * two); past them the rest renders as text into the element it reached.
 * A model can send a megabyte of table rows or list items: as elements that froze the page for
 * seconds (half a minute for a table), as text it costs little. Far above a real reply.
 */
export const MAX_ELEMENTS = 10_000;
/**
 * The parser holds back text it cannot decide yet (an unclosed link's address, a raw URL) and
 * reads all of it again for each new character: past this length it is stuck on text a model made
 * up, and going on would cost quadratic time. The held-back text is then shown as text and parsing
 * starts afresh after it. Input is fed in slices so the check runs often.
 */
const MAX_PENDING = 2048;
const SLICE = 512;

/** The URL when it may be a link target, else `undefined`. */
export function safeHref(raw: string): string | undefined {
  const value = raw.trim();
  if (!SAFE_LINK.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' || url.protocol === 'mailto:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const TAGS: Partial<Record<number, string>> = {
  [smd.BLOCKQUOTE]: 'blockquote',
  [smd.PARAGRAPH]: 'p',
  [smd.LINE_BREAK]: 'br',
  [smd.RULE]: 'hr',
  [smd.HEADING_1]: 'h3',
  [smd.HEADING_2]: 'h4',
  [smd.HEADING_3]: 'h5',
  [smd.HEADING_4]: 'h6',
  [smd.HEADING_5]: 'h6',
  [smd.HEADING_6]: 'h6',
  [smd.ITALIC_AST]: 'em',
  [smd.ITALIC_UND]: 'em',
  [smd.STRONG_AST]: 'strong',
  [smd.STRONG_UND]: 'strong',
  [smd.STRIKE]: 's',
  [smd.CODE_INLINE]: 'code',
  [smd.LINK]: 'a',
  [smd.RAW_URL]: 'a',
  [smd.LIST_UNORDERED]: 'ul',
  [smd.LIST_ORDERED]: 'ol',
  [smd.LIST_ITEM]: 'li',
  [smd.TABLE]: 'table',
  [smd.EQUATION_BLOCK]: 'pre',
  [smd.EQUATION_INLINE]: 'code',
};

interface RenderData {
  nodes: Element[];
  /** Elements opened so far (see MAX_ELEMENTS). */
  made: number;
  doc: Document;
  imageOrigins: readonly string[];
}

function addToken(data: RenderData, type: number): void {
  if (type === smd.DOCUMENT) return;
  const doc = data.doc;
  let parent = data.nodes[data.nodes.length - 1]!;
  if (data.nodes.length > MAX_NESTING || data.made++ >= MAX_ELEMENTS) {
    // Its end_token pops this entry again.
    data.nodes.push(parent);
    return;
  }
  let el: Element;
  switch (type) {
    case smd.CODE_BLOCK:
    case smd.CODE_FENCE:
      parent = parent.appendChild(doc.createElement('pre'));
      el = doc.createElement('code');
      break;
    case smd.CHECKBOX: {
      const box = doc.createElement('input');
      box.type = 'checkbox';
      box.disabled = true;
      el = box;
      break;
    }
    case smd.IMAGE:
      // Alt text goes in as text; the address is added when it arrives (see setAttr).
      el = doc.createElement('span');
      el.setAttribute('data-image', '');
      break;
    case smd.TABLE_ROW: {
      const sections = parent.children;
      parent =
        sections.length === 0
          ? parent.appendChild(doc.createElement('thead'))
          : sections.length === 1
            ? parent.appendChild(doc.createElement('tbody'))
            : sections[1]!;
      el = doc.createElement('tr');
      break;
    }
    case smd.TABLE_CELL:
      el = doc.createElement(parent.parentElement?.tagName === 'THEAD' ? 'th' : 'td');
      break;
    default:
      el = doc.createElement(TAGS[type] ?? 'span');
  }
  if (el instanceof HTMLAnchorElement) {
    el.rel = 'noopener noreferrer';
    el.target = '_blank';
  }
  parent.appendChild(el);
  data.nodes.push(el);
}

function endToken(data: RenderData): void {
  if (data.nodes.length > 1) data.nodes.pop();
}

function addText(data: RenderData, text: string): void {
  let node = data.nodes[data.nodes.length - 1]!;
  // Text the parser gives a table between rows goes into its last section: the next row joins
  // that section after the text, so the text reads where it came, as it does when the parser
  // gives it to the row instead (which it does or not depending on how the text was chunked).
  if (node.tagName === 'TABLE') node = node.lastElementChild ?? node;
  // Adjacent text joins one node: a long reply stays a few nodes, not one per delta.
  const last = node.lastChild;
  if (last && last.nodeType === 3) (last as Text).appendData(text);
  else node.appendChild(data.doc.createTextNode(text));
}

function setAttr(data: RenderData, type: number, value: string): void {
  const el = data.nodes[data.nodes.length - 1]!;
  if (type === smd.HREF && el instanceof HTMLAnchorElement) {
    const href = safeHref(value);
    // Text that reads as an address must be that site's: [https://bank.example](https://evil.example)
    // and [bank.example](https://evil.example) are no links. A bare name with a dot and a final label
    // of letters reads as a domain (so a file name such as `index.ts` linking elsewhere is text too),
    // whatever its letters: a Cyrillic "а", a fullwidth form (read as the letter it shows) or a
    // zero-width character in it still reads as bank.example, and only the address the URL parser
    // makes of it counts. An email address is the mailbox a `mailto:` goes to. `www.` on either side
    // is the same site.
    const shown = /^(https?:\/\/\S+|(\S+@)?[^\s@/?#:]+\.\p{L}{2,}\.?(:\d+)?([/?#]\S*)?)$/iu.exec(el.textContent!.normalize('NFKC').trim())?.[0];
    const site = (url?: string) => url?.replace(/^mailto:/i, '//').split('/')[2]?.replace(/^www\./i, '').toLowerCase();
    if (href && (!shown || site(safeHref(/^https?:/i.test(shown) ? shown : `https://${shown}`)) === site(href))) el.href = href;
    // An unsafe target stays text: an anchor without href is not a link.
    else el.removeAttribute('target');
  } else if (type === smd.SRC && el.hasAttribute('data-image')) {
    const src = safeHref(value);
    let origin: string | undefined;
    try {
      origin = src ? new URL(src).origin : undefined;
    } catch {
      origin = undefined;
    }
    if (src && origin && data.imageOrigins.includes(origin)) {
      const img = data.doc.createElement('img');
      img.src = src;
      img.alt = el.textContent ?? '';
      img.referrerPolicy = 'no-referrer';
      el.replaceChildren(img);
    } else {
      el.appendChild(data.doc.createTextNode(` (image not loaded: ${value})`));
    }
  } else if (type === smd.LANG) {
    // A code fence's language: a class name only when it is a plain word.
    if (/^[A-Za-z0-9_+-]{1,32}$/.test(value)) el.setAttribute('data-lang', value);
  } else if (type === smd.CHECKED && el instanceof HTMLInputElement) {
    el.checked = true;
  } else if (type === smd.START && el instanceof HTMLOListElement) {
    const start = Number.parseInt(value, 10);
    if (Number.isFinite(start)) el.start = start;
  }
}

/** A Markdown stream that renders into `root` (appending; `root` is normally empty). */
export function createMarkdownStream(root: Element, options: MarkdownOptions = {}): MarkdownStream {
  const data: RenderData = { nodes: [root], made: 0, doc: root.ownerDocument, imageOrigins: options.imageOrigins ?? [] };
  const renderer = { data, add_token: addToken, end_token: endToken, add_text: addText, set_attr: setAttr } as unknown as smd.Any_Renderer;
  let parser = smd.parser(renderer);
  let ended = false;
  return {
    write(chunk) {
      if (ended || !chunk) return;
      for (let at = 0; at < chunk.length; at += SLICE) {
        smd.parser_write(parser, chunk.slice(at, at + SLICE));
        if (parser.pending.length > MAX_PENDING) {
          // Stuck (see MAX_PENDING): what it held back is shown as text; what follows starts a new block.
          addText(data, parser.pending);
          data.nodes.length = 1;
          parser = smd.parser(renderer);
        }
      }
    },
    end() {
      if (ended) return;
      ended = true;
      smd.parser_end(parser);
    },
  };
}

/** Renders a whole Markdown text into `root` at once. */
export function renderMarkdown(root: Element, text: string, options?: MarkdownOptions): void {
  const stream = createMarkdownStream(root, options);
  stream.write(text);
  stream.end();
}
