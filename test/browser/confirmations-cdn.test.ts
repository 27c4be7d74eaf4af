// registry.confirmations and the idempotency store through dist/cdn/agent-surface.min.js, where the
// invoke pipeline (with the idempotency store) is a lazy chunk (src/core/registry.ts imports
// invoke.ts): before that chunk is there a registry's confirmation store, the real one from the
// start, answers as an empty store, and the first call waits for the pipeline.
// `node scripts/test.mjs` builds dist/ before running this file (its name ends with cdn.test.ts).
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { sendMouse } from '@web/test-runner-commands';
import type * as Kit from '../../src/index.js';
import type { AgentSurfaceRegistry, PendingConfirmation } from '../../src/core/types.js';
// @ts-expect-error: a compiled manifest module (plain JavaScript, no types), read-only here.
import { manifest, validators } from './fixtures/csp-manifest.js';

const ENTRY = '/dist/cdn/agent-surface.min.js';
const consumer = { id: 'confirmations-cdn', kind: 'test' };

function frame(src?: string): HTMLIFrameElement {
  const f = document.createElement('iframe');
  // Big enough for the modal approval dialog, borderless so page and frame coordinates line up.
  f.style.cssText = 'width: 900px; height: 700px; border: 0; display: block;';
  if (src !== undefined) f.src = src;
  document.body.append(f);
  return f;
}

/** The pipeline chunk's files a window has fetched so far. */
function pipelineChunks(win: Window): string[] {
  return win.performance
    .getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname)
    .filter((p) => /^\/dist\/cdn\/invoke-[\w-]+\.min\.js$/.test(p));
}

/** A click the browser makes (trusted input), in the middle of an element inside `f`. */
async function trustedClick(f: HTMLIFrameElement, element: Element): Promise<void> {
  const outer = f.getBoundingClientRect();
  const box = element.getBoundingClientRect();
  await sendMouse({
    type: 'click',
    position: [Math.round(outer.left + box.left + box.width / 2), Math.round(outer.top + box.top + box.height / 2)],
  });
}

