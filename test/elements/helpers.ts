// Shared set-up for the element tests: a consumer, snapshot shorthands, the compiled fixture
// authority and a console spy.
import { aTimeout } from '@open-wc/testing';
import { createCompilerAuthority } from '../../src/core/authority.js';
import type { AgentConsumer, AgentSurfaceRegistry } from '../../src/core/types.js';
import { manifest, validators } from './fixtures/contracts.js';

export const consumer: AgentConsumer = { id: 'test-agent', kind: 'test' };

/** Lets lit updates, context callbacks and the registry's coalesced events run. */
export async function settle(): Promise<void> {
  await aTimeout(0);
  await aTimeout(0);
}

/** `capabilityId` (with `@instanceId` when there is one) of every capability an agent would see, sorted. */
export function visibleIds(registry: AgentSurfaceRegistry | undefined): string[] {
  if (!registry) return [];
  return registry
    .snapshot({ consumer })
    .capabilities.map((c) =>
      c.instanceId === undefined ? c.capabilityId : `${c.capabilityId}@${c.instanceId}`,
    )
    .sort();
}

export function compiledAuthority() {
  return createCompilerAuthority({ manifest, validators });
}

export function tokenOf(id: string): string {
  const entry = manifest.contracts[id];
  if (!entry) throw new Error(`fixture has no contract ${id}`);
  return entry.token;
}

/** Records console.error / console.warn calls until `restore()`. */
export function spyConsole(method: 'error' | 'warn') {
  const original = console[method];
  const messages: string[] = [];
  console[method] = (...args: unknown[]) => {
    messages.push(args.map(String).join(' '));
  };
  return {
    messages,
    restore() {
      console[method] = original;
    },
  };
}

let n = 0;
export function invocationId(): string {
  n += 1;
  return `inv-${n}-${Math.random().toString(36).slice(2)}`;
}
