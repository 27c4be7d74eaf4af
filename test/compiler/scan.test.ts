import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  findTemplateLiterals,
  formatPosition,
  rewriteTokens,
  scanDeclarations,
  tokenIssues,
} from '../../src/compiler/scan.js';

const fakeToken = (id: string) => `sha256-${Buffer.from(id).toString('base64url')}`;

function at(text: string, needle: string, nth = 0): { line: number; column: number } {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  assert.ok(offset >= 0, `${needle} not in the text`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

const PAGE = `<!doctype html>
<html>
<body>
  <agent-surface>
    <agent-view name="devices">
      <table><tr><td>row</td></tr></table>
      <agent-capability name="selectRows" effect="local-state"
        description="Select rows
                     of the devices table.">
        <script type="application/schema+json">
          {"type":"object","properties":{"ids":{"type":"array","items":{"type":"string"}}},"required":["ids"]}
        </script>
      </agent-capability>
      <agent-capability name="selection" kind="observation" effect="read" description="The selected devices." untrusted-output>
        <script type="application/schema+json" data-schema="output">{"type":"array"}</script>
      </agent-capability>
    </agent-view>
    <agent-capability name="devices.disable" effect="destructive" confirmation="required"
      description="Disable devices." token="sha256-stale"></agent-capability>
  </agent-surface>
</body>
</html>
`;

test('HTML: ids from placement, contracts from attributes and schema scripts, positions', () => {
  const r = scanDeclarations(PAGE, 'demo/index.html');
  assert.deepEqual(r.problems, []);
  assert.deepEqual(
    r.declarations.map((d) => d.id),
    ['view:devices.selectRows', 'view:devices.selection', 'domain:devices.disable'],
  );
  const [select, selection, disable] = r.declarations;
  assert.equal(select.contract.description, 'Select rows of the devices table.');
  assert.deepEqual(select.contract.inputSchema?.required, ['ids']);
  assert.equal(select.source, 'html');
  assert.deepEqual(
    { line: select.position.line, column: select.position.column },
    at(PAGE, '<agent-capability name="selectRows"'),
  );
  assert.deepEqual(selection.contract.outputSchema, { type: 'array' });
  assert.equal(selection.contract.untrustedOutput, true);
  assert.equal(selection.contract.kind, 'observation');
  assert.equal(disable.contract.confirmation, 'required');
  assert.equal(disable.token.value, 'sha256-stale');
  assert.deepEqual(
    { line: disable.token.position.line, column: disable.token.position.column },
    at(PAGE, 'token="sha256-stale"'),
  );
  assert.equal(select.token.value, null);
});

test('HTML: title="…" is part of the contract (and so of its token)', () => {
  const page = `<agent-surface>
    <agent-capability name="devices.disable" effect="destructive" title="Disable
        devices" description="Disable devices."></agent-capability>
    <agent-capability name="devices.list" kind="observation" effect="read" description="List." title=""></agent-capability>
  </agent-surface>`;
  const r = scanDeclarations(page, 'page.html');
  assert.deepEqual(r.problems, []);
  assert.equal(r.declarations[0].contract.title, 'Disable devices');
  assert.equal('title' in r.declarations[1].contract, false);
  const bad = scanDeclarations(`<agent-capability name="x" effect="read" description="x" title="${'t'.repeat(101)}"></agent-capability>`, 'bad.html');
  assert.equal(bad.declarations.length, 0);
  assert.match(bad.problems.map((p) => p.message).join('\n'), /title must be 1 to 100 characters/);
  // A lit binding would let code pick the title at run time: refused like any contract attribute.
  const lit = scanDeclarations("html`<agent-capability name=\"x\" effect=\"read\" description=\"x\" title=${t}></agent-capability>`", 'c.ts');
  assert.match(lit.problems.map((p) => p.message).join('\n'), /attribute title holds an expression/);
});

test('HTML: problems carry file:line:column and the declaration is left out', () => {
  const page = `<agent-view name="v">\n  <agent-capability name="a" description="x"></agent-capability>\n  <agent-capability name="b" effect="read" description="y" view="w"></agent-capability>\n</agent-view>\n<agent-view><agent-capability name="c" effect="read" description="z"></agent-capability></agent-view>`;
  const r = scanDeclarations(page, 'p.html');
  assert.deepEqual(r.declarations, []);
  assert.deepEqual(
    r.problems.map((p) => `${formatPosition(p)} ${p.message}`),
    [
      'p.html:2:3 <agent-capability name="a"> has no effect="…": say what calling it does, one of read, local-state, navigation, server-query, server-mutation, external-side-effect, destructive',
      'p.html:3:3 <agent-capability name="b"> declares view="w" but its nearest <agent-view> is "v"',
      'p.html:5:1 <agent-view> has no name="…": capabilities inside it cannot be given ids',
    ],
  );
});

test('HTML: nested views are refused; template content needs view= unless inside a view', () => {
  const page = `<agent-view name="a"><agent-view name="b"></agent-view></agent-view>
<template><agent-capability name="t" effect="read" description="d"></agent-capability></template>
<template><agent-capability name="u" view="rows" effect="read" description="d"></agent-capability></template>
<agent-view name="rows"><template><agent-capability name="w" effect="read" description="d"></agent-capability></template></agent-view>`;
  const r = scanDeclarations(page, 'p.html');
  assert.match(r.problems[0].message, /views are flat/);
  assert.match(r.problems[1].message, /cannot tell the view of <agent-capability name="t"> in a <template>/);
  assert.equal(r.problems.length, 2);
  assert.deepEqual(
    r.declarations.map((d) => d.id),
    ['view:rows.u', 'view:rows.w'],
  );
});

const LIT = `import { html, LitElement } from 'lit';
// a comment with a \` backtick and html\`<agent-capability name="no">\`
const re = /\`[}{]/g;
const str = "html\`<agent-capability>\`";
const ratio = 4 / 2 / 1;
export class DeviceRow extends LitElement {
  render() {
    return html\`
      <agent-capability name="rename" view="devices" effect="local-state"
        description="Rename the device \\u201c\${'ignored'}\\u201d." @agent-invoke=\${this.onRename}></agent-capability>
      <agent-capability name="ping" plane="domain" effect="server-query" kind="observation" description="Ping." .read=\${() => 1}></agent-capability>
      <agent-view name="cards">
        \${this.items.map((item) => html\`<agent-capability name="open" effect="navigation" description="Open a card."
            token="sha256-old"></agent-capability>\`)}
      </agent-view>
      <agent-capability name="lost" effect="read" description="Nobody knows where."></agent-capability>
    \`;
  }
}
`;

test('lit: templates found past comments, strings and regexes; placement inherited by nested templates', () => {
  const r = scanDeclarations(LIT, 'src/device-row.ts');
  // the description holds an expression → error at the expression
  assert.deepEqual(
    r.problems.map((p) => [p.line, p.column, p.message.slice(0, 61)]),
    [
      [
        at(LIT, "${'ignored'}").line,
        at(LIT, "${'ignored'}").column,
        '<agent-capability> attribute description holds an expression:',
      ],
      [
        at(LIT, '<agent-capability name="lost"').line,
        at(LIT, '<agent-capability name="lost"').column,
        'cannot tell the view of <agent-capability name="lost"> in a l',
      ],
    ],
  );
  assert.deepEqual(
    r.declarations.map((d) => d.id),
    ['domain:ping', 'view:cards.open'],
  );
  const open = r.declarations[1];
  assert.equal(open.source, 'lit');
  assert.equal(open.token.value, 'sha256-old');
  assert.deepEqual(
    { line: open.position.line, column: open.position.column },
    at(LIT, '<agent-capability name="open"'),
  );
  assert.deepEqual(
    { line: open.token.position.line, column: open.token.position.column },
    at(LIT, 'token="sha256-old"'),
  );
});

test('lit: a view whose name is an expression leaves placement unknown', () => {
  const src =
    'html`<agent-view name=${v}><agent-capability name="a" effect="read" description="A."></agent-capability><agent-capability name="b" view="rows" effect="read" description="B."></agent-capability></agent-view>`';
  const r = scanDeclarations(src, 'v.js');
  assert.equal(r.problems.length, 1);
  assert.match(
    r.problems[0].message,
    /<agent-capability name="a"> inside an <agent-view> whose name is an expression: add view=/,
  );
  assert.deepEqual(
    r.declarations.map((d) => d.id),
    ['view:rows.b'],
  );
});

test('lit: a template that renders <agent-surface> knows the placement of what it holds', () => {
  const src =
    'html`<agent-surface .authority=${a}><agent-capability name="ping" effect="read" description="P."></agent-capability>' +
    '<agent-view name="v"><agent-capability name="a" effect="read" description="A."></agent-capability></agent-view></agent-surface>' +
    '<agent-capability name="outside" effect="read" description="O."></agent-capability>`';
  const r = scanDeclarations(src, 's.js');
  assert.deepEqual(
    r.declarations.map((d) => d.id),
    ['domain:ping', 'view:v.a'],
  );
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0].message, /cannot tell the view of <agent-capability name="outside">/);
});

