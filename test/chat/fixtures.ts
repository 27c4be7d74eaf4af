// Shared set-up for the <agent-chat> browser tests: the devices page (a table view, a destructive
// capability that needs the person's approval), the scripted "disable the offline devices" agent,
// and a trusted mouse click.
import { fixture, html } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { sendMouse } from '@web/test-runner-commands';
import { devAuthority } from '../../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceRegistry, JsonObject } from '../../src/core/types.js';
import '../../src/elements/index.js';
import '../../src/chat/index.js';
import { createScriptedAdapter } from '../../src/chat/index.js';
import type { AgentChatElement, Script } from '../../src/chat/index.js';
import type { AgentAdapter } from '../../src/chat/types.js';
import type { AgentSurfaceElement } from '../../src/elements/index.js';

// devAuthority() warns once per capability, on every fixture: expected here, noise in the output.
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].includes('DEV_AUTHORITY')) return;
  warn(...args);
};

export interface Device {
  id: string;
  name: string;
  status: 'online' | 'offline' | 'disabled';
}

export const disableOfflineScript: Script = [
  { text: 'Let me read the **devices** table.' },
  { tool: 'view:devices.rows' },
  (ctx) => {
    const rows = ctx.json() as Device[];
    const ids = rows.filter((r) => r.status === 'offline').map((r) => r.id);
    return [{ tool: 'view:devices.selectRows', input: { ids } }, { tool: 'domain:devices.disable', input: { ids } }];
  },
  (ctx) => ({ text: ctx.last?.isError ? 'The devices were **not** disabled.' : 'Disabled the offline devices.' }),
];

export interface ChatPage {
  surface: AgentSurfaceElement;
  registry: AgentSurfaceRegistry;
  chat: AgentChatElement;
  devices: Device[];
  selected: string[];
}

export async function chatPage(
  options: {
    adapters?: AgentAdapter | AgentAdapter[];
    delay?: number;
    confirm?: boolean;
    script?: Script;
    /** Also project the surface to the page's WebMCP host, with this name prefix. */
    webmcpPrefix?: string;
  } = {},
): Promise<ChatPage> {
  const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
  const devices: Device[] = [
    { id: 'd1', name: 'Lobby camera', status: 'online' },
    { id: 'd2', name: 'Roof sensor', status: 'offline' },
    { id: 'd3', name: 'Gate <b>lock</b>', status: 'offline' },
  ];
  const selected: string[] = [];
  const adapters = options.adapters ?? createScriptedAdapter(options.script ?? disableOfflineScript);
  const surface = await fixture<AgentSurfaceElement>(html`<agent-surface
    .registry=${registry}
    .consumers=${options.webmcpPrefix ? { webmcp: { prefix: options.webmcpPrefix } } : undefined}
  >
    <agent-view name="devices" instance="main">
      <table id="table" style="width: 300px">
        <tbody>
          ${devices.map((d) => html`<tr><td>${d.name}</td><td>${d.status}</td></tr>`)}
        </tbody>
      </table>
      <agent-capability
        name="rows"
        kind="observation"
        effect="read"
        untrusted-output
        description="The devices in the table."
        .read=${() => devices.map((d) => ({ ...d }))}
      ></agent-capability>
      <agent-capability
        name="selectRows"
        effect="local-state"
        description="Select devices in the table by id."
        .handler=${(input: JsonObject) => {
          selected.splice(0, selected.length, ...(input.ids as string[]));
          return { selected: selected.length };
        }}
      >
        <script type="application/schema+json">
          { "type": "object", "properties": { "ids": { "type": "array", "items": { "type": "string" } } }, "required": ["ids"] }
        </script>
      </agent-capability>
    </agent-view>
    <agent-capability
      name="devices.disable"
      effect="destructive"
      confirmation="required"
      description="Disable devices by id."
      .handler=${(input: JsonObject) => {
        for (const d of devices) if ((input.ids as string[]).includes(d.id)) d.status = 'disabled';
        return { disabled: input.ids };
      }}
    >
      <script type="application/schema+json">
        { "type": "object", "properties": { "ids": { "type": "array", "items": { "type": "string" }, "minItems": 1 } }, "required": ["ids"] }
      </script>
    </agent-capability>
    ${options.confirm ? html`<agent-confirm activation-delay="100"></agent-confirm>` : ''}
    ${options.webmcpPrefix ? html`<agent-webmcp consumer="webmcp" prefix=${options.webmcpPrefix}></agent-webmcp>` : ''}
    <agent-chat .adapters=${adapters} activation-delay=${options.delay ?? 100}></agent-chat>
  </agent-surface>`);
  const chat = surface.querySelector('agent-chat')!;
  await waitUntil(() => registry.snapshot({ consumer: { id: 'chat', kind: 'chat' } }).capabilities.length === 3, 'capabilities registered');
  await chat.updateComplete;
  return { surface, registry, chat, devices, selected };
}

export function shadow(chat: AgentChatElement): ShadowRoot {
  return chat.shadowRoot!;
}

export function q<T extends Element = HTMLElement>(chat: AgentChatElement, selector: string): T | null {
  return chat.shadowRoot!.querySelector<T>(selector);
}

export async function trustedClick(element: Element): Promise<void> {
  // Only when needed: scrolling moves an approval's buttons, which restarts their delay.
  const r = element.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) element.scrollIntoView({ block: 'center' });
  const box = element.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(box.left + box.width / 2), Math.round(box.top + box.height / 2)] });
}

/** Waits until the card's button can be clicked (on screen for the activation delay). */
export async function activeButton(chat: AgentChatElement, part: 'approve' | 'deny'): Promise<HTMLButtonElement> {
  await waitUntil(() => q(chat, `[part~="${part}"]`), `${part} button shown`, { timeout: 8000 });
  // In view before the delay runs: a control that moves (a scroll) starts its delay over.
  q(chat, `[part~="${part}"]`)!.scrollIntoView({ block: 'center' });
  await waitUntil(() => q(chat, `[part~="${part}"]`)?.getAttribute('aria-disabled') === 'false', `${part} active`, { timeout: 8000 });
  return q<HTMLButtonElement>(chat, `[part~="${part}"]`)!;
}

export function toolStates(chat: AgentChatElement): string[] {
  const out: string[] = [];
  for (const m of chat.session.messages) for (const p of m.parts) if (p.type === 'tool') out.push(`${p.name}:${p.state}`);
  return out;
}

/** Opens a tool card (a closed card renders only its summary) and waits for the render. */
export async function openCard(chat: AgentChatElement, card: Element): Promise<Element> {
  const details = card.querySelector('details')!;
  if (!details.open) {
    details.open = true;
    await new Promise((r) => details.addEventListener('toggle', r, { once: true }));
  }
  await chat.updateComplete;
  return card;
}
