import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CONTRACT_ATTRIBUTES,
  contractFromDeclaration,
  declarationId,
  normalizeDescription,
  schemaTextsFromScripts,
  type CapabilityDeclaration,
} from '../../src/core/declaration.js';

function decl(overrides: Partial<CapabilityDeclaration> = {}): CapabilityDeclaration {
  return {
    name: 'rename',
    view: null,
    placementView: null,
    kind: null,
    effect: 'local-state',
    confirmation: null,
    description: 'Rename a device.',
    concurrency: null,
    timeoutMs: null,
    untrustedOutput: false,
    inputSchemaText: null,
    outputSchemaText: null,
    ...overrides,
  };
}

function problems(d: CapabilityDeclaration): string[] {
  const r = contractFromDeclaration(d);
  assert.equal(r.ok, false, 'expected the declaration to be refused');
  return r.ok ? [] : r.problems;
}

test('outside any view the id is domain:<name>; defaults kind=action, confirmation=never', () => {
  const r = contractFromDeclaration(decl());
  assert.deepEqual(r, {
    ok: true,
    contract: {
      id: 'domain:rename',
      kind: 'action',
      effect: 'local-state',
      confirmation: 'never',
      description: 'Rename a device.',
    },
  });
});

test('inside a view the id is view:<view>.<name>', () => {
  const r = contractFromDeclaration(decl({ placementView: 'devices' }));
  assert.ok(r.ok);
  assert.equal(r.contract.id, 'view:devices.rename');
  const dotted = contractFromDeclaration(decl({ name: 'table.selectRows', placementView: 'devices' }));
  assert.ok(dotted.ok);
  assert.equal(dotted.contract.id, 'view:devices.table.selectRows');
});

test('view="…" must match the nearest <agent-view>', () => {
  const ok = contractFromDeclaration(decl({ view: 'devices', placementView: 'devices' }));
  assert.ok(ok.ok);
  assert.equal(ok.contract.id, 'view:devices.rename');
  assert.deepEqual(problems(decl({ view: 'devices', placementView: 'users' })), [
    '<agent-capability name="rename"> declares view="devices" but its nearest <agent-view> is "users"',
  ]);
  assert.match(
    problems(decl({ view: 'devices', placementView: null }))[0],
    /not inside an <agent-view name="devices">/,
  );
});

test('plane="domain" states a domain capability and refuses a view placement', () => {
  const ok = contractFromDeclaration(decl({ plane: 'domain' }));
  assert.ok(ok.ok);
  assert.equal(ok.contract.id, 'domain:rename');
  assert.match(
    problems(decl({ plane: 'domain', placementView: 'devices' }))[0],
    /plane="domain" but sits inside <agent-view name="devices">/,
  );
  assert.match(
    problems(decl({ plane: 'domain', view: 'devices', placementView: 'devices' }))[0],
    /plane="domain" and view="devices"/,
  );
  assert.match(problems(decl({ plane: 'elsewhere' }))[0], /plane="elsewhere": use one of domain, view/);
  assert.match(problems(decl({ plane: 'view' }))[0], /plane="view" but is not inside an <agent-view>/);
  const inView = contractFromDeclaration(decl({ plane: 'view', placementView: 'devices' }));
  assert.ok(inView.ok && inView.contract.id === 'view:devices.rename');
});

test('effect and description have no default', () => {
  const p = problems(decl({ effect: null, description: null }));
  assert.equal(p.length, 2);
  assert.match(p[0], /no effect="…"/);
  assert.match(p[1], /no description="…"/);
  assert.match(problems(decl({ description: '  \n\t ' }))[0], /no description/);
  assert.match(problems(decl({ effect: '' }))[0], /no effect/);
});

test('unknown enum values are named with the allowed ones', () => {
  assert.deepEqual(
    problems(decl({ kind: 'query', effect: 'nuke', confirmation: 'always', concurrency: 'many' })),
    [
      '<agent-capability name="rename"> has kind="query": use one of action, observation',
      '<agent-capability name="rename"> has effect="nuke": use one of read, local-state, navigation, server-query, server-mutation, external-side-effect, destructive',
      '<agent-capability name="rename"> has confirmation="always": use one of never, optional, required',
      '<agent-capability name="rename"> has concurrency="many": use one of serial, parallel',
    ],
  );
});

test('a missing or malformed name is a problem', () => {
  assert.match(problems(decl({ name: null }))[0], /^<agent-capability> has no name/);
  assert.match(problems(decl({ name: 'a b' }))[0], /invalid name/);
  assert.match(problems(decl({ name: 'domain:x' }))[0], /invalid name/);
  assert.match(problems(decl({ name: 'a..b' }))[0], /invalid name/);
});

test('every optional attribute reaches the contract', () => {
  const r = contractFromDeclaration(
    decl({
      kind: 'observation',
      effect: 'read',
      confirmation: 'optional',
      concurrency: 'serial',
      timeoutMs: ' 2500 ',
      untrustedOutput: true,
      inputSchemaText: '{"type":"object","properties":{"q":{"type":"string"}}}',
      outputSchemaText: '{"type":"array"}',
    }),
  );
  assert.deepEqual(r, {
    ok: true,
    contract: {
      id: 'domain:rename',
      kind: 'observation',
      effect: 'read',
      confirmation: 'optional',
      description: 'Rename a device.',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      outputSchema: { type: 'array' },
      untrustedOutput: true,
      concurrency: 'serial',
      timeoutMs: 2500,
    },
  });
});

