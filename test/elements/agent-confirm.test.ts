import { expect, fixture, html } from '@open-wc/testing';
import { freezeClock, type FrozenClock } from '../clock.js';
import { clockMoved, waitUntil } from '../until.js';
import { sendKeys, sendMouse } from '@web/test-runner-commands';
import { devAuthority } from '../../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceRegistry, JsonObject } from '../../src/core/types.js';
import '../../src/elements/index.js';
import type { AgentConfirmElement, AgentSurfaceElement } from '../../src/elements/index.js';
import { consumer, invocationId, settle, spyConsole } from './helpers.js';

interface Page {
  surface: AgentSurfaceElement;
  registry: AgentSurfaceRegistry;
  confirm: AgentConfirmElement;
  outside: HTMLButtonElement;
  ran: JsonObject[];
}

async function page(options: { delay?: number; ttlMs?: number } = {}): Promise<Page> {
  const registry = createAgentSurfaceRegistry({
    authority: devAuthority(),
    ...(options.ttlMs ? { limits: { confirmationTtlMs: options.ttlMs } } : {}),
  });
  const ran: JsonObject[] = [];
  const surface = await fixture<AgentSurfaceElement>(
    html`<agent-surface .registry=${registry}>
      <button id="outside">Something else</button>
      <agent-capability
        name="notes.wipe"
        effect="local-state"
        confirmation="required"
        description="Delete every note in the draft."
        .handler=${(input: JsonObject) => {
          ran.push(input);
          return { wiped: true };
        }}
      >
        <script type="application/schema+json">
          { "type": "object", "properties": { "reason": { "type": "string" }, "ids": { "type": "array" } } }
        </script>
      </agent-capability>
      <agent-confirm .activationDelay=${options.delay ?? 150}></agent-confirm>
    </agent-surface>`,
  );
  await settle();
  return {
    surface,
    registry,
    confirm: surface.querySelector('agent-confirm')!,
    outside: surface.querySelector('#outside')!,
    ran,
  };
}

async function ask(registry: AgentSurfaceRegistry, input: JsonObject) {
  const request = { capabilityId: 'domain:notes.wipe', input, invocationId: invocationId(), consumer };
  const first = await registry.invoke(request);
  if (first.ok || first.error.code !== 'CONFIRMATION_REQUIRED')
    throw new Error(`expected CONFIRMATION_REQUIRED, got ${JSON.stringify(first)}`);
  const confirmationId = (first.error.details as { confirmationId: string }).confirmationId;
  return { confirmationId, retry: () => registry.invoke({ ...request, confirmationId }) };
}

function dialogOf(confirm: AgentConfirmElement): HTMLDialogElement {
  return confirm.shadowRoot!.querySelector('dialog')!;
}

function button(confirm: AgentConfirmElement, which: 'approve' | 'deny', index = 0): HTMLButtonElement {
  return confirm.shadowRoot!.querySelectorAll<HTMLButtonElement>(`[part~="${which}"]`)[index]!;
}

/**
 * Waits until the request's buttons respond (its activation delay passed with it in place). With a
 * stopped clock (test/clock.ts), time moves here and only here.
 */
async function approvable(confirm: AgentConfirmElement, index = 0, clock?: FrozenClock): Promise<void> {
  await waitUntil(() => {
    if (clock) {
      clock.tick(50);
      confirm.requestUpdate();
    }
    return button(confirm, 'approve', index)?.getAttribute('aria-disabled') === 'false';
  }, 'the request never became approvable');
}

async function trustedClick(element: HTMLElement): Promise<void> {
  const box = element.getBoundingClientRect();
  await sendMouse({
    type: 'click',
    position: [Math.round(box.left + box.width / 2), Math.round(box.top + box.height / 2)],
  });
}

