// <agent-chat> driven by createCloudAdapter against a hostile chat server (or a model it relays):
// what the server streams is untrusted, and the person must see exactly what would run.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createCloudAdapter } from '../../src/adapters/index.js';
import { chatPage, q } from '../chat/fixtures.js';

/** A fetch that answers every POST with the next of `steps`, each a list of stream parts as SSE. */
function server(steps: unknown[][]) {
  const bodies: unknown[] = [];
  const fetch = async (_url: RequestInfo | URL, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    const parts = steps.shift() ?? [{ type: 'finish', reason: 'stop' }];
    return new Response(parts.map((p) => `data: ${JSON.stringify(p)}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } });
  };
  return { adapter: createCloudAdapter({ endpoint: '/api/chat', agent: 'devices', check: false, fetch }), bodies };
}

/** Text written in Unicode tag characters: invisible on screen, read by a model as the ASCII it encodes. */
const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');

/** Anything a person cannot see or that changes how the text around it reads. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;

describe('<agent-chat> + createCloudAdapter: a hostile server', () => {
  it('the approval card shows every character the call would run with: tag characters, variation selectors and fillers are escaped', async () => {
    const hidden = ['d2', tags(' and the d3 lock'), '\u{e0101}', '\u180e', '\u3164', '\u034f', '\ufe0f', '\u115f', '\u{1d173}'].join('');
    const { adapter } = server([
      [
        { type: 'message-start', messageId: 'm1' },
        { type: 'tool-call', id: 'c1', name: `domain_devices__disable${tags('x')}`, input: { ids: [hidden] } },
        { type: 'step-finish', step: 1 },
      ],
      [
        { type: 'message-start', messageId: 'm2' },
        { type: 'tool-call', id: 'c2', name: 'domain_devices__disable', input: { ids: [hidden] } },
        { type: 'step-finish', step: 2 },
      ],
    ]);
    const { chat, registry } = await chatPage({ adapters: adapter });
    chat.send('disable d2');
    await waitUntil(() => q(chat, '[part~="approval"] [part~="approve"]'), 'approval shown', { timeout: 8000 });
    expect(registry.confirmations.list().map((p) => p.input)).to.deep.equal([{ ids: [hidden] }]);
    const approval = q(chat, '[part~="approval"]')!;
    const shown = [...approval.querySelectorAll('[part~="tool-input"] dd')].map((d) => d.textContent).join('');
    expect(INVISIBLE.test(shown), JSON.stringify(shown)).to.equal(false);
    expect(shown).to.contain('\\u{e0020}');
    expect(shown).to.contain('\\u180e');
    // The first call's name carried a hidden tag: its card shows it, escaped.
    const names = [...chat.shadowRoot!.querySelectorAll('[part~="tool-name"]')].map((n) => n.textContent!);
    expect(names.length).to.equal(2);
    for (const name of names) expect(INVISIBLE.test(name), JSON.stringify(name)).to.equal(false);
    expect(names[0]).to.equal('domain_devices__disable\\u{e0078}');
    expect(approval.getAttribute('aria-label')).to.equal('Approval for domain_devices__disable');
  });

  it('an event that never ends (one endless line) ends the run with a network error, and the response is cancelled', async () => {
    let sent = 0;
    let cancelled = false;
    const chunk = new TextEncoder().encode('x'.repeat(1 << 20));
    const fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(new TextEncoder().encode('data: {"type":"text-delta","delta":"')),
          pull: (c) => {
            // Far past any real event; the page would run out of memory long before a stall fired.
            if (++sent > 200) return c.close();
            c.enqueue(chunk);
          },
          cancel: () => void (cancelled = true),
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const adapter = createCloudAdapter({ endpoint: '/api/chat', agent: 'devices', check: false, fetch });
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('hello');
    await waitUntil(() => chat.session.status !== 'running', 'run ended', { timeout: 8000 });
    expect(chat.session.status).to.equal('error');
    expect(chat.session.error).to.include({ code: 'network' });
    expect(chat.session.error!.error).to.match(/^The chat server sent a stream event over \d+ MB/);
    expect(cancelled).to.equal(true);
    expect(sent).to.be.below(20);
  });

  it('a server that streams faster than the page reads: the page still runs its own tasks, so Stop ends the run', async () => {
    let pulled = 0;
    let cancelled = false;
    const enc = new TextEncoder();
    const events = enc.encode(`data: ${JSON.stringify({ type: 'text-delta', delta: 'word ' })}\n\n`.repeat(1000));
    // Every read finds data waiting, as it does when the network outpaces the page.
    const fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull: (c) => (++pulled > 400 ? c.close() : c.enqueue(events)),
          cancel: () => void (cancelled = true),
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const adapter = createCloudAdapter({ endpoint: '/api/chat', agent: 'devices', check: false, fetch });
    const { chat } = await chatPage({ adapters: adapter });
    let at = -1;
    chat.send('hello');
    // A task of the page's own, as a click on Stop is: it used to run only once the stream had ended.
    setTimeout(() => {
      at = pulled;
      chat.stop();
    });
    await waitUntil(() => chat.session.status !== 'running', 'run ended', { timeout: 20000 });
    expect(at).to.be.within(1, 399);
    expect(chat.session.status).to.equal('aborted');
    await waitUntil(() => cancelled, 'response cancelled');
    expect(pulled).to.be.below(400);
  });

  it('a step of thousands of tool calls (or reasoning parts) ends the run as a network error before the page runs them', async () => {
    const calls = Array.from({ length: 3000 }, (_, i) => ({ type: 'tool-call', id: `c${i}`, name: 'domain_devices__disable', input: { ids: ['d1'] } }));
    const thoughts = Array.from({ length: 3000 }, (_, i) => [{ type: 'reasoning', text: 'hm' }, { type: 'text-delta', delta: `${i} ` }]).flat();
    for (const flood of [calls, thoughts]) {
      const { adapter } = server([[{ type: 'message-start', messageId: 'm1' }, ...flood, { type: 'step-finish', step: 1 }]]);
      const { chat, registry } = await chatPage({ adapters: adapter });
      chat.send('go');
      await waitUntil(() => chat.session.status !== 'running', 'run ended', { timeout: 20000 });
      expect(chat.session.status).to.equal('error');
      expect(chat.session.error).to.deep.equal({ error: 'The model sent more than 256 parts (text, reasoning, tool calls) in one step.', code: 'network' });
      const parts = chat.session.messages.flatMap((m) => m.parts);
      expect(parts.length).to.be.at.most(257);
      // None of the calls ran: each is answered as not executed.
      expect(parts.filter((p) => p.type === 'tool' && p.state !== 'cancelled')).to.deep.equal([]);
      expect(registry.confirmations.list()).to.deep.equal([]);
    }
  });
});
