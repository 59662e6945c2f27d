// A 64-bit simhash fingerprint. Branded so that a block key, a table key or any other bigint
// cannot be passed where a fingerprint belongs.
import { splitmix64 } from '../random';

declare const fingerprintBrand: unique symbol;
export type Fingerprint = bigint & { readonly [fingerprintBrand]: true };

export const FINGERPRINT_BITS = 64;
const MAX = (1n << 64n) - 1n;
const HEX16 = /^[0-9a-f]{16}$/;

export function asFingerprint(value: bigint): Fingerprint {
  if (value < 0n || value > MAX) throw new RangeError(`a fingerprint is 64 bits: got ${value}`);
  return value as Fingerprint;
}

/** Two unsigned 32-bit halves, for hot loops that must not allocate bigints. */
export function fingerprintFromHalves(hi: number, lo: number): Fingerprint {
  return ((BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0)) as Fingerprint;
}

export function fingerprintHalves(fp: Fingerprint): { hi: number; lo: number } {
  return { hi: Number(fp >> 32n), lo: Number(fp & 0xffffffffn) };
}

/** 16 lowercase hex digits, most significant bit first. */
export function fingerprintToHex(fp: Fingerprint): string {
  return fp.toString(16).padStart(16, '0');
}

export function fingerprintFromHex(hex: string): Fingerprint {
  if (!HEX16.test(hex)) throw new SyntaxError(`a fingerprint is 16 lowercase hex digits: got ${JSON.stringify(hex)}`);
  return BigInt('0x' + hex) as Fingerprint;
}

export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Number of bit positions where two fingerprints differ. */
export function hammingDistance(a: Fingerprint, b: Fingerprint): number {
  const x = a ^ b;
  return popcount32(Number(x >> 32n)) + popcount32(Number(x & 0xffffffffn));
}

/** Same, on 32-bit halves (the index's hot loop). */
export function hammingDistanceHalves(aHi: number, aLo: number, bHi: number, bLo: number): number {
  return popcount32((aHi ^ bHi) >>> 0) + popcount32((aLo ^ bLo) >>> 0);
}

/** `count` seeded random fingerprints (splitmix64: every bit random), for tests and benchmarks. */
export function randomFingerprints(seed: bigint, count: number): Fingerprint[] {
  const next = splitmix64(seed);
  return Array.from({ length: count }, () => asFingerprint(next()));
}
