// Shared pieces of the local adapter's browser tests.
import { sendMouse } from '@web/test-runner-commands';
import { waitUntil } from '../until.js';
import type { AdapterStatus, AgentStreamPart } from '../../src/chat/types.js';
import type { LocalAdapter } from '../../src/adapters/local/index.js';
import { fixture, html } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { InvocationEvent, JsonObject } from '../../src/core/types.js';
import '../../src/elements/index.js';
import type { AgentConfirmElement } from '../../src/elements/index.js';

export const WASM_URL = '/node_modules/@wllama/wllama/esm/wasm/wllama.wasm';

export async function modelInfo(): Promise<Record<string, number>> {
  return (await fetch('/__models/info')).json();
}

export async function hits(): Promise<Record<string, number>> {
  return (await fetch('/__models/stats')).json();
}

export const resetHits = () => fetch('/__models/reset');

let n = 0;
/** A Cache Storage name no other test uses (and an empty cache under it). */
export async function freshCacheName(): Promise<string> {
  const name = `test-models-${Date.now()}-${n++}`;
  await caches.delete(name);
  return name;
}

/** Every status the adapter reports from now on. */
export function recordStatuses(adapter: LocalAdapter): AdapterStatus[] {
  const seen: AdapterStatus[] = [adapter.status()];
  adapter.subscribe(() => seen.push(adapter.status()));
  return seen;
}

export async function settled(adapter: LocalAdapter): Promise<AdapterStatus> {
  await waitUntil(() => adapter.status().state !== 'loading' || adapter.status().hasOwnProperty('progress'), 'the adapter never finished its checks', { timeout: 20000 });
  return adapter.status();
}

/** A real button that the test clicks with a real (trusted) mouse event. */
export function button(label: string, onClick: (event: MouseEvent) => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.textContent = label;
  b.style.cssText = 'position:fixed;left:10px;top:10px;width:160px;height:40px;z-index:10';
  b.addEventListener('click', onClick);
  document.body.append(b);
  return b;
}

export async function trustedClick(element: Element): Promise<void> {
  const box = element.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(box.left + box.width / 2), Math.round(box.top + box.height / 2)] });
}

/** The adapter as <agent-chat> gets it, with every part its runs yield recorded in `parts`. */
export function recording(adapter: LocalAdapter): { adapter: LocalAdapter; parts: AgentStreamPart[] } {
  const parts: AgentStreamPart[] = [];
  const run = (req: Parameters<LocalAdapter['run']>[0]) =>
    (async function* () {
      for await (const p of adapter.run(req)) {
        parts.push(p);
        yield p;
      }
    })();
  return { adapter: { ...adapter, run }, parts };
}

export async function collect(parts: AsyncIterable<AgentStreamPart>): Promise<AgentStreamPart[]> {
  const out: AgentStreamPart[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

/** Each model request the test server saw since the last reset. */
export async function serverRequests(): Promise<Array<{ path: string; range?: string; ifRange?: string; status?: number; cut?: boolean }>> {
  return (await fetch('/__models/requests')).json();
}

/**
 * A page with one destructive capability (`notes.wipe`, confirmation required) and an
 * `<agent-confirm>`: the registry, the handler's inputs, the dialog and the audit trail.
 */
export async function notesWipePage() {
  const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
  const ran: JsonObject[] = [];
  const surface = await fixture(html`<agent-surface .registry=${registry}>
    <agent-capability
      name="notes.wipe"
      effect="destructive"
      confirmation="required"
      description="Delete every note in one folder."
      .handler=${(input: JsonObject) => {
        ran.push(input);
        return { wiped: 3, folder: input.folder };
      }}
    >
      <script type="application/schema+json">
        { "type": "object", "properties": { "folder": { "enum": ["drafts", "trash"] } }, "required": ["folder"], "additionalProperties": false }
      </script>
    </agent-capability>
    <agent-confirm activation-delay="100"></agent-confirm>
  </agent-surface>`);
  const confirm = surface.querySelector<AgentConfirmElement>('agent-confirm')!;
  const audit: InvocationEvent[] = [];
  registry.on('invocation', (e) => audit.push(e as InvocationEvent));
  return { registry, ran, confirm, audit };
}

/**
 * One Download button, as a download card has: a real click starts `prepare`, and `cancel()`
 * clicks it again and resolves with the error `prepare` ended with (an AbortError when it stopped).
 */
export async function startDownload(adapter: LocalAdapter): Promise<{ button: HTMLButtonElement; cancel(): Promise<unknown> }> {
  let controller: AbortController | undefined;
  let prepared: Promise<void> | undefined;
  const b = button('Download', () => {
    if (controller) return controller.abort();
    controller = new AbortController();
    prepared = adapter.prepare(controller.signal);
    prepared.catch(() => {});
  });
  await trustedClick(b);
  return {
    button: b,
    async cancel() {
      await trustedClick(b);
      let failure: unknown;
      await prepared!.catch((e) => (failure = e));
      return failure;
    },
  };
}

/**
 * A fresh start for one test: the server's counts reset, an empty cache, the adapter `make` builds
 * on it, and its device check done (`status`, what it settled on).
 */
export async function freshAdapter(make: (cacheName: string) => LocalAdapter): Promise<{ cacheName: string; adapter: LocalAdapter; status: AdapterStatus }> {
  await resetHits();
  const cacheName = await freshCacheName();
  const adapter = make(cacheName);
  return { cacheName, adapter, status: await settled(adapter) };
}

/**
 * WebCrypto's digest, held: `hashing` resolves once a digest is asked for, which then waits for
 * `release()`; `restore()` puts the browser's own back (call it in a `finally`).
 */
export function holdDigest(): { hashing: Promise<void>; release(): void; restore(): void } {
  const digest = crypto.subtle.digest;
  let started!: () => void;
  let release!: () => void;
  const hashing = new Promise<void>((r) => (started = r));
  const gate = new Promise<void>((r) => (release = r));
  Object.defineProperty(crypto.subtle, 'digest', {
    configurable: true,
    value: async (...a: Parameters<SubtleCrypto['digest']>) => (started(), await gate, digest.apply(crypto.subtle, a)),
  });
  return { hashing, release, restore: () => void delete (crypto.subtle as { digest?: unknown }).digest };
}
