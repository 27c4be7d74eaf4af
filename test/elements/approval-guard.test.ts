// Attacks on the approval UI (issue 13, items 1 to 3): a request that slides under a resting
// pointer, page styles that stretch, move or cover Approve, an injected second dialog, fake events.
// Every click here is a real, trusted one (sendMouse); every refusal is checked against the registry.
import { expect, fixture, html } from '@open-wc/testing';
import { freezeClock, type FrozenClock } from '../clock.js';
import { SAFETY_NET_MS, waitUntil } from '../until.js';
import { sendMouse } from '@web/test-runner-commands';
import { devAuthority } from '../../src/core/authority.js';
import { resetIssuedWarnings } from '../../src/core/dev.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceRegistry, JsonObject } from '../../src/core/types.js';
import {
  ApprovalGuard,
  activationDelayFromScript,
  foreignAncestorOrigins,
  isTrustedEvent,
} from '../../src/elements/approval-guard.js';
import '../../src/elements/index.js';
import type { AgentConfirmElement, AgentSurfaceElement } from '../../src/elements/index.js';
import { consumer, invocationId, settle, spyConsole } from './helpers.js';

async function page(delay = 120) {
  const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
  const surface = await fixture<AgentSurfaceElement>(
    html`<agent-surface .registry=${registry}>
      <agent-capability
        name="notes.wipe"
        effect="local-state"
        confirmation="required"
        description="Delete every note."
        .handler=${() => ({ wiped: true })}
      >
        <script type="application/schema+json">
          { "type": "object", "properties": { "reason": { "type": "string" } } }
        </script>
      </agent-capability>
      <agent-confirm .activationDelay=${delay}></agent-confirm>
    </agent-surface>`,
  );
  await settle();
  return { surface, registry, confirm: surface.querySelector('agent-confirm')! };
}

async function ask(registry: AgentSurfaceRegistry, input: JsonObject): Promise<string> {
  const first = await registry.invoke({ capabilityId: 'domain:notes.wipe', input, invocationId: invocationId(), consumer });
  if (first.ok || first.error.code !== 'CONFIRMATION_REQUIRED') throw new Error(JSON.stringify(first));
  return (first.error.details as { confirmationId: string }).confirmationId;
}

function item(confirm: AgentConfirmElement, confirmationId: string): HTMLElement {
  return confirm.shadowRoot!.querySelector<HTMLElement>(`li[data-confirmation-id="${confirmationId}"]`)!;
}

function buttonOf(confirm: AgentConfirmElement, confirmationId: string, which: 'approve' | 'deny'): HTMLElement {
  return item(confirm, confirmationId).querySelector<HTMLElement>(`[part~="${which}"]`)!;
}

/** Resolves after the next two animation frames: the guard has sampled the page at least once. */
const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

/**
 * The input-protection tests stop the clock (test/clock.ts): whether a click lands before or after
 * a delay is then up to the test, not to how fast a loaded machine delivers the click.
 */
let clock: FrozenClock | undefined;

async function approvable(confirm: AgentConfirmElement, confirmationId: string): Promise<void> {
  // Let the guard sample the page first: a change made just now has not restarted anything yet.
  await frames();
  await settle();
  // Time passes here, and only here, while waiting for the request to be approvable.
  await waitUntil(() => {
    if (clock) {
      clock.tick(50);
      confirm.requestUpdate();
    }
    return buttonOf(confirm, confirmationId, 'approve')?.getAttribute('aria-disabled') === 'false';
  }, 'never approvable');
}

function centre(element: Element): [number, number] {
  const b = element.getBoundingClientRect();
  return [Math.round(b.left + b.width / 2), Math.round(b.top + b.height / 2)];
}

const status = (registry: AgentSurfaceRegistry, id: string) =>
  registry.confirmations.list().find((p) => p.confirmationId === id)?.status ?? 'gone';


