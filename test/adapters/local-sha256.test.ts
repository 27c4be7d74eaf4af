// The download's SHA-256 (src/adapters/local/sha256.ts), which hashes a model a chunk at a time,
// against Node's own implementation on arbitrary bytes split at arbitrary points.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { Sha256, sha256 } from '../../src/adapters/local/sha256.js';

const node = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('local adapter: sha256 of a download', () => {
  it('matches the standard digests at every padding boundary', () => {
    assert.equal(new Sha256().hex(), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(new Sha256().update(new TextEncoder().encode('abc')).hex(), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const n of [1, 55, 56, 63, 64, 65, 119, 120, 128, 1000]) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) & 255);
      assert.equal(new Sha256().update(data).hex(), node(data), `${n} bytes`);
    }
  });

  it('gives the same digest however the bytes are split into chunks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.array(fc.nat(2000), { maxLength: 6 }), (data, cuts) => {
        const at = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
        const hash = new Sha256();
        let from = 0;
        for (const to of [...at, data.length]) {
          hash.update(data.subarray(from, to));
          from = to;
        }
        assert.equal(hash.hex(), node(data));
      }),
    );
  });

  it('hashes a stream, and stops when its signal is aborted', async () => {
    const data = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 17) & 255);
    assert.equal(await sha256(new Blob([data]).stream()), node(data));
    const ac = new AbortController();
    ac.abort(new Error('stopped'));
    await assert.rejects(sha256(new Blob([data]).stream(), ac.signal), /stopped/);
  });
});
