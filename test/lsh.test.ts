import { describe, expect, it } from 'vitest';
import { MinHasher } from '../lib/fingerprint/minhash';
import { bandingProbability, bruteForceJaccardPairs, chooseBanding, lshCandidates, lshPairs, sCurve } from '../lib/index/lsh';
import { uint32s } from '../lib/random';

describe('banding', () => {
  it.each([
    [0.5, 1, 1, 0.5],
    [0.5, 1, 4, 0.0625],
    [0.5, 4, 1, 0.9375],
    [0.5, 3, 2, 0.578125],
    [0, 20, 5, 0],
    [1, 20, 5, 1],
  ])('P(s = %f) with %i bands of %i rows is %f', (s, bands, rows, p) => {
    expect(bandingProbability(s, { bands, rows })).toBeCloseTo(p, 12);
  });

  it('chooses b, r within the signature whose S-curve rises around the threshold', () => {
    for (const threshold of [0.3, 0.5, 0.7, 0.9]) {
      const choice = chooseBanding(threshold, 128);
      expect(choice.bands * choice.rows).toBeLessThanOrEqual(128);
      // The curve is low well below the threshold and high at and above it.
      expect(bandingProbability(threshold, choice)).toBeGreaterThan(0.8);
      expect(bandingProbability(Math.max(0, threshold - 0.25), choice)).toBeLessThan(0.5);
      // Every other b, r costs at least as much.
      const cost = (b: number, r: number): number => {
        const c = { bands: b, rows: r };
        let fp = 0;
        let fn = 0;
        for (let i = 0; i < 1000; i++) {
          const s = (i + 0.5) / 1000;
          if (s < threshold) fp += bandingProbability(s, c) / 1000;
          else fn += (1 - bandingProbability(s, c)) / 1000;
        }
        return 0.9 * fn + 0.1 * fp;
      };
      const chosen = cost(choice.bands, choice.rows);
      for (const [b, r] of [[1, 128], [128, 1], [16, 8], [8, 16], [32, 4], [4, 32], [42, 3], [25, 5], [21, 6], [18, 7], [14, 9], [12, 10]]) {
        expect(chosen).toBeLessThanOrEqual(cost(b!, r!) + 1e-3);
      }
    }
  });

  it('refuses thresholds outside (0, 1)', () => {
    expect(() => chooseBanding(1, 128)).toThrow(/between 0 and 1/);
    expect(() => chooseBanding(0, 128)).toThrow(/between 0 and 1/);
  });

  it('sCurve lists P at each similarity', () => {
    expect(sCurve({ bands: 2, rows: 1 }, [0, 0.5, 1])).toEqual([{ s: 0, p: 0 }, { s: 0.5, p: 0.75 }, { s: 1, p: 1 }]);
  });
});

describe('lshCandidates and lshPairs', () => {
  // Seeded signatures in families: members of a family agree on a random share of rows.
  const next = uint32s(123);
  const rows = 24;
  const bases = Array.from({ length: 5 }, () => Uint32Array.from({ length: rows }, next));
  const signatures: (Uint32Array | null)[] = Array.from({ length: 60 }, (_, i) => {
    if (i % 13 === 7) return null;
    const s = bases[i % bases.length]!.slice();
    const keep = next() / 2 ** 32;
    for (let r = 0; r < rows; r++) if (next() / 2 ** 32 > keep) s[r] = next();
    return s;
  });

  it.each([
    [6, 4],
    [12, 2],
    [3, 8],
    [1, 24],
  ])('candidates with %i bands of %i rows are exactly the pairs equal on some whole band', (bands, r) => {
    const expected: [number, number][] = [];
    for (let a = 0; a < signatures.length; a++) {
      for (let b = a + 1; b < signatures.length; b++) {
        const sa = signatures[a];
        const sb = signatures[b];
        if (!sa || !sb) continue;
        let share = false;
        for (let band = 0; band < bands && !share; band++) {
          let equal = true;
          for (let i = band * r; i < (band + 1) * r; i++) if (sa[i] !== sb[i]) equal = false;
          share = equal;
        }
        if (share) expected.push([a, b]);
      }
    }
    expect(expected.length).toBeGreaterThan(0);
    expect(lshCandidates(signatures, { bands, rows: r })).toEqual(expected);
  });

  it('verified pairs are the brute-force pairs that share a band', () => {
    const banding = { bands: 6, rows: 4 };
    const candidates = new Set(lshCandidates(signatures, banding).map(([a, b]) => `${a} ${b}`));
    for (const threshold of [0.2, 0.5, 0.8]) {
      const expected = bruteForceJaccardPairs(signatures, threshold).filter(({ a, b }) => candidates.has(`${a} ${b}`));
      expect(lshPairs(signatures, threshold, banding)).toEqual(expected);
    }
  });

  it('refuses a banding longer than the signatures', () => {
    expect(() => lshCandidates([new Uint32Array(4), new Uint32Array(4)], { bands: 2, rows: 3 })).toThrow(/need 6 rows/);
  });

  it('a MinHasher signature of the same set is a candidate with itself under any banding', () => {
    const hasher = new MinHasher(20, 2);
    const s = hasher.signature([1, 2, 3])!;
    expect(lshCandidates([s, s.slice(), hasher.signature([4, 5, 6])], { bands: 4, rows: 5 })).toEqual([[0, 1]]);
  });
});