test('lit: escapes are cooked as lit sees them, view= is trusted (checked at run time)', () => {
  const src =
    'const t = html`<agent-capability name="rename" view="devices" effect="local-state" description="Rename \\u201cx\\u201d\\n now."></agent-capability>`;';
  const r = scanDeclarations(src, 'a.js');
  assert.deepEqual(r.problems, []);
  assert.equal(r.declarations[0].id, 'view:devices.rename');
  assert.equal(r.declarations[0].contract.description, 'Rename \u201cx\u201d now.');
});

test('lit: dynamic contract attributes, tokens, boolean and property bindings, schema scripts are errors with positions', () => {
  const src = [
    'const a = html`<agent-capability name=${n} view="v" effect="read" description="d"></agent-capability>`;',
    'const b = html`<agent-capability name="b" view="v" effect="read" description="d" token=${t}></agent-capability>`;',
    'const c = html`<agent-capability name="c" view="v" effect="read" description="d" ?untrusted-output=${u}></agent-capability>`;',
    'const d = html`<agent-capability name="d" view="v" effect="read" .description=${x}></agent-capability>`;',
    'const e = html`<agent-capability name="e" view="v" effect="read" description="d"><script type="application/schema+json">${JSON.stringify(s)}</script></agent-capability>`;',
    'const f = html`<agent-capability name="f" view="v" effect="read" description="d" unavailable=${why} note=${n} .handler=${h} ${ref(r)}></agent-capability>`;',
    'const g = html`<agent-capability .token=${token} .contract=${contract}></agent-capability>`;',
  ].join('\n');
  const r = scanDeclarations(src, 'dyn.ts');
  assert.deepEqual(
    r.problems.map((p) => `${p.line}:${p.column}`),
    [
      `1:${at(src, '${n}').column}`,
      `2:${src.split('\n')[1].indexOf('${t}') + 1}`,
      `3:${src.split('\n')[2].indexOf('${u}') + 1}`,
      `4:${src.split('\n')[3].indexOf('${x}') + 1}`,
      `5:${src.split('\n')[4].indexOf('${JSON') + 1}`,
    ],
  );
  for (const p of r.problems) assert.match(p.message, /holds an expression/);
  // live state, behaviour and directives may be dynamic; a .contract is compiled from a contract module
  assert.deepEqual(
    r.declarations.map((d) => d.id),
    ['view:v.f'],
  );
});

