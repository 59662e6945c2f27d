// Golomb–Rice codes, read and written a byte at a time: a value's quotient by 2^k in unary (ones,
// then a zero), then its k low bits, the highest first; bits fill each byte from its highest bit.
// The rewrite fingerprints (rewrite-codec.ts) and the rewrite index's buckets
// (lib/index/rice-buckets.ts) are written this way. A lookup decodes a few dozen buckets of a few
// hundred codes each, so the reader takes whole runs of bits from a byte, never one bit a call.

/** 2^k for k from 0 to 32: a table, where `2 ** k` with k varying call to call was 5× slower in V8. */
const POWERS_OF_2 = Float64Array.from({ length: 33 }, (_, k) => 2 ** k);

/** Reads codes from `bytes`, starting at bit `bit`; throws what `endsInside` makes when the bytes end inside a code. */
export class RiceReader {
  constructor(
    private readonly bytes: Uint8Array,
    public bit: number,
    private readonly endsInside: () => Error,
  ) {}

  /** The next code's value, with parameter k (0–31). */
  next(k: number): number {
    const q = this.ones();
    return k === 0 ? q : q * POWERS_OF_2[k]! + this.bits(k);
  }

  /** Reads ones up to the next zero (read too); returns how many. */
  private ones(): number {
    const { bytes } = this;
    let count = 0;
    for (;;) {
      const i = this.bit >> 3;
      const used = this.bit & 7;
      // the unread bits at the top of a 32-bit word (or of a byte, near the end), zeros after them
      const fast = i + 3 < bytes.length;
      if (!fast && i >= bytes.length) throw this.endsInside();
      const unread = fast ? 32 - used : 8 - used;
      const ones = Math.clz32(~(fast ? word(bytes, i) << used : (bytes[i]! << (24 + used)) | 0));
      if (ones < unread) {
        this.bit += ones + 1;
        return count + ones;
      }
      count += unread;
      this.bit += unread;
    }
  }

  /** The byte after the codes read so far: where what follows them starts. */
  get end(): number {
    return Math.ceil(this.bit / 8);
  }

  /** Whether the bits after the codes read so far, to the end of their last byte, are all 0 (as RiceWriter pads). */
  paddedWithZeros(): boolean {
    const used = this.bit & 7;
    return used === 0 || (this.bytes[this.bit >> 3]! & (0xff >> used)) === 0;
  }

  /** The next `width` bits (0–32) as a number, the highest first. */
  bits(width: number): number {
    const { bytes } = this;
    const i = this.bit >> 3;
    if (width > 0 && width <= 25 && i + 3 < bytes.length) {
      const value = (word(bytes, i) << (this.bit & 7)) >>> (32 - width);
      this.bit += width;
      return value;
    }
    let value = 0;
    for (let need = width; need > 0; ) {
      const at = this.bit >> 3;
      if (at >= bytes.length) throw this.endsInside();
      const left = 8 - (this.bit & 7);
      const take = left < need ? left : need;
      value = value * (1 << take) + ((bytes[at]! >> (left - take)) & ((1 << take) - 1));
      this.bit += take;
      need -= take;
    }
    return value;
  }
}

/** The 4 bytes from `i` as a big-endian 32-bit word (as a signed int: callers shift it). */
function word(bytes: Uint8Array, i: number): number {
  return (bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!;
}

/**
 * The Rice parameter (0 to maxK, at most 31) that writes `values` (whole, below 2^32) shortest, and
 * the bits they then take; the smallest such k on a tie. A step from k to k + 1 adds a bit a value
 * and takes off ceil(⌊v / 2^k⌋ / 2) a value: a saving that shrinks as k grows, so the bits fall to
 * their least and then rise. Below k0 = ⌊log2(mean + 1)⌋ − 1 the saving passes a bit a value
 * (the quotients' halves sum to more than (mean + 1 − 2^k) / 2^(k+1) ≥ 1 a value), so the least
 * is at k0 or above: the walk up from k0 tries two or three k, not all 32.
 */
export function bestRiceK(values: ArrayLike<number>, maxK: number): { k: number; bits: number } {
  if (values.length === 0) return { k: 0, bits: 0 };
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  let k = Math.min(maxK, Math.max(0, Math.floor(Math.log2(sum / values.length + 1)) - 1));
  let bits = riceBits(values, k);
  // up while the bits fall: the first k where they stop is the smallest that takes the least
  while (k < maxK) {
    const up = riceBits(values, k + 1);
    if (up >= bits) break;
    k++;
    bits = up;
  }
  return { k, bits };
}

/** Bits the Rice codes of `values` take with parameter k. */
function riceBits(values: ArrayLike<number>, k: number): number {
  let bits = values.length * (k + 1);
  for (let i = 0; i < values.length; i++) bits += values[i]! >>> k; // an unsigned shift: the quotient of any value below 2^32
  return bits;
}

/** Bits the code of `value` takes with parameter k. */
export const riceSize = (value: number, k: number): number => Math.floor(value / POWERS_OF_2[k]!) + 1 + k;

/** Writes codes into `out` (zeroed, sized by riceSize), starting at bit `bit`. */
export class RiceWriter {
  constructor(
    private readonly out: Uint8Array,
    public bit: number,
  ) {}

  write(value: number, k: number): void {
    const { out } = this;
    const scale = POWERS_OF_2[k]!;
    for (let q = Math.floor(value / scale); q > 0; ) {
      const used = this.bit & 7;
      const take = Math.min(8 - used, q);
      out[this.bit >> 3]! |= (0xff >> used) & ~(0xff >> (used + take));
      this.bit += take;
      q -= take;
    }
    this.bit++; // the zero that ends the quotient
    this.bits(value % scale, k);
  }

  /** Writes `value`'s low `width` bits (0–32), the highest first. */
  bits(value: number, width: number): void {
    const { out } = this;
    const used = this.bit & 7;
    const i = this.bit >> 3;
    if (width > 0 && width <= 24 && i + 3 < out.length) {
      // the bits placed in a 32-bit word from the byte of `bit` on (used + width ≤ 31)
      const placed = (value & ((1 << width) - 1)) << (32 - used - width);
      out[i]! |= placed >>> 24;
      out[i + 1]! |= (placed >>> 16) & 0xff;
      out[i + 2]! |= (placed >>> 8) & 0xff;
      out[i + 3]! |= placed & 0xff;
      this.bit += width;
      return;
    }
    for (let need = width; need > 0; ) {
      const at = this.bit >> 3;
      const usedHere = this.bit & 7;
      const take = Math.min(8 - usedHere, need);
      const bits = Math.floor(value / POWERS_OF_2[need - take]!) & ((1 << take) - 1);
      out[at]! |= bits << (8 - usedHere - take);
      this.bit += take;
      need -= take;
    }
  }
}
