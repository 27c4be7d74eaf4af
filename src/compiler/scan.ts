/**
 * Finds `<agent-capability>` declarations in HTML files and in lit `html` template literals of
 * `.ts`/`.js` files, builds their contracts with the same function the element uses at run time
 * (`contractFromDeclaration`), and rewrites their `token` attributes in place for `--write`.
 *
 * Only static markup counts: a contract attribute, a token or a schema script that holds a lit
 * expression is an error with file:line:column, because the build could not authorize it.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse, parseFragment, type DefaultTreeAdapterTypes as P5 } from 'parse5';
import {
  CONTRACT_ATTRIBUTES,
  SCHEMA_SCRIPT_TYPE,
  contractFromDeclaration,
  schemaTextsFromScripts,
  type SchemaScriptInfo,
} from '../core/declaration.js';
import type { CapabilityContract } from '../core/types.js';

// ---------------------------------------------------------------------------------------------
// Public shapes

export interface SourcePosition {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
  /** 0-based offset into the file's text. */
  offset: number;
}

/** Where a declaration's `token` attribute is, or where one goes. */
export interface TokenSite {
  /** The attribute's current value; `null` when the element has no `token` attribute. */
  value: string | null;
  /** The whole attribute (`token="…"`) when present: [start, end) offsets into the file. */
  span?: { start: number; end: number };
  /** Where the attribute is when present, else the element's start. */
  position: SourcePosition;
  /** Offset where ` token="…"` is inserted when absent (after the last attribute). */
  insertAt: number;
}

export interface ScannedDeclaration {
  id: string;
  contract: CapabilityContract;
  /** The `<` of the element's start tag. */
  position: SourcePosition;
  token: TokenSite;
  /** `html` for an HTML file, `lit` for a template literal. */
  source: 'html' | 'lit';
}

export interface ScanProblem extends SourcePosition {
  message: string;
}

export interface ScanResult {
  file: string;
  /** The text that was scanned: `rewriteTokens` edits this. */
  text: string;
  declarations: ScannedDeclaration[];
  problems: ScanProblem[];
}

export type ScanLanguage = 'html' | 'script';

const HTML_EXT = new Set(['.html', '.htm']);
const SCRIPT_EXT = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);

/** Which scanner reads a file, by its extension; `undefined` for files the scanner does not read. */
export function scanLanguage(fileName: string): ScanLanguage | undefined {
  const ext = extname(fileName).toLowerCase();
  if (HTML_EXT.has(ext)) return 'html';
  if (SCRIPT_EXT.has(ext)) return 'script';
  return undefined;
}

/**
 * Scans one file's text. The language comes from the file name (`.html`/`.htm` or
 * `.ts`/`.js`/`.mjs`/…) unless given. Never throws for what the text holds: problems are reported.
 */
export function scanDeclarations(
  text: string,
  fileName: string,
  options: { language?: ScanLanguage } = {},
): ScanResult {
  const language = options.language ?? scanLanguage(fileName);
  if (!language) {
    throw new Error(
      `agent-surface: cannot scan ${fileName}: declarations are read from .html, .ts and .js files (contracts from *.contracts.json)`,
    );
  }
  const scan = new FileScan(fileName, text);
  if (language === 'html') scan.html();
  else scan.script();
  // Nested templates are read after their parents: report in file order.
  scan.declarations.sort((a, b) => a.position.offset - b.position.offset);
  scan.problems.sort((a, b) => a.offset - b.offset);
  return { file: fileName, text, declarations: scan.declarations, problems: scan.problems };
}

/** Reads and scans one file. */
export async function scanFile(path: string, options: { language?: ScanLanguage } = {}): Promise<ScanResult> {
  return scanDeclarations(await readFile(path, 'utf8'), path, options);
}

// ---------------------------------------------------------------------------------------------
// Tokens: --write and --check