describe('approval guard: input protection', function () {
  (this as { timeout(ms: number): void }).timeout(120000);
  let style: HTMLStyleElement | undefined;
  let warn: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    resetIssuedWarnings();
    warn = spyConsole('warn');
    clock = freezeClock();
  });
  afterEach(async () => {
    clock?.restore();
    clock = undefined;
    warn.restore();
    style?.remove();
    style = undefined;
    await sendMouse({ type: 'move', position: [0, 0] });
  });

  function pageStyle(css: string) {
    style = document.createElement('style');
    style.textContent = css;
    document.head.append(style);
  }

  it('a request that slides under a resting pointer waits its delay again', async () => {
    const { registry, confirm } = await page(150);
    const older = await ask(registry, { reason: 'older' });
    await waitUntil(() => item(confirm, older));
    const newer = await ask(registry, { reason: 'newer' });
    await waitUntil(() => item(confirm, newer));
    await approvable(confirm, older);
    await approvable(confirm, newer);

    // The pointer rests on the newer request's Approve; the newer request is withdrawn, the older one slides.
    await sendMouse({ type: 'move', position: centre(buttonOf(confirm, newer, 'approve')) });
    registry.confirmations.deny(newer, 'withdrawn');
    await waitUntil(() => !item(confirm, newer));
    // Clicked right where the older request's Approve now is, before its delay ran again (the
    // clock stands still until approvable() moves it).
    await sendMouse({ type: 'click', position: centre(buttonOf(confirm, older, 'approve')) });
    expect(status(registry, older)).to.equal('pending');

    // In place for the delay: the same click approves.
    await approvable(confirm, older);
    await sendMouse({ type: 'click', position: centre(buttonOf(confirm, older, 'approve')) });
    expect(status(registry, older)).to.equal('gone');
  });

  it('a layout shift under the pointer restarts the delay, and so does the page being hidden', async () => {
    const { registry, confirm } = await page(150);
    const id = await ask(registry, { reason: 'shift' });
    await approvable(confirm, id);
    await sendMouse({ type: 'move', position: centre(buttonOf(confirm, id, 'approve')) });
    // The page shifts the dialog (a wider dialog moves its buttons) in the same task as the click lands.
    confirm.style.setProperty('--agent-confirm-width', '20rem');
    await sendMouse({ type: 'click', position: centre(buttonOf(confirm, id, 'approve')) });
    expect(status(registry, id)).to.equal('pending');

    await approvable(confirm, id);
    document.dispatchEvent(new Event('visibilitychange'));
    await sendMouse({ type: 'click', position: centre(buttonOf(confirm, id, 'approve')) });
    expect(status(registry, id)).to.equal('pending');

    await approvable(confirm, id);
    await sendMouse({ type: 'click', position: centre(buttonOf(confirm, id, 'approve')) });
    expect(status(registry, id)).to.equal('gone');
  });

  it('::part(approve) stretched over the dialog turns no click into an approval', async () => {
    const { registry, confirm } = await page();
    const id = await ask(registry, { reason: 'stretch' });
    await approvable(confirm, id);
    const deny = centre(buttonOf(confirm, id, 'deny'));
    pageStyle('agent-confirm::part(approve) { position: fixed; inset: 0; opacity: 0; z-index: 10; }');
    // Past the (restarted) delay, so what refuses the click is where Approve is, not when: the
    // guard samples the change within these frames, then the clock moves on.
    await frames();
    clock!.tick(1000);
    // The person clicks where Deny is drawn; the transparent Approve is on top there.
    await sendMouse({ type: 'click', position: deny });
    expect(status(registry, id)).to.equal('pending');
    expect(warn.messages.join('\n')).to.match(/Approve refused/);
  });

  it('::part(approve) moved onto Deny, or out of the dialog, is refused', async () => {
    const { registry, confirm } = await page();
    const id = await ask(registry, { reason: 'move' });
    await approvable(confirm, id);
    const approve = buttonOf(confirm, id, 'approve');
    const deny = buttonOf(confirm, id, 'deny');
    const shift = approve.getBoundingClientRect().left - deny.getBoundingClientRect().left;
    pageStyle(`agent-confirm::part(approve) { position: relative; left: ${-shift + 10}px; z-index: 1; }`);
    await approvable(confirm, id);
    expect(approve.getBoundingClientRect().left - deny.getBoundingClientRect().right).to.be.below(0);
    await sendMouse({ type: 'click', position: centre(approve) });
    expect(status(registry, id)).to.equal('pending');

    style!.textContent = 'agent-confirm::part(approve) { position: fixed; right: 0; bottom: 0; }';
    await approvable(confirm, id);
    await sendMouse({ type: 'click', position: centre(approve) });
    expect(status(registry, id)).to.equal('pending');

    // Put back where the dialog drew it, it works again.
    style!.textContent = '';
    await approvable(confirm, id);
    await sendMouse({ type: 'click', position: centre(approve) });
    expect(status(registry, id)).to.equal('gone');
  });

  it('Approve covered by another top-layer element is not approvable through it', async () => {
    const { registry, confirm } = await page();
    const id = await ask(registry, { reason: 'cover' });
    await approvable(confirm, id);
    const approve = buttonOf(confirm, id, 'approve');
    const box = approve.getBoundingClientRect();
    const cover = document.createElement('div');
    cover.popover = 'manual';
    cover.textContent = 'Click here to continue';
    Object.assign(cover.style, {
      position: 'fixed',
      margin: '0',
      left: `${box.left - 4}px`,
      top: `${box.top - 4}px`,
      width: `${box.width + 8}px`,
      height: `${box.height + 8}px`,
      pointerEvents: 'none',
      background: 'white',
    });
    document.body.append(cover);
    try {
      cover.showPopover();
      // IntersectionObserver v2 reports the occlusion (within its 100 ms delay): Approve turns inactive.
      await waitUntil(() => approve.getAttribute('aria-disabled') === 'true', 'the cover was not noticed', {
        timeout: 5000,
      });
      // pointer-events: none lets the click through to Approve, but Approve is not what the person sees.
      await sendMouse({ type: 'click', position: centre(approve) });
      expect(status(registry, id)).to.equal('pending');
    } finally {
      cover.remove();
    }
    await approvable(confirm, id);
    await sendMouse({ type: 'click', position: centre(approve) });
    expect(status(registry, id)).to.equal('gone');
  });
});

