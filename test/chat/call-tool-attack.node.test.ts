// callModelContextTool handed what a hostile page script can register as a WebMCP tool (a Proxy
// whose traps throw, an `execute` getter that throws, a thenable that throws) or a careless caller's
// options: it always resolves to a ToolOutput, never throws and never rejects (DESIGN section 7).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { callModelContextTool } from '../../src/chat/call-tool.js';
import type { ToolOutput } from '../../src/chat/types.js';

const trap = () => {
  throw new Error('trap');
};
const proxy = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap, getOwnPropertyDescriptor: trap });

const anything = fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true, withBoxedValues: true, maxDepth: 3 });
/** fast-check must not read these itself (its clone check would hit the traps): drawn by index. */
const HOSTILE: unknown[] = [
  proxy,
  Object.create(null),
  { get execute() { throw new Error('getter'); } },
  { execute: proxy },
  { execute: () => proxy },
  { execute: () => ({ then: trap }) },
  { execute: () => ({ get then() { throw new Error('then getter'); } }) },
  { execute: () => ({ content: proxy }) },
  { execute: () => ({ content: [proxy] }) },
  { execute: () => { throw proxy; } },
  { execute: () => Promise.reject(proxy) },
  { execute: () => 10n },
];
const hostile = fc.nat({ max: HOSTILE.length - 1 }).map((i) => () => HOSTILE[i]);
const plain = anything.map((v) => () => v);

/** Calls and checks: the return is a promise (no synchronous throw) of a ToolOutput. */
async function settles(tool: unknown, input: unknown, options: unknown): Promise<ToolOutput> {
  let pending: Promise<ToolOutput>;
  try {
    pending = callModelContextTool(tool as never, input, options as never);
  } catch (error) {
    assert.fail(`threw synchronously: ${String(error)}`);
  }
  assert.ok(pending instanceof Promise, 'returns a promise');
  const output = await pending.catch((error: unknown) => assert.fail(`rejected: ${String(error)}`));
  assert.ok(Array.isArray(output.content), 'a ToolOutput');
  for (const c of output.content) assert.equal(typeof c.text, 'string');
  return output;
}

describe('callModelContextTool: hostile tools and options', () => {
  it('a tool whose every read throws, or whose execute is a throwing getter, is an isError result', async () => {
    // The last one also hung before: reading the rejection's name threw, so the call never ended.
    for (const tool of [proxy, { get execute() { throw new Error('getter'); } }, { execute: () => Promise.reject(proxy) }]) {
      const out = await settles(tool, {}, {});
      assert.equal(out.isError, true);
    }
  });

  it('options that cannot be read (a Proxy, a throwing signal) are an isError result, not a throw', async () => {
    const tool = { execute: () => 'ran' };
    for (const options of [proxy, { signal: proxy }, null]) {
      const out = await settles(tool, {}, options);
      assert.equal(out.isError, true);
    }
  });

  it('fast-check: any tool, input and options resolve to a ToolOutput', async () => {
    const signal = fc.oneof(fc.constant(undefined), fc.constant(AbortSignal.abort()), fc.constant(new AbortController().signal), anything);
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostile, plain), anything, fc.oneof(fc.record({ signal }).map((o) => () => o), plain, hostile), async (tool, input, options) => {
        await settles(tool(), input, options());
      }),
      { numRuns: 400 },
    );
  });
});
