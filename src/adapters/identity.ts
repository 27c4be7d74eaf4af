/**
 * The id and label each adapter factory gives its adapter when the options name none, and the
 * local adapter's first status (its device check), in a module of their own: the lazy factories of
 * the chat's CDN file (./lazy.ts) answer them before the adapter's code has loaded, and must answer
 * what the real adapter will.
 */
import type { AdapterStatus } from '../chat/types.js';

interface Named {
  id?: string;
  label?: string;
}

export const trimBase = (url: string): string => String(url).replace(/\/+$/, '');

export const openAIIdentity = (o: Named & { baseUrl: string; model: string }) => ({
  id: o.id ?? `openai-compatible:${trimBase(o.baseUrl)}:${o.model}`,
  label: o.label ?? o.model,
});

export const anthropicIdentity = (o: Named & { model: string }) => ({ id: o.id ?? `anthropic:${o.model}`, label: o.label ?? o.model });

export const cloudIdentity = (o: Named & { endpoint: string }) => ({ id: o.id ?? `cloud:${o.endpoint}`, label: o.label ?? 'Cloud' });

export const localIdentity = (o: Named) => ({ id: o.id ?? 'local', label: o.label ?? 'On this device' });

/** The local adapter's status while it checks what this device can run: not a connection check, so worded. */
export const DEVICE_CHECK: AdapterStatus = { state: 'loading', note: 'Checking what this device can run…' };
