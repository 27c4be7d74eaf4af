// Markdown from a model is an attacker's text: whatever it holds (HTML, script, event-handler
// attributes, javascript: and data: links, image beacons, entity tricks, floods of markup
// characters) the renderer builds only inert nodes, loads nothing, and finishes.
import { expect } from '@open-wc/testing';
import fc from 'fast-check';
import { createMarkdownStream, renderMarkdown } from '../../src/chat/markdown.js';
import { createScriptedAdapter } from '../../src/chat/index.js';
import { chatPage, openCard, q } from './fixtures.js';
import { waitUntil } from '../until.js';

declare global {
  interface Window {
    xss?: string[];
  }
}

const ALLOWED_TAGS = new Set([
  'DIV', 'P', 'BR', 'HR', 'H3', 'H4', 'H5', 'H6', 'EM', 'STRONG', 'S', 'CODE', 'PRE', 'A', 'UL', 'OL', 'LI',
  'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'BLOCKQUOTE', 'SPAN', 'INPUT',
]);

/** Every rendered node is one the renderer may make, inert, and any link goes to http(s) or mailto. */
function assertInert(root: Element): void {
  for (const el of root.querySelectorAll('*')) {
    expect(ALLOWED_TAGS.has(el.tagName), `tag ${el.tagName}`).to.equal(true);
    for (const attr of el.attributes) {
      expect(/^on/i.test(attr.name), `event attribute ${attr.name}`).to.equal(false);
      expect(['href', 'rel', 'target', 'type', 'disabled', 'checked', 'start', 'data-lang', 'data-image', 'class', 'part'].includes(attr.name), `attribute ${attr.name}`).to.equal(true);
    }
    if (el instanceof HTMLAnchorElement && el.hasAttribute('href')) {
      expect(['https:', 'http:', 'mailto:'], el.href).to.include(new URL(el.href).protocol);
      expect(el.rel).to.equal('noopener noreferrer');
    }
    if (el instanceof HTMLInputElement) {
      expect(el.type).to.equal('checkbox');
      expect(el.disabled).to.equal(true);
    }
  }
}

const PAYLOADS = [
  '<script>window.xss.push("script")</script>',
  '<img src=x onerror="window.xss.push(\'img\')">',
  '<svg onload="window.xss.push(\'svg\')"></svg>',
  '<iframe src="javascript:window.parent.xss.push(\'iframe\')"></iframe>',
  '<a href="javascript:window.xss.push(\'a\')">html link</a>',
  '<details open ontoggle="window.xss.push(\'details\')">x</details>',
  '[js](javascript:window.xss.push("md"))',
  '[JS upper](JAVASCRIPT:window.xss.push("md2"))',
  '[space]( javascript:window.xss.push("md3"))',
  '[tab](\tjavascript:window.xss.push("md4"))',
  '[entity](&#106;avascript:window.xss.push("md5"))',
  '[encoded](java%73cript:window.xss.push("md6"))',
  '[data](data:text/html,<script>window.xss.push("data")</script>)',
  '[vb](vbscript:msgbox(1))',
  '[file](file:///etc/passwd)',
  '[quote](https://ok.example" onmouseover="window.xss.push(\'attr\'))',
  '<javascript:window.xss.push("autolink")>',
  'javascript:window.xss.push("raw")',
  '![beacon](http://127.0.0.1:9/beacon.png?secret=1)',
  '![js image](javascript:window.xss.push("imgsrc"))',
  '![x" onerror="window.xss.push(\'alt\')](https://evil.example/y.png)',
  '```html\n<script>window.xss.push("fence")</script>\n```',
  '`<img src=x onerror=window.xss.push("inline")>`',
  '| a | b |\n|---|---|\n| <img src=x onerror=window.xss.push("cell")> | [c](javascript:1) |',
  '- [x] <b onclick="window.xss.push(\'task\')">task</b>',
  '> <style>*{display:none}</style> quoted',
  '$$<img src=x onerror=window.xss.push("math")>$$',
];