describe('approval guard: configuration and events fail closed', () => {
  let error: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    resetIssuedWarnings();
    error = spyConsole('error');
  });
  afterEach(() => error.restore());

  it('a second <agent-confirm> found through markup is refused; one bound from script is shown', async () => {
    const { surface, registry, confirm } = await page();
    const injected = document.createElement('div');
    injected.innerHTML = '<agent-confirm activation-delay="0"></agent-confirm>';
    surface.append(injected);
    const second = injected.querySelector('agent-confirm')!;
    await second.updateComplete;
    const id = await ask(registry, { reason: 'two dialogs' });
    await approvable(confirm, id);
    await settle();
    expect(second.shadowRoot!.querySelector('dialog')!.open).to.equal(false);
    expect(second.shadowRoot!.querySelectorAll('li')).to.have.length(0);
    expect(second.activationDelay).to.equal(300);
    expect(error.messages.join('\n')).to.contain('already has an <agent-confirm>');

    // The page's own script may add another and give it the registry.
    const own = document.createElement('agent-confirm');
    own.registry = registry;
    surface.append(own);
    await own.updateComplete;
    await waitUntil(() => own.shadowRoot!.querySelector('dialog')?.open);
    own.remove();

    // When the page's dialog leaves, the next one found through the page may take over.
    confirm.remove();
    second.requestUpdate();
    await waitUntil(() => second.shadowRoot!.querySelector('dialog')?.open);
  });

  it('accepts only real trusted events, never look-alikes', () => {
    expect(isTrustedEvent(new MouseEvent('click'))).to.equal(false);
    expect(isTrustedEvent({ isTrusted: true, type: 'click' })).to.equal(false);
    const fake = Object.create(MouseEvent.prototype, { isTrusted: { value: true } });
    expect(isTrustedEvent(fake)).to.equal(false);
    const guard = new ApprovalGuard({ delay: () => 0 });
    guard.connect();
    const approve = document.createElement('button');
    document.body.append(approve);
    try {
      guard.track([{ key: 'k', approve, box: document.body }]);
      for (const event of [{ isTrusted: true }, fake, new MouseEvent('click', { detail: 1 }), null, 'click']) {
        expect(guard.check(event, 'k', 'approve')).to.deep.include({ ok: false, reason: 'untrusted' });
        expect(guard.check(event, 'k', 'deny')).to.deep.include({ ok: false, reason: 'untrusted' });
      }
    } finally {
      guard.disconnect();
      approve.remove();
    }
  });

  it('script can go below the floor only in development builds', () => {
    expect(activationDelayFromScript(50, true)).to.equal(50);
    expect(activationDelayFromScript(50, false)).to.equal(300);
    expect(activationDelayFromScript(800, false)).to.equal(800);
    expect(activationDelayFromScript('50', true)).to.equal(500);
    expect(activationDelayFromScript(-1, true)).to.equal(500);
  });

  it('this page is not framed', () => {
    expect(foreignAncestorOrigins(window)).to.deep.equal([]);
  });
});

