/**
 * What the current WebMCP draft added (title, the `debugging` annotation, `exposedTo`,
 * `toolactivated` / `toolcancel`) and what stopping means, against a real host: the same tests for
 * Chromium's native host (draft.test.ts) and the @mcp-b polyfill (draft.polyfill.test.ts). Each host's
 * measured behaviour is a parameter, so a test states what that host does and fails if it changes.
 * The README ("The current draft's additions") lists what these tests pin down.
 */
import { expect } from '@open-wc/testing';
import { waitUntil } from '../until.js';
import { resetIssuedWarnings } from '../../src/core/dev.js';
import { createTestSurface, type TestSurface } from '../../src/testing/index.js';
import { createWebMcpAdapter, createWebMcpSource } from '../../src/webmcp/index.js';
import type {
  ModelContextLike,
  ModelContextRegisterToolOptions,
  ModelContextTool,
  RegisteredTool,
  ToolActivity,
  WebMcpAdapter,
  WebMcpExposedToRefusal,
} from '../../src/webmcp/types.js';
import { content } from './fake-hosts.js';

export interface DraftHost {
  host: () => ModelContextLike;
  /** The error `registerTool` rejects a valid `exposedTo` with; `undefined` where it takes it. */
  refusesExposedTo: string | undefined;
  /** The annotation keys `getTools()` lists for a tool registered with all four. */
  keptAnnotations: readonly string[];
  /** Whether the host has `ontoolactivated` / `ontoolcancel` and fires them. */
  activityEvents: boolean;
  /** Whether `execute` receives `{ signal }` (so a caller's cancel reaches the page). */
  executeSignal: boolean;
  /** `executeTool`'s input: an object (native) or a JSON string (polyfill). */
  input: (value: object) => unknown;
}

let page = 0;
/** A safety net for a loaded machine; every wait is on a condition. */
const SLOW = { timeout: 15000 };

/** A host that forwards to the real one and keeps every tool object it was given, as a host may. */
function keeping(real: ModelContextLike): { host: ModelContextLike; kept: Map<string, ModelContextTool> } {
  const kept = new Map<string, ModelContextTool>();
  const host: ModelContextLike = {
    registerTool(tool: ModelContextTool, options?: ModelContextRegisterToolOptions) {
      kept.set(tool.name, tool);
      return real.registerTool!(tool, options);
    },
  };
  return { host, kept };
}

