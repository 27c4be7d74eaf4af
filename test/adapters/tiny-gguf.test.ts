import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { getLlama, LlamaChatSession, LlamaLogLevel, type Llama, type LlamaModel } from 'node-llama-cpp';
import { tinyGguf, tinyVocabulary, writeTinyGguf } from '../../scripts/tiny-gguf.mjs';

// Reads back the header and metadata the way llama.cpp does, so a writer bug shows here with a
// clear message rather than as a native load failure.
function readHeader(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dec = new TextDecoder();
  let at = 0;
  const u32 = () => ((at += 4), view.getUint32(at - 4, true));
  const u64 = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
  const str = () => {
    const n = u64();
    at += n;
    return dec.decode(bytes.subarray(at - n, at));
  };
  const scalar = (type: number): unknown => {
    if (type === 4) return u32();
    if (type === 5) return ((at += 4), view.getInt32(at - 4, true));
    if (type === 6) return ((at += 4), view.getFloat32(at - 4, true));
    if (type === 7) return bytes[at++] === 1;
    if (type === 8) return str();
    throw new Error(`unexpected type ${type}`);
  };
  const magic = dec.decode(bytes.subarray(0, 4));
  at = 4;
  const version = u32();
  const tensorCount = u64();
  const kvCount = u64();
  const meta = new Map<string, unknown>();
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    const type = u32();
    if (type === 9) {
      const of = u32();
      const n = u64();
      meta.set(key, Array.from({ length: n }, () => scalar(of)));
    } else meta.set(key, scalar(type));
  }
  return { magic, version, tensorCount, meta };
}

describe('scripts/tiny-gguf.mjs', () => {
  it('writes a GGUF v3 llama model with a byte vocabulary and a ChatML template, about 1 MB', () => {
    const bytes = tinyGguf();
    const h = readHeader(bytes);
    assert.equal(h.magic, 'GGUF');
    assert.equal(h.version, 3);
    assert.equal(h.meta.get('general.architecture'), 'llama');
    assert.equal(h.tensorCount, 3 + 4 * 9);
    const tokens = h.meta.get('tokenizer.ggml.tokens') as string[];
    for (let b = 0; b < 256; b++) assert.ok(tokens.includes(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`));
    assert.match(String(h.meta.get('tokenizer.chat_template')), /<\|im_start\|>/);
    assert.ok(bytes.byteLength > 500_000 && bytes.byteLength < 2_000_000, `size ${bytes.byteLength}`);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    assert.deepEqual(tinyGguf({ seed: 7, layers: 1 }), tinyGguf({ seed: 7, layers: 1 }));
    assert.notDeepEqual(tinyGguf({ seed: 7, layers: 1 }), tinyGguf({ seed: 8, layers: 1 }));
  });

  it('rejects a head count that does not divide the width', () => {
    assert.throws(() => tinyGguf({ embd: 64, heads: 5 }), /multiple of heads/);
  });

  describe('in node-llama-cpp (the real llama.cpp)', () => {
    let dir: string;
    let llama: Llama;
    let model: LlamaModel;
    before(async () => {
      dir = mkdtempSync(join(process.cwd(), '.tmp', 'tiny-gguf-'));
      const path = await writeTinyGguf(join(dir, 'tiny.gguf'));
      llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
      model = await llama.loadModel({ modelPath: path });
    });
    after(async () => {
      await model?.dispose();
      await llama?.dispose();
      rmSync(dir, { recursive: true, force: true });
    });

    it('tokenizes any text to bytes and the ChatML markers to single tokens', () => {
      const v = tinyVocabulary();
      const ids = model.tokenize('<|im_start|>é a', true);
      const byte = (b: number) => v.tokens.indexOf(`<0x${b.toString(16).toUpperCase()}>`);
      // SentencePiece marks each space (and the start) with U+2581; "é" is two UTF-8 byte tokens.
      assert.deepEqual([...ids], [v.imStart, v.tokens.indexOf('\u2581'), byte(0xc3), byte(0xa9), v.tokens.indexOf('\u2581'), byte(0x61)]);
      assert.equal(model.detokenize(ids.slice(1)), 'é a');
    });

    it('generates JSON matching a schema under a grammar', async () => {
      // One thread: on a shared two-core machine, llama.cpp's spinning worker threads make a
      // 1 MB model hundreds of times slower than a single thread.
      const context = await model.createContext({ contextSize: 512, threads: 1 });
      try {
        const session = new LlamaChatSession({ contextSequence: context.getSequence() });
        assert.equal(session.chatWrapper.wrapperName, 'ChatML');
        const schema = {
          type: 'object',
          properties: {
            name: { const: 'add_to_cart' },
            arguments: {
              type: 'object',
              properties: { sku: { enum: ['A1', 'B2'] }, qty: { type: 'integer' } },
              required: ['sku', 'qty'],
            },
          },
          required: ['name', 'arguments'],
        } as const;
        const grammar = await llama.createGrammarForJsonSchema(schema);
        const text = await session.prompt('Add one A1 to the cart', { grammar, maxTokens: 300, temperature: 0 });
        const parsed = grammar.parse(text);
        assert.equal(parsed.name, 'add_to_cart');
        assert.ok(['A1', 'B2'].includes(parsed.arguments.sku));
        assert.equal(typeof parsed.arguments.qty, 'number');
      } finally {
        await context.dispose();
      }
    });
  });
});
