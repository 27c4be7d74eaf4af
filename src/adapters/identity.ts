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

/**
 * A required option that is not a non-empty string, or the server's URL (the option named `url`)
 * written without a scheme, is the programmer's mistake: thrown at once, by the lazy factories too.
 */
const need = (factory: string, o: object | undefined, url: string, ...keys: string[]) => {
  for (const k of keys)
    if (typeof (o as Record<string, unknown> | undefined)?.[k] !== 'string' || !(o as Record<string, string>)[k]) throw new TypeError(`${factory}: ${k} must be a non-empty string.`);
  hasScheme(factory, url, (o as Record<string, unknown> | undefined)?.[url]);
};

/**
 * A URL written as host:port (`localhost:11434/v1`, the way OLLAMA_HOST is) has no scheme: fetch reads
 * `localhost:` as one and fails as an unreachable server, so it is refused at once, saying what to write.
 */
export const hasScheme = (factory: string, name: string, url: unknown) => {
  if (typeof url === 'string' && /^[\w.-]+:\d/.test(url)) throw new TypeError(`${factory}: ${name} "${url}" has no scheme: write http://${url}.`);
};

export const openAIIdentity = (o: Named & { baseUrl: string; model: string }) => (
  need('createOpenAICompatibleAdapter', o, 'baseUrl', 'baseUrl', 'model'), { id: o.id ?? `openai-compatible:${trimBase(o.baseUrl)}:${o.model}`, label: o.label ?? o.model }
);

export const anthropicIdentity = (o: Named & { model: string }) => (need('createAnthropicAdapter', o, 'baseUrl', 'model'), { id: o.id ?? `anthropic:${o.model}`, label: o.label ?? o.model });

/** The server's agent is part of the default id and label: two adapters on one route for two agents are two choices. */
export const cloudIdentity = (o: Named & { endpoint: string; agent?: string }) => (
  need('createCloudAdapter', o, 'endpoint', 'endpoint'), { id: o.id ?? `cloud:${o.endpoint}${o.agent ? `#${o.agent}` : ''}`, label: o.label ?? (o.agent ? `Cloud (${o.agent})` : 'Cloud') }
);

export const localIdentity = (o: Named) => ({ id: o.id ?? 'local', label: o.label ?? 'On this device' });

/** The local adapter's status while it checks what this device can run: not a connection check, so worded. */
export const DEVICE_CHECK: AdapterStatus = { state: 'loading', note: 'Checking what this device can run…' };
