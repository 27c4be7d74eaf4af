// The model picker as a person uses it: a model the adapter refuses is never shown as chosen.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import { waitUntil } from '../until.js';
import type { AgentChatElement } from '../../src/chat/index.js';
import type { AgentAdapter, ModelChoice } from '../../src/chat/types.js';
import { trustedClick } from './fixtures.js';

afterEach(async () => {
  await sendMouse({ type: 'move', position: [0, 0] });
});

/** Two models, `small` in use; `selectModel` does what `refuse` says for each call. */
function picky(refuse: (id: string) => 'reject' | 'throw' | undefined) {
  const models: ModelChoice[] = [
    { id: 'small', label: 'Small', brief: 'Fast.', selected: true },
    { id: 'big', label: 'Big', brief: 'Slow.' },
  ];
  const asked: string[] = [];
  const adapter: AgentAdapter = {
    id: 'picky',
    label: 'Picky',
    models: () => models.map((m) => ({ ...m })),
    selectModel(id) {
      asked.push(id);
      const verdict = refuse(id);
      if (verdict === 'throw') throw new Error('The model cannot change right now.');
      if (verdict === 'reject') return Promise.reject(new Error('A reply is being written: wait for it to finish.'));
      for (const m of models) m.selected = m.id === id;
      return Promise.resolve();
    },
    async *run() {
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return { adapter, asked };
}

const radios = (chat: AgentChatElement) => [...chat.shadowRoot!.querySelectorAll<HTMLInputElement>('[part~="models"] input[type="radio"]')];
const checked = (chat: AgentChatElement) => radios(chat).map((r) => r.checked);
const notice = (chat: AgentChatElement) => chat.shadowRoot!.querySelector('[part~="notice"]')?.textContent ?? '';

describe('<agent-chat>: a model the adapter refuses', () => {
  it('a click on a model whose selectModel rejects leaves the radio on the model in use, and says why', async () => {
    let refusing = true;
    const { adapter, asked } = picky(() => (refusing ? 'reject' : undefined));
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    expect(checked(chat)).to.deep.equal([true, false]);
    await trustedClick(radios(chat)[1]!);
    await waitUntil(() => notice(chat).includes('A reply is being written'), 'the refusal is not shown');
    await chat.updateComplete;
    expect(asked).to.deep.equal(['big']);
    expect(checked(chat), 'the radio stayed on the refused model').to.deep.equal([true, false]);

    // Once the adapter allows it, the same click switches, and the radio follows.
    refusing = false;
    await trustedClick(radios(chat)[1]!);
    await waitUntil(() => asked.length === 2, 'the second click did not ask');
    await waitUntil(() => checked(chat)[1] === true, 'the radio did not follow the model in use');
    expect(checked(chat)).to.deep.equal([false, true]);
    expect(notice(chat)).to.equal('');
  });

  it('an arrow key onto a model whose selectModel throws leaves the radio on the model in use, and says why', async () => {
    const { adapter, asked } = picky(() => 'throw');
    const chat = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
    radios(chat)[0]!.focus();
    await sendKeys({ press: 'ArrowDown' });
    await waitUntil(() => notice(chat).includes('The model cannot change right now.'), 'the refusal is not shown');
    await chat.updateComplete;
    expect(asked).to.deep.equal(['big']);
    expect(checked(chat), 'the radio stayed on the refused model').to.deep.equal([true, false]);
  });
});