test('the contract checks run on the result: observation effects, description length, input schema type', () => {
  assert.match(
    problems(decl({ kind: 'observation', effect: 'destructive' }))[0],
    /^<agent-capability name="rename">: an observation only reads/,
  );
  assert.match(problems(decl({ description: 'x'.repeat(301) }))[0], /description is 301 characters long/);
  assert.match(
    problems(decl({ inputSchemaText: '{"type":"array"}' }))[0],
    /inputSchema must have type "object"/,
  );
});

test('timeout-ms must be a positive whole number', () => {
  for (const bad of ['0', '-5', '1.5', '1e3', 'soon', '', '99999999999999999999']) {
    assert.match(problems(decl({ timeoutMs: bad }))[0], /timeout-ms=".*": use a whole number/, bad);
  }
});

test('schema texts are parsed as JSON objects; errors name the schema', () => {
  assert.match(
    problems(decl({ inputSchemaText: '{ type: object }' }))[0],
    /input schema .* is not valid JSON/,
  );
  assert.match(
    problems(decl({ outputSchemaText: '[1]' }))[0],
    /output schema .*data-schema="output".* must be a JSON object/,
  );
  assert.match(problems(decl({ inputSchemaText: 'null' }))[0], /input schema .* must be a JSON object/);
});

test('description whitespace: trimmed and collapsed, so markup formatting never changes a contract', () => {
  assert.equal(
    normalizeDescription('\n    Disable the\n    selected   devices.\t\n  '),
    'Disable the selected devices.',
  );
  assert.equal(normalizeDescription('a\u00a0 b'), 'a\u00a0 b', 'non-breaking spaces are kept');
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[A-Za-z.,]{1,8}$/), { minLength: 1, maxLength: 8 }),
      fc.array(fc.stringMatching(/^[ \t\n\r\f]{1,4}$/), { minLength: 9, maxLength: 9 }),
      (words, gaps) => {
        const formatted = gaps[0] + words.map((w, i) => w + gaps[i + 1]).join('');
        const r = contractFromDeclaration(decl({ description: formatted }));
        return r.ok && r.contract.description === words.join(' ');
      },
    ),
  );
});

test('attribute values are trimmed of HTML whitespace', () => {
  const r = contractFromDeclaration(
    decl({ name: ' rename\n', effect: ' destructive ', confirmation: 'required ', placementView: 'devices' }),
  );
  assert.ok(r.ok);
  assert.equal(r.contract.id, 'view:devices.rename');
  assert.equal(r.contract.effect, 'destructive');
  assert.equal(r.contract.confirmation, 'required');
});

test('title="…" reaches the contract, folded like a description; empty means none', () => {
  const titled = contractFromDeclaration(decl({ title: '  Rename\n   a device ' }));
  assert.deepEqual(titled.ok && titled.contract.title, 'Rename a device');
  for (const none of [null, '', '  \n ', undefined]) {
    const r = contractFromDeclaration(decl({ title: none }));
    assert.equal(r.ok && 'title' in r.contract, false, JSON.stringify(none));
  }
  assert.match(problems(decl({ title: 'x'.repeat(101) })).join('\n'), /title must be 1 to 100 characters/);
});

test('declarationId and CONTRACT_ATTRIBUTES', () => {
  assert.equal(declarationId('disable'), 'domain:disable');
  assert.equal(declarationId('selectRows', 'devices'), 'view:devices.selectRows');
  for (const a of [
    'name',
    'view',
    'kind',
    'effect',
    'confirmation',
    'description',
    'title',
    'concurrency',
    'timeout-ms',
    'untrusted-output',
  ]) {
    assert.ok(CONTRACT_ATTRIBUTES.includes(a), a);
  }
  for (const a of ['token', 'unavailable', 'note']) assert.ok(!CONTRACT_ATTRIBUTES.includes(a), a);
});

test('schemaTextsFromScripts picks the input and output scripts', () => {
  assert.deepEqual(
    schemaTextsFromScripts([
      { type: 'module', dataSchema: null, text: 'ignored()' },
      { type: 'application/schema+json', dataSchema: null, text: '{"a":1}' },
      { type: 'Application/Schema+JSON', dataSchema: 'output', text: '{"b":2}' },
    ]),
    { inputSchemaText: '{"a":1}', outputSchemaText: '{"b":2}', problems: [] },
  );
  const dup = schemaTextsFromScripts(
    [
      { type: 'application/schema+json', dataSchema: 'input', text: '{}' },
      { type: 'application/schema+json', dataSchema: null, text: '{}' },
      { type: 'application/schema+json', dataSchema: 'result', text: '{}' },
    ],
    'x',
  );
  assert.equal(dup.inputSchemaText, '{}');
  assert.deepEqual(dup.problems, [
    '<agent-capability name="x"> has more than one input schema script: keep one',
    '<agent-capability name="x"> has a schema script with data-schema="result": use "output" or no data-schema',
  ]);
});