export function draftScenario(h: DraftHost): void {
  let surface: TestSurface;
  let adapter: WebMcpAdapter | undefined;
  let prefix: string;
  const originalWarn = console.warn;

  const listed = async (): Promise<RegisteredTool[]> =>
    ((await h.host().getTools!()) as RegisteredTool[]).filter((t) => t.name.startsWith(prefix));
  const tool = async (name: string): Promise<RegisteredTool> => {
    const found = (await listed()).find((t) => t.name === name);
    if (!found) throw new Error(`the host lists no ${name}`);
    return found;
  };

  beforeEach(() => {
    resetIssuedWarnings();
    console.warn = () => {}; // devAuthority() warns once per capability, by design
    prefix = `d${++page}_`;
    surface = createTestSurface();
  });

  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    surface.dispose();
    console.warn = originalWarn;
  });

  async function start(options: Parameters<typeof createWebMcpAdapter>[0] = {}): Promise<WebMcpAdapter> {
    adapter = createWebMcpAdapter({ modelContext: h.host(), prefix, ...options });
    await adapter.start({ registry: surface.registry });
    return adapter;
  }

  describe('the adapter on this host', () => {
    it("sets title (the contract's, else a readable id) and debugging: false; the host lists what it keeps", async () => {
      surface.action('domain:devices.rename', () => ({}), { description: 'Rename a device.', title: 'Rename a device' });
      surface.action('domain:devices.setPower', () => ({}), { effect: 'server-mutation', description: 'Turn a device on or off.' });
      surface.observation('domain:devices.list', () => [], { description: 'List the devices.', untrustedOutput: true });
      await start();
      const rename = await tool(`${prefix}domain_devices__rename`);
      const power = await tool(`${prefix}domain_devices__setPower`);
      const list = await tool(`${prefix}domain_devices__list`);
      expect(rename.title).to.equal('Rename a device');
      expect(power.title).to.equal('Devices: set power');
      expect(list.title).to.equal('Devices: list');
      for (const t of [rename, power, list]) expect(Object.keys(t.annotations ?? {}).sort()).to.deep.equal([...h.keptAnnotations].sort());
      const expected = { readOnlyHint: false, untrustedContentHint: false, consequentialHint: true, debugging: false };
      for (const key of h.keptAnnotations) expect(power.annotations![key as keyof typeof expected], key).to.equal(expected[key as keyof typeof expected]);
      expect(list.annotations!.readOnlyHint).to.equal(true);
      expect(list.annotations!.untrustedContentHint).to.equal(true);
    });

    it('passes exposedTo where the host takes it, and where it refuses registers for this document only and says so', async () => {
      surface.action('domain:devices.rename', () => ({ renamed: true }), { description: 'Rename a device.' });
      const errors: string[] = [];
      const originalError = console.error;
      console.error = (...args: unknown[]) => errors.push(String(args[0]));
      const heard: WebMcpExposedToRefusal[] = [];
      try {
        // A potentially trustworthy origin: native takes it, the polyfill refuses any.
        await start({ exposedTo: ['https://widget.example'], onExposedToRefused: (r) => heard.push(r) });
        const name = `${prefix}domain_devices__rename`;
        expect((await listed()).map((t) => t.name)).to.deep.equal([name]);
        expect(content(await h.host().executeTool!(await tool(name), h.input({}))).body).to.deep.equal({ renamed: true });
        expect(heard.map((r) => r.errorName)).to.deep.equal(h.refusesExposedTo ? [h.refusesExposedTo] : []);
        expect(errors.filter((e) => e.includes('WEBMCP_EXPOSED_TO_REFUSED'))).to.have.length(h.refusesExposedTo ? 1 : 0);
        await adapter!.stop();
        // An origin that is not potentially trustworthy: both hosts refuse it (SecurityError).
        heard.length = 0;
        await start({ exposedTo: ['http://widget.example'], onExposedToRefused: (r) => heard.push(r) });
        expect((await listed()).map((t) => t.name)).to.deep.equal([name]);
        expect(heard.map((r) => r.errorName)).to.deep.equal(['SecurityError']);
        expect(heard[0]!.exposedTo).to.deep.equal(['http://widget.example']);
        expect(errors.filter((e) => e.includes('WEBMCP_NAME_REFUSED'))).to.deep.equal([]);
      } finally {
        console.error = originalError;
      }
    });

    it('a name another registration held (an overlapping remount) is taken once that one lets go, and reported once', async () => {
      surface.action('domain:devices.rename', () => ({ renamed: true }), { description: 'Rename a device.' });
      surface.observation('domain:devices.list', () => [], { description: 'List the devices.' });
      const errors: string[] = [];
      const originalError = console.error;
      console.error = (...args: unknown[]) => errors.push(String(args[0]));
      const old = createWebMcpAdapter({ modelContext: h.host(), prefix });
      const conflicts: string[] = [];
      try {
        await old.start({ registry: surface.registry });
        // The new mount starts before the old one is gone: every name is taken.
        await start({ onConflict: (c) => conflicts.push(c.name) });
        const names = [`${prefix}domain_devices__list`, `${prefix}domain_devices__rename`];
        expect(conflicts.sort()).to.deep.equal(names);
        expect(adapter!.toolNames()).to.deep.equal([]);
        // Other tools coming and going while the names are still held: no new attempt is reported.
        const other = new AbortController();
        await h.host().registerTool!({ name: `${prefix}other`, description: 'Another tool.', execute: async () => ({}) }, { signal: other.signal });
        other.abort();
        await waitUntil(async () => !(await listed()).some((t) => t.name === `${prefix}other`), 'the other tool goes', SLOW);
        await adapter!.settled();
        expect(errors.filter((e) => e.includes('WEBMCP_NAME_REFUSED'))).to.have.length(2);
        // The old mount goes: the new one takes its names.
        await old.stop();
        await waitUntil(async () => (await adapter!.settled(), adapter!.toolNames().length === 2), 'the new mount holds every tool', SLOW);
        expect(adapter!.toolNames()).to.deep.equal(names);
        expect(content(await h.host().executeTool!(await tool(names[1]!), h.input({}))).body).to.deep.equal({ renamed: true });
        expect(errors.filter((e) => e.includes('WEBMCP_NAME_REFUSED'))).to.have.length(2);
        expect(conflicts).to.have.length(2);
      } finally {
        console.error = originalError;
        await old.stop();
      }
    });

    it('stopped means stopped: the kept execute answers an error result and the handler does not run', async () => {
      let runs = 0;
      surface.action('domain:door.open', () => ({ opened: ++runs }), { effect: 'local-state', description: 'Open the door.' });
      const { host, kept } = keeping(h.host());
      adapter = createWebMcpAdapter({ modelContext: host, prefix });
      await adapter.start({ registry: surface.registry });
      const name = `${prefix}domain_door__open`;
      const handle = await tool(name);
      // Through the host, as an agent would: it runs.
      const first = await h.host().executeTool!(handle, h.input({}));
      expect(content(first).body).to.deep.equal({ opened: 1 });
      const execute = kept.get(name)!.execute;
      await adapter.stop();
      expect(await listed()).to.deep.equal([]);
      // The host itself refuses its stale handle (an UnknownError from executeTool)...
      const viaHost = await h.host().executeTool!(handle, h.input({})).then(
        () => 'resolved',
        (e: Error) => e.name,
      );
      expect(viaHost).to.equal('UnknownError');
      // ...and the execute it was given answers an error result if anything still calls it.
      const result = content(await execute({}, { signal: new AbortController().signal }));
      expect(result.isError).to.equal(true);
      expect(result.body).to.deep.include({ code: 'CAPABILITY_NOT_FOUND' });
      expect(runs).to.equal(1);
    });
  });

  describe('createWebMcpSource on this host', () => {
    let registrations: AbortController[];
    beforeEach(() => {
      registrations = [];
    });
    afterEach(() => {
      for (const r of registrations) r.abort();
    });
    async function register(tool: Partial<ModelContextTool> & { name: string }): Promise<void> {
      const controller = new AbortController();
      await h.host().registerTool!({ description: `tool ${tool.name}`, execute: async () => ({ content: [{ type: 'text', text: '{}' }] }), ...tool } as ModelContextTool, {
        signal: controller.signal,
      });
      registrations.push(controller);
    }

    it('reads title (none for ""), and a consequentialHint the host dropped as not known, never false', async () => {
      await register({ name: `${prefix}titled`, title: 'A titled tool', annotations: { consequentialHint: true } });
      await register({ name: `${prefix}plain`, annotations: { consequentialHint: false, readOnlyHint: true } });
      await register({ name: `${prefix}bare` });
      const source = createWebMcpSource({ modelContext: h.host() });
      try {
        const tools = (await source.discover()).tools.filter((t) => t.name.startsWith(prefix));
        const by = (n: string) => tools.find((t) => t.name === `${prefix}${n}`)!;
        expect(by('titled').title).to.equal('A titled tool');
        expect('title' in by('plain')).to.equal(false);
        const keeps = h.keptAnnotations.includes('consequentialHint');
        expect(by('titled').consequential).to.equal(keeps ? true : undefined);
        expect(by('plain').consequential).to.equal(keeps ? false : undefined);
        expect(by('plain').readOnly).to.equal(true);
        // No annotations at all: nothing is known.
        expect(by('bare').consequential).to.equal(undefined);
        expect(by('bare').readOnly).to.equal(undefined);
      } finally {
        source.dispose();
      }
    });

    it('leaves debugging tools out unless asked, where the host keeps the annotation', async () => {
      await register({ name: `${prefix}devtool`, annotations: { debugging: true } });
      await register({ name: `${prefix}usertool` });
      const names = async (options = {}) => {
        const source = createWebMcpSource({ modelContext: h.host(), ...options });
        try {
          return (await source.discover()).tools.map((t) => t.name).filter((n) => n.startsWith(prefix));
        } finally {
          source.dispose();
        }
      };
      const keeps = h.keptAnnotations.includes('debugging');
      expect(await names()).to.deep.equal(keeps ? [`${prefix}usertool`] : [`${prefix}devtool`, `${prefix}usertool`]);
      expect(await names({ includeDebugging: true })).to.deep.equal([`${prefix}devtool`, `${prefix}usertool`]);
    });

    it('hears toolactivated and toolcancel where the host fires them, and nothing where it does not', async () => {
      let release: () => void = () => {};
      let executeSignal: AbortSignal | undefined;
      let runs = 0;
      await register({
        name: `${prefix}slow`,
        execute: (_input: unknown, options?: { signal?: AbortSignal }) => {
          executeSignal = options?.signal;
          runs += 1;
          return new Promise((resolve) => {
            release = () => resolve({ content: [{ type: 'text', text: '{"done":true}' }] });
            options?.signal?.addEventListener('abort', () => release());
          });
        },
      });
      const source = createWebMcpSource({ modelContext: h.host() });
      const heard: ToolActivity[] = [];
      const off = source.onActivity!((a) => heard.push(a));
      try {
        const { revision } = await source.discover();
        // A call that completes.
        const done = source.execute({ name: `${prefix}slow`, input: {} }, revision);
        await waitUntil(() => runs === 1, 'the tool runs', SLOW);
        await waitUntil(() => !h.activityEvents || heard.length === 1, 'toolactivated is heard', SLOW);
        release();
        expect((await done).ok).to.equal(true);
        // A call the caller cancels.
        executeSignal = undefined;
        const controller = new AbortController();
        const cancelled = source.execute({ name: `${prefix}slow`, input: {} }, revision, controller.signal);
        await waitUntil(() => runs === 2, 'the tool runs again', SLOW);
        await waitUntil(() => !h.activityEvents || heard.length === 2, 'the second toolactivated is heard', SLOW);
        controller.abort();
        const outcome = await cancelled;
        expect(outcome.ok ? undefined : outcome.code).to.equal('CANCELLED');
        if (h.activityEvents) {
          await waitUntil(() => heard.length === 3, 'toolcancel is heard', SLOW);
          expect((executeSignal as AbortSignal | undefined)?.aborted).to.equal(true);
          expect(heard).to.deep.equal([
            { type: 'activated', toolId: `${prefix}slow` },
            { type: 'activated', toolId: `${prefix}slow` },
            { type: 'cancelled', toolId: `${prefix}slow` },
          ]);
        } else {
          // The cancel never reaches the page: the execute has no signal and keeps running.
          expect(executeSignal).to.equal(undefined);
          release();
          // A round trip through the host: any event it would fire has been fired by now.
          await source.discover();
          expect(heard).to.deep.equal([]);
        }
        off();
      } finally {
        source.dispose();
      }
    });
  });
}
