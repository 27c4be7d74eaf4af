import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { createCompilerAuthority } from '../../src/core/authority.js';
import {
  ContractCompileError,
  codeOutsideLiterals,
  compileContracts,
  computeContractToken,
  findForbiddenCode,
} from '../../src/compiler/compile.js';
import type { CapabilityContract } from '../../src/core/types.js';

const disable: CapabilityContract = {
  id: 'domain:devices.disable',
  kind: 'action',
  effect: 'destructive',
  confirmation: 'required',
  // Text that looks like code must not trip the forbidden-code scan.
  description: 'Disable devices. Never eval( anything, require( nothing, or make a new Function.',
  inputSchema: {
    type: 'object',
    properties: {
      ids: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, minItems: 1 },
      when: { type: 'string', format: 'date-time' },
      note: { enum: ['eval(1)', 'require("x")', 'import("y")'] },
    },
    required: ['ids'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { disabled: { type: 'integer' } }, required: ['disabled'] },
};
const search: CapabilityContract = {
  id: 'view:devices.table.search',
  kind: 'action',
  effect: 'local-state',
  description: 'Filter the table.',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { query: { type: 'string', maxLength: 100 }, email: { type: 'string', format: 'email' } },
    additionalProperties: false,
  },
};
const rows: CapabilityContract = {
  id: 'view:devices.table.rows',
  kind: 'observation',
  effect: 'read',
  description: 'Rows.',
};

