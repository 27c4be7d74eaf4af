// A web-test-runner plugin that lets a browser test play the agent against Chromium's native WebMCP
// host, from outside the page, over the DevTools `WebMCP` domain (reference/webmcp-hosts.md §2).
// In a test: `executeServerCommand('webmcp-agent', { action: 'enable' })`, then 'tools', 'invoke',
// 'result', 'call', 'cancel', 'log', 'disable'. test/webmcp/agent.ts wraps it with types.

import { existsSync, readdirSync } from 'node:fs';

/** Per puppeteer Page: its CDP session and everything the domain reported since `enable`. */
const states = new WeakMap();

function freshState(cdp) {
  return {
    cdp,
    /** name → { name, description, inputSchema, annotations, frameId } */
    tools: new Map(),
    /** Every toolsAdded / toolsRemoved entry, in order: what tests count. */
    log: [],
    /** invocationId → toolResponded payload */
    responses: new Map(),
    /** invocationId → resolve functions waiting for a response */
    waiters: new Map(),
    invoked: [],
  };
}

async function enable(page) {
  const old = states.get(page);
  if (old) await old.cdp.detach().catch(() => {});
  const cdp = await page.createCDPSession();
  const state = freshState(cdp);
  states.set(page, state);
  cdp.on('WebMCP.toolsAdded', ({ tools }) => {
    for (const t of tools) {
      const tool = { name: t.name, description: t.description, frameId: t.frameId };
      // Chromium 156's toolsAdded carries no title (name, description, inputSchema, annotations,
      // frameId, stackTrace); kept should a later build add it.
      if (t.title !== undefined) tool.title = t.title;
      if (t.inputSchema !== undefined) tool.inputSchema = t.inputSchema;
      if (t.annotations !== undefined) tool.annotations = t.annotations;
      state.tools.set(t.name, tool);
      state.log.push({ type: 'added', name: t.name, frameId: t.frameId });
    }
  });
  cdp.on('WebMCP.toolsRemoved', ({ tools }) => {
    for (const t of tools) {
      state.tools.delete(t.name);
      state.log.push({ type: 'removed', name: t.name, frameId: t.frameId });
    }
  });
  cdp.on('WebMCP.toolInvoked', (event) => state.invoked.push(event));
  cdp.on('WebMCP.toolResponded', (event) => {
    // `exception` holds a remote object id and a stack: tests need only what an agent sees.
    const response = { invocationId: event.invocationId, status: event.status };
    if (event.output !== undefined) response.output = event.output;
    if (event.errorText !== undefined) response.errorText = event.errorText;
    if (event.exception?.description) response.exception = String(event.exception.description).split('\n')[0];
    state.responses.set(event.invocationId, response);
    for (const resolve of state.waiters.get(event.invocationId) ?? []) resolve(response);
    state.waiters.delete(event.invocationId);
  });
  // `enable` replays toolsAdded for every tool already registered.
  await cdp.send('WebMCP.enable');
  return state;
}

function stateOf(page) {
  const state = states.get(page);
  if (!state) throw new Error("webmcp-agent: call { action: 'enable' } first");
  return state;
}

function waitForResponse(state, invocationId, timeoutMs) {
  const done = state.responses.get(invocationId);
  if (done) return Promise.resolve(done);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ invocationId, status: 'Timeout' }), timeoutMs);
    const list = state.waiters.get(invocationId) ?? [];
    list.push((response) => {
      clearTimeout(timer);
      resolve(response);
    });
    state.waiters.set(invocationId, list);
  });
}

/** The frame to call into: the tool's own frame, as the host reported it. */
function frameFor(state, page, toolName) {
  return state.tools.get(toolName)?.frameId ?? page.mainFrame()._id;
}

async function invoke(state, page, toolName, input) {
  try {
    const { invocationId } = await state.cdp.send('WebMCP.invokeTool', { frameId: frameFor(state, page, toolName), toolName, input });
    return { invocationId };
  } catch (error) {
    // "Tool not found" and the like: what an agent would see for a tool that is gone.
    return { error: String(error?.message ?? error) };
  }
}

