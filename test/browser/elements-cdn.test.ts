// The elements as the CDN file ships them: their shadow trees are built with DOM APIs (no template
// engine in the entry), and <agent-confirm>'s dialog is filled by the lazy confirm-dialog chunk beside
// the entry. Checked through dist/cdn/agent-surface.min.js itself: slots, styles, updateComplete, the
// dialog's content, its keyboard handling (listeners the chunk attaches to the shell's <dialog>) and
// focus return. `node scripts/test.mjs` builds dist/ before running this file (its name ends in cdn.test.ts).
import { expect } from '@open-wc/testing';
import { clockMoved, waitUntil } from '../until.js';
import { sendKeys } from '@web/test-runner-commands';
import type { AgentSurfaceAuthority, AgentSurfaceRegistry, AgentInvocationResult, JsonObject } from '../../src/core/types.js';

const ENTRY = '/dist/cdn/agent-surface.min.js';

interface Kit {
  createAgentSurfaceRegistry(options: { authority: AgentSurfaceAuthority }): AgentSurfaceRegistry;
  devAuthority(): AgentSurfaceAuthority;
}

type Reactive = HTMLElement & { updateComplete: Promise<boolean> };
type Confirm = Reactive & { registry: AgentSurfaceRegistry | undefined; activationDelay: number };

const consumer = { id: 'elements-cdn-test', kind: 'test' };
let calls = 0;

/** A registry (made by the given kit) with one action that needs a person's approval. */
function registryWithAction(kit: Kit, { console } = window): AgentSurfaceRegistry {
  const warn = console.warn;
  console.warn = () => {}; // devAuthority() warns once per capability, by design
  try {
    const registry = kit.createAgentSurfaceRegistry({ authority: kit.devAuthority() });
    registry.register({
      contract: {
        id: 'domain:notes.wipe',
        kind: 'action',
        effect: 'local-state',
        confirmation: 'required',
        description: 'Delete every note in the draft.',
        inputSchema: { type: 'object', properties: { reason: { type: 'string' } } },
      },
      handler: () => ({ wiped: true }),
    });
    return registry;
  } finally {
    console.warn = warn;
  }
}

async function ask(registry: AgentSurfaceRegistry, input: JsonObject) {
  const request = { capabilityId: 'domain:notes.wipe', input, consumer, invocationId: `cdn-el-${++calls}` };
  const first: AgentInvocationResult = await registry.invoke(request);
  if (first.ok || first.error.code !== 'CONFIRMATION_REQUIRED')
    throw new Error(`expected CONFIRMATION_REQUIRED, got ${JSON.stringify(first)}`);
  const { confirmationId } = first.error.details as { confirmationId: string };
  return { confirmationId, retry: () => registry.invoke({ ...request, invocationId: `cdn-el-${++calls}`, confirmationId }) };
}

/** How many of the dialog's buttons respond (their request has been in place for the activation delay). */
const activeButtons = (confirm: Element) =>
  confirm.shadowRoot!.querySelectorAll('button[aria-disabled="false"]').length;

