// Winnowing (Schleimer, Wilkerson and Aiken 2003; seed 003): from the hashes of a text's k-grams,
// keep in each window of w consecutive hashes the minimum, the rightmost one on a tie, with its
// position. Any run of at least w + k − 1 tokens that two texts share then gives them a shared
// selected hash: the windows inside the run hold the same hashes in both and select the same one.
//
//   k-gram hashes   77 74 42 17 98 50 17 98  8 88 67 39 77 74 42 17 98   (the paper's figure 2)
//   windows of 4    [77 74 42 17] → 17 at 3, [74 42 17 98] → 17 at 3 (kept once), …
import { fmix32 } from './hash';

/** Selected hashes and the positions (k-gram indices) they were selected at, in position order. */
export interface Winnowed {
  hashes: Uint32Array;
  positions: Int32Array;
}

/**
 * The rightmost minimum of every window of w values, each position recorded once, in order.
 * A sequence shorter than w is one window. O(n) with a queue of candidate positions whose values
 * increase strictly from front to back.
 */
export function winnow(values: ArrayLike<number>, w: number): { values: number[]; positions: number[] } {
  if (!Number.isInteger(w) || w < 1) throw new RangeError(`the window must be a positive integer: got ${w}`);
  const n = values.length;
  const outValues: number[] = [];
  const outPositions: number[] = [];
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  let last = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    // A later equal value wins a tie, so it evicts equal values before it.
    while (tail > head && values[queue[tail - 1]!]! >= v) tail--;
    queue[tail++] = i;
    if (queue[head]! <= i - w) head++;
    if (i >= w - 1 || i === n - 1) {
      const at = queue[head]!;
      if (at !== last) {
        outValues.push(values[at]!);
        outPositions.push(at);
        last = at;
      }
    }
  }
  return { values: outValues, positions: outPositions };
}

/** winnow over 32-bit hashes, as typed arrays. */
export function winnowHashes(hashes: Uint32Array, w: number): Winnowed {
  const { values, positions } = winnow(hashes, w);
  return { hashes: Uint32Array.from(values), positions: Int32Array.from(positions) };
}

/**
 * Karp–Rabin hashes of every k-gram of a sequence: H(c1…ck) = c1·b^(k−1) + … + ck, exact (no
 * modulus), rolled as H(c2…ck+1) = (H(c1…ck) − c1·b^(k−1))·b + ck+1. Exact while the values stay
 * below 2^53 (seed 003: code points, k = 5, b = 17).
 */
export function karpRabinHashes(values: ArrayLike<number>, k: number, base: number): number[] {
  const out: number[] = [];
  if (values.length < k) return out;
  const top = base ** (k - 1);
  let h = 0;
  for (let i = 0; i < k; i++) h = h * base + values[i]!;
  if (!Number.isSafeInteger(h * base)) throw new RangeError('Karp–Rabin hashes exceed 2^53: use a smaller base or k');
  out.push(h);
  for (let i = k; i < values.length; i++) {
    h = (h - values[i - k]! * top) * base + values[i]!;
    out.push(h);
  }
  return out;
}

/**
 * A 32-bit hash of each run of k consecutive token hashes (order matters), well mixed so that
 * the minimum of a window is a uniform choice.
 */
export function kgramHashes(tokenHashes: Uint32Array, k: number): Uint32Array {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer: got ${k}`);
  const n = tokenHashes.length - k + 1;
  if (n <= 0) return new Uint32Array(0);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let h = 0x9e3779b9 ^ k;
    for (let j = i; j < i + k; j++) h = Math.imul((h << 5) | (h >>> 27), 0x01000193) ^ tokenHashes[j]!;
    out[i] = fmix32(h);
  }
  return out;
}

/**
 * A second 32-bit hash of the k-grams starting at `positions`, mixed apart from kgramHashes': two
 * pages whose winnowed hashes meet by chance (32 bits, and minima of windows, so crowded near 0)
 * seldom agree on this one too, while a k-gram they share gives both the same. `scan --on-disk`
 * joins on both, so that chance meetings are not judged (docs/scale.md).
 */
export function kgramSecondHashes(tokenHashes: Uint32Array, positions: ArrayLike<number>, k: number): Uint32Array {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer: got ${k}`);
  const out = new Uint32Array(positions.length);
  for (let i = 0; i < positions.length; i++) {
    const start = positions[i]!;
    if (!(Number.isInteger(start) && start >= 0 && start + k <= tokenHashes.length)) throw new RangeError(`a k-gram at ${start} runs past the ${tokenHashes.length} tokens`);
    let h = 0x85ebca6b ^ k;
    for (let j = start; j < start + k; j++) {
      const mixed = h ^ tokenHashes[j]!;
      h = Math.imul((mixed << 13) | (mixed >>> 19), 0xcc9e2d51) + 0xe6546b64;
    }
    out[i] = fmix32(h ^ k);
  }
  return out;
}
