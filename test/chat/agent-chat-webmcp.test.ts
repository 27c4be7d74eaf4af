// <agent-chat> over `.source = createWebMcpSource()` on Chromium's native WebMCP host: the page's
// surface is projected by <agent-webmcp>; the chat reads the host's tools and runs them through
// `executeTool`. The destructive call waits in the adapter for the registry's confirmation, which
// the chat card shows (matched to the call by tool and input, asked after the call started) and a real click decides.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { sendMouse } from '@web/test-runner-commands';
import { createScriptedAdapter } from '../../src/chat/index.js';
import { createWebMcpSource } from '../../src/webmcp/index.js';
import type { ToolSource } from '../../src/webmcp/types.js';
import { activeButton, chatPage, disableOfflineScript, openCard, q, trustedClick } from './fixtures.js';

let n = 0;
const sources: ToolSource[] = [];

afterEach(async () => {
  for (const s of sources.splice(0)) s.dispose();
  await sendMouse({ type: 'move', position: [0, 0] });
});

async function nativePage() {
  const prefix = `chat${++n}_`;
  // The script finds tools by capability id; with a prefix on the wire names it matches the suffix.
  const page = await chatPage({ webmcpPrefix: prefix, adapters: createScriptedAdapter(disableOfflineScript) });
  const source = createWebMcpSource();
  sources.push(source);
  page.chat.source = source;
  // The surface's tools are on the host once the adapter settled.
  await waitUntil(async () => (await source.discover()).tools.filter((t) => t.name.startsWith(prefix)).length === 3, 'tools on the host', { timeout: 8000 });
  return { ...page, prefix, source };
}

describe('<agent-chat> with .source = createWebMcpSource() on the native host', () => {
  before(function () {
    if (!(document as unknown as { modelContext?: unknown }).modelContext) throw new Error('this suite needs Chromium with --enable-features=WebMCP');
  });

  it('disables the offline devices through an approval clicked in the chat card', async () => {
    const { chat, devices, prefix } = await nativePage();
    chat.send('disable the offline devices');
    const approve = await activeButton(chat, 'approve');
    expect(approve.closest('[part~="tool"]')!.querySelector('[part~="tool-name"]')!.textContent).to.equal(`${prefix}domain_devices__disable`);
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
    await trustedClick(approve);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
    const states = chat.session.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool').map((p) => (p as { state: string }).state));
    expect(states).to.deep.equal(['done', 'done', 'done']);
    await chat.updateComplete;
    // The host marks the rows tool's output as untrusted: shown as plain text.
    const card = await openCard(chat, q(chat, '[part~="tool"]')!);
    expect(card.querySelector('[part~="tool-output"]')!.tagName).to.equal('PRE');
  });

  it('the same run denied: nothing is disabled', async () => {
    const { chat, devices } = await nativePage();
    chat.send('disable the offline devices');
    await trustedClick(await activeButton(chat, 'deny'));
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
    const last = chat.session.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool').at(-1) as { state: string };
    expect(last.state).to.equal('error');
  });
});

describe('<agent-chat> with a source that was disposed', () => {
  it('shows no page tools and says why, without an uncaught error from its update', async () => {
    const { chat } = await chatPage({ adapters: createScriptedAdapter(disableOfflineScript) });
    const source = createWebMcpSource();
    source.dispose();
    const uncaught: unknown[] = [];
    const onRejection = (e: PromiseRejectionEvent) => uncaught.push(e.reason);
    const onError = (e: ErrorEvent) => uncaught.push(e.error);
    window.addEventListener('unhandledrejection', onRejection);
    window.addEventListener('error', onError);
    try {
      chat.source = source;
      await waitUntil(() => q(chat, '[part~="reason"]')?.textContent?.includes('No page tools'), 'the reason shown', { timeout: 8000 });
      await chat.updateComplete;
      expect(uncaught).to.deep.equal([]);
      expect(q(chat, '[part~="reason"]')!.textContent).to.match(/disposed/i);
    } finally {
      window.removeEventListener('unhandledrejection', onRejection);
      window.removeEventListener('error', onError);
    }
  });
});
