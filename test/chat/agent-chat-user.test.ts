// <agent-chat> played as a person with a keyboard only, as a page that reloads in the middle of a
// run, and as another script that wrote the stored conversation: the DESIGN names, end to end in
// Chromium.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import { waitUntil } from '../until.js';
import { createScriptedAdapter, defineWebAgent, sessionReducer, callModelContextTool } from '../../src/chat/index.js';
import type { AgentChatElement } from '../../src/chat/index.js';
import type { AgentAdapter, AgentRunRequest } from '../../src/chat/types.js';
import { chatPage, q } from './fixtures.js';

afterEach(async () => {
  await sendMouse({ type: 'move', position: [0, 0] });
});

const focused = (chat: AgentChatElement) => chat.shadowRoot!.activeElement as HTMLElement | null;

/** Waits until the focused control is `part` and the guard lets it act. */
async function focusedActive(chat: AgentChatElement, part: 'approve' | 'deny'): Promise<void> {
  await waitUntil(() => focused(chat)?.getAttribute('part') === part, `focus on ${part}`, { timeout: 8000 });
  await waitUntil(() => focused(chat)?.getAttribute('aria-disabled') === 'false', `${part} active`, { timeout: 8000 });
}

describe('<agent-chat> with the keyboard only', () => {
  it('types, sends with Enter, and approves with Tab and Enter: the destructive call runs once', async () => {
    const { chat, devices } = await chatPage();
    q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!.focus();
    await sendKeys({ type: 'disable the offline devices' });
    await sendKeys({ press: 'Enter' });
    // Focus goes to Deny, the safe control; Tab reaches Approve.
    await waitUntil(() => focused(chat)?.getAttribute('part') === 'deny', 'focus on Deny', { timeout: 8000 });
    await sendKeys({ press: 'Tab' });
    await focusedActive(chat, 'approve');
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chat.session.status === 'done', 'done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
    expect(focused(chat)?.getAttribute('part')).to.equal('log');
  });

  it('denies with Space on the focused Deny: nothing runs, the card says the person denied it', async () => {
    const { chat, devices } = await chatPage();
    q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!.focus();
    await sendKeys({ type: 'disable the offline devices' });
    await sendKeys({ press: 'Enter' });
    await focusedActive(chat, 'deny');
    await sendKeys({ press: 'Space' });
    await waitUntil(() => chat.session.status === 'done', 'done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
    const card = chat.shadowRoot!.querySelector('[part~="tool"][data-state="error"]')!;
    expect(card.querySelector('[part~="tool-state"]')!.textContent).to.equal('Denied by you');
  });

  it('Escape stops a run from anywhere in the chat, and the composer takes the next message', async () => {
    let signal: AbortSignal | undefined;
    const slow: AgentAdapter = {
      id: 'slow',
      label: 'Slow',
      async *run(req: AgentRunRequest) {
        signal = req.signal;
        yield { type: 'message-start', messageId: 'm' };
        yield { type: 'text-delta', messageId: 'm', delta: 'Thinking' };
        await new Promise((resolve) => req.signal.addEventListener('abort', resolve, { once: true }));
        yield { type: 'finish', reason: 'aborted' };
      },
    };
    const { chat } = await chatPage({ adapters: slow });
    q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!.focus();
    await sendKeys({ type: 'go' });
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chat.session.status === 'running' && q(chat, '[part~="stop"]'), 'running');
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => chat.session.status === 'aborted', 'aborted');
    expect(signal?.aborted).to.equal(true);
    await chat.updateComplete;
    expect(q(chat, '[part~="notice"]')!.textContent).to.contain('Stopped.');
  });
});

