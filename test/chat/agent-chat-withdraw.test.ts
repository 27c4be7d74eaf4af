import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { chatPage, q, trustedClick } from './fixtures.js';

// A call waiting for the person's approval belongs to its run: when the run ends without an answer
// (Stop, or the chat leaves the page), the pending confirmation is withdrawn at once rather than left
// in every <agent-confirm> until its TTL runs out.
describe('<agent-chat>: a pending approval ends with its run', () => {
  it('Stop withdraws the pending confirmation and nothing runs', async () => {
    const { chat, devices, registry } = await chatPage();
    chat.send('disable the offline devices');
    await waitUntil(() => q(chat, '[part~="approve"]'), 'card shown', { timeout: 8000 });
    expect(registry.confirmations.list()).to.have.length(1);
    await trustedClick(q(chat, '[part~="stop"]')!);
    await waitUntil(() => registry.confirmations.list().length === 0, 'confirmation withdrawn');
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
  });

  it('removing the chat withdraws the pending confirmation and nothing runs', async () => {
    const { chat, devices, registry } = await chatPage();
    chat.send('disable the offline devices');
    await waitUntil(() => q(chat, '[part~="approve"]'), 'card shown', { timeout: 8000 });
    expect(registry.confirmations.list()).to.have.length(1);
    chat.remove();
    await waitUntil(() => registry.confirmations.list().length === 0, 'confirmation withdrawn');
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
  });
});
