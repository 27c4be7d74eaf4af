import { aTimeout, expect, fixture, html } from '@open-wc/testing';
import { freezeClock } from '../clock.js';
import { waitUntil } from '../until.js';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import { createScriptedAdapter, defineWebAgent } from '../../src/chat/index.js';
import type { AgentChatElement, ScriptStep } from '../../src/chat/index.js';
import type { AdapterStatus, AgentAdapter, ModelChoice } from '../../src/chat/types.js';
import { activeButton, chatPage, disableOfflineScript, openCard, q, toolStates, trustedClick } from './fixtures.js';

afterEach(async () => {
  await sendMouse({ type: 'move', position: [0, 0] });
});

async function typeAndSend(chat: AgentChatElement, text: string) {
  const input = q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!;
  input.focus();
  await sendKeys({ type: text });
  await sendKeys({ press: 'Enter' });
}

describe('<agent-chat>: end to end with the scripted agent', () => {
  it('disables the offline devices through an approval clicked in the chat card', async () => {
    const { chat, devices, selected, registry } = await chatPage();
    await typeAndSend(chat, 'disable the offline devices');
    const approve = await activeButton(chat, 'approve');
    const card = approve.closest('[part~="tool"]')!;
    expect(card.getAttribute('data-state')).to.equal('awaiting-confirmation');
    // The input is shown as escaped text; the countdown runs.
    expect(card.textContent).to.contain('"d2"').and.contain('"d3"');
    expect(q(chat, '[part~="countdown"]')!.textContent).to.match(/Expires in \d:\d\d/);
    // The card's record is the registry's pending confirmation.
    expect(registry.confirmations.list().map((p) => p.capabilityId)).to.deep.equal(['domain:devices.disable']);
    // A script cannot approve.
    approve.click();
    // Only shows that nothing happens: more time can only make the check stronger.
    // eslint-disable-next-line no-restricted-syntax
    await aTimeout(20);
    expect(registry.confirmations.list().length).to.equal(1);

    await trustedClick(approve);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
    expect(selected).to.deep.equal(['d2', 'd3']);
    expect(toolStates(chat)).to.deep.equal(['view_devices__rows_at_main:done', 'view_devices__selectRows_at_main:done', 'domain_devices__disable:done']);
    await chat.updateComplete;
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('Disabled the offline devices.');
    // Markdown rendered as nodes.
    expect(q(chat, '[part~="markdown"] strong')!.textContent).to.equal('devices');
    await expect(chat).to.be.accessible();
  });

  it('the same run denied: nothing is disabled and the card says the person denied it', async () => {
    const { chat, devices, registry } = await chatPage();
    chat.send('disable the offline devices');
    const deny = await activeButton(chat, 'deny');
    await expect(chat).to.be.accessible();
    await trustedClick(deny);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
    expect(registry.confirmations.list()).to.deep.equal([]);
    expect(toolStates(chat).at(-1)).to.equal('domain_devices__disable:error');
    await chat.updateComplete;
    expect(q(chat, '[data-state="error"] [part~="tool-state"]')!.textContent).to.equal('Denied by you');
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('not');
  });

  it('keeps the newest content in view, and brings a card waiting for the person into the log\'s view', async () => {
    // A log shorter than the conversation, and the person's focus on the page, not in the chat (so
    // focus does not move to the card, which would scroll it into view on its own).
    const long = Array.from({ length: 12 }, (_, i) => `Line ${i + 1} of what the agent says first.`).join('\n\n');
    const { chat, devices } = await chatPage({ script: [{ text: long }, ...(disableOfflineScript as readonly ScriptStep[])] });
    chat.style.setProperty('--agent-chat-height', '16rem');
    const elsewhere = document.createElement('button');
    elsewhere.textContent = 'somewhere on the page';
    chat.before(elsewhere);
    elsewhere.focus();
    try {
      chat.send('disable the offline devices');
      await waitUntil(() => q(chat, '[part~="approve"]'), 'approve shown', { timeout: 8000 });
      const log = q(chat, '[part~="log"]')!;
      expect(log.scrollHeight).to.be.greaterThan(log.clientHeight + 50, 'the log overflows');
      // The log scrolls on the frame after the render: wait for the card to be wholly in its view.
      const cardInView = () => {
        const view = log.getBoundingClientRect();
        const card = q(chat, '[part~="approve"]')!.closest('[part~="tool"]')!.getBoundingClientRect();
        return card.top >= view.top - 0.5 && card.bottom <= view.bottom + 0.5;
      };
      await waitUntil(cardInView, 'the waiting card is not in the log\'s view', { timeout: 8000 });
      expect(document.activeElement).to.equal(elsewhere, 'focus stays where the person left it');
      // Without any scrolling by the test, Approve becomes active (the guard sees it) and a real click approves.
      await waitUntil(() => q(chat, '[part~="approve"]')?.getAttribute('aria-disabled') === 'false', 'approve active', { timeout: 8000 });
      await trustedClick(q(chat, '[part~="approve"]')!);
      await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
      expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
      await chat.updateComplete;
      expect(log.textContent).to.contain('Disabled the offline devices.');
      // The final answer, the newest content, ends up at the bottom of the log, in view.
      await waitUntil(() => log.scrollHeight - log.scrollTop - log.clientHeight < 2, 'the log does not show its end', { timeout: 8000 });
    } finally {
      elsewhere.remove();
    }
  });

  it('a click too soon after the card appeared does nothing', async () => {
    // The clock stands still (test/clock.ts): the click is too soon however long it takes to arrive.
    const clock = freezeClock();
    try {
      const { chat, registry } = await chatPage({ delay: 400 });
      chat.send('disable the offline devices');
      await waitUntil(() => q(chat, '[part~="approve"]'), 'approve shown');
      const approve = q(chat, '[part~="approve"]')!;
      expect(approve.getAttribute('aria-disabled')).to.equal('true');
      await trustedClick(approve);
      expect(registry.confirmations.list().map((p) => p.status)).to.deep.equal(['pending']);
      chat.stop();
    } finally {
      clock.restore();
    }
  });

  it('one record: approving in <agent-confirm> settles the chat card too', async () => {
    const { chat, devices, surface } = await chatPage({ confirm: true });
    chat.send('disable the offline devices');
    await waitUntil(() => q(chat, '[part~="approve"]'), 'card shown', { timeout: 8000 });
    const confirm = surface.querySelector('agent-confirm')!;
    await waitUntil(() => confirm.shadowRoot!.querySelector('dialog')!.open, 'dialog open');
    const approve = confirm.shadowRoot!.querySelector<HTMLButtonElement>('[part~="approve"]')!;
    await waitUntil(() => approve.getAttribute('aria-disabled') === 'false', 'dialog approve active');
    await trustedClick(approve);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    await chat.updateComplete;
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
    expect(q(chat, '[part~="approval"]')).to.equal(null);
  });

  it('Stop mid-stream (Escape) aborts the signal and ends the run aborted', async () => {
    let signal: AbortSignal | undefined;
    const adapter: AgentAdapter = {
      id: 'slow',
      label: 'Slow',
      async *run(req) {
        signal = req.signal;
        yield { type: 'message-start', messageId: 'm' };
        yield { type: 'text-delta', messageId: 'm', delta: 'Thinking about ' };
        await new Promise(() => {});
      },
    };
    const { chat } = await chatPage({ adapters: adapter });
    await typeAndSend(chat, 'hello');
    await waitUntil(() => q(chat, '[part~="stop"]'), 'stop shown');
    await waitUntil(() => q(chat, '[part~="markdown"]')?.textContent?.includes('Thinking'), 'text streamed');
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => chat.session.status === 'aborted', 'aborted');
    expect(signal!.aborted).to.equal(true);
    expect(chat.session.finish).to.equal('aborted');
    await chat.updateComplete;
    expect(q(chat, '[part~="notice"]')!.textContent).to.contain('Stopped');
    expect(q(chat, '[part~="send"]')).to.not.equal(null);
  });

  it('Stop by its button while a call waits for approval: nothing runs', async () => {
    const { chat, devices, registry } = await chatPage();
    chat.send('disable the offline devices');
    await waitUntil(() => q(chat, '[part~="approve"]'), 'card shown', { timeout: 8000 });
    await trustedClick(q(chat, '[part~="stop"]')!);
    await waitUntil(() => chat.session.status === 'aborted', 'aborted');
    expect(toolStates(chat).at(-1)).to.equal('domain_devices__disable:cancelled');
    await waitUntil(() => registry.confirmations.list().length === 0 || devices[1]!.status === 'offline', 'settled');
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
    await chat.updateComplete;
    expect(q(chat, '[data-state="cancelled"] [part~="tool-state"]')!.textContent).to.equal('Cancelled');
  });

  it('a sub-agent run is nested in its delegate card', async () => {
    const counter = defineWebAgent({ id: 'counter', instructions: 'Counts offline devices.', tools: ['view:devices.rows'] });
    const main = defineWebAgent({ id: 'fleet', instructions: 'Runs the fleet.', tools: ['view:devices.selectRows'], agents: [counter] });
    const adapter = createScriptedAdapter((ctx) =>
      ctx.agent?.id === 'counter'
        ? [{ tool: 'view:devices.rows' }, (c) => ({ text: `${(c.json() as Array<{ status: string }>).filter((r) => r.status === 'offline').length} are offline.` })]
        : [{ tool: 'delegate_to_counter', input: { task: 'How many devices are offline?' } }, (c) => ({ text: `Counter: ${c.last!.content[0]!.text}` })],
    );
    const { chat } = await chatPage({ adapters: adapter });
    chat.agent = main;
    chat.send('how many are offline?');
    await waitUntil(() => chat.session.status === 'done', 'done', { timeout: 8000 });
    await chat.updateComplete;
    const nested = q(chat, '[part~="nested"]')!;
    expect(nested.getAttribute('aria-label')).to.equal('The counter agent');
    expect(nested.querySelector('[part~="tool"]')!.getAttribute('data-state')).to.equal('done');
    expect(nested.textContent).to.contain('2 are offline.');
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('Counter: 2 are offline.');
    await expect(chat).to.be.accessible();
  });

  it('shows where the agent acts: the view is outlined with the tool title while the call runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { chat } = await chatPage({
      script: [{ tool: 'view:devices.selectRows', input: { ids: [] } }],
    });
    // Hold the call open: a handler that waits.
    const cap = chat.closest('agent-surface')!.querySelector('agent-capability[name="selectRows"]') as HTMLElement & { handler: unknown };
    cap.handler = async () => {
      await gate;
      return { selected: 0 };
    };
    await waitUntil(() => chat.session.messages.length === 0);
    chat.send('select nothing');
    await waitUntil(() => q(chat, '[part~="highlight"]'), 'highlight shown', { timeout: 8000 });
    const hl = q(chat, '[part~="highlight"]')!;
    expect(hl.textContent).to.contain('Select devices in the table by id.');
    const table = chat.closest('agent-surface')!.querySelector('#table')!.getBoundingClientRect();
    expect(Math.round(hl.getBoundingClientRect().width)).to.be.greaterThan(0);
    expect(Math.abs(hl.getBoundingClientRect().top - table.top)).to.be.lessThan(40);
    release();
    await waitUntil(() => chat.session.status === 'done', 'done', { timeout: 8000 });
    await waitUntil(() => !q(chat, '[part~="highlight"]'), 'highlight gone');
  });
});

