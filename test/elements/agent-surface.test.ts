import { aTimeout, expect, fixture, html, oneEvent } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import '../../src/elements/index.js';
import type { AgentSurfaceElement } from '../../src/elements/index.js';
import { consumer, invocationId, settle, spyConsole, visibleIds } from './helpers.js';

describe('<agent-surface>', () => {
  let warn: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    warn = spyConsole('warn');
  });
  afterEach(() => warn.restore());

  it('re-dispatches the registry events as bubbling, composed DOM events', async () => {
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface>
        <agent-capability name="ping" effect="read" description="Ping."></agent-capability>
        <agent-capability
          name="wipe"
          effect="local-state"
          confirmation="required"
          description="Wipe the draft."
        ></agent-capability>
      </agent-surface>`,
    );
    const changed = oneEvent(document.body, 'agent-surface-changed');
    surface.authority = devAuthority();
    const changedEvent = await changed;
    expect(changedEvent.bubbles && changedEvent.composed).to.equal(true);
    expect(changedEvent.detail.surfaceVersion).to.equal(surface.registry!.surfaceVersion);

    surface.querySelector('agent-capability')!.handler = () => 'pong';
    const invoked = oneEvent(surface, 'agent-invocation');
    await surface.registry!.invoke({
      capabilityId: 'domain:ping',
      input: {},
      invocationId: invocationId(),
      consumer,
    });
    const invocation = await invoked;
    expect(invocation.detail).to.include({ capabilityId: 'domain:ping', outcome: 'OK' });
    expect(invocation.detail.consumer).to.deep.equal(consumer);

    const confirmation = oneEvent(surface, 'agent-confirmation');
    const result = await surface.registry!.invoke({
      capabilityId: 'domain:wipe',
      input: {},
      invocationId: invocationId(),
      consumer,
    });
    expect(result.ok).to.equal(false);
    const event = await confirmation;
    expect(event.detail.action).to.equal('created');
    expect(event.detail.confirmation.capabilityId).to.equal('domain:wipe');
  });

  it('has its registry as soon as it is given an authority, and drops it when the authority goes', async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface></agent-surface>`);
    const authority = devAuthority();
    surface.authority = authority;
    const registry = surface.registry!;
    expect(registry.authority).to.equal(authority);
    surface.authority = undefined;
    expect(surface.registry).to.equal(undefined);
    expect(registry.disposed).to.equal(true);
  });

  it('uses a registry it is given and never disposes it', async () => {
    const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface .registry=${registry}>
        <agent-capability name="ping" effect="read" description="Ping."></agent-capability>
      </agent-surface>`,
    );
    await settle();
    expect(surface.registry).to.equal(registry);
    expect(visibleIds(registry)).to.deep.equal(['domain:ping']);
    surface.remove();
    // After the surface's own setTimeout(0), which decides whether to release: timers run in order.
    await aTimeout(0);
    expect(registry.disposed).to.equal(false);
    expect(visibleIds(registry)).to.deep.equal([]);
  });

  it('keeps its registry and registrations through a move, and disposes the registry it created once removed for good', async () => {
    const container = await fixture<HTMLDivElement>(
      html`<div>
        <div id="left">
          <agent-surface
            ><agent-capability name="ping" effect="read" description="Ping."></agent-capability
          ></agent-surface>
        </div>
        <div id="right"></div>
      </div>`,
    );
    const surface = container.querySelector('agent-surface')!;
    surface.authority = devAuthority();
    await settle();
    const registry = surface.registry!;
    const cap = surface.querySelector('agent-capability')!;
    const registrationId = cap.registrationId;
    expect(registrationId).to.be.a('string');

    container.querySelector('#right')!.append(surface);
    await aTimeout(0);
    expect(surface.registry).to.equal(registry);
    expect(registry.disposed).to.equal(false);
    expect(cap.registrationId).to.equal(registrationId);

    surface.remove();
    await aTimeout(0);
    expect(registry.disposed).to.equal(true);

    // Back on the page later: a fresh registry from the same authority.
    container.append(surface);
    await settle();
    expect(surface.registry).to.not.equal(registry);
    expect(visibleIds(surface.registry)).to.deep.equal(['domain:ping']);
  });

  it('applies .policies to its registry', async () => {
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface>
        <agent-capability name="ping" effect="read" description="Ping."></agent-capability>
        <agent-capability name="secret" effect="read" description="A secret."></agent-capability>
      </agent-surface>`,
    );
    surface.policies = [
      { name: 'no-secrets', discover: ({ capability }) => capability.capabilityId !== 'domain:secret' },
    ];
    surface.authority = devAuthority();
    await settle();
    expect(visibleIds(surface.registry)).to.deep.equal(['domain:ping']);
    surface.policies = [];
    await settle();
    expect(visibleIds(surface.registry)).to.deep.equal(['domain:ping', 'domain:secret']);
  });

  it('replaces its registry when given another authority; capabilities follow', async () => {
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface>
        <agent-capability name="ping" effect="read" description="Ping."></agent-capability>
      </agent-surface>`,
    );
    surface.authority = devAuthority();
    await settle();
    const first = surface.registry!;
    surface.authority = devAuthority();
    await settle();
    expect(first.disposed).to.equal(true);
    expect(surface.registry).to.not.equal(first);
    expect(visibleIds(surface.registry)).to.deep.equal(['domain:ping']);
  });

  it('offers .toolset(options) over its registry', async () => {
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface>
        <agent-capability name="ping" effect="read" description="Ping the server."></agent-capability>
      </agent-surface>`,
    );
    expect(() => surface.toolset({ consumer, topology: 'embedded' })).to.throw(/no registry yet/);
    surface.authority = devAuthority();
    await settle();
    surface.querySelector('agent-capability')!.handler = () => 'pong';
    const toolset = surface.toolset({ consumer, mode: 'direct', topology: 'embedded' });
    const [tool, ...rest] = toolset.tools();
    expect(rest).to.have.length(0);
    expect(tool!.description).to.contain('Ping the server.');
    const result = await tool!.execute({});
    expect(result).to.deep.include({ ok: true, output: 'pong' });
    toolset.dispose();
  });

  it('registers 1 000 capabilities inserted at once with exactly one agent-surface-changed', async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface></agent-surface>`);
    surface.authority = devAuthority();
    await settle();
    let changes = 0;
    surface.addEventListener('agent-surface-changed', () => changes++);
    const markup: string[] = [];
    for (let i = 0; i < 1000; i++)
      markup.push(
        `<agent-capability name="c${i}" effect="read" description="Capability ${i}."></agent-capability>`,
      );
    const holder = document.createElement('div');
    holder.innerHTML = markup.join('');
    surface.append(holder);
    await settle();
    // Only shows that no second event follows: more time can only make that check stronger.
    // eslint-disable-next-line no-restricted-syntax
    await aTimeout(20);
    expect(surface.registry!.snapshot({ consumer }).capabilities).to.have.length(1000);
    expect(changes).to.equal(1);
  });
});
