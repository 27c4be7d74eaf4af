// Model-based test of confirmations (fast-check commands): random sequences of invoke, approve,
// deny, expire and retry. Whatever the sequence, a handler never runs without a matching approval
// and never twice for one approval, and the registry answers exactly as the model predicts.
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AgentInvocationResult } from '../../src/core/types.js';
import { createTestSurface, type TestSurface } from '../../src/testing/index.js';
import { idSchema, quietConsole } from './registry-helpers.js';

const TTL = 1000;
const MAX_PENDING = 4;
const CAPABILITY = 'domain:devices.wipe';

type Status = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';

interface RecordModel {
  confirmationId: string;
  invocationId: string;
  input: string;
  status: Status;
  expiresAt: number;
}

interface Model {
  now: number;
  records: RecordModel[];
  /** Invocations whose handler ran: invocationId → input. */
  ran: Map<string, string>;
  nextInvocation: number;
}

interface Real {
  surface: TestSurface;
  /** Every handler run: invocationId and input. */
  runs: { invocationId: string; input: string }[];
}

function pendingCount(m: Model): number {
  return m.records.filter((r) => r.status === 'pending').length;
}

function code(result: AgentInvocationResult): string {
  return result.ok ? 'OK' : result.error.code;
}

function invoke(real: Real, invocationId: string, input: string, confirmationId?: string): Promise<AgentInvocationResult> {
  return real.surface.invoke(CAPABILITY, { id: input }, confirmationId === undefined ? { invocationId } : { invocationId, confirmationId });
}

/** After the registry said CONFIRMATION_REQUIRED for a fresh ask: record it in the model. */
function expectNewRecord(m: Model, result: AgentInvocationResult, invocationId: string, input: string): void {
  if (pendingCount(m) >= MAX_PENDING) {
    assert.equal(code(result), 'RATE_LIMITED');
    return;
  }
  assert.equal(code(result), 'CONFIRMATION_REQUIRED');
  const confirmationId = String(!result.ok && result.error.details?.confirmationId);
  assert.ok(!m.records.some((r) => r.confirmationId === confirmationId), 'a new record has a new id');
  m.records.push({ confirmationId, invocationId, input, status: 'pending', expiresAt: m.now + TTL });
}

/** The checks that hold after every command. */
function invariants(m: Model, real: Real): void {
  // Never without an approval, never twice: each run is one consumed record of that very request.
  const counts = new Map<string, number>();
  for (const run of real.runs) counts.set(run.invocationId, (counts.get(run.invocationId) ?? 0) + 1);
  for (const [invocationId, n] of counts) assert.equal(n, 1, `${invocationId} ran ${n} times`);
  const consumed = m.records.filter((r) => r.status === 'consumed');
  assert.equal(real.runs.length, consumed.length);
  for (const run of real.runs) {
    assert.ok(
      consumed.some((r) => r.invocationId === run.invocationId && r.input === run.input),
      `run ${run.invocationId} has no matching approval`,
    );
  }
  const pending = real.surface.registry.confirmations.list().map((p) => p.confirmationId);
  assert.deepEqual(pending, m.records.filter((r) => r.status === 'pending').map((r) => r.confirmationId));
}

class Ask implements fc.AsyncCommand<Model, Real> {
  constructor(readonly input: string) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, real: Real): Promise<void> {
    const invocationId = `inv-${++m.nextInvocation}`;
    expectNewRecord(m, await invoke(real, invocationId, this.input), invocationId, this.input);
    invariants(m, real);
  }
  toString(): string {
    return `ask(${this.input})`;
  }
}

/** The same request again without a confirmationId. */
class AskAgain implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check(m: Readonly<Model>): boolean {
    return m.records.length > 0;
  }
  async run(m: Model, real: Real): Promise<void> {
    const record = m.records[this.pick % m.records.length];
    const result = await invoke(real, record.invocationId, record.input);
    if (m.ran.has(record.invocationId)) {
      assert.equal(code(result), 'OK', 'a finished call answers from the cache');
    } else {
      const open = m.records.find((r) => r.status === 'pending' && r.invocationId === record.invocationId && r.input === record.input);
      if (open) {
        assert.equal(code(result), 'CONFIRMATION_REQUIRED');
        assert.equal(!result.ok && result.error.details?.confirmationId, open.confirmationId, 'the same prompt, not a new one');
      } else {
        expectNewRecord(m, result, record.invocationId, record.input);
      }
    }
    invariants(m, real);
  }
  toString(): string {
    return `askAgain(#${this.pick})`;
  }
}

