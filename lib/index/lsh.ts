// Locality-sensitive hashing over MinHash signatures (seed 004, Leskovec, Rajaraman & Ullman ch. 3):
// the signature's first b·r rows are cut into b bands of r rows; two documents whose rows agree
// in every row of at least one band are candidates. Rows agree with probability s (the Jaccard
// similarity), so a pair is a candidate with probability
//
//   P(s) = 1 − (1 − s^r)^b          (the S-curve; it rises steepest near (1/b)^(1/r))
//
// and b, r are chosen so that the curve rises at the threshold. Candidates are then verified on the
// whole signature: a pair is reported when its estimated Jaccard is at least the threshold.
import { estimateJaccard } from '../fingerprint/minhash';
import { fmix32 } from '../fingerprint/hash';

export interface Banding {
  bands: number;
  rows: number;
}

/** The probability that a pair at Jaccard similarity s shares at least one band. */
export function bandingProbability(s: number, { bands, rows }: Banding): number {
  return 1 - (1 - s ** rows) ** bands;
}

export interface BandingChoice extends Banding {
  /** ∫₀ᵗ P(s) ds: the weight of pairs below the threshold that become candidates. */
  falsePositiveArea: number;
  /** ∫ₜ¹ (1 − P(s)) ds: the weight of pairs above the threshold that are missed. */
  falseNegativeArea: number;
}

function integrate(f: (s: number) => number, from: number, to: number, steps = 200): number {
  if (to <= from) return 0;
  const h = (to - from) / steps;
  let sum = (f(from) + f(to)) / 2;
  for (let i = 1; i < steps; i++) sum += f(from + i * h);
  return sum * h;
}

/**
 * The b, r with b·r ≤ hashes that minimise
 *   falseNegativeWeight · ∫ₜ¹ (1 − P) + (1 − falseNegativeWeight) · ∫₀ᵗ P
 * (datasketch's choice, there with equal weights). Missed pairs are lost for good, while false
 * candidates only cost a verification, so the default weighs misses more.
 */
export function chooseBanding(threshold: number, hashes: number, falseNegativeWeight = 0.9): BandingChoice {
  if (!(threshold > 0 && threshold < 1)) throw new RangeError(`the Jaccard threshold must be between 0 and 1 (exclusive): got ${threshold}`);
  if (!Number.isInteger(hashes) || hashes < 1) throw new RangeError(`hashes must be a positive integer: got ${hashes}`);
  let best: BandingChoice | undefined;
  let bestCost = Infinity;
  for (let bands = 1; bands <= hashes; bands++) {
    for (let rows = 1; bands * rows <= hashes; rows++) {
      const banding = { bands, rows };
      const falsePositiveArea = integrate((s) => bandingProbability(s, banding), 0, threshold);
      const falseNegativeArea = integrate((s) => 1 - bandingProbability(s, banding), threshold, 1);
      const cost = falseNegativeWeight * falseNegativeArea + (1 - falseNegativeWeight) * falsePositiveArea;
      if (cost < bestCost - 1e-12) {
        bestCost = cost;
        best = { bands, rows, falsePositiveArea, falseNegativeArea };
      }
    }
  }
  return best!;
}

/** A 52-bit key of one band of a signature (two hash lanes; a collision only adds a candidate). */
export function bandKey(signature: Uint32Array, band: number, rows: number): number {
  let hi = 0x9e3779b9 ^ band;
  let lo = 0x85ebca6b ^ band;
  for (let i = band * rows; i < (band + 1) * rows; i++) {
    const v = signature[i]!;
    hi = fmix32(Math.imul(hi, 0x01000193) ^ v);
    lo = fmix32((lo + v + 0x6d2b79f5) >>> 0);
  }
  return (hi & 0xfffff) * 4294967296 + lo;
}

/** Pairs of indices a < b that share a band, sorted by a then b. Null signatures pair with nothing. */
export function lshCandidates(signatures: readonly (Uint32Array | null)[], { bands, rows }: Banding): [number, number][] {
  const n = signatures.length;
  const seen = new Set<number>();
  const pairs: [number, number][] = [];
  for (let band = 0; band < bands; band++) {
    const buckets = new Map<number, number[]>();
    signatures.forEach((signature, i) => {
      if (!signature) return;
      if (signature.length < bands * rows) throw new RangeError(`${bands} bands of ${rows} rows need ${bands * rows} rows: a signature has ${signature.length}`);
      const key = bandKey(signature, band, rows);
      const members = buckets.get(key);
      if (members) members.push(i);
      else buckets.set(key, [i]);
    });
    for (const members of buckets.values()) {
      for (let x = 0; x < members.length; x++) {
        for (let y = x + 1; y < members.length; y++) {
          const id = members[x]! * n + members[y]!;
          if (seen.has(id)) continue;
          seen.add(id);
          pairs.push([members[x]!, members[y]!]);
        }
      }
    }
  }
  return pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
}

export interface JaccardPair {
  a: number;
  b: number;
  /** The share of agreeing signature rows. */
  jaccard: number;
}

/** Candidates from the bands, kept when their signatures agree on at least threshold of the rows. */
export function lshPairs(signatures: readonly (Uint32Array | null)[], threshold: number, banding: Banding): JaccardPair[] {
  const pairs: JaccardPair[] = [];
  for (const [a, b] of lshCandidates(signatures, banding)) {
    const jaccard = estimateJaccard(signatures[a]!, signatures[b]!);
    if (jaccard >= threshold) pairs.push({ a, b, jaccard });
  }
  return pairs;
}

/** Reference answer: every pair's signatures compared. lshPairs returns a subset of these. */
export function bruteForceJaccardPairs(signatures: readonly (Uint32Array | null)[], threshold: number): JaccardPair[] {
  const pairs: JaccardPair[] = [];
  for (let a = 0; a < signatures.length; a++) {
    const sa = signatures[a];
    if (!sa) continue;
    for (let b = a + 1; b < signatures.length; b++) {
      const sb = signatures[b];
      if (!sb) continue;
      const jaccard = estimateJaccard(sa, sb);
      if (jaccard >= threshold) pairs.push({ a, b, jaccard });
    }
  }
  return pairs;
}

/** Rows of the S-curve for `--explain`: s, then P(s), at the given similarities. */
export function sCurve(banding: Banding, similarities: readonly number[]): { s: number; p: number }[] {
  return similarities.map((s) => ({ s, p: bandingProbability(s, banding) }));
}
