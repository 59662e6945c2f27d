// Charikar's simhash: every feature's hash votes on every bit with its weight (+w where the
// hash bit is 1, -w where it is 0); the fingerprint's bit is 1 where the vote is positive.
import { type Fingerprint, fingerprintFromHalves } from './fingerprint';

export type WeightedFeatures = Iterable<readonly [feature: string, weight: number]>;

export interface SimhashOptions {
  /** Fingerprint width in bits. */
  bits: number;
  /** Feature hash; its low `bits` bits are used. */
  hash: (feature: string) => bigint;
}

/**
 * The vote vector V, most significant bit first (V[0] votes on bit bits-1), as the seeds print it.
 * General and slow (bigint per feature): for reproducing worked examples with any width and hash.
 */
export function simhashVector(features: WeightedFeatures, { bits, hash }: SimhashOptions): number[] {
  if (!Number.isInteger(bits) || bits < 1) throw new RangeError(`bits must be a positive integer: got ${bits}`);
  const v = new Array<number>(bits).fill(0);
  const mask = (1n << BigInt(bits)) - 1n;
  for (const [feature, weight] of features) {
    const h = hash(feature) & mask;
    for (let i = 0; i < bits; i++) {
      v[bits - 1 - i]! += (h >> BigInt(i)) & 1n ? weight : -weight;
    }
  }
  return v;
}

/** The fingerprint of a vote vector (MSB first): bit set where the vote is strictly positive. */
export function fingerprintOfVector(v: readonly number[]): bigint {
  let fp = 0n;
  for (const vote of v) fp = (fp << 1n) | (vote > 0 ? 1n : 0n);
  return fp;
}

export function simhash(features: WeightedFeatures, options: SimhashOptions): bigint {
  return fingerprintOfVector(simhashVector(features, options));
}

/**
 * The fast 64-bit path: features arrive as 32-bit hash halves. Same rule as `simhash` with
 * bits = 64 and hash = (hi << 32 | lo), computed without branches on hash bits (they are random,
 * so branches mispredict half the time): each bit sums the weights of the features that set it,
 * and its vote, set − (total − set), is positive when 2 · set > total.
 */
export class Simhash64 {
  private readonly setWeights = new Float64Array(64);
  private total = 0;

  add(hi: number, lo: number, weight: number): void {
    const v = this.setWeights;
    if ((weight | 0) === weight && weight >= 0) {
      // Integer weights (term frequencies): select with a mask. V8's multiply by a variable
      // carries overflow and −0 checks that made this loop 4× slower (Node 20).
      for (let i = 0; i < 32; i++) {
        v[i] = v[i]! + (-((hi >>> (31 - i)) & 1) & weight);
        v[32 + i] = v[32 + i]! + (-((lo >>> (31 - i)) & 1) & weight);
      }
    } else {
      for (let i = 0; i < 32; i++) {
        v[i] = v[i]! + ((hi >>> (31 - i)) & 1) * weight;
        v[32 + i] = v[32 + i]! + ((lo >>> (31 - i)) & 1) * weight;
      }
    }
    this.total += weight;
  }

  /** Votes, most significant bit first. */
  vector(): number[] {
    return Array.from(this.setWeights, (set) => 2 * set - this.total);
  }

  fingerprint(): Fingerprint {
    let hi = 0;
    let lo = 0;
    const v = this.setWeights;
    const total = this.total;
    for (let i = 0; i < 32; i++) {
      hi = (hi << 1) | (2 * v[i]! > total ? 1 : 0);
      lo = (lo << 1) | (2 * v[32 + i]! > total ? 1 : 0);
    }
    return fingerprintFromHalves(hi >>> 0, lo >>> 0);
  }
}
