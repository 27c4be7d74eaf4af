// `agent-surface compile --out-dir`: one manifest per page (file name, or folder with --group-by dir),
// --shared declarations in each, --check and --write per page, and clear errors for bad options.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupPages, parseArgs, usage } from '../../src/compiler/cli.js';
import { runCliIn } from './cli-helpers.js';

let dir: string;

const runHere = (...args: string[]) => runCliIn(dir, args);

const capability = (name: string) =>
  `<agent-surface><agent-capability name="${name}" effect="local-state" description="Do ${name}."></agent-capability></agent-surface>\n`;
const idsOf = (file: string): string[] =>
  Object.keys(JSON.parse(/export const manifest = (\{[\s\S]*\});/.exec(readFileSync(join(dir, file), 'utf8'))![1]).contracts);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-surface-out-dir-'));
  mkdirSync(join(dir, 'pages/admin'), { recursive: true });
  writeFileSync(join(dir, 'pages/devices.html'), capability('devices.select'));
  writeFileSync(join(dir, 'pages/devices.contracts.json'), JSON.stringify([{ id: 'domain:devices.count', kind: 'observation', effect: 'read', description: 'Count devices.' }]));
  writeFileSync(join(dir, 'pages/billing.html'), capability('billing.refund'));
  writeFileSync(join(dir, 'pages/admin/users.html'), capability('users.invite'));
  writeFileSync(join(dir, 'header.html'), capability('help.open'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('agent-surface compile --out-dir', () => {
  it('groups inputs by page: the file name without extensions, under its folder; or by folder', () => {
    const files = ['/p/pages/a.html', '/p/pages/a.contracts.json', '/p/pages/b.html', '/p/pages/x/c.html'];
    assert.deepEqual([...groupPages(files, 'file')], [
      ['a', ['/p/pages/a.html', '/p/pages/a.contracts.json']],
      ['b', ['/p/pages/b.html']],
      ['x/c', ['/p/pages/x/c.html']],
    ]);
    assert.deepEqual([...groupPages(files, 'dir')], [
      ['pages', ['/p/pages/a.html', '/p/pages/a.contracts.json', '/p/pages/b.html']],
      ['x', ['/p/pages/x/c.html']],
    ]);
  });

  it('writes one manifest per page, each with only its own declarations and the shared ones', async () => {
    const r = await runHere('compile', 'pages/**/*.html', 'pages/*.contracts.json', '--out-dir', 'manifests', '--shared', 'header.html', '--write');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(idsOf('manifests/devices.js'), ['domain:devices.count', 'domain:devices.select', 'domain:help.open']);
    assert.deepEqual(idsOf('manifests/billing.js'), ['domain:billing.refund', 'domain:help.open']);
    assert.deepEqual(idsOf('manifests/admin/users.js'), ['domain:help.open', 'domain:users.invite']);
    assert.ok(existsSync(join(dir, 'manifests/admin/users.d.ts')));
    assert.match(readFileSync(join(dir, 'manifests/billing.d.ts'), 'utf8'), /"domain:billing\.refund": \{/);
    assert.doesNotMatch(readFileSync(join(dir, 'manifests/billing.d.ts'), 'utf8'), /devices/);
    for (const f of ['pages/devices.html', 'pages/billing.html', 'header.html']) assert.match(readFileSync(join(dir, f), 'utf8'), /token="sha256-/);

    const check = await runHere('compile', 'pages/**/*.html', 'pages/*.contracts.json', '--out-dir', 'manifests', '--shared', 'header.html', '--check');
    assert.equal(check.status, 0, check.stderr);
    assert.equal(check.stdout.split('\n').length, 3);

    // A page whose declaration changed: --check names that page's file and its manifest only.
    writeFileSync(join(dir, 'pages/billing.html'), readFileSync(join(dir, 'pages/billing.html'), 'utf8').replace('Do billing.refund.', 'Refund.'));
    const stale = await runHere('compile', 'pages/**/*.html', 'pages/*.contracts.json', '--out-dir', 'manifests', '--shared', 'header.html', '--check');
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /pages\/billing\.html:1:\d+ \(domain:billing\.refund\): token is stale/);
    assert.match(stale.stderr, /manifests\/billing\.js is out of date/);
    assert.doesNotMatch(stale.stderr, /devices|users/);

    // A page removed from the compile leaves its manifest behind: --check says to delete it.
    const gone = await runHere('compile', 'pages/*.html', '--out-dir', 'manifests', '--shared', 'header.html', '--check');
    assert.equal(gone.status, 1);
    assert.match(gone.stderr, /manifests\/admin\/users\.js: no page of this compile writes it any more: delete it/);
  });

  it('--group-by dir and --ext mjs', async () => {
    const r = await runHere('compile', 'pages/**/*.html', '--out-dir', 'by-folder', '--group-by', 'dir', '--ext', 'mjs');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(idsOf('by-folder/pages.mjs'), ['domain:billing.refund', 'domain:devices.select']);
    assert.deepEqual(idsOf('by-folder/admin.mjs'), ['domain:users.invite']);
    assert.ok(existsSync(join(dir, 'by-folder/admin.d.mts')));
  });

  it('refuses options that do not fit together, each in one line', async () => {
    assert.deepEqual(parseArgs(['compile', 'a.html', '--out', 'x.js', '--out-dir', 'm']).errors, ['--out and --out-dir exclude each other (one manifest, or one per page)']);
    assert.deepEqual(parseArgs(['compile', 'a.html', '--out', 'x.js', '--shared', 'h.html']).errors, ['--shared only applies with --out-dir']);
    assert.deepEqual(parseArgs(['compile', 'a.html', '--out-dir', 'm', '--group-by', 'page']).errors, ['--group-by takes file or dir, not "page"']);
    assert.deepEqual(parseArgs(['compile', 'a.html', '--out-dir=m', '--ext=cjs']).errors, ['--ext takes js or mjs, not "cjs"']);
    assert.deepEqual(parseArgs(['compile', 'a.html', '--out-dir']).errors, ['--out-dir needs a folder name']);
    const none = await runHere('compile', 'header.html');
    assert.equal(none.status, 1);
    assert.match(none.stderr, /--out <file> is required \(or --out-dir <folder>, for one manifest per page\)/);
    const onlyShared = await runHere('compile', 'header.html', '--out-dir', 'm', '--shared', 'header.html');
    assert.match(onlyShared.stderr, /no page files given/);
  });

  it('--help lists the options', () => {
    for (const flag of ['--out-dir <folder>', '--group-by <file|dir>', '--shared <file or glob>', '--ext <js|mjs>']) assert.ok(usage().includes(flag), flag);
  });
});
