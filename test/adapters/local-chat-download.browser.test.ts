// The download as a person meets it in <agent-chat>, on the real WebAssembly engine and the
// generated tiny GGUF: the card with the size and the device's caveat, a real click, the progress
// bar, the chat ready to use; a second click cancels back to the card; after a reload the model
// is on the device, with no card and no fetch of the weights.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter, type LocalAdapter, type LocalAdapterOptions, type LocalModel } from '../../src/adapters/local/index.js';
import { chatPage, q, trustedClick } from '../chat/fixtures.js';
import { freshCacheName, hits, holdDigest, modelInfo, resetHits, WASM_URL } from './helpers-local.js';

let sizes: Record<string, number>;
const make = (cacheName: string, file: string, more: Partial<LocalAdapterOptions> = {}): LocalAdapter =>
  createLocalAdapter({
    ...more,
    models: [{ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: `/__models/${file}`, bytes: sizes['tiny.gguf'] } satisfies LocalModel],
    engine: 'wasm',
    wasm: { wasmUrl: WASM_URL },
    cacheName,
    id: cacheName,
  });
const card = (chat: HTMLElement) => q(chat as never, '[part~="status"]');
const composer = (chat: HTMLElement) => q<HTMLTextAreaElement>(chat as never, 'textarea[part~="input"]')!;

