// Shared pieces of the local adapter's browser tests.
import { sendMouse } from '@web/test-runner-commands';
import { waitUntil } from '../until.js';
import type { AdapterStatus, AgentStreamPart } from '../../src/chat/types.js';
import type { LocalAdapter } from '../../src/adapters/local/index.js';

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

export async function collect(parts: AsyncIterable<AgentStreamPart>): Promise<AgentStreamPart[]> {
  const out: AgentStreamPart[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

/** Each model request the test server saw since the last reset. */
export async function serverRequests(): Promise<Array<{ path: string; range?: string; ifRange?: string; status?: number }>> {
  return (await fetch('/__models/requests')).json();
}
