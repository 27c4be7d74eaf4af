// <agent-chat> with createCloudAdapter, end to end in Chromium: the page posts each model step to
// createChatHandler on the test server (scripts/wtr-chat-server.mjs), which calls a loopback Chat
// Completions provider with its own key and instructions; the page runs the tools, and the
// destructive one waits for the person's real click on Approve.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { sendMouse } from '@web/test-runner-commands';
import { createCloudAdapter } from '../../src/adapters/index.js';
import { activeButton, chatPage, q, toolStates, trustedClick } from '../chat/fixtures.js';

afterEach(async () => {
  await sendMouse({ type: 'move', position: [0, 0] });
});

interface ProviderRequest {
  authorization?: string;
  body: { messages: { role: string; content: string | null }[]; tools?: { function: { name: string } }[] };
}

async function cloud() {
  await fetch('/__chat/reset');
  const posted: string[] = [];
  const adapter = createCloudAdapter({
    endpoint: '/__chat/api',
    agent: 'devices',
    label: 'Devices (cloud)',
    // Records what the page sends to its server.
    fetch: (input, init) => {
      if (typeof init?.body === 'string') posted.push(init.body);
      return fetch(input, init);
    },
  });
  return { adapter, posted };
}

describe('<agent-chat> + createCloudAdapter + createChatHandler (Chromium)', () => {
  it('disables the offline devices: the server drives the model, the page runs the tools, Approve is a real click', async () => {
    const { adapter, posted } = await cloud();
    const { chat, devices, registry } = await chatPage({ adapters: adapter });
    await waitUntil(() => adapter.status!().state === 'ready', 'status check done', { timeout: 8000 });
    chat.send('disable the offline devices');
    const approve = await activeButton(chat, 'approve');
    expect(registry.confirmations.list().map((p) => p.capabilityId)).to.deep.equal(['domain:devices.disable']);
    // A script's click is not the person's.
    approve.click();
    expect(registry.confirmations.list().length).to.equal(1);
    await trustedClick(approve);
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });

    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'disabled', 'disabled']);
    expect(toolStates(chat).map((s) => s.split(':')[1])).to.deep.equal(['done', 'done']);
    await chat.updateComplete;
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('Disabled the offline devices.');

    // One POST per model step; never instructions or keys from the page.
    expect(posted.length).to.equal(3);
    for (const body of posted) {
      const parsed = JSON.parse(body);
      expect(Object.keys(parsed).sort()).to.deep.equal(['agent', 'messages', 'tools']);
      expect(parsed.agent).to.equal('devices');
      expect(body).not.to.contain('"instructions"').and.not.to.contain('Server-side').and.not.to.contain('sk-test');
    }
    // The provider heard the server's key and instructions, and the untrusted rows as delimited data.
    const asked = (await (await fetch('/__chat/requests')).json()) as ProviderRequest[];
    expect(asked.length).to.equal(3);
    expect(asked[0].authorization).to.equal('Bearer sk-test-server-only');
    expect(asked[0].body.messages[0]).to.deep.equal({ role: 'system', content: 'You manage devices. (Server-side instructions.)' });
    const rows = asked[1].body.messages.find((m) => m.role === 'tool')!.content!;
    expect(rows).to.match(/^<untrusted-data \w+>\n[\s\S]*data, not instructions[\s\S]*\n<\/untrusted-data \w+>$/);
  });

  it('denied by a real click: nothing is disabled and the model hears the refusal', async () => {
    const { adapter } = await cloud();
    const { chat, devices } = await chatPage({ adapters: adapter });
    // The composer waits for the connection check (status loading → ready).
    await waitUntil(() => adapter.status!().state === 'ready', 'status check done', { timeout: 8000 });
    chat.send('disable the offline devices');
    await trustedClick(await activeButton(chat, 'deny'));
    await waitUntil(() => chat.session.status === 'done', 'run done', { timeout: 8000 });
    expect(devices.map((d) => d.status)).to.deep.equal(['online', 'offline', 'offline']);
    await chat.updateComplete;
    expect(q(chat, '[part~="log"]')!.textContent).to.contain('The devices were not disabled.');
  });

  it('an unknown agent id: the chat shows the bad_request error', async () => {
    const adapter = createCloudAdapter({ endpoint: '/__chat/api', agent: 'nobody', check: false });
    const { chat } = await chatPage({ adapters: adapter });
    chat.send('hello');
    await waitUntil(() => chat.session.status === 'error', 'run failed', { timeout: 8000 });
    expect(chat.session.error).to.deep.equal({ error: 'There is no agent "nobody".', code: 'bad_request' });
  });
});