describe('<agent-chat> + createLocalAdapter: the download card (wllama, generated model)', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(300000);
  const adapters: LocalAdapter[] = [];
  before(async () => {
    sizes = await modelInfo();
  });
  afterEach(async () => {
    for (const a of adapters.splice(0)) await a.unload();
    await fetch('/__models/release');
  });

  it('the card → a click → progress → the chat is ready; after a reload: no card, no fetch', async () => {
    await resetHits();
    const cacheName = await freshCacheName();
    const adapter = make(cacheName, 'tiny.gguf');
    adapters.push(adapter);
    const { chat } = await chatPage({ adapters: adapter });
    await waitUntil(() => card(chat)?.dataset.state === 'needs-download', 'no download card', { timeout: 20000 });
    expect(card(chat)!.textContent).to.match(/one-time download of\s*\d+ (KB|MB)\./);
    expect(q(chat, '[part~="status-note"]')!.textContent).to.match(/No WebGPU here|cores|one thread/);
    expect((await hits())['tiny.gguf'] ?? 0).to.equal(0);

    const seen: string[] = [];
    const observer = new MutationObserver(() => seen.push(`${card(chat)?.dataset.state ?? 'none'}: ${card(chat)?.textContent?.replace(/\s+/g, ' ').trim() ?? ''}`));
    observer.observe(chat.shadowRoot!, { subtree: true, childList: true, characterData: true, attributes: true });
    await trustedClick(q(chat, '[part~="prepare"]')!);
    await waitUntil(() => !card(chat), 'the chat never became ready', { timeout: 60000 });
    observer.disconnect();
    expect(seen.some((s) => /^downloading: Downloading the model… \d+%/.test(s))).to.equal(true);
    expect(composer(chat).disabled).to.equal(false);
    expect((await hits())['tiny.gguf']).to.equal(1);
    await adapter.unload();

    // "Reload": a new adapter and a new chat over the same storage: the model is on this device.
    // (Tools off and a few tokens: a reply, whatever a random model writes, that needs no approval.)
    const again = make(cacheName, 'tiny.gguf', { toolChoice: 'none', maxTokens: 8 });
    adapters.push(again);
    const reloaded = await chatPage({ adapters: again });
    await waitUntil(() => again.status().state === 'ready', 'not ready after the reload', { timeout: 20000 });
    await reloaded.chat.updateComplete;
    expect(card(reloaded.chat)).to.equal(null);
    expect(again.models()[0]).to.deep.include({ cached: true });
    expect((await hits())['tiny.gguf']).to.equal(1);

    // The first message loads it from disk: worded as a load, never as a download.
    const loading: string[] = [];
    const watch = new MutationObserver(() => loading.push(`${card(reloaded.chat)?.dataset.state ?? 'none'}: ${card(reloaded.chat)?.textContent?.replace(/\s+/g, ' ').trim() ?? ''}`));
    watch.observe(reloaded.chat.shadowRoot!, { subtree: true, childList: true, characterData: true, attributes: true });
    reloaded.chat.send('Hello.');
    await waitUntil(() => reloaded.chat.session.status !== 'running', 'the reply never ended', { timeout: 60000 });
    watch.disconnect();
    expect(loading.some((s) => /^loading: Loading the model from this device…/.test(s)), loading.join('\n')).to.equal(true);
    expect(loading.some((s) => /download/i.test(s)), loading.join('\n')).to.equal(false);
    expect((await hits())['tiny.gguf']).to.equal(1);
  });

  it('Cancel while the downloaded file is checked against its sha256: the whole file is on the device, so no download card (of "1 KB" or any size) and the chat is usable; the first message checks and loads it, with no fetch', async () => {
    const file = new Uint8Array(await (await fetch('/__models/tiny.gguf')).arrayBuffer());
    const sha256 = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', file)), (b) => b.toString(16).padStart(2, '0')).join('');
    await resetHits();
    const cacheName = await freshCacheName();
    const adapter = createLocalAdapter({
      models: [{ id: 'tiny', label: 'Tiny', brief: 'The test model.', url: '/__models/tiny.gguf', bytes: sizes['tiny.gguf'], sha256 }],
      engine: 'wasm',
      wasm: { wasmUrl: WASM_URL },
      cacheName,
      id: cacheName,
      toolChoice: 'none',
      maxTokens: 8,
    });
    adapters.push(adapter);
    const { chat } = await chatPage({ adapters: adapter });
    await waitUntil(() => card(chat)?.dataset.state === 'needs-download', 'no download card', { timeout: 20000 });
    // WebCrypto's digest waits for the person's Cancel.
    const digest = holdDigest();
    try {
      await trustedClick(q(chat, '[part~="prepare"]')!);
      await digest.hashing;
      await chat.updateComplete;
      const cancel = q(chat, '[part~="prepare"]')!;
      expect(cancel.textContent!.trim()).to.equal('Cancel');
      await trustedClick(cancel);
      digest.release();
      await waitUntil(() => adapter.status().state !== 'downloading', 'the cancel never ended the download');
    } finally {
      digest.restore();
    }
    await chat.updateComplete;
    expect(card(chat)?.textContent?.replace(/\s+/g, ' ').trim() ?? null).to.equal(null);
    expect(composer(chat).disabled).to.equal(false);
    expect(adapter.models()[0]).to.deep.include({ cached: true });

    const loading: string[] = [];
    const watch = new MutationObserver(() => loading.push(`${card(chat)?.dataset.state ?? 'none'}: ${card(chat)?.textContent?.replace(/\s+/g, ' ').trim() ?? ''}`));
    watch.observe(chat.shadowRoot!, { subtree: true, childList: true, characterData: true, attributes: true });
    chat.send('Hello.');
    await waitUntil(() => chat.session.status !== 'running', 'the reply never ended', { timeout: 60000 });
    watch.disconnect();
    expect(loading.some((s) => /^loading: Loading the model from this device…/.test(s)), loading.join('\n')).to.equal(true);
    expect(loading.some((s) => /download/i.test(s)), loading.join('\n')).to.equal(false);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect((await hits())['tiny.gguf']).to.equal(1);
  });

  it('a second click on the card cancels: the card is back with its Download button, nothing cached, also after a reload', async () => {
    const cacheName = await freshCacheName();
    const adapter = make(cacheName, 'held.gguf');
    adapters.push(adapter);
    const { chat } = await chatPage({ adapters: adapter });
    await waitUntil(() => card(chat)?.dataset.state === 'needs-download', 'no download card', { timeout: 20000 });
    await trustedClick(q(chat, '[part~="prepare"]')!);
    await waitUntil(() => card(chat)?.dataset.state === 'downloading' && (q<HTMLProgressElement>(chat, 'progress')?.value ?? 0) > 0, 'no progress', { timeout: 20000 });
    const cancel = q(chat, '[part~="prepare"]')!;
    expect(cancel.textContent!.trim()).to.equal('Cancel');
    await trustedClick(cancel);
    await waitUntil(() => card(chat)?.dataset.state === 'needs-download' && !!q(chat, '[part~="prepare"]'), 'the card did not come back', { timeout: 20000 });
    expect(q(chat, '[part~="prepare"]')!.textContent!.trim()).to.match(/^Download \d+ (KB|MB)$/);
    expect(card(chat)!.getAttribute('role')).to.equal(null);
    expect(adapter.models()[0]!.cached).to.equal(false);
    expect(composer(chat).disabled).to.equal(true);
    const again = make(cacheName, 'held.gguf');
    adapters.push(again);
    await waitUntil(() => again.status().state === 'needs-download', 'a reload does not offer the download', { timeout: 20000 });
  });
});
