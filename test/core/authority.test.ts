import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createCompilerAuthority,
  devAuthority,
  issuesFromAjvErrors,
} from '../../src/core/authority.js';
import { issuesFromCfworkerErrors } from '../../src/core/interpreter.js';
import { compileContracts } from '../../src/compiler/compile.js';
import type {
  AgentSurfaceAuthority,
  CapabilityContract,
  JsonObject,
  ContractManifest,
  ContractValidators,
  ValidationOutcome,
} from '../../src/core/types.js';

const disable: CapabilityContract = {
  id: 'domain:devices.disable',
  kind: 'action',
  effect: 'destructive',
  confirmation: 'required',
  description: 'Disable the given devices.',
  inputSchema: {
    type: 'object',
    properties: {
      ids: { type: 'array', items: { type: 'string' }, minItems: 1 },
      mode: { enum: ['soft', 'hard'] },
      'a/b~c': { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    },
    required: ['ids'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { disabled: { type: 'integer' } }, required: ['disabled'] },
};
const rows: CapabilityContract = {
  id: 'view:devices.table.rows',
  kind: 'observation',
  effect: 'read',
  description: 'The visible rows.',
};

let manifest: ContractManifest;
let validators: Record<string, ContractValidators>;
let authority: AgentSurfaceAuthority;

before(async () => {
  ({ manifest, validators } = await compileContracts([disable, rows]));
  authority = createCompilerAuthority({ manifest, validators });
});

function deepFreezeForTest<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const field of Object.values(value)) deepFreezeForTest(field);
    Object.freeze(value);
  }
  return value;
}

function sync(outcome: ValidationOutcome | Promise<ValidationOutcome>): ValidationOutcome {
  assert.ok(!(outcome instanceof Promise), 'compiled validators answer synchronously');
  return outcome as ValidationOutcome;
}

