import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const src = (path: string) => JSON.stringify(pathToFileURL(`${root}src/${path}`).href);

/**
 * A child process that leaves a registry behind with every kind of timer armed: a pending
 * confirmation (TTL 10 minutes), an approved one, and the deadline timer of an async call that
 * already settled (timeout 10 minutes). It never calls dispose(); it must still exit by itself.
 */
const CHILD = `
const { createAgentSurfaceRegistry } = await import(${src('core/registry.ts')});
const { devAuthority } = await import(${src('core/authority.ts')});
console.warn = () => {};
const registry = createAgentSurfaceRegistry({ authority: devAuthority(), limits: { confirmationTtlMs: 600000 } });
const consumer = { id: 'child', kind: 'test' };
const base = { kind: 'action', effect: 'local-state', description: 'Child capability.' };
registry.register({ contract: { ...base, id: 'domain:child.confirmed', confirmation: 'required' }, token: null, handler: () => 1 });
registry.register({ contract: { ...base, id: 'domain:child.slow', timeoutMs: 600000 }, token: null, handler: async () => 2 });
const ask = (invocationId) => registry.invoke({ capabilityId: 'domain:child.confirmed', invocationId, consumer, input: {} });
const pending = await ask('a');
const approved = await ask('b');
registry.confirmations.approve(approved.error.details.confirmationId);
const slow = await registry.invoke({ capabilityId: 'domain:child.slow', invocationId: 'c', consumer, input: {} });
console.log(JSON.stringify([pending.error.code, approved.error.code, slow.ok, registry.confirmations.list().length]));
`;

/**
 * The other half: a timer someone awaits must hold the process until it fires. Here only a
 * confirmation's TTL (300 ms) can end `waitFor`, and a hung handler's promise only its timeout.
 */
const AWAITING_CHILD = `
const { createAgentSurfaceRegistry } = await import(${src('core/registry.ts')});
const { devAuthority } = await import(${src('core/authority.ts')});
console.warn = () => {};
const registry = createAgentSurfaceRegistry({ authority: devAuthority(), limits: { confirmationTtlMs: 300 } });
const consumer = { id: 'child', kind: 'test' };
const base = { kind: 'action', effect: 'local-state', description: 'Child capability.' };
registry.register({ contract: { ...base, id: 'domain:child.confirmed', confirmation: 'required' }, token: null, handler: () => 1 });
registry.register({ contract: { ...base, id: 'domain:child.hung', timeoutMs: 300 }, token: null, handler: () => new Promise(() => {}) });
const asked = await registry.invoke({ capabilityId: 'domain:child.confirmed', invocationId: 'a', consumer, input: {} });
const outcome = await registry.confirmations.waitFor(asked.error.details.confirmationId);
const hung = await registry.invoke({ capabilityId: 'domain:child.hung', invocationId: 'b', consumer, input: {} });
console.log(JSON.stringify([outcome.status, hung.error.code]));
`;

/**
 * Runs `code` in a child and waits for it to exit by itself. The child starts tsx and compiles the
 * registry first, which takes tens of seconds on a loaded machine; the armed timers are 10 minutes,
 * so a bound of 5 still tells "exited when its work was done" from "held by a timer".
 */
const CHILD_LIMIT_MS = 300_000;

function runChild(code: string): string {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    encoding: 'utf8',
    timeout: CHILD_LIMIT_MS,
  });
  assert.equal(child.error, undefined, `the child did not exit by itself within ${CHILD_LIMIT_MS / 1000} s (${String(child.error)})`);
  assert.equal(child.status, 0, child.stderr);
  return child.stdout.trim();
}

describe('timers in Node', () => {
  it('a confirmation TTL someone awaits, and a running call\'s deadline, keep the process alive until they fire', () => {
    const stdout = runChild(AWAITING_CHILD);
    assert.deepEqual(JSON.parse(stdout), ['expired', 'TIMEOUT']);
  });

  it('a registry that is never disposed does not keep the process alive (confirmation TTLs, call deadlines)', () => {
    // runChild fails unless the child exits well before any armed timer (10 minutes) could fire.
    const stdout = runChild(CHILD);
    assert.deepEqual(JSON.parse(stdout), ['CONFIRMATION_REQUIRED', 'CONFIRMATION_REQUIRED', true, 1]);
  });
});
