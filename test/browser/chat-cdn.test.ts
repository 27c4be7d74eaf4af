// dist/cdn/agent-chat.min.js as a no-build page uses it, beside dist/cdn/agent-surface.min.js: the
// chat file imports the kit's file, so one copy of lit and of the core serves both; the chat runs a
// tool of the page's surface with the scripted adapter, and with an OpenAI-compatible adapter whose
// code is a chunk fetched on first use. `node scripts/test.mjs` builds dist/ before running this file.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import type { AgentChatElement } from '../../src/chat/index.js';

type Versions = { litElementVersions?: string[]; reactiveElementVersions?: string[]; litHtmlVersions?: string[] };
type Page = Window & typeof globalThis & Versions & { connectModel(): void; modelRequests: { url: string }[] };

/** Every script the page has fetched, by path. */
const scriptsOf = (win: Window) =>
  win.performance
    .getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname)
    .filter((p) => p.endsWith('.js'));

async function openPage(): Promise<{ frame: HTMLIFrameElement; win: Page; doc: Document }> {
  const frame = document.createElement('iframe');
  frame.src = '/test/browser/fixtures/chat-cdn.html';
  document.body.append(frame);
  await waitUntil(() => frame.contentDocument?.documentElement?.dataset.ready === 'true', 'chat-cdn.html did not get ready', { timeout: 20000 });
  return { frame, win: frame.contentWindow as Page, doc: frame.contentDocument! };
}

async function ask(chat: AgentChatElement, text: string): Promise<void> {
  await waitUntil(() => chat.shadowRoot?.querySelector('textarea:not([disabled])'), 'the composer is ready', { timeout: 20000 });
  chat.send(text);
  await waitUntil(() => chat.session.status !== 'running', 'the run finished', { timeout: 20000 });
  expect(chat.session.status, chat.shadowRoot!.textContent!).to.equal('done');
  await chat.updateComplete;
}

describe('dist/cdn/agent-chat.min.js', () => {
  it('reuses the kit file’s lit and core, and runs a chat over the page’s surface with the scripted adapter', async () => {
    const { frame, win, doc } = await openPage();
    const chat = doc.querySelector('#scripted') as AgentChatElement;
    const surface = doc.querySelector('agent-surface') as HTMLElement & { registry?: { snapshot(c: object): { capabilities: unknown[] } } };
    await waitUntil(() => surface.registry?.snapshot({ consumer: { id: 'chat', kind: 'chat' } }).capabilities.length === 1, 'the capability registered');
    await ask(chat, 'how many notes?');
    expect(chat.shadowRoot!.querySelector('[part~="markdown"] strong')!.textContent).to.equal('3');
    expect(chat.session.messages.flatMap((m) => m.parts).some((p) => p.type === 'tool' && p.state === 'done')).to.equal(true);

    // One copy of each lit package on the page, though both files use them.
    expect(win.reactiveElementVersions?.length).to.equal(1);
    expect(win.litHtmlVersions?.length).to.equal(1);
    expect(win.litElementVersions?.length).to.equal(1);

    // Every script the page fetched is one of the kit's CDN files, and the chat file imports the kit's.
    const scripts = scriptsOf(win);
    for (const p of scripts) if (!p.startsWith('/test/browser/fixtures/') && !p.startsWith('/__web-dev-server')) expect(p).to.match(/^\/dist\/cdn\/[\w.-]+\.js$/);
    expect(scripts).to.include('/dist/cdn/agent-surface.min.js');
    const code = await (await fetch('/dist/cdn/agent-chat.min.js')).text();
    expect(code).to.match(/from\s*["']\.\/agent-surface\.min\.js["']/);
    expect(code).to.not.contain('class LitElement');
    frame.remove();
  });

  it('an OpenAI-compatible adapter loads its code on first use, then streams a tool call and a reply', async () => {
    const { frame, win, doc } = await openPage();
    const chat = doc.querySelector('#model') as AgentChatElement;
    const adapterChunks = () => scriptsOf(win).filter((p) => /\/dist\/cdn\/openai-[\w-]+\.min\.js$/.test(p));
    // The page imported the factory, but none of the adapter's code came with it.
    const code = await (await fetch('/dist/cdn/agent-chat.min.js')).text();
    expect(code).to.not.contain('chat/completions');
    expect(code).to.not.contain('tool_calls');
    expect(adapterChunks()).to.deep.equal([]);

    win.connectModel();
    await waitUntil(() => adapterChunks().length === 1, 'the adapter chunk was fetched', { timeout: 20000 });
    await ask(chat, 'count the notes');
    expect(chat.shadowRoot!.querySelector('[part~="markdown"]')!.textContent).to.contain('The model counted 3 notes.');
    const tools = chat.session.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool');
    expect(tools.map((p) => p.type === 'tool' && p.state)).to.deep.equal(['done']);
    expect(win.modelRequests.map((r) => r.url)).to.deep.equal(['https://models.example/v1/chat/completions', 'https://models.example/v1/chat/completions']);
    // Still one lit on the page after the adapter's chunks arrived.
    expect(win.litElementVersions?.length).to.equal(1);
    frame.remove();
  });

  it('exports the chat API and the browser adapters', async () => {
    const kit = (await import('/dist/cdn/agent-chat.min.js' as string)) as Record<string, unknown>;
    for (const name of [
      'AgentChatElement',
      'sessionReducer',
      'createScriptedAdapter',
      'callModelContextTool',
      'defineWebAgent',
      'createOpenAICompatibleAdapter',
      'createAnthropicAdapter',
      'createCloudAdapter',
      'createLocalAdapter',
    ])
      expect(typeof kit[name], name).to.equal('function');
    expect(kit.BUILT_IN_MODEL_ID).to.equal('built-in');
  });
});