/** Lets the page run what it would run: image loads fail, handlers fire, microtasks drain. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
}

describe('Markdown from an attacker', () => {
  beforeEach(() => {
    window.xss = [];
  });

  it('every payload renders inert: no element it names exists, no handler runs, no javascript:/data: link, no image loads', async () => {
    const root = document.createElement('div');
    document.body.append(root);
    try {
      renderMarkdown(root, PAYLOADS.join('\n\n'));
      await settle();
      assertInert(root);
      expect(root.querySelector('script, img, svg, iframe, style, details, object, embed, form')).to.equal(null);
      expect(window.xss).to.deep.equal([]);
      // The raw HTML is still there to read, as text.
      expect(root.textContent).to.contain('<script>window.xss.push("script")</script>');
      expect(root.textContent).to.contain('image not loaded');
      // No request left the page for the beacon.
      const beacons = performance.getEntriesByType('resource').filter((e) => e.name.includes('beacon.png') || e.name.includes('evil.example'));
      expect(beacons).to.deep.equal([]);
      // Links that stayed links are the safe ones only.
      const hrefs = [...root.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href);
      for (const href of hrefs) expect(href).to.match(/^(https?:|mailto:)/);
    } finally {
      root.remove();
    }
  });

  it('a click on every link the payloads produced runs nothing', async () => {
    const root = document.createElement('div');
    document.body.append(root);
    try {
      renderMarkdown(root, PAYLOADS.join('\n\n'));
      for (const a of root.querySelectorAll('a')) {
        // Prevent navigation for safe links (the test page must stay); unsafe ones have no href at all.
        a.addEventListener('click', (e) => (a.hasAttribute('href') ? e.preventDefault() : undefined), { once: true });
        (a as HTMLElement).click();
      }
      await settle();
      expect(window.xss).to.deep.equal([]);
    } finally {
      root.remove();
    }
  });

  it('any text, in any chunking, renders only inert nodes, and the streamed result equals the whole text rendered at once', () => {
    const token = fc.oneof(
      fc.constantFrom(...PAYLOADS),
      fc.constantFrom('*', '**', '_', '__', '~~', '`', '```', '[', ']', '(', ')', '!', '<', '>', '#', '- ', '1. ', '|', '\n', '\n\n', '$', '$$', '\\', '&', ';', ':', ' ', 'https://a.example/', 'javascript:', 'mailto:x@y.example'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }).map((t) => t.join('')), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }), (text, sizes) => {
        const whole = document.createElement('div');
        renderMarkdown(whole, text);
        assertInert(whole);
        const streamed = document.createElement('div');
        const stream = createMarkdownStream(streamed);
        let at = 0;
        for (let i = 0; at < text.length; i++) {
          const size = sizes[i % sizes.length]!;
          stream.write(text.slice(at, at + size));
          assertInert(streamed);
          at += size;
        }
        stream.end();
        assertInert(streamed);
        expect(streamed.textContent).to.equal(whole.textContent);
      }),
      { numRuns: 300 },
    );
  });

  it('text the parser puts between table rows reads in the same place streamed and whole', () => {
    // Whole, the parser gives the space before `!` to the new row; one character at a time, to the
    // table before the row opens. Either way it must read before the `!`.
    for (const text of ['| a |\n|---|\n |!', '| a | b |\n|---|---|\n| x | [c](javascript:1) |\n |!', '| a |\n|---|\n| x |\n |!\n |?']) {
      const whole = document.createElement('div');
      renderMarkdown(whole, text);
      const streamed = document.createElement('div');
      const stream = createMarkdownStream(streamed);
      for (const ch of text) stream.write(ch);
      stream.end();
      expect(streamed.textContent, JSON.stringify(text)).to.equal(whole.textContent);
    }
  });

  it('floods finish: a megabyte of text, long runs of markup characters, deep nesting, a huge table', () => {
    const floods = [
      'word '.repeat(200_000),
      '*'.repeat(100_000),
      '['.repeat(50_000) + ']('.repeat(20_000),
      '> '.repeat(20_000) + 'deep',
      '- '.repeat(10_000) + 'list',
      '`'.repeat(60_000),
      '<'.repeat(100_000),
      '| a '.repeat(2_000) + '|\n' + '|---'.repeat(2_000) + '|\n' + '| x '.repeat(2_000) + '|\n',
      '**a '.repeat(30_000),
      '[a](https://x.example/'.repeat(20_000),
    ];
    for (const text of floods) {
      const root = document.createElement('div');
      // Streamed as a model would send it: small deltas.
      const stream = createMarkdownStream(root);
      for (let at = 0; at < text.length; at += 997) stream.write(text.slice(at, at + 997));
      stream.end();
      assertInert(root);
      // Something shows (a run of asterisks is a thematic break: an <hr>, no text).
      expect(root.childNodes.length, `${text.slice(0, 12)}… shows something`).to.be.greaterThan(0);
    }
  });

  it('a link address that never closes is shown as text and what follows still renders; nesting stays shallow', () => {
    const root = document.createElement('div');
    const stream = createMarkdownStream(root);
    const address = 'https://x.example/' + 'a'.repeat(300_000);
    stream.write('[label](');
    for (let at = 0; at < address.length; at += 50) stream.write(address.slice(at, at + 50));
    stream.write('\n\nthen **bold** text');
    stream.end();
    assertInert(root);
    expect(root.textContent).to.contain('https://x.example/aaaa');
    expect(root.querySelector('strong')?.textContent).to.equal('bold');
    const deep = document.createElement('div');
    renderMarkdown(deep, '> '.repeat(5_000) + 'deep');
    let depth = 0;
    for (let el: Element | null = deep.querySelector('*:not(:has(*))'); el && el !== deep; el = el.parentElement) depth++;
    expect(depth).to.be.within(1, 40);
    expect(deep.textContent).to.contain('deep');
  });

  it('a link whose text reads as an address goes only to that site: [https://bank.example](https://evil.example) is text, not a link', () => {
    const links = (text: string) => {
      const root = document.createElement('div');
      renderMarkdown(root, text);
      return [...root.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href);
    };
    for (const spoof of [
      '[https://bank.example/login](https://evil.example/login)',
      '[http://bank.example](https://bank.example.evil.example/)',
      '[www.bank.example](https://evil.example)',
      '[ HTTPS://BANK.EXAMPLE ](https://evil.example)',
      '[https://bank.example](mailto:me@evil.example)',
      '[bank.example](https://evil.example)',
      '[Bank.Example/login](https://evil.example/login)',
      '[pay.bank.example:8443](https://bank.example.evil.example/)',
      '[bank.example](https://bank.example@evil.example/)',
    ])
      expect(links(spoof), spoof).to.deep.equal([]);
    expect(links('[https://bank.example](https://bank.example/login)')).to.deep.equal(['https://bank.example/login']);
    expect(links('[www.bank.example/help](https://www.bank.example/help)')).to.deep.equal(['https://www.bank.example/help']);
    expect(links('[your bank](https://bank.example/)')).to.deep.equal(['https://bank.example/']);
    expect(links('[bank.example](https://bank.example/)')).to.deep.equal(['https://bank.example/']);
    expect(links('[bank.example/help](https://www.bank.example/help)')).to.deep.equal(['https://www.bank.example/help']);
    expect(links('[version 2.0](https://bank.example/v2)')).to.deep.equal(['https://bank.example/v2']);
    expect(links('see https://bank.example/a?b=1 now')).to.deep.equal(['https://bank.example/a?b=1']);
    expect(links('[mail us](mailto:help@bank.example)')).to.deep.equal(['mailto:help@bank.example']);
  });

  it('link text that reads as an address written with lookalike or hidden characters, or as an email address, goes only there too', () => {
    const links = (text: string) => {
      const root = document.createElement('div');
      renderMarkdown(root, text);
      return [...root.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href);
    };
    for (const spoof of [
      // A Cyrillic "а": a person reads bank.example.
      '[b\u0430nk.example](https://evil.example)',
      // A zero-width space, a soft hyphen, a right-to-left mark inside the name.
      '[bank\u200b.example](https://evil.example)',
      '[ba\u00adnk.example/login](https://evil.example/login)',
      '[\u200fbank.example](https://evil.example)',
      // Fullwidth letters and a fullwidth full stop.
      '[\uff42\uff41\uff4e\uff4b.example](https://evil.example)',
      '[bank\uff0eexample](https://evil.example)',
      '[bank.example.](https://evil.example)',
      '[https://b\u0430nk.example](https://evil.example)',
      // An email address that mails someone else.
      '[support@bank.example](mailto:attacker@evil.example)',
      '[Support@Bank.Example](https://evil.example)',
    ])
      expect(links(spoof), JSON.stringify(spoof)).to.deep.equal([]);
    // The same names where they do go: a link.
    expect(links('[b\u0430nk.example](https://b\u0430nk.example/)')).to.deep.equal(['https://xn--bnk-6cd.example/']);
    expect(links('[support@bank.example](mailto:support@bank.example)')).to.deep.equal(['mailto:support@bank.example']);
    expect(links('[Support@Bank.Example](mailto:support@bank.example)')).to.deep.equal(['mailto:support@bank.example']);
    expect(links('[\u0431\u0430\u043d\u043a](https://bank.example/)')).to.deep.equal(['https://bank.example/']);
  });

  it('a name that starts with "h" links to its own site like any other (it is not read as a broken http address)', () => {
    const root = document.createElement('div');
    renderMarkdown(root, '[help.bank.example](https://help.bank.example/) and [hotel.example/rooms](https://www.hotel.example/rooms)');
    expect([...root.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href)).to.deep.equal([
      'https://help.bank.example/',
      'https://www.hotel.example/rooms',
    ]);
  });

  it('<agent-chat>: a reply, a tool name, a tool error and a trusted tool output carrying payloads run nothing', async () => {
    const evil = PAYLOADS.join('\n\n');
    const adapter = {
      id: 'evil',
      label: 'Evil',
      async *run() {
        yield { type: 'message-start' as const, messageId: 'm' };
        for (let at = 0; at < evil.length; at += 7) yield { type: 'text-delta' as const, messageId: 'm', delta: evil.slice(at, at + 7) };
        yield { type: 'tool-call' as const, messageId: 'm', id: 'c1', name: '<img src=x onerror="window.xss.push(\'name\')">', input: { html: '<script>window.xss.push("input")</script>' } };
        yield { type: 'tool-error' as const, id: 'c1', error: '<img src=x onerror="window.xss.push(\'error\')">' };
        yield { type: 'finish' as const, reason: 'stop' as const };
      },
    };
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('hi');
    await waitUntil(() => chat.session.status === 'done', 'done');
    await chat.updateComplete;
    await openCard(chat, q(chat, '[part~="tool"]')!);
    await settle();
    const log = q(chat, '[part~="log"]')!;
    expect(log.querySelector('script, img, svg, iframe, style')).to.equal(null);
    for (const md of log.querySelectorAll('[part~="markdown"]')) assertInert(md);
    expect(q(chat, '[part~="tool-name"]')!.textContent).to.contain('<img src=x');
    expect(q(chat, '[part~="tool-error"]')!.textContent).to.contain('<img src=x');
    expect(window.xss).to.deep.equal([]);
    // A scripted tool whose output is Markdown the page trusts still gets no raw HTML through.
    const trusted = createScriptedAdapter([{ tool: 'view:devices.rows' }, { text: evil, chunk: 11 }]);
    const page = await chatPage({ adapters: trusted });
    page.chat.send('read');
    await waitUntil(() => page.chat.session.status === 'done', 'done');
    await page.chat.updateComplete;
    await settle();
    const md = [...shadowAll(page.chat, '[part~="markdown"]')];
    expect(md.length).to.be.greaterThan(0);
    for (const m of md) assertInert(m);
    expect(window.xss).to.deep.equal([]);
  });
});

function shadowAll(chat: Element, selector: string): Element[] {
  return [...(chat.shadowRoot?.querySelectorAll(selector) ?? [])];
}