describe('createCompilerAuthority', () => {
  it('returns the manifest entry for an id', () => {
    const entry = authority.contract('domain:devices.disable');
    assert.equal(entry?.token, manifest.contracts['domain:devices.disable'].token);
    assert.equal(entry?.contract.timeoutMs, 10000);
    assert.equal(authority.contract('domain:nope'), undefined);
    assert.equal(authority.kind, 'compiler');
  });

  it('admits a contract with its token, in any key order and with defaults omitted or spelled out', () => {
    const token = manifest.contracts['domain:devices.disable'].token;
    for (const declared of [
      disable,
      { ...disable, timeoutMs: 10000, untrustedOutput: false },
      Object.fromEntries(Object.entries(disable).reverse()),
    ]) {
      const admission = authority.admit(declared as CapabilityContract, token);
      assert.equal(admission.ok, true);
      if (admission.ok) {
        assert.equal(admission.token, token);
        assert.equal(admission.contract.id, 'domain:devices.disable');
        assert.ok(Object.isFrozen(admission.contract.inputSchema));
      }
    }
  });

  it('validates input and output synchronously with JSON-pointer issues', () => {
    const admission = authority.admit(disable, manifest.contracts['domain:devices.disable'].token);
    assert.ok(admission.ok);
    assert.deepEqual(sync(admission.validateInput({ ids: ['a'], mode: 'soft' })), { valid: true });
    const bad = sync(admission.validateInput({ mode: 'medium', extra: 1, 'a/b~c': {} }));
    assert.equal(bad.valid, false);
    const issues = bad.valid ? [] : bad.issues;
    assert.deepEqual(issues.map((i) => [i.path, i.keyword]).sort(), [
      ['/a~1b~0c/n', 'required'],
      ['/extra', 'additionalProperties'],
      ['/ids', 'required'],
      ['/mode', 'enum'],
    ]);
    assert.match(issues.find((i) => i.keyword === 'enum')!.message, /"soft", "hard"/);
    assert.equal(issues.find((i) => i.keyword === 'required' && i.path === '/ids')!.message, 'is required');
    const typeIssue = sync(admission.validateInput({ ids: [1] }));
    assert.deepEqual(typeIssue, {
      valid: false,
      issues: [{ path: '/ids/0', message: 'must be string', keyword: 'type' }],
    });
    assert.ok(admission.validateOutput);
    assert.deepEqual(sync(admission.validateOutput!({ disabled: 2 })), { valid: true });
    assert.equal(sync(admission.validateOutput!({ disabled: 'two' })).valid, false);

    const observation = authority.admit(rows, manifest.contracts['view:devices.table.rows'].token);
    assert.ok(observation.ok);
    assert.equal(observation.validateOutput, undefined);
    assert.deepEqual(sync(observation.validateInput({})), { valid: true });
    assert.equal(sync(observation.validateInput({ x: 1 })).valid, false);
  });

  it('refuses a missing token', () => {
    for (const token of [undefined, null, '']) {
      const r = authority.admit(disable, token);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.code, 'UNAUTHORIZED_CONTRACT');
        assert.equal(r.error.details?.reason, 'missing-token');
        assert.equal(r.code, 'UNAUTHORIZED_CONTRACT');
        assert.equal(r.reason, 'missing-token');
        assert.match(r.error.message, /"domain:devices\.disable" has no token/);
      }
    }
  });

  it('refuses a token this build did not issue', () => {
    const stale = authority.admit(disable, 'sha256-' + 'A'.repeat(43));
    assert.ok(!stale.ok);
    assert.equal(stale.error.details?.reason, 'unknown-token');
    assert.equal(stale.reason, 'unknown-token');
    assert.equal(stale.error.details?.inManifest, true);
    const unknownId = authority.admit({ ...disable, id: 'domain:devices.erase' }, 'garbage');
    assert.ok(!unknownId.ok);
    assert.equal(unknownId.error.details?.reason, 'unknown-token');
    assert.match(unknownId.error.message, /not in this build's manifest/);
  });

  it('refuses the token of another contract', () => {
    const r = authority.admit(rows, manifest.contracts['domain:devices.disable'].token);
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'UNAUTHORIZED_CONTRACT');
    assert.equal(r.error.details?.reason, 'token-of-another-contract');
    assert.equal(r.error.details?.tokenOf, 'domain:devices.disable');
  });

  it("refuses a contract that differs from the manifest's, naming the fields", () => {
    const token = manifest.contracts['domain:devices.disable'].token;
    const changes: Array<[Partial<CapabilityContract>, string]> = [
      [{ description: 'Disable devices quietly.' }, 'description'],
      [{ confirmation: 'never' }, 'confirmation'],
      [{ effect: 'server-mutation' }, 'effect'],
      [{ outputSchema: undefined }, 'outputSchema'],
      [{ inputSchema: { type: 'object' } }, 'inputSchema'],
      [{ untrustedOutput: true }, 'untrustedOutput'],
      [{ timeoutMs: 99 }, 'timeoutMs'],
      [{ concurrency: 'parallel' }, 'concurrency'],
    ];
    for (const [patch, field] of changes) {
      const r = authority.admit({ ...disable, ...patch }, token);
      assert.ok(!r.ok, field);
      assert.equal(r.error.code, 'UNAUTHORIZED_CONTRACT');
      assert.equal(r.error.details?.reason, 'contract-differs');
      assert.deepEqual(r.error.details?.fields, [field]);
      assert.match(r.error.message, new RegExp(`differs.*${field}`));
    }
  });

  it('admits a contract object again only while it still equals the manifest (mutable, frozen at the top, frozen all the way down)', () => {
    const token = manifest.contracts['domain:devices.disable'].token;
    const admit = (c: object) => authority.admit(c as CapabilityContract, token);
    // A plain object admitted once and then changed is compared again, and refused.
    const mutable = structuredClone(disable) as CapabilityContract & { inputSchema: JsonObject };
    assert.equal(admit(mutable).ok, true);
    (mutable.inputSchema.required as string[]).push('mode');
    const changed = admit(mutable);
    assert.ok(!changed.ok);
    assert.deepEqual(changed.error.details?.fields, ['inputSchema']);
    // Frozen only at the top: a nested schema can still change.
    const shallow = Object.freeze(structuredClone(disable)) as CapabilityContract & { inputSchema: JsonObject };
    assert.equal(admit(shallow).ok, true);
    (shallow.inputSchema.required as string[]).push('mode');
    assert.equal(admit(shallow).ok, false);
    // Frozen all the way down: admitted every time, by the same admission.
    const frozen = deepFreezeForTest(structuredClone(disable));
    const first = admit(frozen);
    assert.equal(first.ok, true);
    for (let i = 0; i < 3; i++) assert.equal(admit(frozen), first);
    // What registers is the manifest's own contract, never the object the caller passed.
    assert.ok(first.ok);
    assert.equal(first.contract, authority.contract('domain:devices.disable')!.contract);
    // The manifest's own object, then the frozen copy again: each admitted alike.
    assert.equal(admit(first.contract), first);
    assert.equal(admit(frozen), first);
    // The same object under another contract's token is still refused.
    const other = authority.admit(frozen as CapabilityContract, manifest.contracts['view:devices.table.rows'].token);
    assert.ok(!other.ok);
    assert.equal(other.error.details?.reason, 'token-of-another-contract');
  });

  it('refuses an invalid contract with INVALID_CONTRACT before looking at tokens', () => {
    const r = authority.admit(
      { ...disable, description: '' },
      manifest.contracts['domain:devices.disable'].token,
    );
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'INVALID_CONTRACT');
    assert.equal(r.error.details?.capabilityId, 'domain:devices.disable');
    const notObject = authority.admit(null as unknown as CapabilityContract, 'x');
    assert.ok(!notObject.ok);
    assert.equal(notObject.error.code, 'INVALID_CONTRACT');
  });

  it("throws at creation for a manifest that is not the compiler's", () => {
    const entry = manifest.contracts['domain:devices.disable'];
    const bad: Array<[unknown, RegExp]> = [
      [{}, /manifest` is missing/],
      [{ manifest: { ...manifest, format: 'x' }, validators }, /format/],
      [
        {
          manifest: { ...manifest, contracts: { 'domain:devices.disable': { ...entry, token: 'x' } } },
          validators,
        },
        /token is not a contract token/,
      ],
      [
        { manifest: { ...manifest, contracts: { 'domain:other': entry } }, validators },
        /holds the contract of/,
      ],
      [
        {
          manifest: {
            ...manifest,
            contracts: {
              'domain:devices.disable': {
                ...entry,
                contract: { ...entry.contract, confirmation: undefined },
              },
            },
          },
          validators,
        },
        /not normalized/,
      ],
      [
        {
          manifest: {
            ...manifest,
            contracts: {
              'domain:devices.disable': { ...entry, contract: { ...entry.contract, description: '' } },
            },
          },
          validators,
        },
        /not a valid contract/,
      ],
      [{ manifest, validators: {} }, /validators\["domain:devices\.disable"\]\.input is missing/],
      [
        {
          manifest,
          validators: {
            ...validators,
            'domain:devices.disable': { input: validators['domain:devices.disable'].input },
          },
        },
        /output does not match/,
      ],
    ];
    for (const [options, message] of bad) {
      assert.throws(
        () => createCompilerAuthority(options as never),
        (e: unknown) =>
          e instanceof TypeError && message.test(e.message) && /agent-surface compile/.test(e.message),
      );
    }
  });
});

describe('devAuthority', () => {
  it('validates through a lazily loaded interpreter: a Promise first, synchronous once loaded', async () => {
    const dev = devAuthority();
    const warn = console.warn;
    console.warn = () => {};
    let admission;
    try {
      admission = dev.admit(disable, undefined);
    } finally {
      console.warn = warn;
    }
    assert.ok(admission.ok);
    const first = admission.validateInput({ ids: ['a'] });
    assert.ok(first instanceof Promise, 'the first call waits for @cfworker/json-schema');
    assert.deepEqual(await first, { valid: true });
    const second = sync(admission.validateInput({ mode: 'medium', extra: 1, ids: [1], 'a/b~c': {} }));
    assert.equal(second.valid, false);
    assert.deepEqual((second.valid ? [] : second.issues).map((i) => [i.path, i.keyword]).sort(), [
      ['/a~1b~0c/n', 'required'],
      ['/extra', 'additionalProperties'],
      ['/ids/0', 'type'],
      ['/mode', 'enum'],
    ]);
    assert.deepEqual(sync(admission.validateOutput!({ disabled: 1 })), { valid: true });
    assert.equal(sync(admission.validateOutput!({})).valid, false);
  });

  it('admits any valid contract, warns once per capability id, refuses invalid ones', () => {
    const dev = devAuthority();
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (message: string) => warnings.push(message);
    try {
      assert.equal(dev.admit(disable, null).ok, true);
      assert.equal(dev.admit({ ...disable, description: 'Changed.' }, 'sha256-whatever').ok, true);
      assert.equal(dev.admit(rows, undefined).ok, true);
      const invalid = dev.admit({ ...rows, effect: 'destructive' }, undefined);
      assert.ok(!invalid.ok);
      assert.equal(invalid.error.code, 'INVALID_CONTRACT');
    } finally {
      console.warn = warn;
    }
    assert.equal(warnings.length, 2);
    assert.match(warnings[0], /"domain:devices\.disable".*without compile-time authorization/);
    assert.match(warnings[1], /"view:devices\.table\.rows"/);
    assert.equal(dev.kind, 'dev');
    assert.equal(dev.contract('domain:devices.disable')?.contract.description, 'Changed.');
    assert.equal(dev.contract('domain:devices.disable')?.token, 'sha256-whatever');
    assert.equal(dev.contract('view:devices.table.rows')?.token, 'dev-unauthorized');
    assert.equal(dev.contract('domain:none'), undefined);
  });

  it('agrees with the compiled validators on draft-07 schemas', async () => {
    const c: CapabilityContract = {
      id: 'domain:d7',
      kind: 'action',
      effect: 'read',
      description: 'Draft 07.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { n: { type: 'number', maximum: 3 } },
        dependencies: { n: ['m'] },
      },
    };
    const compiled = await compileContracts([c]);
    const prod = createCompilerAuthority(compiled).admit(c, compiled.manifest.contracts['domain:d7'].token);
    const warn = console.warn;
    console.warn = () => {};
    const dev = devAuthority().admit(c, null);
    console.warn = warn;
    assert.ok(prod.ok && dev.ok);
    const inputs: JsonObject[] = [{}, { n: 1, m: 0 }, { n: 4, m: 0 }, { n: 1 }];
    for (const input of inputs) {
      const a = sync(prod.validateInput(input));
      const b: ValidationOutcome = await dev.validateInput(input);
      assert.equal(a.valid, b.valid, JSON.stringify(input));
      if (!a.valid && !b.valid)
        assert.deepEqual(
          a.issues.map((i) => i.path),
          b.issues.map((i) => i.path),
          JSON.stringify(input),
        );
    }
  });
});

describe('issue mapping', () => {
  it('puts the property into the path for required / additionalProperties (ajv)', () => {
    assert.deepEqual(
      issuesFromAjvErrors([
        {
          instancePath: '/x',
          keyword: 'required',
          params: { missingProperty: 'a/b' },
          message: "must have required property 'a/b'",
        },
        {
          instancePath: '',
          keyword: 'additionalProperties',
          params: { additionalProperty: '~' },
          message: 'must NOT have additional properties',
        },
        {
          instancePath: '',
          keyword: 'if',
          params: { failingKeyword: 'then' },
          message: 'must match "then" schema',
        },
        { instancePath: '/n', keyword: 'maximum', params: { limit: 3 }, message: 'must be <= 3' },
      ]),
      [
        { path: '/x/a~1b', message: 'is required', keyword: 'required' },
        { path: '/~0', message: 'is not an allowed property', keyword: 'additionalProperties' },
        { path: '/n', message: 'must be <= 3', keyword: 'maximum' },
      ],
    );
    assert.deepEqual(issuesFromAjvErrors(null), [{ path: '', message: 'does not match the schema' }]);
  });

  it('decodes cfworker locations and keeps only leaf errors', () => {
    assert.deepEqual(
      issuesFromCfworkerErrors([
        {
          instanceLocation: '#',
          keyword: 'properties',
          keywordLocation: '#/properties',
          error: 'Property "a b" does not match schema.',
        },
        {
          instanceLocation: '#/a%20b',
          keyword: 'type',
          keywordLocation: '#/properties/a%20b/type',
          error: 'Instance type "number" is invalid. Expected "string".',
        },
        {
          instanceLocation: '#/x',
          keyword: 'anyOf',
          keywordLocation: '#/properties/x/anyOf',
          error: 'Instance does not match any subschemas.',
        },
        {
          instanceLocation: '#/x',
          keyword: 'type',
          keywordLocation: '#/properties/x/anyOf/0/type',
          error: 'Instance type "null" is invalid.',
        },
      ]),
      [
        { path: '/a b', message: 'Instance type "number" is invalid. Expected "string".', keyword: 'type' },
        { path: '/x', message: 'Instance does not match any subschemas.', keyword: 'anyOf' },
      ],
    );
  });
});
