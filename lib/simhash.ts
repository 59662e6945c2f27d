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
 * The fast 64-bit path: features arrive as 32-bit hash halves, votes go into a Float64Array.
 * Same rule as `simhash` with bits = 64 and hash = (hi << 32 | lo).
 */
export class Simhash64 {
  private readonly votes = new Float64Array(64);

  add(hi: number, lo: number, weight: number): void {
    const v = this.votes;
    for (let i = 0; i < 32; i++) {
      v[i] = v[i]! + ((hi >>> (31 - i)) & 1 ? weight : -weight);
      v[32 + i] = v[32 + i]! + ((lo >>> (31 - i)) & 1 ? weight : -weight);
    }
  }

  /** Votes, most significant bit first. */
  vector(): number[] {
    return Array.from(this.votes);
  }

  fingerprint(): Fingerprint {
    let hi = 0;
    let lo = 0;
    for (let i = 0; i < 32; i++) {
      hi = (hi << 1) | (this.votes[i]! > 0 ? 1 : 0);
      lo = (lo << 1) | (this.votes[32 + i]! > 0 ? 1 : 0);
    }
    return fingerprintFromHalves(hi >>> 0, lo >>> 0);
  }
}