describe('<agent-confirm>', () => {
  let warn: ReturnType<typeof spyConsole>;
  let clock: FrozenClock | undefined;
  beforeEach(() => {
    warn = spyConsole('warn');
  });
  afterEach(async () => {
    clock?.restore();
    clock = undefined;
    warn.restore();
    await sendMouse({ type: 'move', position: [0, 0] });
  });

  it('has a 500 ms activation delay by default', () => {
    expect(document.createElement('agent-confirm').activationDelay).to.equal(500);
  });

  it('fails closed on activation-delay markup: invalid means the default, nothing below 300 ms', () => {
    const el = document.createElement('agent-confirm');
    const cases: Array<[string | null, number]> = [
      ['1000', 1000],
      ['300', 300],
      ['299', 300],
      ['0', 300],
      ['-1', 500],
      ['', 500],
      ['  ', 500],
      ['fast', 500],
      ['1e2', 500],
      ['0x10', 500],
      ['Infinity', 500],
      ['NaN', 500],
      ['99999999', 99999999],
      [null, 500],
    ];
    for (const [value, expected] of cases) {
      if (value === null) el.removeAttribute('activation-delay');
      else el.setAttribute('activation-delay', value);
      expect(el.activationDelay, `activation-delay="${value}"`).to.equal(expected);
    }
    // Script (in this development build) may go lower; clearing it returns to the attribute.
    el.setAttribute('activation-delay', '800');
    el.activationDelay = 50;
    expect(el.activationDelay).to.equal(50);
    el.activationDelay = -5;
    expect(el.activationDelay).to.equal(500);
    el.activationDelay = Number.NaN;
    expect(el.activationDelay).to.equal(500);
    el.activationDelay = undefined as unknown as number;
    expect(el.activationDelay).to.equal(800);
  });

  it('shows pending requests newest first in a labelled modal dialog, input as escaped text', async () => {
    const { registry, confirm } = await page();
    expect(dialogOf(confirm).open).to.equal(false);
    await ask(registry, { reason: 'first' });
    await clockMoved(); // newest first is by creation time: the second request is a millisecond younger
    await ask(registry, { reason: '<img src=x onerror="window.__pwned = 1">', ids: ['a', 'b'] });
    await waitUntil(() => confirm.shadowRoot!.querySelectorAll('[part~="item"]').length === 2);

    const dialog = dialogOf(confirm);
    expect(dialog.open).to.equal(true);
    expect(dialog.matches(':modal')).to.equal(true);
    expect(dialog.getAttribute('role')).to.equal('alertdialog');
    expect(dialog.getAttribute('aria-modal')).to.equal('true');
    const title = confirm.shadowRoot!.getElementById(dialog.getAttribute('aria-labelledby')!)!;
    expect(title.textContent).to.match(/2 agent requests need your approval/);

    const items = [...confirm.shadowRoot!.querySelectorAll('[part~="item"]')];
    const text = items.map((item) => item.textContent!.replace(/\s+/g, ' '));
    expect(text[0])
      .to.contain('"<img src=x onerror=\\"window.__pwned = 1\\">"')
      .and.contain('ids[0]')
      .and.contain('"a"');
    expect(text[1]).to.contain('"first"');
    expect(text[0]).to.contain('Delete every note in the draft.');
    expect(text[0]).to.contain('Changes what this page shows (local-state)');
    expect(text[0]).to.contain('test-agent (test)');
    expect(text[0]).to.match(/Expires in \d:\d\d/);
    expect(confirm.shadowRoot!.querySelector('img')).to.equal(null);
    expect((window as { __pwned?: number }).__pwned).to.equal(undefined);
  });

  it('ignores script clicks and early clicks; a trusted click after the delay approves', async () => {
    // The clock stands still until approvable() moves it: the first click is early however long
    // the machine takes to deliver it.
    clock = freezeClock();
    const { registry, confirm, ran } = await page({ delay: 300 });
    const request = await ask(registry, { reason: 'cleanup' });
    await waitUntil(() => dialogOf(confirm).open);

    // A person's click too soon after the request appeared does nothing.
    await trustedClick(button(confirm, 'approve'));
    expect(registry.confirmations.list().map((p) => p.status)).to.deep.equal(['pending']);

    await approvable(confirm, 0, clock);
    // A script cannot approve: element.click() and dispatched events are not trusted.
    button(confirm, 'approve').click();
    button(confirm, 'approve').dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    expect(registry.confirmations.list().map((p) => p.status)).to.deep.equal(['pending']);
    expect((await request.retry()).ok).to.equal(false);
    expect(ran).to.deep.equal([]);

    await trustedClick(button(confirm, 'approve'));
    expect(registry.confirmations.list()).to.deep.equal([]);
    const result = await request.retry();
    expect(result).to.deep.include({ ok: true, output: { wiped: true } });
    expect(ran).to.deep.equal([{ reason: 'cleanup' }]);
    await settle();
    expect(dialogOf(confirm).open).to.equal(false);
  });

  it('denies with Escape (after the delay), traps Tab inside the dialog and returns focus', async () => {
    const { registry, confirm, outside } = await page({ delay: 100 });
    outside.focus();
    const first = await ask(registry, { reason: 'one' });
    await clockMoved();
    await ask(registry, { reason: 'two' });
    await waitUntil(() => confirm.shadowRoot!.querySelectorAll('[part~="item"]').length === 2);
    await approvable(confirm, 0);
    await approvable(confirm, 1);

    const buttons = [...confirm.shadowRoot!.querySelectorAll('button')];
    expect(buttons).to.have.length(4);
    for (let i = 0; i < 6; i++) {
      await sendKeys({ press: 'Tab' });
      expect(buttons).to.include(confirm.shadowRoot!.activeElement);
    }
    await sendKeys({ down: 'Shift' });
    for (let i = 0; i < 5; i++) {
      await sendKeys({ press: 'Tab' });
      expect(buttons).to.include(confirm.shadowRoot!.activeElement);
    }
    await sendKeys({ up: 'Shift' });

    // Focus the older request's Deny: Escape denies that one.
    button(confirm, 'deny', 1).focus();
    await sendKeys({ press: 'Escape' });
    const denied = await first.retry();
    expect(denied.ok).to.equal(false);
    if (!denied.ok) {
      expect(denied.error.code).to.equal('CONFIRMATION_INVALID');
      expect(denied.error.details).to.include({ reason: 'denied' });
    }
    await settle();
    expect(confirm.shadowRoot!.querySelectorAll('[part~="item"]')).to.have.length(1);
    expect(dialogOf(confirm).open).to.equal(true);

    // The last one (it moved when the other left, so it waits its delay again): Escape denies it.
    await approvable(confirm);
    await sendKeys({ press: 'Escape' });
    await settle();
    expect(registry.confirmations.list()).to.deep.equal([]);
    expect(dialogOf(confirm).open).to.equal(false);
    expect(document.activeElement).to.equal(outside);
  });

  it('removes a request when it expires', async () => {
    // A stopped clock: the request cannot expire before the test has seen it shown.
    clock = freezeClock();
    const { registry, confirm } = await page({ ttlMs: 800 });
    await ask(registry, { reason: 'soon gone' });
    await waitUntil(() => dialogOf(confirm).open);
    expect(confirm.shadowRoot!.querySelectorAll('[part~="item"]')).to.have.length(1);
    clock.tick(799);
    await settle();
    expect(confirm.shadowRoot!.querySelectorAll('[part~="item"]')).to.have.length(1);
    // The registry's expiry timer looks at the clock when it fires: past the TTL, the request goes.
    clock.tick(1);
    await waitUntil(() => !dialogOf(confirm).open, 'the expired request is still shown');
    expect(confirm.shadowRoot!.querySelectorAll('[part~="item"]')).to.have.length(0);
  });

  it('is accessible while open', async () => {
    const { registry, confirm } = await page();
    await ask(registry, { reason: 'audit', ids: ['n1'] });
    await waitUntil(() => dialogOf(confirm).open);
    // Audited as a person meets it once it responds: past its activation delay.
    await approvable(confirm);
    await expect(confirm).to.be.accessible();
  });
});