describe('compileContracts', () => {
  it('emits one ES module with no imports, require, eval or new Function', async () => {
    const { source } = await compileContracts([disable, search, rows]);
    assert.doesNotMatch(source, /^\s*import\s/m);
    assert.doesNotMatch(source, /\bimport\s*\(/);
    assert.doesNotMatch(source, /require\(/);
    assert.doesNotMatch(source, /Dynamic require/);
    assert.doesNotMatch(source, /new Function/);
    assert.doesNotMatch(source, /\beval\(/);
    assert.deepEqual(findForbiddenCode(source), []);
    assert.match(source, /export const manifest = /);
    assert.match(source, /validators/);
    // one copy of ajv's ucs2length helper although two validators use minLength/maxLength
    const code = codeOutsideLiterals(source);
    assert.ok(code.length > 0);
  });

  it('returns a manifest with tokens, the compiler version and a stable hash', async () => {
    const a = await compileContracts([disable, search, rows]);
    const b = await compileContracts([rows, search, disable, disable]);
    assert.equal(a.manifest.format, 'agent-surface-kit/manifest@1');
    assert.equal(a.manifest.compilerVersion, '0.1.0');
    assert.deepEqual(Object.keys(a.manifest.contracts), [
      'domain:devices.disable',
      'view:devices.table.rows',
      'view:devices.table.search',
    ]);
    assert.equal(a.manifest.contracts['domain:devices.disable'].token, computeContractToken(disable));
    assert.equal(a.manifest.contracts['view:devices.table.rows'].contract.timeoutMs, 5000);
    // the hash is sha256 of the canonical JSON of the contracts map, whatever the input order
    const expected =
      'sha256-' + createHash('sha256').update(canonicalJson(a.manifest.contracts)).digest('base64url');
    assert.equal(a.manifest.hash, expected);
    assert.equal(b.manifest.hash, a.manifest.hash);
    assert.equal(b.source, a.source);
    const changed = await compileContracts([{ ...disable, description: 'Disable devices.' }, search, rows]);
    assert.notEqual(changed.manifest.hash, a.manifest.hash);
  });

  it('the emitted module exports the same manifest, and validators usable in Node', async () => {
    const { manifest, validators, source } = await compileContracts([disable, search, rows]);
    const mod = await import(`data:text/javascript,${encodeURIComponent(source)}`);
    assert.deepEqual(mod.manifest, manifest);
    const input = validators['domain:devices.disable'].input;
    assert.equal(input({ ids: ['a'], when: '2024-05-01T10:00:00Z', note: 'eval(1)' }), true);
    assert.equal(input({ ids: [] }), false);
    assert.equal(input({ ids: ['a'], when: 'yesterday' }), false);
    assert.equal(input.errors?.[0].keyword, 'format');
    assert.equal(input({ ids: ['😀'.repeat(64)] }), true, 'maxLength counts code points (ucs2length)');
    assert.equal(input({ ids: ['😀'.repeat(65)] }), false);
    assert.equal(input({ ids: ['x'], extra: 1, when: 1 }), false);
    assert.equal(input.errors?.length, 2, 'all errors are reported');
    assert.equal(validators['domain:devices.disable'].output?.({ disabled: 1 }), true);
    assert.equal(validators['domain:devices.disable'].output?.({ disabled: 1.5 }), false);
    assert.equal(validators['view:devices.table.search'].input({ email: 'a@b.co' }), true);
    assert.equal(validators['view:devices.table.search'].input({ email: 'nope' }), false);
    assert.equal(validators['view:devices.table.search'].output, undefined);
    assert.equal(validators['view:devices.table.rows'].input({}), true);
    assert.equal(validators['view:devices.table.rows'].input({ a: 1 }), false);
    // and the authority accepts the whole result as is
    const authority = createCompilerAuthority({ manifest, validators });
    assert.equal(authority.admit(search, manifest.contracts[search.id].token).ok, true);
  });

  it('fails on contract problems, invalid schemas and duplicate ids, naming each contract', async () => {
    await assert.rejects(
      compileContracts([
        { ...rows, effect: 'destructive' },
        { ...disable, inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } },
        { ...search, inputSchema: { type: 'object', properties: { a: { type: 'string', minLenght: 2 } } } },
        {
          ...search,
          id: 'domain:fmt',
          inputSchema: { type: 'object', properties: { a: { type: 'string', format: 'no-such-format' } } },
        },
        {
          ...search,
          id: 'domain:old',
          inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
        },
        { ...search, description: 'Another description.' },
      ]),
      (e: unknown) => {
        assert.ok(e instanceof ContractCompileError);
        const byId = e.problems.map((p) => `${p.capabilityId}: ${p.message}`);
        assert.equal(e.problems.length, 6, byId.join('\n'));
        assert.match(byId[0], /^view:devices\.table\.rows: an observation only reads/);
        assert.match(
          byId.find((m) => m.startsWith('domain:devices.disable'))!,
          /inputSchema is not a valid JSON Schema: #\/properties\/a\/type must be/,
        );
        assert.match(
          byId.find((m) => m.includes('minLenght'))!,
          /^view:devices\.table\.search: .*strict mode: unknown keyword: "minLenght"/,
        );
        assert.match(
          byId.find((m) => m.startsWith('domain:fmt'))!,
          /unknown format "no-such-format"/,
        );
        assert.match(
          byId.find((m) => m.startsWith('domain:old'))!,
          /unsupported \$schema/,
        );
        assert.match(
          byId.find((m) => m.includes('declared twice'))!,
          /^view:devices\.table\.search: declared twice with different contracts/,
        );
        assert.match(e.message, /6 errors/);
        return true;
      },
    );
  });

  it('accepts and carries a title: in the manifest, the token, and what the authority admits', async () => {
    const titled: CapabilityContract = { ...disable, title: 'Disable devices' };
    const { manifest, validators, source } = await compileContracts([titled, rows]);
    assert.equal(manifest.contracts[titled.id].contract.title, 'Disable devices');
    assert.equal(manifest.contracts[titled.id].token, computeContractToken(titled));
    assert.notEqual(manifest.contracts[titled.id].token, computeContractToken(disable));
    assert.equal('title' in manifest.contracts[rows.id].contract, false);
    assert.ok(source.includes('Disable devices'));
    const authority = createCompilerAuthority({ manifest, validators });
    assert.equal(authority.admit(titled, manifest.contracts[titled.id].token).ok, true);
    // The title is authorized like the description: another title (or none) under the same token is refused.
    assert.equal(authority.admit({ ...disable, title: 'Approve everything' }, manifest.contracts[titled.id].token).ok, false);
    assert.equal(authority.admit(disable, manifest.contracts[titled.id].token).ok, false);
    await assert.rejects(compileContracts([{ ...rows, title: 'two\nlines' }]), /title must be 1 to 100 characters/);
  });

  it('compiles an empty list into a module with no validators', async () => {
    const { manifest, validators } = await compileContracts([]);
    assert.deepEqual(manifest.contracts, {});
    assert.deepEqual(validators, {});
  });
});

describe('findForbiddenCode', () => {
  it('finds code, not text in literals', () => {
    assert.deepEqual(
      findForbiddenCode(
        'const a = "eval(x) require(y) new Function"; const r = /eval\\(/g; const t = `import(${"x"})`;',
      ),
      [],
    );
    assert.deepEqual(findForbiddenCode('// eval(x)\n/* require("a") */ const x = 1;'), []);
    assert.deepEqual(findForbiddenCode('const f = require("ajv/dist/runtime/ucs2length");'), ['require(']);
    assert.deepEqual(
      findForbiddenCode(
        'var a=typeof require<"u"?require:0;throw Error(\'Dynamic require of "\'+e+\'" is not supported\')',
      ),
      ['Dynamic require', 'require('],
    );
    assert.deepEqual(findForbiddenCode('x=new Function("return 1")'), ['new Function']);
    assert.deepEqual(findForbiddenCode('x=(0,eval)("1")'), ['eval(']);
    assert.deepEqual(findForbiddenCode('import{a}from"b";'), ['an import']);
    assert.deepEqual(findForbiddenCode('const m = await import("x")'), ['an import']);
    assert.deepEqual(findForbiddenCode('const t = `a${eval("1")}b`'), ['eval(']);
    assert.deepEqual(findForbiddenCode('a = b / 2; c = d.eval; e.require(1); f = x / y / z'), []);
  });
});

describe('committed fixtures', () => {
  it('test/browser/fixtures/csp-manifest.js is what the compiler emits today', async () => {
    const { readFile } = await import('node:fs/promises');
    const { buildContractModule } = await import('../../src/compiler/compile.js');
    const dir = new URL('../browser/fixtures/', import.meta.url);
    const contracts = JSON.parse(
      await readFile(new URL('csp.contracts.json', dir), 'utf8'),
    ) as CapabilityContract[];
    const { source } = await buildContractModule(contracts);
    const committed = await readFile(new URL('csp-manifest.js', dir), 'utf8');
    assert.equal(
      committed,
      source,
      'stale fixture: npx tsx src/compiler/cli.ts compile test/browser/fixtures/csp.contracts.json --out test/browser/fixtures/csp-manifest.js',
    );
  });
});
