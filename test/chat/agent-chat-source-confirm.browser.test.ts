// <agent-chat> over `.source = createWebMcpSource()` while an outside WebMCP agent has its own
// confirmation pending for the same capability. Both requests reach the registry through
// <agent-webmcp>'s consumer, so the chat's card must take only the record its own call made (the
// call's input, asked after the call started): a click there must never approve the outside call.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { sendMouse } from '@web/test-runner-commands';
import { createScriptedAdapter } from '../../src/chat/index.js';
import { createWebMcpSource } from '../../src/webmcp/index.js';
import type { ToolSource } from '../../src/webmcp/types.js';
import { activeButton, chatPage, disableOfflineScript, q, toolStates, trustedClick } from './fixtures.js';

const sources: ToolSource[] = [];
const calls: AbortController[] = [];

afterEach(async () => {
  for (const c of calls.splice(0)) c.abort();
  for (const s of sources.splice(0)) s.dispose();
  await sendMouse({ type: 'move', position: [0, 0] });
});

/**
 * The chat page with its tools from a WebMCP source on the native host, and a second source for the
 * outside agent; resolves once the host lists the destructive tool.
 */
async function sourcePage(prefix: string) {
  const page = await chatPage({ webmcpPrefix: prefix, adapters: createScriptedAdapter(disableOfflineScript) });
  const source = createWebMcpSource();
  const outside = createWebMcpSource();
  sources.push(source, outside);
  page.chat.source = source;
  const disable = `${prefix}domain_devices__disable`;
  await waitUntil(async () => (await source.discover()).tools.some((t) => t.name === disable), 'tools on the host', { timeout: 8000 });
  return { ...page, source, outside, disable };
}

describe('<agent-chat> approval card with an outside agent’s confirmation pending', () => {
  before(function () {
    if (!(document as unknown as { modelContext?: unknown }).modelContext) throw new Error('this suite needs Chromium with --enable-features=WebMCP');
  });

  it('shows and approves only the confirmation its own call made', async () => {
    const { chat, devices, registry, outside, disable } = await sourcePage('srcconfirm_');

    // The outside agent asks to disable the online device, through the same host and adapter.
    const snap = await outside.discover();
    const aborter = new AbortController();
    calls.push(aborter);
    const outsideCall = outside.execute({ toolId: disable, input: { ids: ['d1'] } }, snap.revision, aborter.signal);
    await waitUntil(() => registry.confirmations.list().length === 1, 'the outside request pending', { timeout: 8000 });
    const [outsideRecord] = registry.confirmations.list();
    expect(outsideRecord!.input).to.deep.equal({ ids: ['d1'] });

    chat.send('disable the offline devices');
    await waitUntil(() => registry.confirmations.list().length === 2, 'the chat’s request pending', { timeout: 8000 });
    const own = registry.confirmations.list().find((c) => c.confirmationId !== outsideRecord!.confirmationId)!;
    // Same consumer: nothing but the call itself tells the two apart.
    expect(own.consumer.id).to.equal(outsideRecord!.consumer.id);
    expect(own.input).to.deep.equal({ ids: ['d2', 'd3'] });

    const approve = await activeButton(chat, 'approve');
    const card = approve.closest('[part~="tool"]')!;
    expect(card.querySelector('[part~="tool-name"]')!.textContent).to.equal(disable);
    expect(card.textContent).to.include('d2').and.include('d3');
    expect(card.textContent).not.to.include('d1');
    await trustedClick(approve);

    const status = (id: string) => registry.confirmations.list().find((c) => c.confirmationId === id)?.status;
    expect(status(outsideRecord!.confirmationId)).to.equal('pending');
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
    expect(status(outsideRecord!.confirmationId)).to.equal('pending');

    // The outside call was never approved: withdrawn, it ran nothing.
    aborter.abort();
    const result = await outsideCall;
    expect(result.ok).to.equal(false);
    expect(devices[0]!.status).to.equal('online');
  });

  it('shows no card when an outside request for the same capability and input could be its own', async () => {
    const { chat, devices, registry, outside, disable } = await sourcePage('srcsame_');

    chat.send('disable the offline devices');
    await activeButton(chat, 'approve');
    const [own] = registry.confirmations.list();
    // While the chat's call waits, the outside agent asks for the very same thing.
    const snap = await outside.discover();
    const aborter = new AbortController();
    calls.push(aborter);
    const outsideCall = outside.execute({ toolId: disable, input: { ids: ['d2', 'd3'] } }, snap.revision, aborter.signal);
    await waitUntil(() => registry.confirmations.list().length === 2, 'the outside request pending', { timeout: 8000 });
    // Two records the chat's call could own: the card takes neither.
    await waitUntil(() => !q(chat, '[part~="approve"]'), 'the card withdrawn', { timeout: 8000 });
    expect(toolStates(chat).at(-1)).to.equal(`${disable}:running`);

    // Decided elsewhere (<agent-confirm> names each request), the chat's call goes on.
    registry.confirmations.approve(own!.confirmationId);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
    aborter.abort();
    expect((await outsideCall).ok).to.equal(false);
  });
});
