// Keyboard focus through the controls that go away when they are used: Send (it becomes Stop), Stop
// (it becomes Send) and Retry (its notice goes). Focus that falls to the page's <body> sends a keyboard
// or screen reader user back to the top of the page.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { waitUntil } from '../until.js';
import type { AgentChatElement } from '../../src/chat/index.js';
import type { AgentAdapter, AgentRunRequest } from '../../src/chat/types.js';
import { q } from './fixtures.js';

/** The part of the chat's focused control, or where focus is when it is not in the chat. */
const focusedPart = (chat: AgentChatElement) =>
  (chat.shadowRoot!.activeElement as HTMLElement | null)?.getAttribute('part') ?? `outside the chat (${document.activeElement?.tagName})`;

/** Tabs forward from the composer's input until `part` has focus. */
async function tabTo(chat: AgentChatElement, part: string): Promise<void> {
  for (let i = 0; i < 5 && focusedPart(chat) !== part; i++) await sendKeys({ press: 'Tab' });
  expect(focusedPart(chat)).to.equal(part);
}

describe('<agent-chat>: focus when a control goes away', () => {
  it('Send, Stop and Retry pressed from the keyboard leave focus in the composer, not on the page', async () => {
    let runs = 0;
    const adapter: AgentAdapter = {
      id: 'slow',
      label: 'Slow',
      async *run(req: AgentRunRequest) {
        runs++;
        yield { type: 'message-start', messageId: `m${runs}` };
        if (runs === 2) {
          yield { type: 'error', error: 'HTTP 503', code: 'network' };
          return;
        }
        yield { type: 'text-delta', messageId: `m${runs}`, delta: 'Working on it' };
        await new Promise((resolve) => req.signal.addEventListener('abort', resolve, { once: true }));
      },
    };
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    const input = q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!;
    input.focus();
    await sendKeys({ type: 'first' });
    await tabTo(chat, 'send');
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => q(chat, '[part~="stop"]'), 'the run did not start');
    await chat.updateComplete;
    expect(focusedPart(chat), 'after Send').to.equal('input');

    await tabTo(chat, 'stop');
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chat.session.status === 'aborted', 'Stop did not stop');
    await chat.updateComplete;
    expect(focusedPart(chat), 'after Stop').to.equal('input');

    await sendKeys({ type: 'second' });
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chat.session.status === 'error', 'the second run did not fail');
    await chat.updateComplete;
    // Retry sits in the notice, just before the composer.
    await sendKeys({ down: 'Shift' });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ up: 'Shift' });
    expect(chat.shadowRoot!.activeElement?.textContent).to.equal('Retry');
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => runs === 3 && chat.session.status === 'running', 'Retry did not run again');
    await chat.updateComplete;
    expect(focusedPart(chat), 'after Retry').to.equal('input');
    chat.stop();
  });

  it('Edit pressed from the keyboard puts focus in the edit box; Cancel puts it back in the composer', async () => {
    const adapter: AgentAdapter = {
      id: 'quick',
      label: 'Quick',
      async *run() {
        yield { type: 'message-start', messageId: 'm' };
        yield { type: 'text-delta', messageId: 'm', delta: 'Done.' };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    chat.send('first');
    await waitUntil(() => chat.session.status === 'done', 'the run did not end');
    await chat.updateComplete;
    const edit = chat.shadowRoot!.querySelector<HTMLButtonElement>('[aria-label="Edit and resend"]')!;
    edit.focus();
    await sendKeys({ press: 'Enter' });
    await chat.updateComplete;
    const box = chat.shadowRoot!.querySelector<HTMLTextAreaElement>('[aria-label="Edit your message"]')!;
    expect(chat.shadowRoot!.activeElement, 'after Edit').to.equal(box);
    await sendKeys({ type: ' again' });
    expect(box.value).to.equal('first again');
    await sendKeys({ press: 'Tab' });
    expect(chat.shadowRoot!.activeElement?.textContent).to.equal('Cancel');
    await sendKeys({ press: 'Enter' });
    await chat.updateComplete;
    expect(focusedPart(chat), 'after Cancel').to.equal('input');
  });
});