test('--write: inserts and replaces tokens, keeps every other byte; a second run changes nothing', () => {
  const page =
    '\uFEFF<agent-capability name="a" effect="read"\r\n  description="A."   >\r\n</agent-capability>\r\n' +
    "<agent-capability name='b' effect='read' description='B.' TOKEN='sha256-old'/>\r\n" +
    '<agent-capability name="c" effect="read" description="C." untrusted-output></agent-capability>\r\n';
  const r = scanDeclarations(page, 'w.html');
  assert.deepEqual(r.problems, []);
  const written = rewriteTokens(r, fakeToken);
  assert.equal(
    written,
    `\uFEFF<agent-capability name="a" effect="read"\r\n  description="A." token="${fakeToken('domain:a')}"   >\r\n</agent-capability>\r\n` +
      `<agent-capability name='b' effect='read' description='B.' token="${fakeToken('domain:b')}"/>\r\n` +
      `<agent-capability name="c" effect="read" description="C." untrusted-output token="${fakeToken('domain:c')}"></agent-capability>\r\n`,
  );
  const again = scanDeclarations(written, 'w.html');
  assert.deepEqual(tokenIssues(again, fakeToken), []);
  assert.equal(rewriteTokens(again, fakeToken), written);
});

test('--write in lit templates: after a trailing binding, inside nested templates', () => {
  const src =
    'export const t = (xs) => html`<agent-view name="v">${xs.map(() => html`<agent-capability name="a" effect="read" description="A." @agent-invoke=${(e) => e.detail}></agent-capability>`)}</agent-view>`;\n';
  const r = scanDeclarations(src, 'w.ts');
  const written = rewriteTokens(r, fakeToken);
  assert.equal(
    written,
    src.replace('${(e) => e.detail}', `\${(e) => e.detail} token="${fakeToken('view:v.a')}"`),
  );
  assert.deepEqual(tokenIssues(scanDeclarations(written, 'w.ts'), fakeToken), []);
});