export interface TokenIssue {
  id: string;
  status: 'missing' | 'stale';
  /** The token the build authorized for this contract. */
  expected: string;
  actual: string | null;
  position: SourcePosition;
}

/** Declarations whose `token` attribute is absent or differs from the authorized one. */
export function tokenIssues(result: ScanResult, tokenOf: (id: string) => string | undefined): TokenIssue[] {
  const issues: TokenIssue[] = [];
  for (const decl of result.declarations) {
    const expected = tokenOf(decl.id);
    if (expected === undefined || decl.token.value === expected) continue;
    issues.push({
      id: decl.id,
      status: decl.token.value === null ? 'missing' : 'stale',
      expected,
      actual: decl.token.value,
      position: decl.token.position,
    });
  }
  return issues;
}

/**
 * The file's text with every declaration's `token` attribute set to the authorized token: a
 * missing attribute is inserted after the last attribute, a stale one is replaced; every other
 * byte stays as it was (a file already right comes back identical).
 */
export function rewriteTokens(result: ScanResult, tokenOf: (id: string) => string | undefined): string {
  const edits: Array<{ start: number; end: number; text: string }> = [];
  for (const decl of result.declarations) {
    const expected = tokenOf(decl.id);
    if (expected === undefined || decl.token.value === expected) continue;
    if (decl.token.span) edits.push({ ...decl.token.span, text: `token="${expected}"` });
    else edits.push({ start: decl.token.insertAt, end: decl.token.insertAt, text: ` token="${expected}"` });
  }
  // One pass in file order: slicing the whole text per edit would be quadratic.
  edits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(result.text.slice(at, e.start), e.text);
    at = e.end;
  }
  parts.push(result.text.slice(at));
  return parts.join('');
}

/** `file:line:column` for messages. */
export function formatPosition(p: SourcePosition): string {
  return `${p.file}:${p.line}:${p.column}`;
}

// ---------------------------------------------------------------------------------------------
// Scanning one file

type Placement =
  /** Statically known: inside `<agent-view name=view>`, or outside any view (`view: null`). */
  | { known: true; view: string | null }
  /** Not knowable here, and why. */
  | { known: false; why: 'lit' | 'template' | 'dynamic-view' | 'unnamed-view' };

const IN_LIT: Placement = { known: false, why: 'lit' };
const IN_TEMPLATE: Placement = { known: false, why: 'template' };

// Lit expressions are replaced by private-use markers before parsing: parse5 keeps them in text,
// attribute names and values alike, so a dynamic value can be pointed at.
const MARK_OPEN = '\uE000';
const MARK_CLOSE = '\uE001';
const MARKER_RE = /\uE000(\d+)\uE001/g;

const TOKEN_ATTRIBUTES = new Set([...CONTRACT_ATTRIBUTES, 'token']);
// Lit property bindings (`.name=${…}`) that would set contract fields from code.
const CONTRACT_PROPERTIES = new Set(
  [...TOKEN_ATTRIBUTES, 'timeoutMs', 'untrustedOutput'].map((n) => n.toLowerCase()),
);

/** Where the parsed text came from: maps offsets in the parsed text to offsets in the file. */
interface TextSource {
  /** `map[i]` = file offset of parsed character i; `map[text.length]` = the end. Absent: identity. */
  map?: number[];
  /** File offsets of each expression (`${…}` included), by marker index. */
  expressions?: Array<{ start: number; end: number }>;
  /** Placement of each expression once the template has been walked (for nested templates). */
  expressionPlacement?: Placement[];
}

class FileScan {
  readonly declarations: ScannedDeclaration[] = [];
  readonly problems: ScanProblem[] = [];
  private lineStarts: number[] | undefined;

  constructor(
    private readonly file: string,
    private readonly text: string,
  ) {}

  html(): void {
    const doc = parse(this.text, { sourceCodeLocationInfo: true });
    this.walk(doc, { known: true, view: null }, {}, 'html');
  }