class Decide implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly approve: boolean,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.records.length > 0;
  }
  async run(m: Model, real: Real): Promise<void> {
    const record = m.records[this.pick % m.records.length];
    const api = real.surface.registry.confirmations;
    const answer = this.approve ? api.approve(record.confirmationId) : api.deny(record.confirmationId, 'no');
    assert.equal(answer, record.status === 'pending', `${this.approve ? 'approve' : 'deny'} of a ${record.status} record`);
    if (answer) {
      record.status = this.approve ? 'approved' : 'denied';
      if (this.approve) record.expiresAt = m.now + TTL;
    }
    invariants(m, real);
  }
  toString(): string {
    return `${this.approve ? 'approve' : 'deny'}(#${this.pick})`;
  }
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, real: Real): Promise<void> {
    mock.timers.tick(this.ms);
    m.now += this.ms;
    for (const r of m.records) {
      if ((r.status === 'pending' || r.status === 'approved') && m.now >= r.expiresAt) r.status = 'expired';
    }
    invariants(m, real);
  }
  toString(): string {
    return `advance(${this.ms})`;
  }
}

type RetryVariant = 'same' | 'other-input' | 'other-invocation';

/** A retry carrying a confirmationId. */
class Retry implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly variant: RetryVariant,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.records.length > 0;
  }
  async run(m: Model, real: Real): Promise<void> {
    const record = m.records[this.pick % m.records.length];
    const invocationId = this.variant === 'other-invocation' ? `inv-${++m.nextInvocation}` : record.invocationId;
    const input = this.variant === 'other-input' ? `${record.input}-changed` : record.input;
    const result = await invoke(real, invocationId, input, record.confirmationId);
    const ranInput = m.ran.get(invocationId);
    if (ranInput !== undefined) {
      // The invocation finished before: the store answers, the handler does not run again.
      assert.equal(code(result), ranInput === input ? 'OK' : 'INVOCATION_CONFLICT');
    } else if (this.variant !== 'same') {
      assert.equal(code(result), 'CONFIRMATION_INVALID');
      assert.equal(!result.ok && result.error.details?.reason, 'mismatch');
    } else {
      switch (record.status) {
        case 'approved':
          assert.equal(code(result), 'OK');
          record.status = 'consumed';
          m.ran.set(invocationId, input);
          break;
        case 'pending':
          assert.equal(code(result), 'CONFIRMATION_REQUIRED');
          break;
        case 'denied':
        case 'expired':
          assert.equal(code(result), 'CONFIRMATION_INVALID');
          assert.equal(!result.ok && result.error.details?.reason, record.status);
          break;
        default:
          assert.fail(`a consumed record's invocation must have run (${record.confirmationId})`);
      }
    }
    invariants(m, real);
  }
  toString(): string {
    return `retry(#${this.pick}, ${this.variant})`;
  }
}

describe('model: confirmations', () => {
  it('no handler runs without a matching approval, none twice for one approval', async () => {
    quietConsole();
    const inputs = fc.constantFrom('d1', 'd2', 'd3');
    const commands = [
      inputs.map((i) => new Ask(i)),
      fc.nat().map((p) => new AskAgain(p)),
      fc.tuple(fc.nat(), fc.boolean()).map(([p, approve]) => new Decide(p, approve)),
      fc.constantFrom(100, 400, 999, 1000, 1500).map((ms) => new Advance(ms)),
      fc.tuple(fc.nat(), fc.constantFrom<RetryVariant>('same', 'same', 'other-input', 'other-invocation')).map(([p, v]) => new Retry(p, v)),
    ];
    // Load the dev authority's interpreter before time is mocked.
    const warm = createTestSurface();
    warm.action('domain:warm.up', () => null, { inputSchema: idSchema });
    await warm.invoke('domain:warm.up', { id: 'x' });
    warm.dispose();

    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (cmds) => {
        mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
        const surface = createTestSurface({ limits: { confirmationTtlMs: TTL, maxPendingConfirmations: MAX_PENDING } });
        const real: Real = { surface, runs: [] };
        surface.action(CAPABILITY, (input, ctx) => {
          real.runs.push({ invocationId: ctx.invocationId, input: String(input.id) });
          return { wiped: input.id };
        }, { effect: 'server-mutation', confirmation: 'required', inputSchema: idSchema });
        try {
          await fc.asyncModelRun(() => ({ model: { now: 0, records: [], ran: new Map(), nextInvocation: 0 }, real }), cmds);
        } finally {
          surface.dispose();
          mock.timers.reset();
        }
      }),
      { numRuns: 200 },
    );
  });
});
