// Fast 64-bit string hashing for features, without bigints or substrings: two 32-bit lanes
// mixed with Math.imul over UTF-16 code units, then a murmur3-style finaliser on each lane.
// Not cryptographic; what matters is speed and that every output bit is well mixed.

export interface Hash64 {
  hi: number; // unsigned 32-bit
  lo: number; // unsigned 32-bit
}

const SEED_HI = 0x9e3779b9;
const SEED_LO = 0x85ebca6b;

/** murmur3's 32-bit finaliser: a bijection of the 32-bit integers that mixes every bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of text.slice(start, end), written into out (reused to avoid allocation). */
export function hashRange(text: string, start: number, end: number, out: Hash64): Hash64 {
  let a = SEED_HI ^ (end - start);
  let b = SEED_LO;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul((b ^ c) + 0x6d2b79f5, 0x5bd1e995);
    b ^= b >>> 15;
  }
  out.hi = fmix32(a ^ Math.imul(b, 0x27d4eb2f));
  out.lo = fmix32(b ^ Math.imul(a, 0x165667b1) ^ 0x2545f491);
  return out;
}

export function hash64(text: string): Hash64 {
  return hashRange(text, 0, text.length, { hi: 0, lo: 0 });
}

/** Order-dependent combination of two hashes (for word shingles). */
export function combine64(a: Hash64, b: Hash64, out: Hash64): Hash64 {
  const hi = fmix32((Math.imul(a.hi, 0x2127599b) ^ b.lo ^ 0x3c6ef372) >>> 0);
  const lo = fmix32((Math.imul(a.lo, 0x7feb352d) ^ b.hi ^ 0xa54ff53a) >>> 0);
  out.hi = hi;
  out.lo = lo;
  return out;
}