describe('<agent-chat persist>: a reload in the middle of a run', () => {
  it('a call waiting for approval when the page goes away comes back cancelled: nothing runs', async () => {
    localStorage.removeItem('agent-chat:reload');
    const { chat, devices, registry, surface } = await chatPage();
    chat.id = 'reload';
    chat.persist = 'local';
    await chat.updateComplete;
    chat.send('disable the offline devices');
    await waitUntil(() => q(chat, '[part~="approve"]'), 'approval shown', { timeout: 8000 });
    expect(registry.confirmations.list().filter((r) => r.status === 'pending')).to.have.length(1);
    // The page goes away (the element leaves with it): its run stops, the conversation is kept.
    chat.remove();
    await waitUntil(() => localStorage.getItem('agent-chat:reload') !== null, 'stored');
    const stored = JSON.parse(localStorage.getItem('agent-chat:reload')!) as { parts: { type: string; state?: string }[] }[];
    expect(stored.length).to.be.greaterThan(1);
    // And comes back: the same id, the same storage.
    const again = document.createElement('agent-chat') as AgentChatElement;
    again.id = 'reload';
    again.persist = 'local';
    again.adapters = createScriptedAdapter([{ text: 'Back.' }]);
    surface.append(again);
    await again.updateComplete;
    const states = again.session.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool' ? [`${p.name}:${p.state}`] : [])));
    expect(states).to.deep.equal(['view_devices__rows_at_main:done', 'view_devices__selectRows_at_main:done', 'domain_devices__disable:cancelled']);
    expect(again.session.status).to.equal('idle');
    expect(again.shadowRoot!.querySelector('[part~="approve"]')).to.equal(null);
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
    // The conversation goes on from there.
    again.send('hello again');
    await waitUntil(() => again.session.status === 'done', 'done');
    expect(again.session.messages[again.session.messages.length - 1]!.parts).to.deep.equal([{ type: 'text', text: 'Back.' }]);
    localStorage.removeItem('agent-chat:reload');
  });

  it('a stored conversation another script wrote is read as data: malformed entries dropped, markup shown as text, nothing runs', async () => {
    (window as { xss?: number }).xss = 0;
    localStorage.setItem(
      'agent-chat:forged',
      JSON.stringify([
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: '<img src=x onerror="window.xss++">' }] },
        { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: '[x](javascript:window.xss++) <script>window.xss++</script>' }, { type: 'tool', id: 't1', name: '<b>n</b>', state: 'awaiting-confirmation', input: { a: 1 } }, { type: 'evil' }, null] },
        { id: 'a1', role: 'assistant', parts: [] },
        { id: 'x', role: 'system', parts: [] },
        'garbage',
      ]),
    );
    const chat = await fixture<AgentChatElement>(html`<agent-chat id="forged" persist="local" .adapters=${createScriptedAdapter([{ text: 'ok' }])}></agent-chat>`);
    await chat.updateComplete;
    expect(chat.session.messages.map((m) => m.id)).to.deep.equal(['u1', 'a1']);
    expect(chat.session.messages[1]!.parts.map((p) => p.type)).to.deep.equal(['text', 'tool']);
    const tool = chat.session.messages[1]!.parts[1]!;
    expect(tool.type === 'tool' && tool.state).to.equal('cancelled');
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const log = q(chat, '[part~="log"]')!;
    expect(log.querySelector('img, script, b')).to.equal(null);
    expect(log.querySelector('a[href]')).to.equal(null);
    expect(log.textContent).to.contain('<img src=x onerror="window.xss++">');
    expect((window as { xss?: number }).xss).to.equal(0);
    localStorage.removeItem('agent-chat:forged');
  });

  it('persist="none" (the default) writes nothing; storage that throws leaves the chat working', async () => {
    const before = localStorage.length + sessionStorage.length;
    const chat = await fixture<AgentChatElement>(html`<agent-chat id="plain" .adapters=${createScriptedAdapter([{ text: 'hi' }])}></agent-chat>`);
    chat.send('x');
    await waitUntil(() => chat.session.status === 'done');
    expect(localStorage.length + sessionStorage.length).to.equal(before);
    const setItem = Storage.prototype.setItem;
    Storage.prototype.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError');
    };
    try {
      const kept = await fixture<AgentChatElement>(html`<agent-chat id="full" persist="local" .adapters=${createScriptedAdapter([{ text: 'still here' }])}></agent-chat>`);
      kept.send('x');
      await waitUntil(() => kept.session.status === 'done');
      await kept.updateComplete;
      expect(kept.shadowRoot!.textContent).to.contain('still here');
    } finally {
      Storage.prototype.setItem = setItem;
    }
  });
});

describe('<agent-chat>: the DESIGN names', () => {
  it('.adapters, .agent (tools filter, maxSteps), placeholder, session, agent-chat-change, and the seed types through sessionReducer', async () => {
    const seen: string[][] = [];
    const probe: AgentAdapter = {
      id: 'probe',
      label: 'Probe',
      async *run(req) {
        seen.push(req.tools.map((t) => t.name));
        expect(req.agent?.id).to.equal('reader');
        expect(req.agent?.maxSteps).to.equal(3);
        yield { type: 'message-start', messageId: 'm' };
        yield { type: 'text-delta', messageId: 'm', delta: 'ok' };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const { chat } = await chatPage({ adapters: probe });
    chat.agent = defineWebAgent({ id: 'reader', instructions: 'Read only.', maxSteps: 3, tools: ['view:devices'] });
    chat.placeholder = 'Ask about devices';
    await chat.updateComplete;
    expect(q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!.placeholder).to.equal('Ask about devices');
    let changes = 0;
    chat.addEventListener('agent-chat-change', () => changes++);
    chat.send('read');
    await waitUntil(() => chat.session.status === 'done');
    expect(seen).to.deep.equal([['view_devices__rows_at_main', 'view_devices__selectRows_at_main']]);
    expect(changes).to.be.greaterThan(2);
    // The element is a view over the reducer: folding the same events gives the same messages.
    let s = sessionReducer({ messages: [], status: 'idle', run: 0, aliases: {}, seq: 0 }, { type: 'send', text: 'read', id: chat.session.messages[0]!.id });
    for (const part of [
      { type: 'message-start', messageId: 'm' },
      { type: 'text-delta', messageId: 'm', delta: 'ok' },
      { type: 'finish', reason: 'stop' },
    ] as const)
      s = sessionReducer(s, { type: 'part', part });
    expect(s.messages).to.deep.equal(chat.session.messages);
    // callModelContextTool: a WebMCP-shaped tool that throws still resolves to a ToolOutput.
    const out = await callModelContextTool({ name: 't', execute: () => { throw new Error('boom'); } }, {}, { signal: new AbortController().signal });
    expect(out).to.deep.equal({ content: [{ type: 'text', text: 'Error: boom' }], isError: true });
  });
});
