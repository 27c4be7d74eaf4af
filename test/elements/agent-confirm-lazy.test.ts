// <agent-confirm>'s dialog is a lazy chunk. Each test file runs in a fresh page, so here the chunk has
// not been fetched before the first element is constructed: these tests see the load itself.
import { expect, fixture, html } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceRegistry } from '../../src/core/types.js';
import { confirmDialogChunk } from '../../src/elements/agent-confirm.js';
import '../../src/elements/index.js';
import type { AgentConfirmElement } from '../../src/elements/index.js';
import { consumer, invocationId, spyConsole } from './helpers.js';

async function registryWithPending(): Promise<AgentSurfaceRegistry> {
  const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
  const warn = spyConsole('warn'); // devAuthority() warns once per capability, by design
  registry.register({
    contract: {
      id: 'domain:notes.wipe',
      kind: 'action',
      effect: 'local-state',
      confirmation: 'required',
      description: 'Delete every note in the draft.',
    },
    handler: () => ({ wiped: true }),
  });
  const result = await registry.invoke({
    capabilityId: 'domain:notes.wipe',
    input: {},
    invocationId: invocationId(),
    consumer,
  });
  warn.restore();
  expect(result.ok).to.equal(false);
  expect(registry.confirmations.list()).to.have.length(1);
  return registry;
}

describe('<agent-confirm> dialog chunk', () => {
  const load = confirmDialogChunk.load;
  afterEach(() => {
    confirmDialogChunk.load = load;
  });

  // Runs first: importing the elements fetches no dialog until an <agent-confirm> exists.
  it('is not fetched at import', () => {
    const fetched = performance
      .getEntriesByType('resource')
      .filter((entry) => new URL(entry.name).pathname.includes('confirm-dialog'));
    expect(fetched).to.deep.equal([]);
  });

  // Then a failed download must be reported, and must not be remembered.
  it('logs an error naming the element when the chunk fails to load, and leaves confirmations pending', async () => {
    const registry = await registryWithPending();
    confirmDialogChunk.load = () => Promise.reject(new TypeError('Failed to fetch dynamically imported module'));
    const error = spyConsole('error');
    let el: AgentConfirmElement;
    try {
      el = await fixture<AgentConfirmElement>(html`<agent-confirm .registry=${registry}></agent-confirm>`);
    } finally {
      error.restore();
    }
    expect(error.messages).to.have.length(1);
    expect(error.messages[0]).to.contain('<agent-confirm>').and.contain('Failed to fetch');
    expect(registry.confirmations.list().map((p) => p.status)).to.deep.equal(['pending']);
    expect(el.shadowRoot!.querySelector('dialog')!.open).to.equal(false);
    expect(el.shadowRoot!.querySelector('[part~="item"]')).to.equal(null);
  });

  it('updateComplete waits for the dialog: a pending request is on screen right after it', async () => {
    const registry = await registryWithPending();
    let fetched = 0;
    confirmDialogChunk.load = () => {
      fetched += 1;
      return load();
    };
    const el = document.createElement('agent-confirm');
    el.registry = registry;
    el.activationDelay = 50;
    document.body.append(el);
    try {
      await el.updateComplete;
      // The failed download above was forgotten: this element fetched the chunk again.
      expect(fetched).to.equal(1);
      const dialog = el.shadowRoot!.querySelector('dialog')!;
      expect(dialog.open).to.equal(true);
      expect(dialog.matches(':modal')).to.equal(true);
      expect(el.shadowRoot!.querySelectorAll('[part~="item"]')).to.have.length(1);
      expect(el.shadowRoot!.querySelector('[part~="approve"]')).to.be.instanceOf(HTMLButtonElement);
      // The dialog's styles came with the chunk.
      expect(getComputedStyle(el).display).to.equal('contents');
      expect(getComputedStyle(el.shadowRoot!.querySelector('[part~="actions"]')!).display).to.equal('flex');
    } finally {
      el.remove();
    }
  });

  it('fetches the chunk once per page, and an element constructed before it connects gets the styles too', async () => {
    let fetched = 0;
    confirmDialogChunk.load = () => {
      fetched += 1;
      return load();
    };
    const early = document.createElement('agent-confirm');
    // A moment between construction and use; nothing depends on its length.
    // eslint-disable-next-line no-restricted-syntax
    await new Promise((r) => setTimeout(r, 20));
    const registry = await registryWithPending();
    early.registry = registry;
    document.body.append(early);
    try {
      await early.updateComplete;
      expect(fetched).to.equal(0);
      expect(early.shadowRoot!.querySelector('dialog')!.open).to.equal(true);
      expect(getComputedStyle(early.shadowRoot!.querySelector('[part~="actions"]')!).display).to.equal('flex');
    } finally {
      early.remove();
    }
  });
});
