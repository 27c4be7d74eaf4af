// The lazy adapter factories of the chat's CDN file (src/adapters/lazy.ts) against the real ones of
// agent-surface-kit/adapters: the same ids, labels and option errors at once, the real adapter's
// status, models and parts once its module is there, listeners carried over, and a module that
// fails to load reported in words and tried again.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as real from '../../src/adapters/index.js';
import * as lazy from '../../src/adapters/lazy.js';
import { createScriptedAdapter } from '../../src/chat/index.js';
import type { AgentAdapter } from '../../src/chat/types.js';
import type { LocalEngine, LocalModel } from '../../src/adapters/local/types.js';
import * as F from './fixtures/openai-streams.js';
import { sse, startLoopback, type Loopback } from './helpers/loopback.js';
import { assertContract, runAdapter, tool } from './helpers/run.js';

let server: Loopback;
before(async () => (server = await startLoopback()));
after(() => server.close());
beforeEach(() => {
  server.queue.length = 0;
  server.received.length = 0;
});

/** Resolves once `adapter` has told its listener something, then `until` holds. */
function told(adapter: AgentAdapter, until: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const off = adapter.subscribe!(() => {
      if (!until()) return;
      off();
      resolve();
    });
    if (until()) {
      off();
      resolve();
    }
  });
}

const engine = (): LocalEngine => ({
  check: async () => ({ state: 'cached' }),
  load: async () => ({ generate: async () => 'hello', dispose() {} }),
});
const models: LocalModel[] = [
  { id: 'a', label: 'A', brief: 'First.' },
  { id: 'b', label: 'B', brief: 'Second.', recommended: true },
];