  script(): void {
    // Fast path: a file that never names the element holds no declaration.
    if (!this.text.includes('agent-capability')) return;
    const tokenized = findTemplateLiterals(this.text);
    if (tokenized.error) {
      this.problem(
        tokenized.error.offset,
        `could not read this file as JavaScript/TypeScript: ${tokenized.error.message}`,
      );
    }
    const sources: TextSource[] = [];
    tokenized.templates.forEach((template, index) => {
      if (template.tag !== 'html' || template.end < 0) return;
      const source = this.cook(template);
      sources[index] = source;
      // A template nested in an expression of another html template sits where that expression sits.
      const parent = template.parent && sources[template.parent.template];
      const placement = parent?.expressionPlacement?.[template.parent!.expression] ?? IN_LIT;
      const fragment = parseFragment(source.text, { sourceCodeLocationInfo: true });
      this.walk(fragment, placement, source, 'lit');
    });
  }

  /** The template's cooked text (what lit parses) with markers for expressions, and its offset map. */
  private cook(template: TemplateLiteral): TextSource & { text: string } {
    const src = this.text;
    let out = '';
    const map: number[] = [];
    const expressions: Array<{ start: number; end: number }> = [];
    for (const part of template.parts) {
      if (part.kind === 'expr') {
        const marker = `${MARK_OPEN}${expressions.length}${MARK_CLOSE}`;
        // Marker characters point at the expression; the character after it maps past the `}`.
        for (let k = 0; k < marker.length; k++) map.push(part.start);
        out += marker;
        expressions.push({ start: part.start, end: part.end });
        continue;
      }
      let i = part.start;
      while (i < part.end) {
        const c = src[i];
        if (c === '\r') {
          // Template literals read CR LF and lone CR as LF.
          map.push(i);
          out += '\n';
          i += src[i + 1] === '\n' ? 2 : 1;
        } else if (c === '\\') {
          const { value, next } = cookEscape(src, i);
          for (let k = 0; k < value.length; k++) map.push(i);
          out += value;
          i = next;
        } else {
          map.push(i);
          out += c;
          i++;
        }
      }
    }
    map.push(template.end - 1);
    return { text: out, map, expressions, expressionPlacement: [] };
  }

  // -------------------------------------------------------------------------------------------

  private walk(node: P5.ParentNode, placement: Placement, source: TextSource, kind: 'html' | 'lit'): void {
    for (const child of node.childNodes) {
      if (child.nodeName === '#text' || child.nodeName === '#comment') {
        this.noteExpressions(
          (child as P5.TextNode).value ?? (child as P5.CommentNode).data,
          placement,
          source,
        );
        continue;
      }
      if (!('tagName' in child)) continue;
      const el = child as P5.Element;
      for (const a of el.attrs) this.noteExpressions(a.name + a.value, placement, source);
      let inner = placement;
      if (el.tagName === 'agent-view') inner = this.viewPlacement(el, placement, source);
      // A template that renders the surface itself shows everything between it and its capabilities.
      else if (el.tagName === 'agent-surface' && !placement.known) inner = { known: true, view: null };
      else if (el.tagName === 'agent-capability') this.capability(el, placement, source, kind);
      if (el.tagName === 'template') {
        // A <template>'s content is stamped by script: outside a view, nobody can tell where it lands.
        const content = (el as P5.Template).content;
        this.walk(content, inner.known && inner.view === null ? IN_TEMPLATE : inner, source, kind);
      }
      this.walk(el, inner, source, kind);
    }
  }

  private noteExpressions(text: string, placement: Placement, source: TextSource): void {
    if (!source.expressionPlacement || !text.includes(MARK_OPEN)) return;
    for (const m of text.matchAll(MARKER_RE)) source.expressionPlacement[Number(m[1])] = placement;
  }

