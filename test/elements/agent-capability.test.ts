import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import { AgentSurfaceError } from '../../src/core/errors.js';
import { createAgentSurfaceRegistry } from '../../src/core/registry.js';
import type { AgentSurfaceRegistry, RegisterOptions } from '../../src/core/types.js';
import '../../src/elements/index.js';
import type {
  AgentCapabilityElement,
  AgentInvokeEvent,
  AgentSurfaceElement,
} from '../../src/elements/index.js';
import { consumer, invocationId, settle, spyConsole, visibleIds } from './helpers.js';

async function surfaceWith(template: ReturnType<typeof html>) {
  const surface = await fixture<AgentSurfaceElement>(template);
  surface.authority = devAuthority();
  await settle();
  return { surface, registry: surface.registry! };
}

function call(registry: AgentSurfaceRegistry, capabilityId: string, input: unknown = {}) {
  return registry.invoke({
    capabilityId,
    input,
    invocationId: invocationId(),
    consumer,
    surfaceVersion: registry.surfaceVersion,
  });
}

describe('<agent-capability>', () => {
  let warn: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    warn = spyConsole('warn'); // devAuthority warns once per capability, by design
  });
  afterEach(() => warn.restore());

  it('waits for the surface to get an authority, then registers the contract its markup declares', async () => {
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface authority="dev">
        <agent-capability
          name="notes.add"
          effect="local-state"
          description="  Add a
        note.  "
        >
          <script type="application/schema+json">
            {
              "type": "object",
              "properties": { "text": { "type": "string" } },
              "required": ["text"],
              "additionalProperties": false
            }
          </script>
          <script type="application/schema+json" data-schema="output">
            { "type": "object", "properties": { "id": { "type": "string" } } }
          </script>
        </agent-capability>
      </agent-surface>`,
    );
    const cap = surface.querySelector('agent-capability')!;
    await settle();
    // An `authority` attribute does nothing: authorization is set from script only.
    expect(surface.registry).to.equal(undefined);
    expect(cap.registrationId).to.equal(undefined);

    surface.authority = devAuthority();
    await settle();
    const [descriptor, ...rest] = surface.registry!.snapshot({ consumer }).capabilities;
    expect(rest).to.have.length(0);
    expect(descriptor).to.include({
      capabilityId: 'domain:notes.add',
      kind: 'action',
      effect: 'local-state',
      confirmation: 'never',
      description: 'Add a note.',
      plane: 'domain',
    });
    expect(descriptor!.inputSchema).to.deep.include({ required: ['text'] });
    expect(descriptor!.outputSchema).to.deep.include({ type: 'object' });
    expect(cap.registrationId).to.equal(descriptor!.registrationId);
    expect(cap.capabilityId).to.equal('domain:notes.add');
  });

  it('runs .handler with the validated input and the call context', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-capability name="echo" effect="read" description="Echo the text back.">
          <script type="application/schema+json">
            { "type": "object", "properties": { "text": { "type": "string" } } }
          </script>
        </agent-capability>
      </agent-surface>`,
    );
    const cap = surface.querySelector('agent-capability')!;
    let seen: unknown;
    cap.handler = (input, ctx) => {
      seen = ctx.consumer;
      return { echoed: input.text };
    };
    const result = await call(registry, 'domain:echo', { text: 'hi' });
    expect(result).to.deep.include({ ok: true, output: { echoed: 'hi' } });
    expect(seen).to.deep.equal(consumer);
    const invalid = await call(registry, 'domain:echo', { text: 3 });
    expect(invalid.ok).to.equal(false);
    if (!invalid.ok) expect(invalid.error.code).to.equal('INVALID_INPUT');
  });

  it('answers through agent-invoke and detail.respondWith(promise) when there is no handler', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-capability name="rename" effect="server-mutation" description="Rename a device.">
          <script type="application/schema+json">
            { "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] }
          </script>
        </agent-capability>
      </agent-surface>`,
    );
    const details: AgentInvokeEvent['detail'][] = [];
    const listener = (event: AgentInvokeEvent) => {
      details.push(event.detail);
      event.detail.respondWith(Promise.resolve({ renamed: event.detail.input.name }));
    };
    // Listening on the surface works: the event bubbles.
    surface.addEventListener('agent-invoke', listener);
    const result = await call(registry, 'domain:rename', { name: 'Printer 2' });
    expect(result).to.deep.include({ ok: true, output: { renamed: 'Printer 2' } });
    expect(details).to.have.length(1);
    expect(details[0]).to.include({ capabilityId: 'domain:rename', kind: 'action' });
    expect(details[0]!.consumer).to.deep.equal(consumer);
    expect(details[0]!.signal).to.be.instanceOf(AbortSignal);
    surface.removeEventListener('agent-invoke', listener);

    // A rejection with an AgentSurfaceError reaches the agent with its code.
    const once = (event: AgentInvokeEvent) =>
      event.detail.respondWith(
        Promise.reject(new AgentSurfaceError('PRECONDITION_FAILED', 'The device is offline.')),
      );
    surface.addEventListener('agent-invoke', once, { once: true });
    const refused = await call(registry, 'domain:rename', { name: 'x' });
    expect(refused.ok).to.equal(false);
    if (!refused.ok)
      expect(refused.error).to.include({ code: 'PRECONDITION_FAILED', message: 'The device is offline.' });
  });

  it('fails EXECUTION_FAILED with reason "no-handler" when nobody responds during dispatch', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-capability name="ping" effect="read" description="Ping."></agent-capability>
      </agent-surface>`,
    );
    const unanswered = await call(registry, 'domain:ping');
    expect(unanswered.ok).to.equal(false);
    if (!unanswered.ok) {
      expect(unanswered.error.code).to.equal('EXECUTION_FAILED');
      expect(unanswered.error.details).to.deep.equal({ reason: 'no-handler' });
    }

    // respondWith() after the listener returned is a programmer's mistake: it throws, the call fails.
    let late: unknown;
    surface.addEventListener(
      'agent-invoke',
      (event) => {
        setTimeout(() => {
          try {
            event.detail.respondWith('too late');
          } catch (error) {
            late = error;
          }
        });
      },
      { once: true },
    );
    const tooLate = await call(registry, 'domain:ping');
    await settle();
    expect(tooLate.ok).to.equal(false);
    expect(String(late)).to.match(/synchronously/);
  });

  it('reads observations through .read or agent-invoke', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-capability
          name="count"
          kind="observation"
          effect="read"
          description="How many items."
        ></agent-capability>
        <agent-capability
          name="total"
          kind="observation"
          effect="read"
          description="Total price."
        ></agent-capability>
      </agent-surface>`,
    );
    const [count, total] = surface.querySelectorAll('agent-capability');
    count!.read = () => 3;
    total!.addEventListener('agent-invoke', (event) => {
      expect(event.detail.kind).to.equal('observation');
      event.detail.respondWith(42.5);
    });
    expect(await call(registry, 'domain:count')).to.deep.include({ ok: true, output: 3 });
    expect(await call(registry, 'domain:total')).to.deep.include({ ok: true, output: 42.5 });
  });

  it('re-registers with a new registrationId when a contract attribute or a schema changes, once per batch', async () => {
    const registry = createAgentSurfaceRegistry({ authority: devAuthority() });
    const registered: string[] = [];
    const register = registry.register;
    (registry as { register: typeof register }).register = (options: RegisterOptions) => {
      registered.push(options.contract.id);
      return register(options);
    };
    const surface = await fixture<AgentSurfaceElement>(
      html`<agent-surface .registry=${registry}>
        <agent-capability name="note" effect="local-state" description="Add a note.">
          <script type="application/schema+json">
            { "type": "object" }
          </script>
        </agent-capability>
      </agent-surface>`,
    );
    await settle();
    const cap = surface.querySelector('agent-capability')!;
    const first = cap.registrationId;
    expect(first).to.be.a('string');
    expect(registered).to.have.length(1);

    // Three attribute changes in one task: one re-registration.
    cap.setAttribute('description', 'Add a sticky note.');
    cap.setAttribute('effect', 'server-mutation');
    cap.setAttribute('confirmation', 'optional');
    await settle();
    expect(registered).to.have.length(2);
    const second = cap.registrationId;
    expect(second).to.be.a('string').and.not.equal(first);
    const [d] = registry.snapshot({ consumer }).capabilities;
    expect(d).to.include({
      description: 'Add a sticky note.',
      effect: 'server-mutation',
      confirmation: 'optional',
      registrationId: second,
    });

    // A property set reflects to the attribute and re-registers too.
    cap.description = 'Add a yellow note.';
    await settle();
    expect(registry.snapshot({ consumer }).capabilities[0]!.description).to.equal('Add a yellow note.');
    const third = cap.registrationId;
    expect(third).to.not.equal(second);

    // Editing the schema script's text re-registers with the new schema.
    cap.querySelector('script')!.textContent = '{"type":"object","properties":{"text":{"type":"string"}}}';
    await settle();
    expect(cap.registrationId).to.not.equal(third);
    expect(registry.snapshot({ consumer }).capabilities[0]!.inputSchema).to.have.nested.property(
      'properties.text.type',
      'string',
    );
    expect(registered).to.have.length(4);

    // The same value again is no change.
    cap.setAttribute('effect', 'server-mutation');
    await settle();
    expect(registered).to.have.length(4);
  });

  it('updates live state from unavailable and note without re-registering', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-capability
          name="print"
          effect="external-side-effect"
          description="Print the page."
        ></agent-capability>
      </agent-surface>`,
    );
    const cap = surface.querySelector('agent-capability')!;
    const id = cap.registrationId;
    cap.setAttribute('unavailable', 'The printer is offline.');
    cap.setAttribute('note', 'Queue is empty');
    await settle();
    const [d] = registry.snapshot({ consumer }).capabilities;
    expect(d!.state).to.deep.equal({
      available: false,
      unavailableReason: 'The printer is offline.',
      note: 'Queue is empty',
    });
    expect(d!.registrationId).to.equal(id);
    const result = await call(registry, 'domain:print');
    expect(result.ok).to.equal(false);
    if (!result.ok) expect(result.error.code).to.equal('CAPABILITY_NOT_AVAILABLE');
    cap.removeAttribute('unavailable');
    await settle();
    expect(registry.snapshot({ consumer }).capabilities[0]!.state.available).to.equal(true);
    expect(cap.registrationId).to.equal(id);
  });

  it('unregisters on disconnect but keeps its registration through a move or a reorder', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <div id="a">
          <agent-capability name="one" effect="read" description="One."></agent-capability>
          <agent-capability name="two" effect="read" description="Two."></agent-capability>
        </div>
        <div id="b"></div>
      </agent-surface>`,
    );
    const [one, two] = surface.querySelectorAll('agent-capability');
    const ids = [one!.registrationId, two!.registrationId];
    expect(visibleIds(registry)).to.deep.equal(['domain:one', 'domain:two']);

    surface.querySelector('#a')!.insertBefore(two!, one!); // reorder
    surface.querySelector('#b')!.append(one!); // move
    await settle();
    expect([one!.registrationId, two!.registrationId]).to.deep.equal(ids);
    expect(visibleIds(registry)).to.deep.equal(['domain:one', 'domain:two']);

    one!.remove();
    await settle();
    expect(one!.registrationId).to.equal(undefined);
    expect(visibleIds(registry)).to.deep.equal(['domain:two']);

    // Back in: a fresh registration.
    surface.append(one!);
    await settle();
    expect(one!.registrationId).to.be.a('string').and.not.equal(ids[0]);
    expect(visibleIds(registry)).to.deep.equal(['domain:one', 'domain:two']);
  });

  it('takes its id from its place: moving it into a view re-registers under the view', async () => {
    const { surface, registry } = await surfaceWith(
      html`<agent-surface>
        <agent-view name="cart"></agent-view>
        <agent-capability name="clear" effect="local-state" description="Empty the cart."></agent-capability>
      </agent-surface>`,
    );
    const cap = surface.querySelector('agent-capability')!;
    expect(visibleIds(registry)).to.deep.equal(['domain:clear']);
    surface.querySelector('agent-view')!.append(cap);
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['view:cart.clear']);
    surface.append(cap);
    await settle();
    expect(visibleIds(registry)).to.deep.equal(['domain:clear']);
  });

  it('refuses a declaration it cannot build: a console error names the element, an event fires, nothing registers', async () => {
    const error = spyConsole('error');
    try {
      const surface = await fixture<AgentSurfaceElement>(
        html`<agent-surface>
          <agent-capability name="wipe" description="Wipe everything."></agent-capability>
        </agent-surface>`,
      );
      const cap = surface.querySelector('agent-capability')!;
      const refused = oneEvent(surface, 'agent-capability-refused');
      surface.authority = devAuthority();
      const event = await refused;
      expect(event.detail.error.code).to.equal('INVALID_CONTRACT');
      expect(event.detail.error.message).to.match(/effect/);
      await settle();
      expect(visibleIds(surface.registry)).to.deep.equal([]);
      expect(cap.registrationId).to.equal(undefined);
      expect(error.messages).to.have.length(1);
      expect(error.messages[0])
        .to.contain('<agent-capability name="wipe"')
        .and.match(/effect/);

      // Fixing the markup registers it.
      cap.setAttribute('effect', 'destructive');
      await settle();
      expect(visibleIds(surface.registry)).to.deep.equal(['domain:wipe']);
    } finally {
      error.restore();
    }
  });

  it('refuses view="…" when its nearest view has another name', async () => {
    const error = spyConsole('error');
    try {
      const { registry } = await surfaceWith(
        html`<agent-surface>
          <agent-view name="orders">
            <agent-capability
              view="devices"
              name="selectRows"
              effect="local-state"
              description="Select rows."
            ></agent-capability>
            <agent-capability
              view="orders"
              name="selectRows"
              effect="local-state"
              description="Select rows."
            ></agent-capability>
          </agent-view>
        </agent-surface>`,
      );
      expect(visibleIds(registry)).to.deep.equal(['view:orders.selectRows']);
      expect(error.messages.join('\n')).to.contain('view="devices"');
    } finally {
      error.restore();
    }
  });

  it('registers a contract given as the .contract property', async () => {
    const contract = {
      id: 'domain:cart.total',
      kind: 'observation',
      effect: 'read',
      description: 'The cart total.',
    } as const;
    const { surface, registry } = await surfaceWith(
      html`<agent-surface
        ><agent-capability .contract=${contract} .read=${() => ({ total: 12 })}></agent-capability
      ></agent-surface>`,
    );
    const cap = surface.querySelector<AgentCapabilityElement>('agent-capability')!;
    expect(cap.capabilityId).to.equal('domain:cart.total');
    expect(visibleIds(registry)).to.deep.equal(['domain:cart.total']);
    expect(await call(registry, 'domain:cart.total')).to.deep.include({ ok: true, output: { total: 12 } });
  });
});
