// Charikar's simhash: every feature's hash votes on every bit with its weight (+w where the
// hash bit is 1, -w where it is 0); the fingerprint's bit is 1 where the vote is positive.
import { type Fingerprint, fingerprintFromHalves } from './bits';

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

// Lanes of the packed counters: 13 bits each, four to a double (52 bits, exact).
const LANE = 8192;
/** SPREAD[x]: the 4 bits of nibble x, most significant first, one to a lane. */
const SPREAD = Float64Array.from({ length: 16 }, (_, x) =>
  ((x >> 3) & 1) + ((x >> 2) & 1) * LANE + ((x >> 1) & 1) * LANE ** 2 + (x & 1) * LANE ** 3,
);

/**
 * The fast 64-bit path: features arrive as 32-bit hash halves. Same rule as `simhash` with
 * bits = 64 and hash = (hi << 32 | lo): each bit sums the weights of the features that set it
 * (`set`), and its vote, set − (total − set), is positive when 2 · set > total.
 *
 * Integer weights (term frequencies) go through packed counters: each 4-bit nibble of the hash
 * is spread by a table into four 13-bit lanes of one double, so one multiply-add counts four bit
 * positions (16 per feature instead of 64, and no branch on random hash bits):
 *
 *     nibble 1011 ─SPREAD─▶ lanes [1][0][1][1] = 1 + 0·2¹³ + 1·2²⁶ + 1·2³⁹
 *     packed[n] += SPREAD[nibble n] · weight      (16 nibbles: 8 of hi, 8 of lo)
 *
 * Before any lane could reach 2¹³ the lanes are flushed into 64 plain counters. Other weights
 * (sqrt, log) are added to the plain counters directly.
 */
export class Simhash64 {
  private readonly setWeights = new Float64Array(64);
  private readonly packed = new Float64Array(16);
  /** Weight added to the packed lanes since they were last flushed. */
  private pending = 0;
  private total = 0;

  add(hi: number, lo: number, weight: number): void {
    if ((weight | 0) === weight && weight >= 0 && weight < LANE) {
      if (this.pending + weight >= LANE) this.flush();
      const p = this.packed;
      for (let n = 0; n < 8; n++) {
        const shift = 28 - 4 * n;
        p[n] = p[n]! + SPREAD[(hi >>> shift) & 15]! * weight;
        p[8 + n] = p[8 + n]! + SPREAD[(lo >>> shift) & 15]! * weight;
      }
      this.pending += weight;
    } else {
      const v = this.setWeights;
      for (let i = 0; i < 32; i++) {
        v[i] = v[i]! + ((hi >>> (31 - i)) & 1) * weight;
        v[32 + i] = v[32 + i]! + ((lo >>> (31 - i)) & 1) * weight;
      }
    }
    this.total += weight;
  }

  private flush(): void {
    const p = this.packed;
    const v = this.setWeights;
    for (let n = 0; n < 16; n++) {
      let lanes = p[n]!;
      for (let j = 0; j < 4; j++) {
        const lane = lanes % LANE;
        v[4 * n + j] = v[4 * n + j]! + lane;
        lanes = (lanes - lane) / LANE;
      }
      p[n] = 0;
    }
    this.pending = 0;
  }

  /** Votes, most significant bit first. */
  vector(): number[] {
    this.flush();
    return Array.from(this.setWeights, (set) => 2 * set - this.total);
  }

  fingerprint(): Fingerprint {
    this.flush();
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