  private viewPlacement(el: P5.Element, outer: Placement, source: TextSource): Placement {
    const at = this.elementOffset(el, source);
    const name = el.attrs.find((a) => a.name === 'name')?.value;
    if (outer.known && outer.view !== null) {
      this.problem(at, `<agent-view> inside <agent-view name="${outer.view}">: views are flat, move it out`);
    }
    if (name === undefined || name.trim() === '') {
      this.problem(at, '<agent-view> has no name="…": capabilities inside it cannot be given ids');
      return { known: false, why: 'unnamed-view' };
    }
    if (name.includes(MARK_OPEN)) return { known: false, why: 'dynamic-view' };
    return { known: true, view: name.trim() };
  }

  private capability(el: P5.Element, placement: Placement, source: TextSource, kind: 'html' | 'lit'): void {
    const at = this.elementOffset(el, source);
    const attrs = new Map<string, string>();
    // A contract set from code (`.contract=${…}`) is compiled from a contract module, not from markup.
    if (kind === 'lit' && el.attrs.some((a) => a.name === '.contract')) return;
    let dynamic = false;
    for (const a of el.attrs) {
      // Lit binding prefixes: `.prop`, `?boolean-attr`, `@event`.
      const prefix = kind === 'lit' && /^[.?@]/.test(a.name) ? a.name[0] : '';
      const bare = prefix ? a.name.slice(1) : a.name;
      if (prefix === '@' || a.name.includes(MARK_OPEN)) continue;
      const contractField = prefix === '.' ? CONTRACT_PROPERTIES.has(bare) : TOKEN_ATTRIBUTES.has(bare);
      if (prefix || a.value.includes(MARK_OPEN)) {
        if (!contractField) continue;
        dynamic = true;
        this.problem(
          this.expressionOffset(a.value, source) ?? this.attributeOffset(el, a.name, source) ?? at,
          `<agent-capability> attribute ${a.name} holds an expression: contract attributes and the token must be static text so the build can authorize them`,
        );
        continue;
      }
      attrs.set(a.name, a.value);
    }
    const scripts: SchemaScriptInfo[] = [];
    for (const child of el.childNodes) {
      if (!('tagName' in child) || child.tagName !== 'script') continue;
      const type = child.attrs.find((a) => a.name === 'type')?.value ?? null;
      const dataSchema = child.attrs.find((a) => a.name === 'data-schema')?.value ?? null;
      const text = child.childNodes.map((n) => (n as P5.TextNode).value ?? '').join('');
      const schemaLike =
        type === null || type.includes(MARK_OPEN) || type.trim().toLowerCase() === SCHEMA_SCRIPT_TYPE;
      if (!schemaLike) continue;
      const marked = [type ?? '', dataSchema ?? '', text].find((t) => t.includes(MARK_OPEN));
      if (marked !== undefined) {
        dynamic = true;
        this.problem(
          this.expressionOffset(marked, source) ?? this.elementOffset(child, source),
          '<agent-capability> schema script holds an expression: schemas must be static JSON so the build can authorize them',
        );
        continue;
      }
      scripts.push({ type, dataSchema, text });
    }
    if (dynamic) return;

    const get = (n: string): string | null => attrs.get(n) ?? null;
    const name = get('name');
    const schemas = schemaTextsFromScripts(scripts, name);
    for (const p of schemas.problems) this.problem(at, p);

    let placementView: string | null;
    if (placement.known) placementView = placement.view;
    else if (get('view') !== null)
      placementView = get('view'); // the element checks it at run time
    else if (get('plane')?.trim() === 'domain') placementView = null;
    else {
      // Inside a nameless view the view's own problem says it all.
      if (placement.why === 'unnamed-view') return;
      const who = name ? `<agent-capability name="${name}">` : '<agent-capability>';
      const where = {
        lit: 'in a lit template',
        template: 'in a <template>',
        'dynamic-view': 'inside an <agent-view> whose name is an expression',
      }[placement.why];
      this.problem(
        at,
        `cannot tell the view of ${who} ${where}: add view="<name of the <agent-view> it renders in>", or plane="domain" for a domain capability`,
      );
      return;
    }

    const result = contractFromDeclaration({
      name,
      view: get('view'),
      placementView,
      plane: get('plane'),
      kind: get('kind'),
      effect: get('effect'),
      confirmation: get('confirmation'),
      description: get('description'),
      title: get('title'),
      concurrency: get('concurrency'),
      timeoutMs: get('timeout-ms'),
      untrustedOutput: attrs.has('untrusted-output'),
      inputSchemaText: schemas.inputSchemaText,
      outputSchemaText: schemas.outputSchemaText,
    });
    if (!result.ok) {
      for (const p of result.problems) this.problem(at, p);
      return;
    }
    if (schemas.problems.length) return;

    // parse5 keeps attribute locations on the element's location, beside `startTag`.
    const loc = el.sourceCodeLocation!;
    const tag = loc.startTag!;
    const tokenLoc = loc.attrs?.token;
    const tokenValue = attrs.get('token') ?? null;
    let insertAt: number;
    const attrLocs = Object.values(loc.attrs ?? {});
    if (attrLocs.length) insertAt = this.fileOffset(Math.max(...attrLocs.map((l) => l.endOffset)), source);
    else insertAt = this.fileOffset(tag.startOffset + 1 + 'agent-capability'.length, source);
    const token: TokenSite = {
      value: tokenValue,
      position: this.position(
        tokenLoc && tokenValue !== null ? this.fileOffset(tokenLoc.startOffset, source) : at,
      ),
      insertAt,
    };
    if (tokenLoc && tokenValue !== null) {
      token.span = {
        start: this.fileOffset(tokenLoc.startOffset, source),
        end: this.fileOffset(tokenLoc.endOffset, source),
      };
    }
    this.declarations.push({
      id: result.contract.id,
      contract: result.contract,
      position: this.position(at),
      token,
      source: kind,
    });
  }

