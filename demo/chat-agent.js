// The demo's chat agent: a scripted adapter (no model, nothing leaves the page). It reads the
// devices table through the page's capabilities, selects rows and calls the destructive
// capability, which waits for the person's click in the chat card. A real model adapter
// (agent-surface-kit/adapters) drops into `chat.adapters` the same way.
import { createScriptedAdapter, defineWebAgent } from './kit.js';

export const fleetAgent = defineWebAgent({
  id: 'fleet',
  instructions:
    'You manage the device fleet shown on this page. Read the devices table before acting; select the devices you act on; disabling needs the person to approve.',
  maxSteps: 6,
});

const help = [
  {
    text:
      "I'm the demo's **scripted** agent: no model, the same steps every time. Try:\n\n" +
      '- *disable the offline devices*\n- *which devices are offline?*\n',
    chunk: 6,
  },
];

const readRows = [{ text: 'Reading the devices table.', chunk: 6 }, { tool: 'view:devices.rows' }];

function rowsOf(ctx) {
  const rows = ctx.json();
  return Array.isArray(rows) ? rows : [];
}

const list = (rows) => rows.map((r) => `- ${r.name} (\`${r.id}\`)`).join('\n');

const listOffline = [
  ...readRows,
  (ctx) => {
    const offline = rowsOf(ctx).filter((r) => r.status === 'offline');
    return {
      text: offline.length ? `${offline.length} offline:\n\n${list(offline)}\n` : 'No device is offline right now.',
      chunk: 6,
    };
  },
];

const disableOffline = [
  ...readRows,
  (ctx) => {
    const offline = rowsOf(ctx).filter((r) => r.status === 'offline');
    if (!offline.length) return { text: 'No device is offline right now: nothing to disable.', chunk: 6 };
    const ids = offline.map((r) => r.id);
    return [
      { text: `Found ${offline.length} offline:\n\n${list(offline)}\n\nSelecting them, then disabling: approve it in the card below.`, chunk: 6 },
      { tool: 'view:devices.selectRows', input: { ids } },
      { tool: 'domain:devices.disable', input: { ids } },
      (after) =>
        after.last?.isError
          ? { text: 'They were **not** disabled (the request was denied or failed; see the card).', chunk: 6 }
          : { text: `Done: ${ids.map((id) => `\`${id}\``).join(', ')} disabled.`, chunk: 6 },
    ];
  },
];

export const scriptedAdapter = createScriptedAdapter(
  (ctx) => {
    const text = ctx.text.toLowerCase();
    if (/offline/.test(text) && /(disable|turn off|switch off|shut)/.test(text)) return disableOffline;
    if (/offline|devices/.test(text)) return listOffline;
    return help;
  },
  { id: 'scripted-demo', label: 'Scripted demo agent (no model)' },
);

/**
 * The registry as `<agent-confirm>` should see it on this page: without the chat's confirmations,
 * which the chat shows in its own cards. The dialog stays for the WebMCP agent's calls.
 */
export function withoutConsumer(registry, consumerId) {
  const keep = (list) => list.filter((p) => p.consumer.id !== consumerId);
  const confirmations = registry.confirmations;
  return {
    ...registry,
    confirmations: {
      list: () => keep(confirmations.list()),
      subscribe: (listener) => confirmations.subscribe((pending) => listener(keep(pending))),
      approve: (id) => confirmations.approve(id),
      deny: (id, reason) => confirmations.deny(id, reason),
      waitFor: (id, options) => confirmations.waitFor(id, options),
    },
  };
}
