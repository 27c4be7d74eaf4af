// Nothing fails silently: in development each easy mistake gets one console warning, naming the
// element and the fix, within one task; a throwing agent-invoke listener is the listener's failure;
// capabilities in a refused view say they were refused; a refusal is one console error.
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { devAuthority } from '../../src/core/authority.js';
import { AgentSurfaceError } from '../../src/core/errors.js';
import '../../src/elements/index.js';
import { devChecksDone } from '../../src/elements/dev-checks.js';
import type { AgentCapabilityElement, AgentSurfaceElement } from '../../src/elements/index.js';
import { compiledAuthority, consumer, invocationId, spyConsole, tokenOf } from './helpers.js';

/** The checks run one task after an element connects (a timer; browsers may clamp it, so wait for them). */
const nextTask = () => devChecksDone();

let n = 0;
/** A fresh name per test: warnings are de-duplicated per element for the whole page. */
const unique = (base: string) => `${base}${++n}`;

describe('development warnings', () => {
  let warn: ReturnType<typeof spyConsole>;
  let error: ReturnType<typeof spyConsole>;
  beforeEach(() => {
    warn = spyConsole('warn');
    error = spyConsole('error');
  });
  afterEach(() => {
    warn.restore();
    error.restore();
  });
  const warned = (code: string) => warn.messages.filter((m) => m.includes(`[agent-surface-kit ${code}]`));

  it('a surface with capabilities and no .authority or .registry: one warning within a task', async () => {
    const name = unique('lonely');
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface id=${name}>
      <agent-capability name=${name} effect="read" kind="observation" description="Count."></agent-capability>
    </agent-surface>`);
    await nextTask();
    const found = warned('NO_AUTHORITY');
    expect(found).to.have.length(1);
    expect(found[0]).to.contain(`<agent-surface id="${name}">`).and.contain('surface.authority = createCompilerAuthority');
    // Once: moving it around does not repeat it.
    surface.parentElement!.append(surface);
    await nextTask();
    expect(warned('NO_AUTHORITY')).to.have.length(1);
  });

  it('no warning when the authority comes in the same task, or when there is nothing to register', async () => {
    const name = unique('fine');
    const surface = document.createElement('agent-surface');
    surface.id = name;
    surface.innerHTML = `<agent-capability name="${name}" effect="read" kind="observation" description="Count."></agent-capability>`;
    document.body.append(surface);
    surface.authority = devAuthority();
    const empty = document.createElement('agent-surface');
    empty.id = unique('empty');
    document.body.append(empty);
    await nextTask();
    expect(warned('NO_AUTHORITY')).to.deep.equal([]);
    surface.remove();
    empty.remove();
  });

  it('an authority attribute does nothing, and says so', async () => {
    const name = unique('attr');
    await fixture(html`<agent-surface id=${name} authority="dev"></agent-surface>`);
    await nextTask();
    const found = warned('AUTHORITY_ATTRIBUTE');
    expect(found).to.have.length(1);
    expect(found[0]).to.contain('<agent-surface ').and.contain(`id="${name}"`).and.contain('authority="dev"').and.contain('from script only');
  });

  it('a capability or a confirm outside any surface', async () => {
    const name = unique('stray');
    const host = await fixture(html`<div>
      <agent-capability name=${name} effect="read" kind="observation" description="Stray."></agent-capability>
      <agent-confirm id=${name}></agent-confirm>
    </div>`);
    await nextTask();
    const found = warned('NO_SURFACE');
    expect(found).to.have.length(2);
    expect(found[0]).to.contain('<agent-capability ').and.contain(`name="${name}"`).and.contain('put it inside one');
    expect(found[1]).to.contain(`<agent-confirm id="${name}">`).and.contain('.registry');
    host.remove();
  });

  it('a capability inside a component inside a surface is inside it (no warning)', async () => {
    const name = unique('shadowed');
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface><div></div></agent-surface>`);
    surface.authority = devAuthority();
    const root = surface.querySelector('div')!.attachShadow({ mode: 'open' });
    root.innerHTML = `<agent-capability name="${name}" effect="read" kind="observation" description="Inside."></agent-capability>`;
    await nextTask();
    expect(warned('NO_SURFACE')).to.deep.equal([]);
  });

  it('a surface nested in a surface', async () => {
    const name = unique('inner');
    await fixture(html`<agent-surface><section><agent-surface id=${name}></agent-surface></section></agent-surface>`);
    const found = warned('NESTED_SURFACE');
    expect(found).to.have.length(1);
    expect(found[0]).to.contain(`<agent-surface id="${name}">`).and.contain('not nested');
  });

  it('a .handler on an observation and a .read on an action', async () => {
    const obs = unique('obs');
    const act = unique('act');
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name=${obs} kind="observation" effect="read" description="Read."></agent-capability>
      <agent-capability name=${act} effect="local-state" description="Act."></agent-capability>
    </agent-surface>`);
    surface.authority = devAuthority();
    const [o, a] = surface.querySelectorAll('agent-capability');
    o.handler = () => ({});
    a.read = () => ({});
    await surface.updateComplete;
    expect(warned('HANDLER_ON_OBSERVATION')).to.have.length(1);
    expect(warned('HANDLER_ON_OBSERVATION')[0]).to.contain(`name="${obs}"`).and.contain('set .read instead');
    expect(warned('READ_ON_ACTION')).to.have.length(1);
    expect(warned('READ_ON_ACTION')[0]).to.contain(`name="${act}"`).and.contain('set .handler instead');
    o.note = 'again';
    await surface.updateComplete;
    expect(warned('HANDLER_ON_OBSERVATION')).to.have.length(1);
  });
});

describe('failures that used to be silent or misreported', () => {
  let warn: ReturnType<typeof spyConsole>;
  let error: ReturnType<typeof spyConsole>;
  let onerror: OnErrorEventHandler;
  beforeEach(() => {
    warn = spyConsole('warn');
    error = spyConsole('error');
    // Mocha treats any window error report as a failed test; these tests make listeners throw on purpose.
    onerror = window.onerror;
    window.onerror = null;
  });
  afterEach(() => {
    warn.restore();
    error.restore();
    window.onerror = onerror;
  });

  async function surfaceWith(name: string): Promise<{ surface: AgentSurfaceElement; capability: AgentCapabilityElement }> {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability name=${name} effect="local-state" description="Do it."></agent-capability>
    </agent-surface>`);
    surface.authority = devAuthority();
    await surface.updateComplete;
    return { surface, capability: surface.querySelector('agent-capability')! };
  }

  it('a throwing agent-invoke listener is the listener failure: console error for the author, EXECUTION_FAILED without its message', async () => {
    const name = unique('throws');
    const { surface, capability } = await surfaceWith(name);
    capability.addEventListener('agent-invoke', () => {
      throw new Error('secret internal detail');
    });
    const result = await surface.registry!.invoke({ capabilityId: `domain:${name}`, input: {}, invocationId: invocationId(), consumer });
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.error.code).to.equal('EXECUTION_FAILED');
    expect(JSON.stringify(result.error)).not.to.contain('secret internal detail');
    expect(result.error.details?.reason).not.to.equal('no-handler');
    const logged = error.messages.filter((m) => m.includes('LISTENER_THREW'));
    expect(logged).to.have.length(1);
    expect(logged[0]).to.contain('<agent-capability ').and.contain(`name="${name}"`).and.contain('secret internal detail');
  });

  it('a listener that throws an AgentSurfaceError answers with its code', async () => {
    const name = unique('chooses');
    const { surface, capability } = await surfaceWith(name);
    capability.addEventListener('agent-invoke', () => {
      throw new AgentSurfaceError('PRECONDITION_FAILED', 'Select a device first.');
    });
    const result = await surface.registry!.invoke({ capabilityId: `domain:${name}`, input: {}, invocationId: invocationId(), consumer });
    expect(result.ok ? 'OK' : result.error.code).to.equal('PRECONDITION_FAILED');
    expect(error.messages.filter((m) => m.includes('LISTENER_THREW'))).to.deep.equal([]);
  });

  it('no listener at all is still no-handler', async () => {
    const name = unique('nobody');
    const { surface } = await surfaceWith(name);
    const result = await surface.registry!.invoke({ capabilityId: `domain:${name}`, input: {}, invocationId: invocationId(), consumer });
    expect(result.ok ? undefined : result.error.details?.reason).to.equal('no-handler');
  });

  it('capabilities inside a refused view fire agent-capability-refused; the view logs the one error', async () => {
    const name = unique('flat');
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-view name="outer">
        <agent-view name=${name}>
          <agent-capability name="inside" effect="read" kind="observation" description="Inside."></agent-capability>
        </agent-view>
      </agent-view>
    </agent-surface>`);
    const capability = surface.querySelector('agent-capability')!;
    const refused = oneEvent(capability, 'agent-capability-refused');
    surface.authority = devAuthority();
    const event = await refused;
    expect(event.detail.error.message).to.contain('its <agent-view> was refused');
    await surface.updateComplete;
    expect(error.messages).to.have.length(1);
    expect(error.messages[0]).to.contain('INVALID_VIEW');
  });

  it('a stale token: one console error, saying to run agent-surface compile --write', async () => {
    const surface = await fixture<AgentSurfaceElement>(html`<agent-surface>
      <agent-capability
        name="devices.count"
        kind="observation"
        effect="read"
        description="How many devices are listed, roughly."
        token=${tokenOf('domain:devices.count')}
      >
        <script type="application/schema+json" data-schema="output">
          {"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}
        </script>
      </agent-capability>
    </agent-surface>`);
    surface.authority = compiledAuthority();
    await surface.updateComplete;
    expect(error.messages).to.have.length(1);
    expect(error.messages[0]).to.contain('UNAUTHORIZED_CONTRACT').and.contain('run `agent-surface compile --write`');
  });
});