  // -------------------------------------------------------------------------------------------
  // Offsets and positions

  private fileOffset(parsedOffset: number, source: TextSource): number {
    if (!source.map) return parsedOffset;
    return source.map[Math.min(parsedOffset, source.map.length - 1)];
  }

  private elementOffset(el: P5.Element, source: TextSource): number {
    return this.fileOffset(el.sourceCodeLocation?.startOffset ?? 0, source);
  }

  private attributeOffset(el: P5.Element, name: string, source: TextSource): number | undefined {
    const loc = el.sourceCodeLocation?.attrs?.[name];
    return loc ? this.fileOffset(loc.startOffset, source) : undefined;
  }

  /** The file offset of the first expression whose marker appears in `text`. */
  private expressionOffset(text: string, source: TextSource): number | undefined {
    const m = /\uE000(\d+)\uE001/.exec(text);
    return m ? source.expressions?.[Number(m[1])]?.start : undefined;
  }

  private position(offset: number): SourcePosition {
    const starts = (this.lineStarts ??= lineStarts(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.file, line: lo + 1, column: offset - starts[lo] + 1, offset };
  }

  private problem(offset: number, message: string): void {
    this.problems.push({ ...this.position(offset), message });
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
  }
  return starts;
}

/** Cooks one escape sequence of a template literal, as the engine would for `strings`. */
function cookEscape(src: string, i: number): { value: string; next: number } {
  const c = src[i + 1];
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };
  if (c === undefined) return { value: '', next: i + 1 };
  if (c in simple && !(c === '0' && /[0-9]/.test(src[i + 2] ?? ''))) return { value: simple[c], next: i + 2 };
  if (c === '\r') return { value: '', next: src[i + 2] === '\n' ? i + 3 : i + 2 };
  if (c === '\n' || c === '\u2028' || c === '\u2029') return { value: '', next: i + 2 };
  if (c === 'x' && /^[0-9a-fA-F]{2}$/.test(src.slice(i + 2, i + 4))) {
    return { value: String.fromCharCode(parseInt(src.slice(i + 2, i + 4), 16)), next: i + 4 };
  }
  if (c === 'u') {
    if (src[i + 2] === '{') {
      const close = src.indexOf('}', i + 3);
      const hex = close > 0 ? src.slice(i + 3, close) : '';
      if (/^[0-9a-fA-F]{1,6}$/.test(hex) && parseInt(hex, 16) <= 0x10ffff) {
        return { value: String.fromCodePoint(parseInt(hex, 16)), next: close + 1 };
      }
    } else if (/^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
      return { value: String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16)), next: i + 6 };
    }
  }
  return { value: c, next: i + 2 };
}