describe('<agent-chat>: messages', () => {
  it('renders Markdown as nodes: raw HTML stays text, only safe links, no remote images', async () => {
    const adapter = createScriptedAdapter([
      {
        text: 'Hello <img src=x onerror="window.pwned=1"> **bold** [ok](https://example.com) [bad](javascript:alert`1`) ![pic](https://evil.example/x.png?d=secret)\n\n```js\nlet a = 1;\n```\n',
        chunk: 3,
      },
    ]);
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('hi');
    await waitUntil(() => chat.session.status === 'done', 'done');
    await chat.updateComplete;
    const md = q(chat, '[part~="markdown"]')!;
    expect(md.querySelector('img')).to.equal(null);
    expect(md.textContent).to.contain('<img src=x onerror="window.pwned=1">');
    expect((window as { pwned?: number }).pwned).to.equal(undefined);
    expect(md.querySelector('strong')!.textContent).to.equal('bold');
    const links = [...md.querySelectorAll('a')];
    const ok = links.find((a) => a.textContent === 'ok')!;
    expect(ok.href).to.equal('https://example.com/');
    expect(ok.rel).to.equal('noopener noreferrer');
    expect(ok.target).to.equal('_blank');
    const bad = links.find((a) => a.textContent === 'bad')!;
    expect(bad.hasAttribute('href')).to.equal(false);
    expect(md.textContent).to.contain('image not loaded');
    expect(md.querySelector('pre code')!.textContent).to.contain('let a = 1;');
    await expect(chat).to.be.accessible();
  });

  it('never shows broken markup mid-stream: an open **bold stays held back until it closes', async () => {
    let step!: () => void;
    const adapter: AgentAdapter = {
      id: 'parts',
      label: 'Parts',
      async *run() {
        yield { type: 'message-start', messageId: 'm' };
        yield { type: 'text-delta', messageId: 'm', delta: 'a **bo' };
        await new Promise<void>((r) => (step = r));
        yield { type: 'text-delta', messageId: 'm', delta: 'ld** b' };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('hi');
    await waitUntil(() => q(chat, '[part~="markdown"]'), 'markdown');
    await chat.updateComplete;
    const md = q(chat, '[part~="markdown"]')!;
    expect(md.textContent).to.not.contain('**');
    step();
    await waitUntil(() => chat.session.status === 'done');
    await chat.updateComplete;
    expect(md.querySelector('strong')!.textContent).to.equal('bold');
    expect(md.textContent).to.not.contain('*');
  });

  it('shows untrusted tool output as plain text, reasoning never, and tool cards with their description', async () => {
    const adapter = createScriptedAdapter([{ reasoning: 'SECRET-THOUGHT' }, { tool: 'view:devices.rows' }, { text: 'Read.' }]);
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('read');
    await waitUntil(() => chat.session.status === 'done');
    await chat.updateComplete;
    expect(q(chat, '[part~="log"]')!.textContent).to.not.contain('SECRET-THOUGHT');
    expect(chat.session.messages[1]!.parts[0]).to.deep.equal({ type: 'reasoning', text: 'SECRET-THOUGHT' });
    const card = q(chat, '[part~="tool"]')!;
    // Closed, a card shows its summary only; opened, its description, input and output.
    expect(card.querySelector('[part~="tool-description"]')).to.equal(null);
    await openCard(chat, card);
    expect(card.querySelector('[part~="tool-description"]')!.textContent).to.equal('The devices in the table.');
    const output = card.querySelector('[part~="tool-output"]')!;
    expect(output.tagName).to.equal('PRE');
    expect(output.textContent).to.contain('Gate <b>lock</b>');
    expect(output.querySelector('b')).to.equal(null);
  });

  it('errors show in words per code, with Retry re-running from the last finished call', async () => {
    let runs = 0;
    const adapter: AgentAdapter = {
      id: 'flaky',
      label: 'Flaky',
      async *run(req) {
        runs++;
        yield { type: 'message-start', messageId: `m${runs}` };
        if (runs === 1) {
          yield { type: 'error', error: 'HTTP 429', code: 'rate_limited' };
          return;
        }
        yield { type: 'text-delta', messageId: `m${runs}`, delta: `again with ${req.messages.length} messages` };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('hi');
    await waitUntil(() => chat.session.status === 'error');
    await chat.updateComplete;
    const notice = q(chat, '[part~="notice"]')!;
    expect(notice.getAttribute('role')).to.equal('alert');
    expect(notice.textContent).to.contain('Too many requests').and.contain('HTTP 429');
    await expect(chat).to.be.accessible();
    await trustedClick(notice.querySelector('button')!);
    await waitUntil(() => chat.session.status === 'done');
    expect(runs).to.equal(2);
    await chat.updateComplete;
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('again with 1 messages');
  });

  it('each error code has its words', async () => {
    const words = { chat_disabled: 'turned off', bad_request: 'refused', network: 'connection' } as const;
    for (const [code, text] of Object.entries(words)) {
      const adapter: AgentAdapter = {
        id: code,
        label: code,
        async *run() {
          yield { type: 'error', error: 'x', code: code as keyof typeof words };
        },
      };
      const el = await fixture<AgentChatElement>(html`<agent-chat .adapters=${adapter}></agent-chat>`);
      el.send('hi');
      await waitUntil(() => el.session.status === 'error');
      await el.updateComplete;
      expect(el.shadowRoot!.querySelector('[part~="notice"]')!.textContent).to.contain(text);
    }
  });

  it('edit-and-resend replaces the message and runs again; copy is offered on messages', async () => {
    const adapter = createScriptedAdapter((ctx) => [{ text: `You said: ${ctx.text}` }]);
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('first');
    await waitUntil(() => chat.session.status === 'done');
    await chat.updateComplete;
    expect(q(chat, '[aria-label="Copy the reply"]')).to.not.equal(null);
    await trustedClick(q(chat, '[aria-label="Edit and resend"]')!);
    await chat.updateComplete;
    const editor = q<HTMLTextAreaElement>(chat, 'textarea[aria-label="Edit your message"]')!;
    editor.value = 'second';
    editor.dispatchEvent(new Event('input'));
    await trustedClick([...chat.shadowRoot!.querySelectorAll('button')].find((b) => b.textContent!.trim() === 'Send again')!);
    await waitUntil(() => chat.session.status === 'done' && chat.session.messages.length === 2);
    expect(chat.session.messages[0]!.parts[0]).to.deep.equal({ type: 'text', text: 'second' });
    await chat.updateComplete;
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('You said: second').and.not.contain('You said: first');
  });

  it('Shift+Enter is a new line; Enter sends', async () => {
    const adapter = createScriptedAdapter((ctx) => [{ text: `Got ${JSON.stringify(ctx.text)}` }]);
    const { chat } = await chatPage({ adapters: adapter });
    const input = q<HTMLTextAreaElement>(chat, 'textarea[part~="input"]')!;
    input.focus();
    await sendKeys({ type: 'a' });
    await sendKeys({ down: 'Shift' });
    await sendKeys({ press: 'Enter' });
    await sendKeys({ up: 'Shift' });
    await sendKeys({ type: 'b' });
    expect(input.value).to.equal('a\nb');
    expect(chat.session.messages.length).to.equal(0);
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chat.session.status === 'done');
    expect(chat.session.messages[0]!.parts[0]).to.deep.equal({ type: 'text', text: 'a\nb' });
  });

  it('announces finished messages and tool outcomes in a polite live region, not every token', async () => {
    const { chat } = await chatPage({ adapters: createScriptedAdapter([{ text: 'Done reading.', chunk: 2 }, { tool: 'view:devices.rows' }, { text: 'All read.' }]) });
    const region = q(chat, '[part~="announcer"]')!;
    expect(region.getAttribute('aria-live')).to.equal('polite');
    const seen: string[] = [];
    const observer = new MutationObserver(() => seen.push(region.textContent ?? ''));
    observer.observe(region, { childList: true, characterData: true, subtree: true });
    chat.send('read');
    await waitUntil(() => chat.session.status === 'done');
    await chat.updateComplete;
    await aTimeout(0);
    observer.disconnect();
    expect(seen.some((t) => t.includes('view_devices__rows_at_main: Done'))).to.equal(true);
    expect(seen.at(-1)).to.contain('Agent: All read.');
    expect(seen.length).to.be.lessThan(5);
  });

  it('persist="session" keeps the conversation across a reload (a new element)', async () => {
    sessionStorage.removeItem('agent-chat:kept');
    const adapter = createScriptedAdapter([{ text: 'Remembered.' }]);
    const first = await fixture<AgentChatElement>(html`<agent-chat id="kept" persist="session" .adapters=${adapter}></agent-chat>`);
    first.send('remember me');
    await waitUntil(() => first.session.status === 'done');
    await first.updateComplete;
    first.remove();
    const second = await fixture<AgentChatElement>(html`<agent-chat id="kept" persist="session" .adapters=${adapter}></agent-chat>`);
    expect(second.session.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    await second.updateComplete;
    expect(second.shadowRoot!.textContent).to.contain('Remembered.');
    sessionStorage.removeItem('agent-chat:kept');
    // persist="none" keeps nothing.
    const none = await fixture<AgentChatElement>(html`<agent-chat id="kept" .adapters=${adapter}></agent-chat>`);
    expect(none.session.messages).to.deep.equal([]);
  });
});

// ---------------------------------------------------------------------------------------------

function controllable(initial: AdapterStatus, models: ModelChoice[] = []) {
  let status = initial;
  const listeners = new Set<() => void>();
  const prepared: AbortSignal[] = [];
  const selected: string[] = [];
  const adapter: AgentAdapter = {
    id: 'local',
    label: 'On this device',
    status: () => status,
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    prepare(signal) {
      prepared.push(signal!);
      return new Promise((resolve, reject) => signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    },
    models: () => models,
    async selectModel(id) {
      selected.push(id);
      for (const m of models) m.selected = m.id === id;
    },
    async *run() {
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return {
    adapter,
    prepared,
    selected,
    set(s: AdapterStatus) {
      status = s;
      for (const l of listeners) l();
    },
  };
}

describe('<agent-chat>: adapter statuses', () => {
  it('renders every status; the composer is disabled with the reason unless ready', async () => {
    const c = controllable({ state: 'needs-download', bytes: 420e6, note: 'No WebGPU here: a smaller, slower model runs on the CPU.' });
    const el = await fixture<AgentChatElement>(html`<agent-chat .adapters=${c.adapter}></agent-chat>`);
    const status = () => el.shadowRoot!.querySelector('[part~="status"]');
    const input = () => el.shadowRoot!.querySelector<HTMLTextAreaElement>('textarea[part~="input"]')!;
    const reason = () => el.shadowRoot!.querySelector('#reason')!;
    expect(status()!.textContent).to.contain('420 MB').and.contain('No WebGPU here');
    expect(input().disabled).to.equal(true);
    expect(input().getAttribute('aria-describedby')).to.equal('reason');
    expect(reason().textContent).to.contain('Download');
    await expect(el).to.be.accessible();

    // prepare() starts only from the person's click; a script click does nothing.
    const button = el.shadowRoot!.querySelector<HTMLButtonElement>('[part~="prepare"]')!;
    button.click();
    expect(c.prepared.length).to.equal(0);
    await trustedClick(button);
    expect(c.prepared.length).to.equal(1);
    c.set({ state: 'downloading', progress: 0.25 });
    await el.updateComplete;
    expect(status()!.textContent).to.contain('Downloading').and.contain('25%');
    expect(status()!.querySelector('progress')!.value).to.equal(0.25);
    await expect(el).to.be.accessible();
    // A second click cancels.
    await trustedClick(el.shadowRoot!.querySelector('[part~="prepare"]')!);
    expect(c.prepared[0]!.aborted).to.equal(true);

    c.set({ state: 'loading' });
    await el.updateComplete;
    expect(status()!.textContent).to.contain('Checking the connection');
    expect(status()!.querySelector('progress')).to.equal(null);
    expect(status()!.textContent).to.not.match(/download/i);

    c.set({ state: 'loading', progress: 0.5 });
    await el.updateComplete;
    expect(status()!.textContent).to.contain('Loading the model from this device').and.contain('50%');
    expect(status()!.textContent).to.not.match(/download/i);
    await expect(el).to.be.accessible();

    c.set({ state: 'error', error: 'Out of memory' });
    await el.updateComplete;
    expect(status()!.textContent).to.contain('Out of memory');
    expect(status()!.getAttribute('role')).to.equal('alert');

    c.set({ state: 'unavailable', reason: 'This browser cannot run models.' });
    await el.updateComplete;
    expect(status()!.textContent).to.contain('This browser cannot run models.');
    expect(reason().textContent).to.contain('This browser cannot run models.');
    expect(input().disabled).to.equal(true);
    await expect(el).to.be.accessible();

    c.set({ state: 'ready' });
    await el.updateComplete;
    expect(status()).to.equal(null);
    expect(input().disabled).to.equal(false);
    expect((reason() as HTMLElement).hidden).to.equal(true);
  });

  it('a model picker from models() calls selectModel', async () => {
    const models: ModelChoice[] = [
      { id: 'small', label: 'Qwen3 0.6B', brief: 'Fast, for simple tasks.', bytes: 400e6, cached: true, selected: true },
      { id: 'big', label: 'Qwen3 4B', brief: 'Slower, better at plans.', bytes: 2.5e9, recommended: true },
    ];
    const c = controllable({ state: 'ready' }, models);
    const el = await fixture<AgentChatElement>(html`<agent-chat .adapters=${c.adapter}></agent-chat>`);
    const picker = el.shadowRoot!.querySelector('[part~="models"]')!;
    expect(picker.textContent).to.contain('Qwen3 0.6B').and.contain('Fast, for simple tasks.').and.contain('400 MB').and.contain('on this device');
    expect(picker.textContent).to.contain('2.5 GB').and.contain('(recommended)');
    await expect(el).to.be.accessible();
    const radios = picker.querySelectorAll<HTMLInputElement>('input[type="radio"]');
    expect(radios[0]!.checked).to.equal(true);
    await trustedClick(radios[1]!);
    await waitUntil(() => c.selected.length === 1);
    expect(c.selected).to.deep.equal(['big']);
  });

  it('the model picker answers the keyboard: an arrow key switches, and the radio follows the model in use', async () => {
    const models: ModelChoice[] = [
      { id: 'small', label: 'Small', brief: 'Fast.', selected: true },
      { id: 'big', label: 'Big', brief: 'Slow.' },
    ];
    const c = controllable({ state: 'ready' }, models);
    const el = await fixture<AgentChatElement>(html`<agent-chat .adapters=${c.adapter}></agent-chat>`);
    const radios = el.shadowRoot!.querySelectorAll<HTMLInputElement>('[part~="models"] input[type="radio"]');
    radios[0]!.focus();
    await sendKeys({ press: 'ArrowDown' });
    await waitUntil(() => c.selected.length === 1, 'the arrow key did not switch');
    expect(c.selected).to.deep.equal(['big']);
    await waitUntil(() => radios[1]!.checked && !radios[0]!.checked, 'the radio did not follow the model in use');
  });

  it('the picker is off while the adapter downloads or loads a model the chat did not ask for (a page warm-up)', async () => {
    const models: ModelChoice[] = [
      { id: 'small', label: 'Small', brief: 'Fast.', selected: true },
      { id: 'big', label: 'Big', brief: 'Slow.' },
    ];
    const c = controllable({ state: 'downloading', progress: 0.3 }, models);
    const el = await fixture<AgentChatElement>(html`<agent-chat .adapters=${c.adapter}></agent-chat>`);
    const picker = () => el.shadowRoot!.querySelector<HTMLFieldSetElement>('[part~="models"]')!;
    expect(picker().disabled).to.equal(true);
    c.set({ state: 'loading', progress: 0.5 });
    await el.updateComplete;
    expect(picker().disabled).to.equal(true);
    // A connection or device check is not a load: the person may still choose.
    c.set({ state: 'needs-download' });
    await el.updateComplete;
    expect(picker().disabled).to.equal(false);
  });

  it('an adapter switcher when there are several; the choice is remembered by id', async () => {
    localStorage.removeItem('agent-chat:adapter');
    const a = createScriptedAdapter([{ text: 'from A' }], { id: 'a', label: 'Agent A' });
    const b = createScriptedAdapter([{ text: 'from B' }], { id: 'b', label: 'Agent B' });
    const el = await fixture<AgentChatElement>(html`<agent-chat .adapters=${[a, b]}></agent-chat>`);
    const select = el.shadowRoot!.querySelector<HTMLSelectElement>('[part~="adapter-select"]')!;
    expect([...select.options].map((o) => o.textContent)).to.deep.equal(['Agent A', 'Agent B']);
    await expect(el).to.be.accessible();
    select.value = 'b';
    select.dispatchEvent(new Event('change'));
    el.send('hi');
    await waitUntil(() => el.session.status === 'done');
    await el.updateComplete;
    expect(el.shadowRoot!.textContent).to.contain('from B');
    expect(localStorage.getItem('agent-chat:adapter')).to.equal('b');
    const again = await fixture<AgentChatElement>(html`<agent-chat .adapters=${[a, b]}></agent-chat>`);
    expect(again.shadowRoot!.querySelector<HTMLSelectElement>('[part~="adapter-select"]')!.value).to.equal('b');
    localStorage.removeItem('agent-chat:adapter');
  });

  it('an unavailable agent\'s reason and a connection check\'s note are shown once, and still describe the input', async () => {
    const c = controllable({ state: 'unavailable', reason: 'The server at example.test cannot be reached.' });
    const el = await fixture<AgentChatElement>(html`<agent-chat .adapters=${c.adapter}></agent-chat>`);
    // Rendered boxes wider than a pixel (a visually hidden line is one pixel wide) that say `words`.
    const shown = (words: string) =>
      [...el.shadowRoot!.querySelectorAll('p')].filter((p) => p.textContent!.includes(words) && p.getBoundingClientRect().width > 1).length;
    expect(shown('cannot be reached')).to.equal(1);
    expect(el.shadowRoot!.querySelector('[part~="status"]')!.textContent).to.contain('cannot be reached');
    const input = el.shadowRoot!.querySelector<HTMLTextAreaElement>('textarea')!;
    expect(el.shadowRoot!.getElementById(input.getAttribute('aria-describedby')!)!.textContent).to.contain('cannot be reached');
    await expect(el).to.be.accessible();
    c.set({ state: 'loading', note: 'Waking the model server.' });
    await el.updateComplete;
    expect(shown('Waking the model server')).to.equal(1);
    expect(el.shadowRoot!.getElementById(input.getAttribute('aria-describedby')!)!.textContent).to.contain('Waking');
    // Other states' composer line differs from the card, and stays in sight.
    c.set({ state: 'needs-download', bytes: 1e6 });
    await el.updateComplete;
    expect(shown('Download the model to start chatting')).to.equal(1);
  });

  it('without adapters the composer says why it is disabled', async () => {
    const el = await fixture<AgentChatElement>(html`<agent-chat></agent-chat>`);
    expect(el.shadowRoot!.querySelector<HTMLTextAreaElement>('textarea')!.disabled).to.equal(true);
    expect(el.shadowRoot!.querySelector('#reason')!.textContent).to.contain('No agent');
    await expect(el).to.be.accessible();
  });
});
