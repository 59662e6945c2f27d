// Seeded pseudo-random numbers for tests, benchmarks and synthetic data: every run sees the same
// values. Not for anything that needs unpredictability.

/** mulberry32: uniform floats in [0, 1), each a 32-bit output divided by 2^32. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Unsigned 32-bit integers from mulberry32. */
export function uint32s(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() * 4294967296;
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** splitmix64 on BigInt (Steele, Lea & Flood 2014): full 64-bit outputs from a seed. */
export function splitmix64(seed: bigint): () => bigint {
  let state = BigInt.asUintN(64, seed);
  return () => {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  };
}
