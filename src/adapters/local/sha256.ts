/**
 * SHA-256 of a stream, a chunk at a time (FIPS 180-4). WebCrypto's digest wants the whole file in
 * memory; a model is too large for that, and hashing chunk by chunk keeps each task short.
 * Loaded only for models that give a `sha256`.
 */
const primes: number[] = [];
for (let n = 2; primes.length < 64; n++) if (primes.every((p) => n % p)) primes.push(n);
// The first 32 bits of the fractional parts of the primes' cube roots (K) and square roots (H0).
const frac = (x: number) => ((x - Math.floor(x)) * 2 ** 32) >>> 0;
const K = Uint32Array.from(primes, (p) => frac(Math.cbrt(p)));
const H0 = Uint32Array.from(primes.slice(0, 8), (p) => frac(Math.sqrt(p)));

export class Sha256 {
  private readonly h = H0.slice();
  private readonly w = new Uint32Array(64);
  private readonly block = new Uint8Array(64);
  private fill = 0;
  private length = 0;

  update(data: Uint8Array): this {
    this.length += data.length;
    let at = 0;
    if (this.fill) {
      at = Math.min(64 - this.fill, data.length);
      this.block.set(data.subarray(0, at), this.fill);
      this.fill += at;
      if (this.fill < 64) return this;
      this.compress(this.block, 0);
      this.fill = 0;
    }
    for (; at + 64 <= data.length; at += 64) this.compress(data, at);
    this.block.set(data.subarray(at), 0);
    this.fill = data.length - at;
    return this;
  }

  /** The digest as lowercase hex. */
  hex(): string {
    const bits = this.length * 8;
    const tail = new Uint8Array(((this.fill + 8) >> 6) * 64 + 64 - this.fill);
    tail[0] = 0x80;
    const view = new DataView(tail.buffer);
    view.setUint32(tail.length - 8, Math.floor(bits / 2 ** 32));
    view.setUint32(tail.length - 4, bits >>> 0);
    this.update(tail);
    return Array.from(this.h, (x) => x.toString(16).padStart(8, '0')).join('');
  }

  private compress(data: Uint8Array, at: number): void {
    const { w, h } = this;
    for (let i = 0; i < 16; i++, at += 4) w[i] = (data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!;
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = w[i - 16]! + s0 + w[i - 7]! + s1;
    }
    let [a, b, c, d, e, f, g, k] = h as unknown as number[];
    for (let i = 0; i < 64; i++) {
      const t1 = k! + (((e! >>> 6) | (e! << 26)) ^ ((e! >>> 11) | (e! << 21)) ^ ((e! >>> 25) | (e! << 7))) + ((e! & f!) ^ (~e! & g!)) + K[i]! + w[i]!;
      const t2 = (((a! >>> 2) | (a! << 30)) ^ ((a! >>> 13) | (a! << 19)) ^ ((a! >>> 22) | (a! << 10))) + ((a! & b!) ^ (a! & c!) ^ (b! & c!));
      k = g;
      g = f;
      f = e;
      e = (d! + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0]! += a!;
    h[1]! += b!;
    h[2]! += c!;
    h[3]! += d!;
    h[4]! += e!;
    h[5]! += f!;
    h[6]! += g!;
    h[7]! += k!;
  }
}

/** The SHA-256 of everything the stream yields, as lowercase hex. */
export async function sha256(stream: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<string> {
  const hash = new Sha256();
  const reader = stream.getReader();
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) return hash.hex();
      hash.update(value);
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
}
