// Winnowing against a brute-force reference on seeded random data, and its guarantee.
import { describe, expect, it } from 'vitest';
import { karpRabinHashes, kgramHashes, kgramSecondHashes, winnow, winnowHashes } from '../lib/fingerprint/winnow';
import { mulberry32, uint32s } from '../lib/random';

/** Every window's rightmost minimum, by scanning the window; each position once, in order. */
function winnowReference(values: readonly number[], w: number): { values: number[]; positions: number[] } {
  const positions: number[] = [];
  const windows = values.length < w ? [[0, values.length]] : Array.from({ length: values.length - w + 1 }, (_, i) => [i, i + w]);
  for (const [from, to] of windows) {
    if (from === to) continue;
    let at = from!;
    for (let j = from!; j < to!; j++) if (values[j]! <= values[at]!) at = j;
    if (!positions.includes(at)) positions.push(at);
  }
  return { values: positions.map((p) => values[p]!), positions };
}

describe('winnow', () => {
  it("selects the paper's figure 2 fingerprints (w = 4)", () => {
    const hashes = [77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98];
    expect(winnow(hashes, 4)).toEqual({ values: [17, 17, 8, 39, 17], positions: [3, 6, 8, 11, 15] });
  });

  it.each<[string, number[], number, number[]]>([
    ['empty', [], 3, []],
    ['shorter than a window: one window', [5, 2, 9], 4, [1]],
    ['ties go to the rightmost', [3, 3, 3, 3, 3], 3, [2, 3, 4]],
    ['window of 1 keeps every position', [4, 1, 4], 1, [0, 1, 2]],
    ['increasing', [1, 2, 3, 4, 5], 2, [0, 1, 2, 3]],
    ['decreasing', [5, 4, 3, 2, 1], 2, [1, 2, 3, 4]],
  ])('%s', (_name, values, w, positions) => {
    expect(winnow(values, w).positions).toEqual(positions);
  });

  it('rejects a window that is not a positive integer', () => {
    expect(() => winnow([1], 0)).toThrow('the window must be a positive integer: got 0');
    expect(() => winnow([1], 1.5)).toThrow(RangeError);
  });

  it('equals the brute-force reference on seeded random sequences, with many ties', () => {
    const random = mulberry32(23);
    for (let round = 0; round < 300; round++) {
      const n = Math.floor(random() * 80);
      const w = 1 + Math.floor(random() * 12);
      const range = 1 + Math.floor(random() * (round % 2 ? 1000 : 6));
      const values = Array.from({ length: n }, () => Math.floor(random() * range));
      expect(winnow(values, w)).toEqual(winnowReference(values, w));
    }
  });

  it('finds a shared fingerprint in every shared run of w + k − 1 tokens', () => {
    const random = mulberry32(2003);
    const next = uint32s(2003);
    for (let round = 0; round < 200; round++) {
      const k = 1 + Math.floor(random() * 8);
      const w = 1 + Math.floor(random() * 25);
      const run = Array.from({ length: w + k - 1 }, () => next() >>> 0);
      // Tokens from a small alphabet around the run, so that its neighbours often tie with it.
      const noise = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 4));
      const a = Uint32Array.from([...noise(Math.floor(random() * 40)), ...run, ...noise(Math.floor(random() * 40))]);
      const b = Uint32Array.from([...noise(Math.floor(random() * 40)), ...run, ...noise(Math.floor(random() * 40))]);
      const fa = new Set(winnowHashes(kgramHashes(a, k), w).hashes);
      const runHashes = new Set(kgramHashes(Uint32Array.from(run), k));
      const shared = [...winnowHashes(kgramHashes(b, k), w).hashes].filter((h) => fa.has(h) && runHashes.has(h));
      expect(shared.length, `k = ${k}, w = ${w}`).toBeGreaterThan(0);
    }
  });
});