describe('confirmations and idempotency through the CDN file', () => {
  afterEach(async () => {
    await sendMouse({ type: 'move', position: [0, 0] });
    for (const f of document.querySelectorAll('iframe')) f.remove();
  });

  it('a registry used before its pipeline chunk arrived keeps its subscribers and limits once calls run', async () => {
    // A fresh window: its own module map, so the kit and its pipeline chunk load anew there.
    const f = frame();
    await new Promise((r) => setTimeout(r));
    const win = f.contentWindow as Window & { eval(code: string): Promise<typeof Kit> };
    const kit = await win.eval(`import(${JSON.stringify(ENTRY)})`);
    expect(pipelineChunks(win)).to.deep.equal([], 'nothing has asked for the pipeline yet');

    // Everything from here to the first await runs before the chunk can have arrived.
    const authority = kit.createCompilerAuthority({ manifest, validators });
    const registry = kit.createAgentSurfaceRegistry({ authority, limits: { confirmationTtlMs: 7000, maxPendingConfirmations: 1 } });
    const { list, subscribe, approve, deny, waitFor } = registry.confirmations;
    expect(list()).to.deep.equal([]);
    expect(approve('cf-none')).to.equal(false);
    expect(deny('cf-none', 'no')).to.equal(false);
    const unknown = waitFor('cf-none');
    const heard: PendingConfirmation[][] = [];
    subscribe((pending) => heard.push(pending));
    const dropped: PendingConfirmation[][] = [];
    subscribe((pending) => dropped.push(pending))();
    let runs = 0;
    const { contract, token } = authority.contract('domain:devices.disable')!;
    registry.register({
      contract,
      token,
      handler: (input) => {
        runs++;
        return { disabled: (input.ids as string[]).length };
      },
    });
    const request = { capabilityId: 'domain:devices.disable', input: { ids: ['d1', 'd2'] }, consumer, surfaceVersion: registry.surfaceVersion, invocationId: 'early-1' };
    const first = registry.invoke(request);

    expect(await unknown).to.deep.equal({ status: 'unknown' });
    const asked = await first;
    expect(asked.ok).to.equal(false);
    expect(!asked.ok && asked.error.code).to.equal('CONFIRMATION_REQUIRED');
    expect(pipelineChunks(win)).to.have.length(1);
    const confirmationId = String(!asked.ok && asked.error.details?.confirmationId);
    expect(heard.map((l) => l.map((p) => p.confirmationId))).to.deep.equal([[confirmationId]]);
    expect(dropped).to.deep.equal([]);
    const [pending] = list();
    expect(pending!.expiresAt - pending!.createdAt).to.equal(7000);
    const other = await registry.invoke({ ...request, invocationId: 'early-2', input: { ids: ['d3'] } });
    expect(!other.ok && other.error.code).to.equal('RATE_LIMITED', 'maxPendingConfirmations 1 reached the real store');

    expect(approve(confirmationId)).to.equal(true);
    expect(await waitFor(confirmationId)).to.deep.equal({ status: 'approved' });
    const ran = await registry.invoke({ ...request, confirmationId });
    expect(ran.ok && ran.output).to.deep.equal({ disabled: 2 });
    const again = await registry.invoke({ ...request, confirmationId });
    expect(again.ok && again.output).to.deep.equal({ disabled: 2 });
    expect(runs).to.equal(1, 'the retry was answered from the idempotency store');
    registry.dispose();
    expect(heard.at(-1)).to.deep.equal([]);
  });

  it('on the plain-HTML page: the person approves in <agent-confirm> with a real click, the retry runs once and replays', async () => {
    const f = frame('/test/browser/fixtures/cdn.html');
    await waitUntil(() => f.contentDocument?.documentElement?.dataset.ready === 'true', 'cdn.html did not get ready', { timeout: 10000 });
    const doc = f.contentDocument!;
    const surface = doc.querySelector('agent-surface') as unknown as HTMLElement & { registry: AgentSurfaceRegistry };
    await waitUntil(() => surface.registry?.snapshot({ consumer }).capabilities.length === 2, 'both compiled capabilities register', { timeout: 5000 });
    const registry = surface.registry;

    // Before the first call.
    expect(registry.confirmations.list()).to.deep.equal([]);
    const heard: string[][] = [];
    const stop = registry.confirmations.subscribe((pending) => heard.push(pending.map((p) => p.confirmationId)));
    let handled = 0;
    doc.querySelector('agent-capability[name="devices.disable"]')!.addEventListener('agent-invoke', () => handled++);

    const request = {
      capabilityId: 'domain:devices.disable',
      input: { ids: ['d1'] },
      consumer,
      surfaceVersion: registry.snapshot({ consumer }).surfaceVersion,
      invocationId: 'page-1',
    };
    const asked = await registry.invoke(request);
    expect(!asked.ok && asked.error.code).to.equal('CONFIRMATION_REQUIRED');
    const confirmationId = String(!asked.ok && asked.error.details?.confirmationId);
    expect(heard).to.deep.equal([[confirmationId]]);
    expect(registry.confirmations.list().map((p) => p.confirmationId)).to.deep.equal([confirmationId]);
    expect(handled).to.equal(0);

    // The person's side: the dialog shows the request; a script click does nothing, a real one approves.
    const confirm = doc.querySelector('agent-confirm') as HTMLElement & { updateComplete: Promise<unknown> };
    await waitUntil(() => confirm.shadowRoot?.querySelector('dialog')?.open === true, 'the dialog opens', { timeout: 5000 });
    await confirm.updateComplete;
    const approveButton = confirm.shadowRoot!.querySelector<HTMLButtonElement>('[part~="approve"]')!;
    const decided = registry.confirmations.waitFor(confirmationId);
    approveButton.click();
    expect(registry.confirmations.list()).to.have.length(1, 'a click made by script is not the person');
    await waitUntil(() => !approveButton.disabled && approveButton.getAttribute('aria-disabled') !== 'true', 'the approve button is active', { timeout: 5000 });
    await trustedClick(f, approveButton);
    expect(await decided).to.deep.equal({ status: 'approved' });
    expect(heard.at(-1)).to.deep.equal([]);
    await waitUntil(() => !confirm.shadowRoot!.querySelector('dialog')!.open, 'the dialog closes');

    // The approved retry runs the handler once; a repeat of it is the cached result.
    const ran = await registry.invoke({ ...request, confirmationId });
    expect(ran.ok, JSON.stringify(ran)).to.equal(true);
    expect(ran.ok && ran.output).to.deep.equal({ disabled: 1 });
    const replays: (string | undefined)[] = [];
    registry.on('invocation', (event) => replays.push(event.replay));
    const replay = await registry.invoke({ ...request, confirmationId });
    expect(replay).to.deep.equal(ran);
    const withoutId = await registry.invoke(request);
    expect(withoutId.ok && withoutId.output).to.deep.equal({ disabled: 1 });
    expect(handled).to.equal(1);
    expect(replays).to.deep.equal(['cached', 'cached']);
    const conflict = await registry.invoke({ ...request, input: { ids: ['d2'] } });
    expect(!conflict.ok && conflict.error.code).to.equal('INVOCATION_CONFLICT');
    stop();
    expect(registry.confirmations.list()).to.deep.equal([]);
  });
});
