/**
 * The kit's short, stable string hash: wire names' suffixes and confirmation input digests. A leaf
 * module, so the invoke pipeline's confirmation records take the hash without the wire names.
 */

/**
 * cyrb53: a small, well-mixed 53-bit string hash. Synchronous and pure, so names are the same in
 * every runtime (no `crypto.subtle`, which is async and absent from insecure contexts).
 */
function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** `length` base-36 characters derived from `text` (several seeds chained for longer hashes). */
export function wireHash(text: string, length: number): string {
  let out = '';
  for (let seed = 0; out.length < length; seed++) {
    out += cyrb53(text, seed).toString(36).padStart(11, '0');
  }
  return out.slice(0, length);
}
