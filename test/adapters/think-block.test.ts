// A `<think>` block in the text (llama-server, LM Studio, Ollama) is split off as reasoning while it
// streams. A long one, or one that never closes (a hostile server), must cost work in proportion to
// its length: reading all of it again for every delta froze the page (or the chat server) for
// minutes on a few hundred kilobytes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openAIStep } from '../../src/adapters/openai/protocol.js';
import type { StepPart } from '../../src/adapters/shared/loop.js';

const ev = (delta: unknown, finish?: string) => `data: ${JSON.stringify({ choices: [{ delta, ...(finish ? { finish_reason: finish } : {}) }] })}\n\n`;

async function step(deltas: string[]): Promise<{ parts: StepPart[]; scanned: number }> {
  const body = `${deltas.map((d) => ev({ content: d })).join('')}${ev({}, 'stop')}data: [DONE]\n\n`;
  const fetch = async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  // Counts the characters every regular expression is run over while the step runs.
  const exec = RegExp.prototype.exec;
  let scanned = 0;
  RegExp.prototype.exec = function (this: RegExp, s: string) {
    scanned += String(s).length;
    return exec.call(this, s);
  };
  const parts: StepPart[] = [];
  try {
    for await (const p of openAIStep('http://model.test/v1/chat/completions', {}, { fetch, headers: {}, who: 'The model server' })) parts.push(p);
  } finally {
    RegExp.prototype.exec = exec;
  }
  return { parts, scanned };
}

describe('openAIStep: a <think> block in the text', () => {
  it('a long block streamed in small deltas is read in linear work, and splits off as before', async () => {
    const chunk = 'abcdefghij';
    const n = 20_000;
    const { parts, scanned } = await step(['  <think>', ...Array(n).fill(chunk), '</th', 'ink>\n', 'The answer.']);
    assert.deepEqual(parts, [
      { type: 'reasoning', text: chunk.repeat(n), providerMetadata: { openaiCompatible: { field: 'think-tag' } } },
      { type: 'text-delta', delta: 'The answer.' },
    ]);
    assert.ok(scanned < 20 * chunk.length * n, `regular expressions read ${scanned} characters for ${chunk.length * n}`);
  });

  it('a block that never closes ends as reasoning when the step ends, in linear work', async () => {
    const { parts, scanned } = await step(['<think>', ...Array(20_000).fill('x </think'), '']);
    assert.equal(parts.length, 1);
    assert.equal(parts[0]!.type, 'reasoning');
    assert.ok(scanned < 20 * 9 * 20_000, `regular expressions read ${scanned} characters`);
  });

  it('text that only looks like the start of a block, and text without one, pass as they came', async () => {
    assert.deepEqual((await step(['<th', 'is is text'])).parts, [{ type: 'text-delta', delta: '<this is text' }]);
    assert.deepEqual((await step(['plain ', 'text'])).parts, [
      { type: 'text-delta', delta: 'plain ' },
      { type: 'text-delta', delta: 'text' },
    ]);
  });
});
