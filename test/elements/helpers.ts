// Shared set-up for the element tests: a consumer, snapshot shorthands, the compiled fixture
// authority and a console spy.
import { aTimeout } from '@open-wc/testing';
import { createCompilerAuthority } from '../../src/core/authority.js';
import type { AgentConsumer, AgentSurfaceRegistry } from '../../src/core/types.js';
import { manifest, validators } from './fixtures/contracts.js';

export const consumer: AgentConsumer = { id: 'test-agent', kind: 'test' };

const KIT_TAGS = 'agent-surface, agent-view, agent-capability, agent-confirm, agent-webmcp';

/**
 * Lets lit updates, context callbacks, lazily loaded modules (the markup reader) and the registry's
 * coalesced events run: waits until no element of the kit in the document has an update pending or
 * a registration on its way (each `updateComplete` covers both), however long the machine takes.
 */
export async function settle(): Promise<void> {
  await aTimeout(0);
  for (;;) {
    const elements = [...document.querySelectorAll(KIT_TAGS)] as unknown as { updateComplete?: Promise<unknown>; isUpdatePending?: boolean }[];
    await Promise.all(elements.map((el) => el.updateComplete));
    // The registry tells its listeners once per microtask batch; a macrotask lets them all run.
    await aTimeout(0);
    if (!elements.some((el) => el.isUpdatePending)) break;
  }
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