// ---------------------------------------------------------------------------------------------
// A small JavaScript/TypeScript tokenizer: enough to find template literals (and their nesting)
// past strings, comments and regular expressions, without a parser dependency.

export interface TemplateLiteral {
  /** The identifier right before the backtick (`html` for lit), `null` when untagged. */
  tag: string | null;
  /** Offset of the opening backtick. */
  start: number;
  /** Offset just after the closing backtick; -1 when the text ended first. */
  end: number;
  /** Raw text ranges and `${…}` expression ranges (delimiters included), in order. */
  parts: Array<{ kind: 'text' | 'expr'; start: number; end: number }>;
  /** The template whose expression holds this one, by index in the list, and that expression's index. */
  parent?: { template: number; expression: number };
}

const REGEX_KEYWORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/** Every template literal in a source text, outer ones before the ones nested in their expressions. */
export function findTemplateLiterals(src: string): {
  templates: TemplateLiteral[];
  error?: { offset: number; message: string };
} {
  const templates: TemplateLiteral[] = [];
  let pos = 0;
  // The last significant token, for the regex-or-division question and for template tags.
  let last: { kind: 'ident' | 'punct' | 'value'; value: string } | null = null;
  let parent: TemplateLiteral['parent'];

  class Unterminated extends Error {
    constructor(
      readonly offset: number,
      what: string,
    ) {
      super(`unterminated ${what}`);
    }
  }

  // Sticky expressions consume whole runs at once: a character-by-character loop of regex tests is
  // several times slower on large sources.
  const SPACE = /[\t\n\v\f\r \u00a0\ufeff]+/y;
  const IDENT = /[A-Za-z0-9_$#\\\u0080-\uffff]+/y;
  const NUMBER = /[0-9A-Za-z_.]+/y;
  const FLAGS = /[A-Za-z]*/y;
  const isIdStart = (c: string) => /[A-Za-z_$#\\\u0080-\uffff]/.test(c);
  const run = (re: RegExp): number => {
    re.lastIndex = pos;
    return re.exec(src) ? re.lastIndex : pos;
  };
  const STRING_STOP = { '"': /["\\\n]/g, "'": /['\\\n]/g } as const;
  const TEMPLATE_STOP = /[`\\$]/g;

  function regexAllowed(): boolean {
    if (!last) return true;
    if (last.kind === 'value') return false;
    if (last.kind === 'ident') return REGEX_KEYWORDS.has(last.value);
    return last.value !== ')' && last.value !== ']';
  }

  function skipString(quote: '"' | "'"): void {
    const start = pos++;
    const stop = STRING_STOP[quote];
    for (;;) {
      stop.lastIndex = pos;
      const m = stop.exec(src);
      if (!m || m[0] === '\n') break;
      if (m[0] === '\\') pos = m.index + 2;
      else {
        pos = m.index + 1;
        return;
      }
    }
    throw new Unterminated(start, 'string');
  }

  function skipRegex(): void {
    const start = pos++;
    let inClass = false;
    while (pos < src.length) {
      const c = src[pos];
      if (c === '\\') pos += 2;
      else if (c === '\n') break;
      else if (inClass) {
        if (c === ']') inClass = false;
        pos++;
      } else if (c === '[') {
        inClass = true;
        pos++;
      } else if (c === '/') {
        pos++;
        pos = run(FLAGS);
        return;
      } else pos++;
    }
    throw new Unterminated(start, 'regular expression');
  }

  function template(): void {
    const tag = last?.kind === 'ident' ? last.value : null;
    const t: TemplateLiteral = { tag, start: pos, end: -1, parts: [] };
    if (parent) t.parent = parent;
    const index = templates.push(t) - 1;
    let expression = 0;
    pos++;
    let textStart = pos;
    while (pos < src.length) {
      TEMPLATE_STOP.lastIndex = pos;
      const m = TEMPLATE_STOP.exec(src);
      if (!m) break;
      pos = m.index;
      const c = m[0];
      if (c === '\\') {
        pos += 2;
      } else if (c === '`') {
        t.parts.push({ kind: 'text', start: textStart, end: pos });
        t.end = ++pos;
        last = { kind: 'value', value: '`' };
        return;
      } else if (c === '$' && src[pos + 1] === '{') {
        t.parts.push({ kind: 'text', start: textStart, end: pos });
        const exprStart = pos;
        pos += 2;
        const outer = parent;
        parent = { template: index, expression: expression++ };
        last = null;
        code(true);
        parent = outer;
        t.parts.push({ kind: 'expr', start: exprStart, end: pos });
        textStart = pos;
      } else pos++;
    }
    throw new Unterminated(t.start, 'template literal');
  }

  /** Scans code; inside `${…}` returns after the `}` that closes it. */
  function code(inExpression: boolean): void {
    let depth = 0;
    while (pos < src.length) {
      const c = src[pos];
      if (
        c === ' ' ||
        c === '\n' ||
        c === '\t' ||
        c === '\r' ||
        c === '\f' ||
        c === '\v' ||
        c === '\u00a0' ||
        c === '\ufeff'
      ) {
        pos = run(SPACE);
      } else if (c === '/' && src[pos + 1] === '/') {
        const nl = src.indexOf('\n', pos);
        pos = nl < 0 ? src.length : nl;
      } else if (c === '/' && src[pos + 1] === '*') {
        const close = src.indexOf('*/', pos + 2);
        if (close < 0) throw new Unterminated(pos, 'comment');
        pos = close + 2;
      } else if (c === '/') {
        if (regexAllowed()) {
          skipRegex();
          last = { kind: 'value', value: '/re/' };
        } else {
          pos++;
          last = { kind: 'punct', value: '/' };
        }
      } else if (c === '"' || c === "'") {
        skipString(c as '"' | "'");
        last = { kind: 'value', value: c };
      } else if (c === '`') {
        template();
      } else if (c === '{') {
        depth++;
        pos++;
        last = { kind: 'punct', value: '{' };
      } else if (c === '}') {
        pos++;
        if (depth === 0 && inExpression) return;
        depth--;
        last = { kind: 'punct', value: '}' };
      } else if ((c >= '0' && c <= '9') || (c === '.' && src[pos + 1] >= '0' && src[pos + 1] <= '9')) {
        pos = run(NUMBER);
        last = { kind: 'value', value: '0' };
      } else if (isIdStart(c)) {
        const start = pos;
        pos = run(IDENT);
        last = { kind: 'ident', value: src.slice(start, pos) };
      } else {
        pos++;
        last = { kind: 'punct', value: c };
      }
    }
    if (inExpression) throw new Unterminated(pos, 'template expression');
  }

  try {
    if (src.startsWith('#!')) {
      const nl = src.indexOf('\n');
      pos = nl < 0 ? src.length : nl;
    }
    code(false);
    return { templates };
  } catch (error) {
    if (!(error instanceof Unterminated)) throw error;
    // Templates not read to their end keep `end: -1`; indices stay valid for `parent`.
    return { templates, error: { offset: error.offset, message: error.message } };
  }
}