describe('elements from dist/cdn/agent-surface.min.js', () => {
  let kit: Kit;
  before(async () => {
    kit = (await import(ENTRY)) as Kit;
  });

  it('<agent-surface> and <agent-view> render one default slot that shows their content', async () => {
    const host = document.createElement('div');
    host.innerHTML = `<agent-surface><agent-view name="notes"><p id="content">Notes</p></agent-view></agent-surface>`;
    document.body.append(host);
    try {
      const surface = host.querySelector('agent-surface') as Reactive;
      const view = host.querySelector('agent-view') as Reactive;
      expect(await surface.updateComplete).to.equal(true);
      expect(await view.updateComplete).to.equal(true);
      for (const [el, child] of [
        [surface, view],
        [view, host.querySelector('#content')!],
      ] as const) {
        const root = el.shadowRoot!;
        expect(root.mode).to.equal('open');
        expect([...root.children].map((c) => c.localName)).to.deep.equal(['slot']);
        expect(root.querySelector('slot')!.assignedElements()).to.deep.equal([child]);
        // `static styles` adopted by ReactiveElement.
        expect(getComputedStyle(el).display).to.equal('contents');
      }
      expect(view.getAttribute('name')).to.equal('notes');
      // Slotted content is laid out: the paragraph has a box.
      expect(host.querySelector('#content')!.getBoundingClientRect().height).to.be.greaterThan(0);
    } finally {
      host.remove();
    }
  });

  it('<agent-webmcp> has an empty shadow root, is hidden, and reflects its status', async () => {
    const el = document.createElement('agent-webmcp') as Reactive & { status: string };
    document.body.append(el);
    try {
      expect(await el.updateComplete).to.equal(true);
      expect(el.shadowRoot!.children).to.have.length(0);
      expect(getComputedStyle(el).display).to.equal('none');
      expect(el.getAttribute('status')).to.equal('idle');
    } finally {
      el.remove();
    }
  });

  it('<agent-confirm> shows requests in the dialog the chunk fills, handles Escape and Tab, and returns focus', async () => {
    const registry = registryWithAction(kit);
    const outside = document.createElement('button');
    outside.textContent = 'Something else';
    const confirm = document.createElement('agent-confirm') as Confirm;
    confirm.registry = registry;
    confirm.activationDelay = 50;
    document.body.append(outside, confirm);
    try {
      // The shell's closed, empty dialog is there as soon as the element is connected.
      const dialog = confirm.shadowRoot!.querySelector('dialog')!;
      expect(dialog.open).to.equal(false);
      for (const [name, value] of Object.entries({
        part: 'dialog',
        role: 'alertdialog',
        'aria-modal': 'true',
        'aria-labelledby': 'title',
      })) {
        expect(dialog.getAttribute(name), name).to.equal(value);
      }
      await confirm.updateComplete;
      outside.focus();

      const first = await ask(registry, { reason: 'one' });
      await clockMoved(); // newest first is by creation time: the second request is a millisecond younger
      const second = await ask(registry, { reason: 'two' });
      await waitUntil(() => confirm.shadowRoot!.querySelectorAll('[part~="item"]').length === 2, 'both requests shown');
      expect(dialog.open).to.equal(true);
      expect(dialog.matches(':modal')).to.equal(true);
      const title = confirm.shadowRoot!.getElementById('title')!;
      expect(title.parentElement).to.equal(dialog);
      expect(title.textContent!.trim()).to.equal('2 agent requests need your approval');
      // The chunk's styles came with it.
      expect(getComputedStyle(confirm).display).to.equal('contents');
      expect(getComputedStyle(confirm.shadowRoot!.querySelector('[part~="actions"]')!).display).to.equal('flex');
      await expect(confirm).to.be.accessible();

      // Escape on the older request's Deny denies that one; the dialog stays open for the other.
      await waitUntil(() => activeButtons(confirm) === 4, 'both requests respond', { timeout: 5000 });
      confirm.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part~="deny"]')[1]!.focus();
      await sendKeys({ press: 'Escape' });
      await waitUntil(() => confirm.shadowRoot!.querySelectorAll('[part~="item"]').length === 1, 'one request left');
      expect(registry.confirmations.list().map((p) => p.confirmationId)).to.deep.equal([second.confirmationId]);
      const denied = await first.retry();
      expect(!denied.ok && denied.error.code).to.equal('CONFIRMATION_INVALID');
      expect(dialog.open).to.equal(true);
      expect(confirm.shadowRoot!.getElementById('title')!.textContent!.trim()).to.equal('An agent asks for your approval');

      // Tab and Shift+Tab stay inside the dialog.
      const buttons = [...confirm.shadowRoot!.querySelectorAll('button')];
      expect(buttons).to.have.length(2);
      for (const shift of [false, true]) {
        if (shift) await sendKeys({ down: 'Shift' });
        try {
          for (let i = 0; i < 3; i++) {
            await sendKeys({ press: 'Tab' });
            expect(buttons).to.include(confirm.shadowRoot!.activeElement);
          }
        } finally {
          if (shift) await sendKeys({ up: 'Shift' });
        }
      }

      // Escape again denies the last one (it moved up, so it waits its delay again): the dialog closes.
      await waitUntil(() => activeButtons(confirm) === 2, 'the last request responds', { timeout: 5000 });
      await sendKeys({ press: 'Escape' });
      await waitUntil(() => !dialog.open, 'the dialog closes');
      expect(registry.confirmations.list()).to.deep.equal([]);
      expect(document.activeElement).to.equal(outside);
      expect(dialog.children).to.have.length(0);
    } finally {
      confirm.remove();
      outside.remove();
      registry.dispose();
    }
  });

  it("the npm build's dialog chunk (dist/chunks, lit external) fills the same shell", async () => {
    // A page of its own, so dist/elements.js defines the tags there (this page has the CDN file's).
    const frame = document.createElement('iframe');
    frame.style.cssText = 'width: 800px; height: 600px';
    frame.srcdoc = `<!doctype html><body><script type="module">
      window.kit = { ...(await import('/dist/index.js')), ...(await import('/dist/dev.js')) };
      await import('/dist/elements.js');
      document.documentElement.dataset.ready = 'true';
    </script></body>`;
    document.body.append(frame);
    try {
      await waitUntil(() => frame.contentDocument?.documentElement?.dataset.ready === 'true', 'dist/ loaded', {
        timeout: 10000,
      });
      const win = frame.contentWindow as Window & typeof globalThis & { kit: Kit };
      const registry = registryWithAction(win.kit, win);
      const confirm = win.document.createElement('agent-confirm') as Confirm;
      expect(confirm).to.be.instanceOf(win.customElements.get('agent-confirm')!);
      confirm.registry = registry;
      win.document.body.append(confirm);
      await ask(registry, { reason: 'npm' });
      await confirm.updateComplete;
      const root = confirm.shadowRoot!;
      const dialog = root.querySelector('dialog')!;
      expect(dialog.open).to.equal(true);
      expect(dialog.getAttribute('part')).to.equal('dialog');
      expect(root.getElementById('title')!.textContent!.trim()).to.equal('An agent asks for your approval');
      expect(root.querySelectorAll('[part~="item"]')).to.have.length(1);
      expect(root.querySelector('[part~="input"]')!.textContent).to.contain('npm');
      expect(win.getComputedStyle(root.querySelector('[part~="actions"]')!).display).to.equal('flex');
      const chunks = win.performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name).pathname)
        .filter((path) => path.includes('confirm-dialog'));
      expect(chunks).to.have.length(1);
      expect(chunks[0]).to.match(/^\/dist\/chunks\/confirm-dialog-[\w-]+\.js$/);
      registry.dispose();
    } finally {
      frame.remove();
    }
  });
});
