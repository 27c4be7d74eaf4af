// A tiny GGUF model for tests that need a real inference engine (node-llama-cpp in Node, wllama in
// the browser) on a machine where no weights can be downloaded. Llama architecture, a byte-level
// vocabulary (every byte is a token, so any text tokenizes and any JSON can be generated), random
// weights from a fixed seed, a ChatML chat template. The output is noise unless a grammar
// constrains it, which is exactly what the tests do (a JSON-schema grammar forces a tool call).
//
//   import { tinyGguf, writeTinyGguf } from './scripts/tiny-gguf.mjs';
//   const bytes = tinyGguf();              // Uint8Array, no Node APIs (usable in a browser too)
//   await writeTinyGguf('.tmp/tiny.gguf'); // Node: writes the file, returns its path
//
//   node scripts/tiny-gguf.mjs [out.gguf] [--seed N] [--layers N] [--embd N] [--ff N] [--ctx N]
//
// The file is generated at test time (into .tmp/), never committed. Format: GGUF v3 (header,
// key-value metadata, tensor infos, data aligned to `general.alignment`), as llama.cpp reads it.

const GGUF_VERSION = 3;
const ALIGNMENT = 32;

// GGUF metadata value types.
const T = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 };
// ggml tensor types we write.
const GGML_F32 = 0;
// llama.cpp token types.
const TOKEN_NORMAL = 1;
const TOKEN_UNKNOWN = 2;
const TOKEN_CONTROL = 3;
const TOKEN_BYTE = 6;

/** ChatML, the template node-llama-cpp and wllama both recognise. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** The vocabulary: control tokens first, then U+2581 (SentencePiece's space), then the 256 bytes. */
export function tinyVocabulary() {
  const tokens = ['<unk>', '<s>', '</s>', '<|im_start|>', '<|im_end|>', '\u2581'];
  const types = [TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_CONTROL, TOKEN_CONTROL, TOKEN_CONTROL, TOKEN_NORMAL];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_BYTE);
  }
  return { tokens, types, unk: 0, bos: 1, eos: 4, imStart: 3, imEnd: 4 };
}

// mulberry32: small, fast, and the same sequence everywhere for a seed, so two runs (and the
// browser and Node) produce byte-identical files.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Writer {
  constructor() {
    this.chunks = [];
    this.length = 0;
    this.encoder = new TextEncoder();
  }
  push(bytes) {
    this.chunks.push(bytes);
    this.length += bytes.byteLength;
  }
  scalar(size, set) {
    const buf = new ArrayBuffer(size);
    set(new DataView(buf));
    this.push(new Uint8Array(buf));
  }
  u32(v) {
    this.scalar(4, (d) => d.setUint32(0, v, true));
  }
  i32(v) {
    this.scalar(4, (d) => d.setInt32(0, v, true));
  }
  u64(v) {
    this.scalar(8, (d) => d.setBigUint64(0, BigInt(v), true));
  }
  f32(v) {
    this.scalar(4, (d) => d.setFloat32(0, v, true));
  }
  string(s) {
    const bytes = this.encoder.encode(s);
    this.u64(bytes.byteLength);
    this.push(bytes);
  }
  pad(alignment) {
    const rest = this.length % alignment;
    if (rest) this.push(new Uint8Array(alignment - rest));
  }
  bytes() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }
}

function writeValue(w, type, value) {
  w.u32(type.id);
  if (type.id === T.array) {
    w.u32(type.of);
    w.u64(value.length);
    for (const v of value) writeScalar(w, type.of, v);
  } else {
    writeScalar(w, type.id, value);
  }
}

function writeScalar(w, id, v) {
  if (id === T.u32) w.u32(v);
  else if (id === T.i32) w.i32(v);
  else if (id === T.f32) w.f32(v);
  else if (id === T.bool) w.push(new Uint8Array([v ? 1 : 0]));
  else if (id === T.string) w.string(v);
  else throw new Error(`tiny-gguf: no writer for value type ${id}`);
}

/**
 * Builds the model file in memory.
 * @param {{ seed?: number, layers?: number, embd?: number, ff?: number, heads?: number, ctx?: number, name?: string }} [options]
 * @returns {Uint8Array}
 */
