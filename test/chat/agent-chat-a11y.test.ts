// Issue 14 item 10, the parts without a test of their own: focus on approvals (it goes to the card's
// safe control when the person was in the chat, is never taken from the page, and comes back to the
// conversation after the decision) and the dark scheme from prefers-color-scheme.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { emulateMedia, sendKeys, sendMouse } from '@web/test-runner-commands';
import type { AgentChatElement } from '../../src/chat/index.js';
import { activeButton, chatPage, q, trustedClick } from './fixtures.js';

afterEach(async () => {
  await sendMouse({ type: 'move', position: [0, 0] });
  await emulateMedia({ colorScheme: 'light' });
});

/** The focused element inside the chat's shadow root (null when focus is elsewhere). */
const focused = (chat: AgentChatElement) => chat.shadowRoot!.activeElement as HTMLElement | null;

async function typeAndSend(chat: AgentChatElement, text: string) {
  q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!.focus();
  await sendKeys({ type: text });
  await sendKeys({ press: 'Enter' });
}

describe('<agent-chat>: focus on approvals', () => {
  it('moves from the composer to Deny when the approval appears; Tab reaches Approve; after the decision focus is on the conversation', async () => {
    const { chat } = await chatPage();
    await typeAndSend(chat, 'disable the offline devices');
    await waitUntil(() => focused(chat)?.getAttribute('part') === 'deny', 'focus on Deny', { timeout: 8000 });
    // The safe choice has focus, inside the card that needs the person.
    const card = focused(chat)!.closest('[part~="tool"]')!;
    expect(card.getAttribute('data-state')).to.equal('awaiting-confirmation');
    expect(focused(chat)!.closest('[part~="approval"]')).to.not.equal(null);
    await sendKeys({ press: 'Tab' });
    expect(focused(chat)?.getAttribute('part')).to.equal('approve');

    const approve = await activeButton(chat, 'approve');
    await trustedClick(approve);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    await chat.updateComplete;
    // The buttons are gone: focus is not dropped on the body but kept in the conversation.
    expect(focused(chat)?.getAttribute('part')).to.equal('log');
    await expect(chat).to.be.accessible();
  });

  it('never takes focus from the page: a person typing elsewhere keeps their focus when an approval appears', async () => {
    const { chat, surface } = await chatPage();
    const field = document.createElement('input');
    field.setAttribute('aria-label', 'Search');
    surface.before(field);
    try {
      field.focus();
      chat.send('disable the offline devices');
      await waitUntil(() => q(chat, '[part~="deny"]'), 'approval shown', { timeout: 8000 });
      await chat.updateComplete;
      expect(document.activeElement).to.equal(field);
      expect(focused(chat)).to.equal(null);
      // Still decidable by the person, who chooses where to go.
      const deny = await activeButton(chat, 'deny');
      await trustedClick(deny);
      await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    } finally {
      field.remove();
    }
  });
});

describe('<agent-chat>: light and dark from prefers-color-scheme', () => {
  const background = (el: Element) => getComputedStyle(el).backgroundColor;

  it('uses the dark palette under prefers-color-scheme: dark, the light one otherwise, and custom properties win in both', async () => {
    const { chat } = await chatPage();
    chat.send('disable the offline devices');
    await activeButton(chat, 'deny');
    expect(background(chat)).to.equal('rgb(255, 255, 255)');
    const lightText = getComputedStyle(chat).color;

    await emulateMedia({ colorScheme: 'dark' });
    expect(matchMedia('(prefers-color-scheme: dark)').matches).to.equal(true);
    expect(background(chat)).to.equal('rgb(30, 31, 34)');
    expect(getComputedStyle(chat).color).to.not.equal(lightText);
    expect(getComputedStyle(chat).color).to.equal('rgb(230, 230, 233)');
    // Every state on screen (a card waiting for approval, the composer) keeps its contrast in dark.
    await expect(chat).to.be.accessible();

    chat.style.setProperty('--agent-chat-background', 'rgb(1, 2, 3)');
    expect(background(chat)).to.equal('rgb(1, 2, 3)');
    await emulateMedia({ colorScheme: 'light' });
    expect(background(chat)).to.equal('rgb(1, 2, 3)');
    chat.style.removeProperty('--agent-chat-background');
    expect(background(chat)).to.equal('rgb(255, 255, 255)');
    chat.stop();
  });
});
