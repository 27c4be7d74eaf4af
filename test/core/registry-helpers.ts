// Shared by the registry tests (not a test file itself).
import { mock } from 'node:test';
import type { CapabilityContract, JsonSchema } from '../../src/core/types.js';
import type { AgentInvocationResult } from '../../src/core/types.js';

/** devAuthority warns once per capability on purpose: keep test output readable. */
export function quietConsole(): { errors: unknown[][]; warnings: unknown[][] } {
  const errors: unknown[][] = [];
  const warnings: unknown[][] = [];
  mock.method(console, 'warn', (...args: unknown[]) => warnings.push(args));
  mock.method(console, 'error', (...args: unknown[]) => errors.push(args));
  return { errors, warnings };
}

export const idSchema: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1 } },
  required: ['id'],
  additionalProperties: false,
};

export function contract(id: string, patch: Partial<CapabilityContract> = {}): CapabilityContract {
  return { id, kind: 'action', effect: 'local-state', description: `Does ${id}.`, ...patch };
}

/** A promise with its resolve and reject exposed. */
export function deferred<T = unknown>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function errorCode(result: AgentInvocationResult): string {
  return result.ok ? 'OK' : result.error.code;
}

export function errorOf(result: AgentInvocationResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}
