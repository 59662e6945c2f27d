// MinHash (Broder 1997; seed 004): a signature of a set whose rows agree between two sets with
// probability equal to their Jaccard similarity |A ∩ B| / |A ∪ B|.
//
// The sets are a text's word shingles: every run of SHINGLE_WORDS consecutive words (lib/text/words.ts),
// each hashed to 32 bits. Row i of the signature is the least value of h_i over the set, where
// h_i(x) = fmix32(a_i·x + b_i mod 2^32), with a_i odd: each h_i is a permutation of the 32-bit
// integers (an odd multiplier, an addition and the murmur3 finaliser are each invertible), as the
// seed's permutation argument asks. The a_i and b_i come from a seeded generator (lib/random.ts),
// so a signature is the same in every run and every process.
import { type Hash64, fmix32, hashRange } from './hash';
import { uint32s } from '../random';
import { MIN_COMPARED_WORD_LENGTH, WORD, forEachToken, normalizeText } from '../text/words';

/** Words per shingle. */
export const SHINGLE_WORDS = 3;
/** Rows in a signature. */
export const DEFAULT_HASHES = 128;
export const DEFAULT_MINHASH_SEED = 0x6d696e68; // "minh"
/** Words of spaced scripts shorter than this are dropped, as for simhash. */
const MIN_WORD_LENGTH = MIN_COMPARED_WORD_LENGTH;

/**
 * The distinct 32-bit hashes of a text's shingles of `size` consecutive words, sorted ascending.
 * A text with fewer words than `size` has one shingle of all of them (none when it has no words).
 */
export function wordShingleHashes(text: string, size = SHINGLE_WORDS): Uint32Array {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`shingle size must be a positive integer: got ${size}`);
  const normalized = normalizeText(text);
  const words: number[] = [];
  const h: Hash64 = { hi: 0, lo: 0 };
  forEachToken(normalized, (start, end, kind) => {
    if (kind === WORD && end - start < MIN_WORD_LENGTH) return;
    hashRange(normalized, start, end, h);
    words.push(h.lo ^ Math.imul(h.hi, 0x9e3779b1));
  });
  if (words.length === 0) return new Uint32Array(0);
  const count = Math.max(1, words.length - size + 1);
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    let x = 0x811c9dc5 ^ size;
    for (let j = i; j < Math.min(i + size, words.length); j++) x = fmix32(Math.imul(x, 0x01000193) ^ words[j]!);
    out[i] = x;
  }
  out.sort();
  return uniqueSorted(out);
}

function uniqueSorted(sorted: Uint32Array): Uint32Array {
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i]!;
  return sorted.subarray(0, n);
}

/** Seeded hash functions h_i, and the signatures they make. */
export class MinHasher {
  readonly multipliers: Uint32Array;
  readonly increments: Uint32Array;

  constructor(readonly hashes = DEFAULT_HASHES, readonly seed = DEFAULT_MINHASH_SEED) {
    if (!Number.isInteger(hashes) || hashes < 1 || hashes > 4096) throw new RangeError(`a signature has 1 to 4096 rows: got ${hashes}`);
    const next = uint32s(seed);
    this.multipliers = new Uint32Array(hashes);
    this.increments = new Uint32Array(hashes);
    for (let i = 0; i < hashes; i++) {
      this.multipliers[i] = (next() | 1) >>> 0;
      this.increments[i] = next() >>> 0;
    }
  }

  /** h_i(x). */
  hash(i: number, x: number): number {
    return fmix32((Math.imul(this.multipliers[i]!, x) + this.increments[i]!) >>> 0);
  }

  /** The signature of a set of 32-bit values; null for the empty set (it has no least value). */
  signature(values: ArrayLike<number>): Uint32Array | null {
    if (values.length === 0) return null;
    const { hashes, multipliers, increments } = this;
    const signature = new Uint32Array(hashes).fill(0xffffffff);
    for (let i = 0; i < hashes; i++) {
      const a = multipliers[i]!;
      const b = increments[i]!;
      let least = 0xffffffff;
      for (let j = 0; j < values.length; j++) {
        const v = fmix32((Math.imul(a, values[j]!) + b) >>> 0);
        if (v < least) least = v;
      }
      signature[i] = least;
    }
    return signature;
  }
}

/** The share of rows on which two signatures agree: the estimate of their sets' Jaccard similarity. */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length) throw new RangeError(`signatures of different lengths: ${a.length} and ${b.length}`);
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

let defaultHasher: MinHasher | undefined;

/** The signature of a text's word shingles with the default hash functions; null without words. */
export function minhashOfText(text: string): Uint32Array | null {
  defaultHasher ??= new MinHasher();
  return defaultHasher.signature(wordShingleHashes(text));
}