const actions = {
  async enable(page) {
    const state = await enable(page);
    // Let the replayed toolsAdded arrive before the test looks.
    await new Promise((r) => setTimeout(r, 20));
    return { tools: [...state.tools.values()] };
  },
  tools(page) {
    return { tools: [...stateOf(page).tools.values()] };
  },
  log(page, { since = 0 } = {}) {
    const state = stateOf(page);
    return { log: state.log.slice(since), length: state.log.length };
  },
  invoke(page, { toolName, input = {} }) {
    return invoke(stateOf(page), page, toolName, input);
  },
  async result(page, { invocationId, timeoutMs = 30000 }) {
    return waitForResponse(stateOf(page), invocationId, timeoutMs);
  },
  async call(page, { toolName, input = {}, timeoutMs = 30000 }) {
    const state = stateOf(page);
    const started = await invoke(state, page, toolName, input);
    if (started.error) return { status: 'InvokeFailed', errorText: started.error };
    return waitForResponse(state, started.invocationId, timeoutMs);
  },
  async cancel(page, { invocationId }) {
    try {
      await stateOf(page).cdp.send('WebMCP.cancelInvocation', { invocationId });
      return { ok: true };
    } catch (error) {
      return { ok: false, error: String(error?.message ?? error) };
    }
  },
  async disable(page) {
    const state = states.get(page);
    states.delete(page);
    if (state) {
      await state.cdp.send('WebMCP.disable').catch(() => {});
      await state.cdp.detach().catch(() => {});
    }
    return { ok: true };
  },
};

export function webmcpAgentPlugin() {
  return {
    name: 'agent-surface-webmcp-agent',
    async executeCommand({ command, payload, session }) {
      if (command !== 'webmcp-agent') return undefined;
      const browser = session.browser;
      if (typeof browser.getPage !== 'function') {
        throw new Error('webmcp-agent needs a puppeteer-based launcher (chromeLauncher)');
      }
      const page = browser.getPage(session.id);
      const action = actions[payload?.action];
      if (!action) throw new Error(`webmcp-agent: unknown action ${JSON.stringify(payload?.action)}`);
      return action(page, payload);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The polyfill group: `*.polyfill.test.ts` files run in a Chromium started WITHOUT the WebMCP flag,
// where `@mcp-b/webmcp-polyfill` is the only host. (In the default browser they skip themselves.)

export const POLYFILL_TEST_GLOB = 'test/webmcp/**/*.polyfill.test.ts';
const POLYFILL_TEST = /\.polyfill\.test\.ts$/;

function listPolyfillTests(dir = 'test/webmcp') {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listPolyfillTests(path));
    else if (POLYFILL_TEST.test(entry.name)) out.push(path);
  }
  return out.sort();
}

/** `--files a --files=b` values from the command line (scripts/test.mjs passes one per file). */
function cliFiles(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--files') {
      for (let j = i + 1; j < argv.length && !argv[j].startsWith('--'); j++) out.push(argv[j]);
    } else if (arg.startsWith('--files=')) out.push(arg.slice('--files='.length));
  }
  return out;
}

/**
 * The wtr `groups` entry for the polyfill runs, narrowed like the default group: every polyfill
 * test when no `--files` is given, else only the polyfill tests named; none at all when none is.
 * `launcher` is a factory so no second browser is configured when the group is empty.
 */
export function webmcpPolyfillGroups(launcher, argv = process.argv) {
  const named = cliFiles(argv);
  // wtr refuses a group whose files match nothing, so list what exists rather than pass the glob.
  const files = named.length ? named.filter((f) => POLYFILL_TEST.test(f)) : listPolyfillTests();
  if (!files.length) return [];
  return [{ name: 'webmcp-polyfill', files, browsers: [launcher()] }];
}