describe('kgramHashes', () => {
  it('hashes each run of k tokens, in order, and depends on the order', () => {
    const h = kgramHashes(Uint32Array.from([1, 2, 3, 1, 2, 3]), 3);
    expect(h).toHaveLength(4);
    expect(h[0]).toBe(h[3]);
    expect(new Set(h).size).toBe(3);
    expect(kgramHashes(Uint32Array.from([3, 2, 1]), 3)[0]).not.toBe(h[0]);
  });

  it('gives none for fewer than k tokens and rejects a bad k', () => {
    expect(kgramHashes(Uint32Array.from([1, 2]), 3)).toHaveLength(0);
    expect(() => kgramHashes(Uint32Array.from([1]), 0)).toThrow('k must be a positive integer: got 0');
  });
});

describe('kgramSecondHashes', () => {
  it('gives a k-gram the same second hash wherever it stands, and depends on its order', () => {
    const a = Uint32Array.from([7, 1, 2, 3, 9]);
    const b = Uint32Array.from([1, 2, 3, 1, 2, 3]);
    const [inA, atStart, again, reordered] = [kgramSecondHashes(a, [1], 3)[0], kgramSecondHashes(b, [0], 3)[0], kgramSecondHashes(b, [3], 3)[0], kgramSecondHashes(Uint32Array.from([3, 2, 1]), [0], 3)[0]];
    expect(inA).toBe(atStart);
    expect(again).toBe(atStart);
    expect(reordered).not.toBe(atStart);
    expect(kgramSecondHashes(b, [0, 1, 2], 3)).toHaveLength(3);
  });

  it('is mixed apart from kgramHashes: k-grams meeting on the first hash seldom meet on the second', () => {
    // 50,000 distinct 5-grams of a 1,000-word vocabulary; about 76,000 pairs share the first hash's
    // low 14 bits, and of those about 4.6 would share the second's by chance if the two were independent
    const random = mulberry32(7);
    const seen = new Set<string>();
    const grams: Uint32Array[] = [];
    while (grams.length < 50_000) {
      const gram = Uint32Array.from({ length: 5 }, () => 1 + Math.floor(random() * 1000));
      if (seen.has(gram.join())) continue;
      seen.add(gram.join());
      grams.push(gram);
    }
    const byLow = new Map<number, number[]>();
    for (const gram of grams) {
      const first = kgramHashes(gram, 5)[0]!;
      const second = kgramSecondHashes(gram, [0], 5)[0]!;
      const group = byLow.get(first & 0x3fff) ?? [];
      group.push(second & 0x3fff);
      byLow.set(first & 0x3fff, group);
    }
    let pairs = 0;
    let agree = 0;
    for (const group of byLow.values()) {
      for (let i = 0; i < group.length; i++) for (let j = i + 1; j < group.length; j++) {
        pairs++;
        if (group[i] === group[j]) agree++;
      }
    }
    expect(pairs).toBeGreaterThan(60_000);
    expect(agree).toBeLessThan(20);
  });

  it('rejects a k-gram that runs past the tokens, and a bad k', () => {
    expect(() => kgramSecondHashes(Uint32Array.from([1, 2, 3]), [1], 3)).toThrow('a k-gram at 1 runs past the 3 tokens');
    expect(() => kgramSecondHashes(Uint32Array.from([1, 2, 3]), [0], 0)).toThrow('k must be a positive integer: got 0');
  });
});

describe('karpRabinHashes', () => {
  it('rolls to the direct polynomial of each k-gram', () => {
    const values = [104, 101, 108, 108, 111, 32, 119];
    const direct = (i: number) => values.slice(i, i + 3).reduce((h, c) => h * 17 + c, 0);
    expect(karpRabinHashes(values, 3, 17)).toEqual([0, 1, 2, 3, 4].map(direct));
  });

  it('refuses hashes that would lose precision', () => {
    expect(() => karpRabinHashes([1e6, 1e6, 1e6], 3, 1e6)).toThrow('exceed 2^53');
  });
});