interface FramedState {
  type: 'framed-state';
  origin: string;
  status: string;
  open: boolean;
  notice: string | null;
  disabled: string | null;
  approve: { x: number; y: number } | null;
}

/** The page's own origin under its other name (localhost ↔ 127.0.0.1): a frame of another origin. */
function otherOrigin(): string {
  const host = location.hostname === '127.0.0.1' ? 'localhost' : '127.0.0.1';
  return `${location.protocol}//${host}:${location.port}`;
}

async function framedPage(allow: string | undefined) {
  const frame = document.createElement('iframe');
  Object.assign(frame.style, { position: 'fixed', left: '0', top: '0', width: '640px', height: '480px', border: '0' });
  const url = new URL('/test/elements/fixtures/framed.html', otherOrigin());
  if (allow) url.searchParams.set('allow', allow);
  const ready = new Promise<void>((resolve) => {
    window.addEventListener('message', function onMessage(event) {
      if (event.source !== frame.contentWindow || event.data?.type !== 'framed-ready') return;
      window.removeEventListener('message', onMessage);
      resolve();
    });
  });
  frame.src = url.href;
  document.body.append(frame);
  await ready;
  const state = () =>
    new Promise<FramedState>((resolve) => {
      window.addEventListener('message', function onMessage(event) {
        if (event.source !== frame.contentWindow || event.data?.type !== 'framed-state') return;
        window.removeEventListener('message', onMessage);
        resolve(event.data as FramedState);
      });
      frame.contentWindow!.postMessage('state', url.origin);
    });
  /** Polls the frame until `test` holds (messages, not sleeps), with a safety net of a minute. */
  const until = async (test: (s: FramedState) => boolean, what: string) => {
    for (const end = performance.now() + 2 * SAFETY_NET_MS; performance.now() < end; ) {
      const s = await state();
      if (test(s)) return s;
      await frames();
    }
    throw new Error(`the framed page never got to: ${what}`);
  };
  return { frame, state, until };
}

describe('approval guard: framing', function () {
  // A frame of another origin fetches and compiles the kit again (the cache is per origin): slow on a busy machine.
  (this as { timeout(ms: number): void }).timeout(120000);
  afterEach(async () => {
    // The pointer leaves the frame before the frame leaves the page (the other way round, the
    // browser's input command may wait on the detached frame's process).
    await sendMouse({ type: 'move', position: [700, 10] });
    for (const frame of document.querySelectorAll('iframe')) frame.remove();
  });

  it('refuses approvals while framed by another origin, and says so in the dialog', async () => {
    const { state, until } = await framedPage(undefined);
    const s = await until((x) => x.open && x.approve !== null, 'an open dialog');
    expect(s.origin).to.not.equal(location.origin);
    expect(s.notice).to.match(/turned off while this page is embedded/);
    expect(s.disabled).to.equal('true');
    await sendMouse({ type: 'click', position: [Math.round(s.approve!.x), Math.round(s.approve!.y)] });
    expect((await state()).status).to.equal('pending');
  });

  it("approves while framed when the page's script allowed that origin", async () => {
    const { state, until } = await framedPage(location.origin);
    const s = await until((x) => x.open && x.disabled === 'false', 'an approvable request');
    expect(s.notice).to.equal(null);
    await sendMouse({ type: 'click', position: [Math.round(s.approve!.x), Math.round(s.approve!.y)] });
    await until((x) => x.status === 'gone', 'the approval');
    expect((await state()).status).to.equal('gone');
  });
});

describe('the demo server', () => {
  it('tells browsers not to let other sites frame the demo pages', async () => {
    for (const path of ['/demo/', '/demo/index.html', '/demo/csp.html']) {
      const response = await fetch(path);
      expect(response.headers.get('x-frame-options'), path).to.equal('SAMEORIGIN');
      expect(response.headers.get('content-security-policy'), path).to.contain("frame-ancestors 'self'");
    }
    expect((await fetch('/demo/csp.html')).headers.get('content-security-policy')).to.contain("script-src 'self'");
  });
});