export function tinyGguf(options = {}) {
  const seed = options.seed ?? 1234;
  const nLayer = options.layers ?? 4;
  const nEmbd = options.embd ?? 64;
  const nFf = options.ff ?? 192;
  const nHead = options.heads ?? 4;
  const nCtx = options.ctx ?? 4096;
  if (nEmbd % nHead !== 0) throw new Error('tiny-gguf: embd must be a multiple of heads');
  const vocab = tinyVocabulary();
  const nVocab = vocab.tokens.length;

  const meta = [
    ['general.architecture', { id: T.string }, 'llama'],
    ['general.name', { id: T.string }, options.name ?? 'agent-surface-kit tiny test model'],
    ['general.alignment', { id: T.u32 }, ALIGNMENT],
    ['llama.context_length', { id: T.u32 }, nCtx],
    ['llama.embedding_length', { id: T.u32 }, nEmbd],
    ['llama.block_count', { id: T.u32 }, nLayer],
    ['llama.feed_forward_length', { id: T.u32 }, nFf],
    ['llama.attention.head_count', { id: T.u32 }, nHead],
    ['llama.attention.head_count_kv', { id: T.u32 }, nHead],
    ['llama.attention.layer_norm_rms_epsilon', { id: T.f32 }, 1e-5],
    ['llama.rope.dimension_count', { id: T.u32 }, nEmbd / nHead],
    ['llama.vocab_size', { id: T.u32 }, nVocab],
    ['tokenizer.ggml.model', { id: T.string }, 'llama'],
    ['tokenizer.ggml.tokens', { id: T.array, of: T.string }, vocab.tokens],
    // SentencePiece merges by score; with only bytes and U+2581 there is nothing to merge.
    ['tokenizer.ggml.scores', { id: T.array, of: T.f32 }, vocab.tokens.map(() => 0)],
    ['tokenizer.ggml.token_type', { id: T.array, of: T.i32 }, vocab.types],
    ['tokenizer.ggml.unknown_token_id', { id: T.u32 }, vocab.unk],
    ['tokenizer.ggml.bos_token_id', { id: T.u32 }, vocab.bos],
    ['tokenizer.ggml.eos_token_id', { id: T.u32 }, vocab.eos],
    ['tokenizer.ggml.padding_token_id', { id: T.u32 }, vocab.unk],
    ['tokenizer.ggml.add_bos_token', { id: T.bool }, false],
    ['tokenizer.ggml.add_eos_token', { id: T.bool }, false],
    ...(options.chatTemplate === null ? [] : [['tokenizer.chat_template', { id: T.string }, options.chatTemplate ?? CHATML_TEMPLATE]]),
  ];

  // Shapes in ggml order (ne0 first): a weight [in, out] maps `in` features to `out`.
  const tensors = [
    ['token_embd.weight', [nEmbd, nVocab], 'random'],
    ['output_norm.weight', [nEmbd], 'ones'],
    ['output.weight', [nEmbd, nVocab], 'random'],
  ];
  for (let i = 0; i < nLayer; i++) {
    tensors.push(
      [`blk.${i}.attn_norm.weight`, [nEmbd], 'ones'],
      [`blk.${i}.attn_q.weight`, [nEmbd, nEmbd], 'random'],
      [`blk.${i}.attn_k.weight`, [nEmbd, nEmbd], 'random'],
      [`blk.${i}.attn_v.weight`, [nEmbd, nEmbd], 'random'],
      [`blk.${i}.attn_output.weight`, [nEmbd, nEmbd], 'random'],
      [`blk.${i}.ffn_norm.weight`, [nEmbd], 'ones'],
      [`blk.${i}.ffn_gate.weight`, [nEmbd, nFf], 'random'],
      [`blk.${i}.ffn_up.weight`, [nEmbd, nFf], 'random'],
      [`blk.${i}.ffn_down.weight`, [nFf, nEmbd], 'random'],
    );
  }

  const w = new Writer();
  w.push(new TextEncoder().encode('GGUF'));
  w.u32(GGUF_VERSION);
  w.u64(tensors.length);
  w.u64(meta.length);
  for (const [key, type, value] of meta) {
    w.string(key);
    writeValue(w, type, value);
  }

  const sizes = tensors.map(([, dims]) => dims.reduce((a, b) => a * b, 1) * 4);
  let offset = 0;
  const offsets = sizes.map((size) => {
    const at = offset;
    offset += Math.ceil(size / ALIGNMENT) * ALIGNMENT;
    return at;
  });
  tensors.forEach(([name, dims], i) => {
    w.string(name);
    w.u32(dims.length);
    for (const d of dims) w.u64(d);
    w.u32(GGML_F32);
    w.u64(offsets[i]);
  });
  w.pad(ALIGNMENT);

  const random = prng(seed);
  tensors.forEach(([, dims, fill], i) => {
    const n = sizes[i] / 4;
    const data = new Float32Array(n);
    if (fill === 'ones') data.fill(1);
    else {
      // Uniform in ±scale, scaled by fan-in so activations stay finite through the layers.
      const scale = 1 / Math.sqrt(dims[0]);
      for (let j = 0; j < n; j++) data[j] = (random() * 2 - 1) * scale;
    }
    // Float32Array is host-endian; every machine this runs on is little-endian, as GGUF is.
    w.push(new Uint8Array(data.buffer));
    w.pad(ALIGNMENT);
  });
  return w.bytes();
}

/**
 * Node: writes the model to `path` (creating its folder) and returns the path.
 * @param {string} path
 * @param {Parameters<typeof tinyGguf>[0]} [options]
 */
export async function writeTinyGguf(path, options) {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { dirname, resolve } = await import('node:path');
  const full = resolve(path);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, tinyGguf(options));
  return full;
}

const isCli = typeof process !== 'undefined' && process.argv[1] && import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1]).href;
if (isCli) {
  const args = process.argv.slice(2);
  const options = {};
  let out = '.tmp/tiny.gguf';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const flag = /^--(seed|layers|embd|ff|heads|ctx)$/.exec(a);
    if (flag) {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n <= 0) {
        console.error(`tiny-gguf: ${a} takes a positive integer`);
        process.exit(2);
      }
      options[flag[1]] = n;
    } else if (a.startsWith('--')) {
      console.error(`tiny-gguf: unknown option ${a}`);
      process.exit(2);
    } else out = a;
  }
  const path = await writeTinyGguf(out, options);
  const { statSync } = await import('node:fs');
  console.log(`${path} (${statSync(path).size} bytes)`);
}
