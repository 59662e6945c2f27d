import { describe, expect, it } from 'vitest';
import { type Fingerprint, fingerprintHalves, hammingDistance, randomFingerprints } from '../lib/fingerprint/bits';
import { mulberry32 } from '../lib/random';
import { forEachNearPair, sortedByKey } from '../lib/index/table-pairs';
import { designTables } from '../lib/index/tables';
import { flipBits } from './support/index-suite';

/** Seeded fingerprints: random ones, near copies of earlier ones (0–5 bits flipped), and exact repeats. */
function seededFingerprints(seed: number, count: number): Fingerprint[] {
  const random = mulberry32(seed);
  const fresh = randomFingerprints(BigInt(seed), count);
  const out: Fingerprint[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    if (out.length === 0 || r < 0.6) out.push(fresh[i]!);
    else {
      const base = out[Math.floor(random() * out.length)]!;
      const flips = r < 0.95 ? Math.floor(random() * 6) : 0;
      out.push(flipBits(base, Array.from({ length: flips }, () => Math.floor(random() * 64))));
    }
  }
  return out;
}

const halvesOf = (fps: readonly Fingerprint[]): { his: Uint32Array; los: Uint32Array } => {
  const his = new Uint32Array(fps.length);
  const los = new Uint32Array(fps.length);
  fps.forEach((fp, i) => ({ hi: his[i], lo: los[i] } = fingerprintHalves(fp)));
  return { his, los };
};

/** The brute-force reference: every pair i < j within k bits. */
function bruteForcePairs(fps: readonly Fingerprint[], k: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < fps.length; i++) for (let j = i + 1; j < fps.length; j++) if (hammingDistance(fps[i]!, fps[j]!) <= k) out.push(`${i},${j}`);
  return out;
}

describe('forEachNearPair: every pair within k bits, through sorted tables', () => {
  const cases = [
    { seed: 1, count: 1500, design: { k: 3, b: 5 }, k: 3 },
    { seed: 2, count: 1500, design: { k: 3, b: 5 }, k: 1 },
    { seed: 3, count: 1200, design: { k: 3, b: 4 }, k: 3 },
    { seed: 4, count: 1200, design: { k: 1, b: 2 }, k: 0 },
    { seed: 5, count: 800, design: { k: 6, b: 8 }, k: 6 },
  ];
  it.each(cases)('seed $seed, $count fingerprints, tables for k = $design.k in $design.b blocks, k = $k: the brute force pairs', async ({ seed, count, design, k }) => {
    const fps = seededFingerprints(seed, count);
    const { his, los } = halvesOf(fps);
    const visited = new Set<string>();
    await forEachNearPair(designTables(design), his, los, k, (i, j) => {
      expect(i).toBeLessThan(j);
      visited.add(`${i},${j}`);
    });
    const expected = bruteForcePairs(fps, k);
    expect(expected.length).toBeGreaterThan(count / 10); // the seeded set has near pairs to find
    expect([...visited].sort()).toEqual(expected.sort());
  });

  it('asks `joined` before looking at a pair, and reports progress up to the count', async () => {
    const fps = seededFingerprints(7, 9000);
    const { his, los } = halvesOf(fps);
    const design = designTables({ k: 3, b: 5 });
    let visits = 0;
    const progress: number[] = [];
    await forEachNearPair(design, his, los, 3, () => visits++, { joined: () => true, pause: async (done) => void progress.push(done) });
    expect(visits).toBe(0);
    expect(progress.length).toBeGreaterThan(design.tables.length);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(9000);
  });

  it('refuses a k beyond the tables', async () => {
    await expect(forEachNearPair(designTables({ k: 2, b: 4 }), new Uint32Array(1), new Uint32Array(1), 3, () => {})).rejects.toThrow(/k must be an integer from 0 to 2/);
  });
});

describe('sortedByKey', () => {
  it('orders indices by their 30-bit keys, ties ascending, as a comparator sort does', () => {
    const random = mulberry32(11);
    for (const [n, distinct] of [[0, 1], [1, 1], [5000, 1 << 30], [5000, 40]] as const) {
      const keys = Uint32Array.from({ length: n }, () => Math.floor(random() * distinct));
      const expected = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
      expect([...sortedByKey(keys)]).toEqual(expected);
    }
  });
});
