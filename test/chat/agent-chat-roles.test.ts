// Who said what, for a screen reader: the person's messages and the agent's are told apart by their
// look alone (a bubble on the right), so each must also say it in words a screen reader reads, out of
// sight, as a sub-agent's task already does ("Task: ").
import { expect, fixture, html } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createScriptedAdapter } from '../../src/chat/index.js';
import type { AgentChatElement } from '../../src/chat/index.js';

describe('<agent-chat>: who wrote each message', () => {
  it('each message starts with "You: " or "Agent: ", read by a screen reader and out of sight', async () => {
    const adapter = createScriptedAdapter([{ text: `The table has three devices.${'\n\nOne more line.'.repeat(40)}` }]);
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    chat.send('How many devices?');
    await waitUntil(() => chat.session.status === 'done', 'run done');
    chat.send('Thanks.');
    await waitUntil(() => chat.session.status === 'done' && chat.session.messages.length === 4, 'second run done');
    await chat.updateComplete;
    const messages = [...chat.shadowRoot!.querySelectorAll('[part~="log"] > [part~="message"]')];
    const said = messages.map((m) => m.firstElementChild);
    expect(said.map((s) => s?.textContent)).to.deep.equal(['You: ', 'Agent: ', 'You: ', 'Agent: ']);
    for (const s of said) {
      const box = s!.getBoundingClientRect();
      expect(box.width <= 1 && box.height <= 1, 'the words show on screen').to.equal(true);
      expect(getComputedStyle(s!).display).to.not.equal('none');
    }
    // Out of sight in the log, which scrolls: a long conversation never makes the page scroll.
    expect(document.documentElement.scrollHeight).to.equal(innerHeight);
    // The text itself reads and copies as written.
    expect(messages[1]!.querySelector('[part~="markdown"]')!.textContent).to.match(/^The table has three devices\.One more line\./);
    await expect(chat).to.be.accessible();
  });
});