test('--check: lists missing and stale tokens with positions; ids the build did not authorize are skipped', () => {
  const r = scanDeclarations(PAGE, 'demo/index.html');
  const issues = tokenIssues(r, (id) => (id === 'view:devices.selection' ? undefined : fakeToken(id)));
  assert.deepEqual(
    issues.map((i) => [i.id, i.status, i.actual, `${i.position.line}:${i.position.column}`]),
    [
      [
        'view:devices.selectRows',
        'missing',
        null,
        `${at(PAGE, '<agent-capability name="selectRows"').line}:7`,
      ],
      [
        'domain:devices.disable',
        'stale',
        'sha256-stale',
        `${at(PAGE, 'token="sha256-stale"').line}:${at(PAGE, 'token="sha256-stale"').column}`,
      ],
    ],
  );
});

test('a file that does not name the element is not tokenized; an unreadable one that does is reported', () => {
  assert.deepEqual(scanDeclarations('const x = `unterminated', 'a.ts').problems, []);
  const r = scanDeclarations('const x = html`<agent-capability name="a"', 'a.ts');
  assert.match(r.problems[0].message, /unterminated template literal/);
  assert.throws(() => scanDeclarations('', 'a.css'), /cannot scan a\.css/);
});

test('tokenizer: nested templates, braces inside expressions, division vs regex', () => {
  const src = 'a = b / c / d; x = html`1${ {k: `2${3}`}.k }4${ /}`/.test(y) }5`; z = `6`';
  const { templates, error } = findTemplateLiterals(src);
  assert.equal(error, undefined);
  assert.deepEqual(
    templates.map((t) => [t.tag, src.slice(t.start, t.end), t.parent?.template ?? null]),
    [
      ['html', 'html`1${ {k: `2${3}`}.k }4${ /}`/.test(y) }5`'.slice(4), null],
      [null, '`2${3}`', 0],
      [null, '`6`', null],
    ],
  );
});

test('property: re-indenting and re-wrapping markup never changes a contract', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(' ', '\n', '  ', '\n    ', '\t'), { minLength: 6, maxLength: 6 }),
      (gaps) => {
        const page = `<agent-capability${gaps[0]}name="a"${gaps[1]}effect="read"${gaps[2]}description="${gaps[3]}Do${gaps[4]}it.${gaps[5]}"></agent-capability>`;
        const r = scanDeclarations(page, 'p.html');
        return (
          r.declarations.length === 1 &&
          r.declarations[0].contract.description === 'Do it.' &&
          rewriteTokens(r, fakeToken).length === page.length + ` token="${fakeToken('domain:a')}"`.length
        );
      },
    ),
  );
});