describe('lazy adapter factories (the chat CDN file)', () => {
  it('give the id and label the real factories give, whatever the options', () => {
    const named = { id: fc.option(fc.string(), { nil: undefined }), label: fc.option(fc.string(), { nil: undefined }) };
    fc.assert(
      fc.property(fc.record({ baseUrl: fc.webUrl().map((u) => `${u}///`.slice(0, u.length + (u.length % 3))), model: fc.string({ minLength: 1 }), ...named }), (o) => {
        const [a, b] = [lazy.createOpenAICompatibleAdapter({ ...o, check: false }), real.createOpenAICompatibleAdapter({ ...o, check: false })];
        assert.deepEqual([a.id, a.label], [b.id, b.label]);
      }),
    );
    fc.assert(
      fc.property(fc.record({ model: fc.string({ minLength: 1 }), ...named }), (o) => {
        const [a, b] = [lazy.createAnthropicAdapter({ ...o, check: false }), real.createAnthropicAdapter({ ...o, check: false })];
        assert.deepEqual([a.id, a.label], [b.id, b.label]);
      }),
    );
    fc.assert(
      // (An endpoint written host:port, without its scheme, is refused: see below.)
      fc.property(fc.record({ endpoint: fc.string({ minLength: 1 }).filter((e) => !/^[\w.-]+:\d/.test(e)), agent: fc.option(fc.string(), { nil: undefined }), ...named }), (o) => {
        const [a, b] = [lazy.createCloudAdapter({ ...o, check: false }), real.createCloudAdapter({ ...o, check: false })];
        assert.deepEqual([a.id, a.label], [b.id, b.label]);
      }),
    );
    fc.assert(
      fc.property(fc.record(named), (o) => {
        const [a, b] = [lazy.createLocalAdapter({ ...o, models, engine: engine() }), real.createLocalAdapter({ ...o, models, engine: engine() })];
        assert.deepEqual([a.id, a.label], [b.id, b.label]);
      }),
    );
    assert.equal(lazy.BUILT_IN_MODEL_ID, real.BUILT_IN_MODEL_ID);
  });

  it('two cloud adapters on one endpoint for different server agents have different ids and labels, so the switcher can tell them apart', () => {
    for (const f of [real.createCloudAdapter, lazy.createCloudAdapter]) {
      const [sales, support, none] = [f({ endpoint: '/api/chat', agent: 'sales' }), f({ endpoint: '/api/chat', agent: 'support' }), f({ endpoint: '/api/chat' })];
      assert.deepEqual(
        [sales, support, none].map((a) => [a.id, a.label]),
        [
          ['cloud:/api/chat#sales', 'Cloud (sales)'],
          ['cloud:/api/chat#support', 'Cloud (support)'],
          ['cloud:/api/chat', 'Cloud'],
        ],
      );
    }
  });

  it('the HTTP adapters throw the real ones’ errors at once for a missing baseUrl, model or endpoint, or one without its scheme (a programmer’s mistake)', () => {
    const cases: [string, unknown][] = [
      ['createOpenAICompatibleAdapter', { model: 'm' }],
      ['createOpenAICompatibleAdapter', { baseUrl: 'http://localhost:11434/v1' }],
      ['createOpenAICompatibleAdapter', undefined],
      ['createAnthropicAdapter', { apiKey: 'k' }],
      ['createCloudAdapter', {}],
      ['createCloudAdapter', { endpoint: '' }],
      ['createOpenAICompatibleAdapter', { baseUrl: 'localhost:11434/v1', model: 'm' }],
      ['createAnthropicAdapter', { baseUrl: '127.0.0.1:8080', model: 'm' }],
      ['createCloudAdapter', { endpoint: 'localhost:3000/api/chat' }],
    ];
    for (const [name, options] of cases) {
      let expected: unknown;
      try {
        (real as unknown as Record<string, (o: unknown) => unknown>)[name]!(options);
      } catch (e) {
        expected = e;
      }
      assert.ok(expected instanceof TypeError, `${name} ${JSON.stringify(options)}`);
      // A URL written host:port (as OLLAMA_HOST is) has no scheme: fetch would read `localhost:` as one.
      assert.match((expected as Error).message, new RegExp(`^${name}: ((baseUrl|model|endpoint) must be a non-empty string|(baseUrl|endpoint) "(.+)" has no scheme: write http://\\4)\\.$`));
      assert.throws(() => (lazy as unknown as Record<string, (o: unknown) => unknown>)[name]!(options), { name: 'TypeError', message: (expected as Error).message });
    }
  });

  it('createLocalAdapter throws the real one’s errors at once, before any code loads', () => {
    const bad: unknown[] = [
      undefined,
      {},
      { models: 'x' },
      { models: [{ label: 'no id' }] },
      { models: [{ id: 'a' }, { id: 'a' }] },
      { models: [{ id: real.BUILT_IN_MODEL_ID }] },
      { models: [{ id: 'a', engine: 'wasm' }] },
      { models: [{ id: 'a', url: '/m.gguf' }] },
    ];
    for (const options of bad) {
      let expected: unknown;
      try {
        real.createLocalAdapter(options as never);
      } catch (e) {
        expected = e;
      }
      assert.ok(expected instanceof TypeError, JSON.stringify(options));
      assert.throws(() => lazy.createLocalAdapter(options as never), { name: 'TypeError', message: (expected as Error).message });
    }
  });

  it('before its code is there, answers what the real adapter answers before its first check', () => {
    const url = `${server.url}/v1`;
    const pairs: [AgentAdapter, AgentAdapter][] = [
      [lazy.createOpenAICompatibleAdapter({ baseUrl: url, model: 'm', check: false }), real.createOpenAICompatibleAdapter({ baseUrl: url, model: 'm', check: false })],
      [lazy.createAnthropicAdapter({ baseUrl: server.url, model: 'm', check: false }), real.createAnthropicAdapter({ baseUrl: server.url, model: 'm', check: false })],
      [lazy.createCloudAdapter({ endpoint: `${server.url}/chat`, check: false }), real.createCloudAdapter({ endpoint: `${server.url}/chat`, check: false })],
      [lazy.createLocalAdapter({ models, engine: engine() }), real.createLocalAdapter({ models, engine: engine() })],
    ];
    for (const [a, b] of pairs) {
      assert.deepEqual(a.status!(), b.status!(), a.id);
      assert.deepEqual(a.models?.(), b.models?.(), a.id);
    }
  });

  it('reports loading until the code is there, then the real status; a listener subscribed before hears it', async () => {
    server.queue.push({ chunks: ['{"data":[]}'], headers: { 'content-type': 'application/json' } });
    const a = lazy.createOpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, model: 'm' });
    assert.deepEqual(a.status!(), { state: 'loading' });
    await told(a, () => a.status!().state === 'ready');
    assert.equal(server.received[0]?.url, '/v1/models', 'the real adapter checked its server');
    // recheck() goes to the real adapter.
    server.queue.push({ status: 503, chunks: ['down'] });
    await a.recheck();
    assert.equal(a.status!().state, 'unavailable');
  });

  it('runs the real adapter: the same parts as the real factory from the same stream', async () => {
    const tools = [tool('lookup')];
    const stream = F.oneCall('lookup', '{"q":"x"}');
    const parts = [];
    for (const make of [real.createOpenAICompatibleAdapter, lazy.createOpenAICompatibleAdapter]) {
      server.queue.push({ chunks: [sse(stream)] }, { chunks: [sse(F.text('done'))] });
      const r = await runAdapter(make({ baseUrl: `${server.url}/v1`, model: 'm', check: false }), { tools });
      assert.equal(assertContract(r.parts), undefined);
      assert.equal(r.text, 'done');
      parts.push(r.parts.map((p) => ({ ...p, ...('messageId' in p ? { messageId: '' } : {}) })));
    }
    assert.deepEqual(parts[1], parts[0]);
  });

  it('the local adapter: models() empty until its code is there, then the real choices; prepare and selectModel go through', async () => {
    const a = lazy.createLocalAdapter({ models, engine: engine(), id: `lazy-local-${Date.now()}` });
    assert.deepEqual(a.models(), []);
    await a.unload();
    await told(a, () => a.status().state === 'ready' && a.models().length === 2);
    assert.deepEqual(
      a.models().map((m) => [m.id, m.selected]),
      [
        ['a', false],
        ['b', true],
      ],
    );
    await a.selectModel('a');
    assert.equal(a.models().find((m) => m.selected)?.id, 'a');
    await a.prepare();
    assert.equal(a.status().state, 'ready');
    const r = await runAdapter(a);
    assert.equal(r.text, 'hello');
    assert.equal(assertContract(r.parts), undefined);
  });

  it('a module that fails to load: an error status and an error part in words, tried again by the next run', async () => {
    let fail = true;
    let builds = 0;
    const a = lazy.lazyAdapter(
      { id: 'x', label: 'X' },
      async () => {
        builds++;
        if (fail) throw new TypeError('Failed to fetch dynamically imported module');
        return createScriptedAdapter([{ text: 'back' }]);
      },
      [],
    );
    const notified = told(a, () => a.status!().state === 'error');
    a.status!();
    await notified;
    assert.deepEqual(a.status!(), { state: 'error', error: "The adapter's code could not be loaded: Failed to fetch dynamically imported module" });
    // Reading the status again (each render does) does not fetch again.
    a.status!();
    a.status!();
    assert.equal(builds, 1);
    const failed = await runAdapter(a);
    assert.deepEqual(failed.parts, [{ type: 'error', error: "The adapter's code could not be loaded: Failed to fetch dynamically imported module", code: 'network' }]);
    assert.equal(builds, 2);
    fail = false;
    const r = await runAdapter(a);
    assert.equal(r.text, 'back');
    assert.deepEqual(a.status!(), { state: 'ready' });
    assert.equal(builds, 3);
  });
});
