// `agent-surface compile` over HTML and lit sources: --write puts tokens in place byte for byte,
// --check lists missing and stale ones; and the committed demo's tokens are current.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/compiler/cli.js';
import { computeContractToken } from '../../src/compiler/compile.js';
import { scanFile, tokenIssues } from '../../src/compiler/scan.js';

const HTML = `<!doctype html>\r\n<agent-surface>\r\n  <agent-view name="devices">\r\n    <agent-capability name="selectRows" effect="local-state"\r\n      description="Select rows.">\r\n      <script type="application/schema+json">{"type":"object","properties":{"ids":{"type":"array"}}}</script>\r\n    </agent-capability>\r\n  </agent-view>\r\n  <agent-capability name="devices.disable" effect="destructive" confirmation="required" description="Disable devices." token="sha256-old"></agent-capability>\r\n</agent-surface>\r\n`;

const LIT = `import { html } from 'lit';
export const row = (d) => html\`<agent-capability name="rename" view="devices" effect="server-mutation"
  description="Rename a device." @agent-invoke=\${(e) => d.rename(e)}></agent-capability>\`;
`;

async function run(argv: string[]): Promise<{ code: number; errors: string[]; logs: string[] }> {
  const errors = mock.method(console, 'error', () => {});
  const logs = mock.method(console, 'log', () => {});
  try {
    const code = await main(argv);
    return {
      code,
      errors: errors.mock.calls.map((c) => String(c.arguments[0])),
      logs: logs.mock.calls.map((c) => String(c.arguments[0])),
    };
  } finally {
    errors.mock.restore();
    logs.mock.restore();
  }
}

test('compile --write then --check over HTML and a lit module', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-surface-scan-'));
  try {
    const page = join(dir, 'index.html');
    const mod = join(dir, 'row.js');
    const out = join(dir, 'manifest.js');
    writeFileSync(page, HTML);
    writeFileSync(mod, LIT);

    const before = await run(['compile', page, mod, '--out', out, '--check']);
    assert.equal(before.code, 1);
    const listed = before.errors.join('\n');
    assert.match(listed, /index\.html:4:5 \(view:devices\.selectRows\): token is missing/);
    assert.match(listed, /index\.html:9:\d+ \(domain:devices\.disable\): token is stale/);
    assert.match(listed, /row\.js:2:32 \(view:devices\.rename\): token is missing/);

    const write = await run(['compile', page, mod, '--out', out, '--write']);
    assert.equal(write.code, 0, write.errors.join('\n'));
    const manifest = (await import(`${out}?v=${Date.now()}`)) as {
      manifest: { contracts: Record<string, { token: string }> };
    };
    const token = (id: string) => manifest.manifest.contracts[id].token;

    // Byte for byte: only the token attributes changed (CRLF, indentation and the rest kept).
    assert.equal(
      readFileSync(page, 'utf8'),
      HTML.replace(
        'description="Select rows.">',
        `description="Select rows." token="${token('view:devices.selectRows')}">`,
      ).replace('token="sha256-old"', `token="${token('domain:devices.disable')}"`),
    );
    assert.equal(
      readFileSync(mod, 'utf8'),
      LIT.replace('d.rename(e)}>', `d.rename(e)} token="${token('view:devices.rename')}">`),
    );

    const check = await run(['compile', page, mod, '--out', out, '--check']);
    assert.equal(check.code, 0, check.errors.join('\n'));

    // An edited description makes its token stale (and the module out of date).
    writeFileSync(page, readFileSync(page, 'utf8').replace('Disable devices.', 'Disable devices now.'));
    const stale = await run(['compile', page, mod, '--out', out, '--check']);
    assert.equal(stale.code, 1);
    assert.match(stale.errors.join('\n'), /\(domain:devices\.disable\): token is stale/);
    assert.doesNotMatch(stale.errors.join('\n'), /selectRows/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compile fails with file:line:column on a dynamic contract attribute', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-surface-scan-'));
  try {
    const mod = join(dir, 'dyn.ts');
    writeFileSync(
      mod,
      'const t = (x: string) => html`<agent-capability name="a" view="v" effect="read"\n  description=${x}></agent-capability>`;\n',
    );
    const r = await run(['compile', mod, '--out', join(dir, 'm.js')]);
    assert.equal(r.code, 1);
    assert.match(
      r.errors.join('\n'),
      /dyn\.ts:2:15: <agent-capability> attribute description holds an expression/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the committed demo declares valid contracts and carries their current tokens', async () => {
  for (const file of ['demo/index.html', 'demo/csp.html']) {
    const result = await scanFile(file);
    assert.deepEqual(result.problems, [], file);
    assert.equal(result.declarations.length, 5, file);
    assert.deepEqual(
      tokenIssues(result, (id) =>
        computeContractToken(result.declarations.find((d) => d.id === id)!.contract),
      ),
      [],
      `${file}: run node bin/agent-surface.js compile demo/index.html demo/csp.html --out demo/generated/agent-surface.manifest.js --write`,
    );
  }
});
