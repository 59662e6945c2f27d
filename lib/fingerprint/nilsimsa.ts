// Nilsimsa (cmeclax, 2001; seed 002): a 256-bit locality-sensitive code of a byte string.
//
// A window of the last 5 bytes slides over the input one byte at a time. Each step hashes 8 of the
// window's trigrams (the new byte with two of the four before it, in the fixed pattern below) into
// 256 buckets with the TRAN permutation, and counts them. The code has bit i set when bucket i's
// count is above the mean count (the number of trigrams / 256). Two codes compare as
// 128 − (bits that differ): 128 for the same code, about 0 for unrelated texts, −128 for
// complements. Seed 002: "any nilsimsa over 24 (which is 3 sigma) indicates that the two messages
// are probably not independently generated".
//
//   window:  w3 w2 w1 w0 b      (b the new byte, w0 the byte before it)
//   trigrams (bucket n = 0..7): b w0 w1 · b w0 w2 · b w1 w2 · b w0 w3 · b w1 w3 · b w2 w3 · w3 w0 b · w3 w2 b
import { popcount32 } from './bits';

export const NILSIMSA_BYTES = 32;
/** Seed 002's cut-off: a score above 24 is 3 sigma from unrelated texts. */
export const NILSIMSA_THREE_SIGMA = 24;

/** The standard translation table: the permutation of 0..255 the reference code builds from 53. */
function makeTran(target: number): Uint8Array {
  const tran = new Uint8Array(256);
  let j = 0;
  for (let i = 0; i < 256; i++) {
    j = (j * target + 1) & 255;
    j += j;
    if (j > 255) j -= 255;
    // Step past values already taken. As in the reference, a restart checks from entry 1 on.
    for (let k = 0; k < i; k++) {
      if (tran[k] === j) {
        j = (j + 1) & 255;
        k = 0;
      }
    }
    tran[i] = j;
  }
  return tran;
}

export const TRAN: Uint8Array = makeTran(53);

function tran3(a: number, b: number, c: number, n: number): number {
  return (((TRAN[(a + n) & 255]! ^ (TRAN[b]! * (n + n + 1))) + TRAN[c ^ TRAN[n]!]!) & 255);
}

/** The 256 bucket counts of a byte string. */
export function nilsimsaCounts(bytes: Uint8Array): Uint32Array {
  const acc = new Uint32Array(256);
  let w0 = -1;
  let w1 = -1;
  let w2 = -1;
  let w3 = -1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (w1 >= 0) acc[tran3(b, w0, w1, 0)]!++;
    if (w2 >= 0) {
      acc[tran3(b, w0, w2, 1)]!++;
      acc[tran3(b, w1, w2, 2)]!++;
    }
    if (w3 >= 0) {
      acc[tran3(b, w0, w3, 3)]!++;
      acc[tran3(b, w1, w3, 4)]!++;
      acc[tran3(b, w2, w3, 5)]!++;
      acc[tran3(w3, w0, b, 6)]!++;
      acc[tran3(w3, w2, b, 7)]!++;
    }
    w3 = w2;
    w2 = w1;
    w1 = w0;
    w0 = b;
  }
  return acc;
}

/** Trigrams counted for n bytes: 0, 0, 0, 1, 4, then 8 more per byte. */
export function trigramCount(n: number): number {
  return n < 3 ? 0 : n === 3 ? 1 : n === 4 ? 4 : 8 * n - 28;
}

/**
 * The 32-byte code of a byte string, in the reference's byte order (bucket 255's byte first, so
 * that the hex reads as the published digests do).
 */
export function nilsimsa(bytes: Uint8Array): Uint8Array {
  const acc = nilsimsaCounts(bytes);
  const threshold = Math.floor(trigramCount(bytes.length) / 256);
  const code = new Uint8Array(NILSIMSA_BYTES);
  for (let i = 0; i < 256; i++) {
    if (acc[i]! > threshold) code[NILSIMSA_BYTES - 1 - (i >> 3)]! |= 1 << (i & 7);
  }
  return code;
}

/** The code of a string's UTF-8 bytes. */
export function nilsimsaOfText(text: string): Uint8Array {
  return nilsimsa(new TextEncoder().encode(text));
}

export function nilsimsaToHex(code: Uint8Array): string {
  return Array.from(code, (b) => b.toString(16).padStart(2, '0')).join('');
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

export function nilsimsaFromHex(hex: string): Uint8Array {
  if (!HEX64.test(hex)) throw new SyntaxError(`a nilsimsa code is 64 hex digits: got ${JSON.stringify(hex)}`);
  const code = new Uint8Array(NILSIMSA_BYTES);
  for (let i = 0; i < NILSIMSA_BYTES; i++) code[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return code;
}

/** 128 − the number of differing bits: −128…128. */
export function compareNilsimsa(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== NILSIMSA_BYTES || b.length !== NILSIMSA_BYTES) throw new RangeError(`nilsimsa codes are ${NILSIMSA_BYTES} bytes: got ${a.length} and ${b.length}`);
  let differ = 0;
  for (let i = 0; i < NILSIMSA_BYTES; i++) differ += popcount32(a[i]! ^ b[i]!);
  return 128 - differ;
}

export interface NilsimsaPair {
  /** Indices into the codes, a < b. */
  a: number;
  b: number;
  score: number;
}

/**
 * Every pair of codes scoring at least minScore, a < b, sorted by a then b; null codes pair with
 * nothing. An all-pairs scan: the codes are packed as 8 words each in one Uint32Array, and a pair
 * costs 8 XORs and popcounts, so n codes cost n²/2 of those (see `scan --help` for how far that goes).
 */
export function nilsimsaPairs(codes: readonly (Uint8Array | null)[], minScore: number): NilsimsaPair[] {
  const present: number[] = [];
  codes.forEach((code, i) => {
    if (code) present.push(i);
  });
  const words = new Uint32Array(present.length * 8);
  present.forEach((index, slot) => {
    const code = codes[index]!;
    for (let w = 0; w < 8; w++) {
      words[slot * 8 + w] = ((code[4 * w]! << 24) | (code[4 * w + 1]! << 16) | (code[4 * w + 2]! << 8) | code[4 * w + 3]!) >>> 0;
    }
  });
  // A pair passes when at most maxDiffer bits differ; the scan gives up on a pair once past it.
  const maxDiffer = 128 - minScore;
  const pairs: NilsimsaPair[] = [];
  for (let x = 0; x < present.length; x++) {
    const xo = x * 8;
    for (let y = x + 1; y < present.length; y++) {
      const yo = y * 8;
      let differ = popcount32(words[xo]! ^ words[yo]!) + popcount32(words[xo + 1]! ^ words[yo + 1]!) +
        popcount32(words[xo + 2]! ^ words[yo + 2]!) + popcount32(words[xo + 3]! ^ words[yo + 3]!);
      if (differ > maxDiffer) continue;
      differ += popcount32(words[xo + 4]! ^ words[yo + 4]!) + popcount32(words[xo + 5]! ^ words[yo + 5]!) +
        popcount32(words[xo + 6]! ^ words[yo + 6]!) + popcount32(words[xo + 7]! ^ words[yo + 7]!);
      if (differ <= maxDiffer) pairs.push({ a: present[x]!, b: present[y]!, score: 128 - differ });
    }
  }
  return pairs;
}
