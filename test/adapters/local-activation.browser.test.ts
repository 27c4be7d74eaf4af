// Chrome downloads its built-in model only for a `LanguageModel.create()` called while the page has
// the person's transient activation, which lasts a few seconds after a click. The first prepare()
// also loads the adapter's lazy chunk: on a slow network its import() can outlast the activation,
// so create() must not wait for it. Here the chunk is held by the test server until the click's
// activation is gone, against the Prompt API double made to require activation as the spec does.
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { createLocalAdapter } from '../../src/adapters/local/adapter.js';
import { button, recordStatuses, settled, trustedClick } from './helpers-local.js';
import { LanguageModelDouble } from './prompt-api-double.js';

const LATER = '/src/adapters/local/later.';
const fetchedLater = () => performance.getEntriesByType('resource').some((e) => new URL(e.name).pathname.startsWith(LATER));

describe('createLocalAdapter: Chrome Prompt API and the click that starts its download', function () {
  (this as unknown as { timeout(ms: number): void }).timeout(120000);
  afterEach(async () => {
    document.querySelectorAll('button').forEach((b) => b.remove());
    await fetch('/__modules');
  });

  it("create() runs within the click's activation while the lazy chunk is still on its way; the download then goes on to ready", async () => {
    const lm = new LanguageModelDouble('downloadable');
    lm.requireActivation = true;
    const adapter = createLocalAdapter({ models: [], engine: 'prompt-api', languageModel: lm });
    expect((await settled(adapter)).state).to.equal('needs-download');
    // The chunk has not loaded in this page: prepare()'s import() goes to the (held) network.
    expect(fetchedLater()).to.equal(false);
    await fetch(`/__modules?hold=${encodeURIComponent(LATER)}`);
    expect(navigator.userActivation.isActive).to.equal(false);
    const seen = recordStatuses(adapter);
    let prepared: Promise<void> | undefined;
    await trustedClick(button('Download', () => void (prepared = adapter.prepare()).catch(() => {})));
    // The network is slow: the chunk arrives after the click's activation is gone.
    await waitUntil(() => !navigator.userActivation.isActive, 'the activation never expired');
    await fetch('/__modules');
    await waitUntil(() => lm.downloadStarted || adapter.status().state === 'error', 'create() was never called');
    expect(adapter.status()).to.deep.include({ state: 'downloading' });
    expect(lm.createCalls).to.have.length(1);
    lm.step(0.5);
    lm.step(1);
    await prepared;
    expect(fetchedLater()).to.equal(true);
    expect(adapter.status()).to.deep.equal({ state: 'ready' });
    expect(seen.filter((s) => s.state === 'downloading').map((s) => (s as { progress: number }).progress)).to.deep.equal([0, 0.5, 1]);
  });

  it('the double refuses a download without activation, as Chrome does: an error that asks for a click', async () => {
    const lm = new LanguageModelDouble('downloadable');
    lm.requireActivation = true;
    const adapter = createLocalAdapter({ models: [], engine: 'prompt-api', languageModel: lm });
    await settled(adapter);
    expect(navigator.userActivation.isActive).to.equal(false);
    await adapter.prepare().catch(() => {});
    expect(adapter.status()).to.deep.equal({ state: 'error', error: 'Chrome needs a click on the page before it downloads its built-in model.' });
    expect(lm.downloadStarted).to.equal(false);
  });
});
