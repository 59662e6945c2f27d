import { describe, expect, it } from 'vitest';
import { type Fingerprint, asFingerprint, fingerprintHalves, hammingDistance } from '../lib/fingerprint/bits';
import { type IndexBackend, BackendIndex, MemoryIndex, bruteForceQuery } from '../lib/index/near';
import { type TableDesign, designTables, tableKeys } from '../lib/index/tables';
import { randomFingerprints } from '../lib/fingerprint/bits';
import { type Entry, type IndexFactory, flipBits, runIndexSuite } from './support/index-suite';

/** A backend whose every call is asynchronous, as IndexedDB's will be. */
function asyncBackend(design: TableDesign): IndexBackend<number> {
  const inner = new MemoryIndex<number>(design);
  const later = <T>(value: T): Promise<T> => Promise.resolve().then(() => value);
  return {
    add: (id, fp, keys) => later(undefined).then(() => inner.add(id, fp, keys)),
    remove: (id) => later(inner.remove(id)),
    candidates: (table, key) => later(inner.candidates(table, key)),
    size: () => later(inner.size()),
  };
}

const factories: IndexFactory[] = [
  // A tiny initial capacity so that the typed arrays grow (by doubling) many times.
  { name: 'MemoryIndex', make: (design) => new MemoryIndex<number>(design, 16), insertionOrderTies: true },
  { name: 'BackendIndex over MemoryIndex', make: (design) => new BackendIndex(design, new MemoryIndex<number>(design)) },
  { name: 'BackendIndex over an async backend', make: (design) => new BackendIndex(design, asyncBackend(design)), size: 5_000 },
];

runIndexSuite(factories);

describe('bruteForceQuery', () => {
  const fp = (hex: string): Fingerprint => asFingerprint(BigInt('0x' + hex));
  const all = [
    { id: 'far', fp: fp('ffffffffffffffff') },
    { id: 'two', fp: fp('0000000100000001') }, // bits either side of the 32-bit boundary
    { id: 'same', fp: fp('0000000000000000') },
    { id: 'one', fp: fp('8000000000000000') },
    { id: 'two-again', fp: fp('0000000000000003') },
  ];

  it.each([
    [0, [{ id: 'same', distance: 0 }]],
    [1, [{ id: 'same', distance: 0 }, { id: 'one', distance: 1 }]],
    [
      2,
      [
        { id: 'same', distance: 0 },
        { id: 'one', distance: 1 },
        { id: 'two', distance: 2 },
        { id: 'two-again', distance: 2 },
      ],
    ],
  ])('within %i of zero: sorted by distance, ties in input order', (k, want) => {
    expect(bruteForceQuery(all, fp('0000000000000000'), k)).toEqual(want);
  });
});

describe('MemoryIndex', () => {
  const design = designTables({ k: 3, b: 5 });

  it('rejects a second document with the same id, and keys for another design', () => {
    const index = new MemoryIndex<string>(design);
    index.add('a', asFingerprint(1n));
    expect(() => index.add('a', asFingerprint(2n))).toThrow('id already indexed: a');
    expect(() => index.add('b', asFingerprint(2n), [])).toThrow('expected 10 table keys: got 0');
    expect(index.size()).toBe(1);
    expect([index.has('a'), index.has('b')]).toEqual([true, false]);
  });

  it('uses keys passed to add() as the table keys', () => {
    const index = new MemoryIndex<string>(design);
    const fp = asFingerprint(0x0123456789abcdefn);
    const wrong = tableKeys(design, flipBits(fp, [0, 13, 26, 39, 52])); // a different key in every table
    index.add('misfiled', fp, wrong);
    expect(index.query(fp)).toEqual([]);
    index.add('filed', fp, tableKeys(design, fp));
    expect(index.query(fp)).toEqual([{ id: 'filed', distance: 0 }]);
  });

  it('returns candidates of one bucket in insertion order, without removed documents', () => {
    const index = new MemoryIndex<string>(design);
    const fp = asFingerprint(0xfedcba9876543210n);
    index.add('x', fp);
    index.add('y', flipBits(fp, [63])); // same key in table 0 (blocks 0 and 1 unchanged)
    index.add('z', flipBits(fp, [0])); // different key in table 0
    const key = tableKeys(design, fp)[0]!;
    expect(index.candidates(0, key).map((c) => c.id)).toEqual(['x', 'y']);
    expect(index.candidates(0, key)[1]!).toEqual({ id: 'y', ...fingerprintHalves(flipBits(fp, [63])) });
    index.remove('x');
    expect(index.candidates(0, key).map((c) => c.id)).toEqual(['y']);
  });

  it('counts the bucket entries its queries examine', () => {
    const index = new MemoryIndex<number>(design);
    const fp = asFingerprint(0x0f0f0f0f0f0f0f0fn);
    for (let i = 0; i < 3; i++) index.add(i, fp);
    index.query(flipBits(fp, [1, 2])); // only block 0 changes: the 6 tables not keyed on it find all 3
    expect(index.candidatesExamined).toBe(3 * 6);
  });

  describe.each([
    { k: 3, b: 4 },
    { k: 3, b: 6 },
    { k: 2, b: 3 },
  ])('pairs() at k = $k, b = $b', ({ k, b }) => {
    // Clusters of near-duplicates among random fingerprints; every pair checked by brute force.
    const entries: Entry[] = [];
    const randoms = randomFingerprints(0xc105e7n, 1_200);
    for (const [i, fp] of randoms.entries()) {
      entries.push({ id: entries.length, fp });
      if (i % 40 === 0) for (const bits of [[], [31], [32, 33], [0, 31, 63], [5, 20, 40, 60]]) {
        entries.push({ id: entries.length, fp: flipBits(fp, bits) });
      }
    }
    const want: { a: number; b: number; distance: number }[] = [];
    for (const x of entries) {
      for (const y of entries) {
        if (y.id <= x.id) continue;
        const distance = hammingDistance(x.fp, y.fp);
        if (distance <= k) want.push({ a: x.id, b: y.id, distance });
      }
    }

    it('lists every pair within k once, in insertion order, without removed documents', () => {
      const index = new MemoryIndex<number>(designTables({ k, b }));
      for (const { id, fp } of entries) index.add(id, fp);
      expect(want.length).toBeGreaterThan(50);
      expect(index.pairs()).toEqual(want);
      expect(index.pairs(1)).toEqual(want.filter((p) => p.distance <= 1));
      index.remove(0);
      expect(index.pairs()).toEqual(want.filter((p) => p.a !== 0));
    });
  });
});

describe('BackendIndex', () => {
  it('says so when its backend cannot remove', async () => {
    const design = designTables({ k: 3, b: 4 });
    const inner = new MemoryIndex<number>(design);
    const backend: IndexBackend<number> = {
      add: (id, fp, keys) => inner.add(id, fp, keys),
      candidates: (table, key) => inner.candidates(table, key),
      size: () => inner.size(),
    };
    const index = new BackendIndex(design, backend);
    await index.add(7, asFingerprint(7n));
    await expect(index.remove(7)).rejects.toThrow('this index backend cannot remove documents');
    expect(await index.query(asFingerprint(5n))).toEqual([{ id: 7, distance: 1 }]);
  });
});

describe('MemoryIndex with keys longer than 30 bits', () => {
  // Table 0 of k = 3, b = 6 keys the top 33 bits. Buckets are found by a 30-bit fold of longer
  // keys; these two keys (2^30 and 0x1e3779b1) fold alike, so they share a bucket.
  const design = designTables({ k: 3, b: 6 });
  const far = asFingerprint(1n << 61n); // table 0 key 2^30
  const near = asFingerprint(0x1e3779b1n << 31n); // table 0 key 0x1e3779b1

  it('keeps a shared bucket exact: candidates() and query() drop the other key', () => {
    expect(tableKeys(design, far)[0]).toBe(2 ** 30);
    expect(tableKeys(design, near)[0]).toBe(0x1e3779b1);
    const index = new MemoryIndex<string>(design);
    index.add('far', far);
    index.add('near', near);
    expect(index.candidates(0, tableKeys(design, far)[0]!).map((c) => c.id)).toEqual(['far']);
    expect(index.candidates(0, tableKeys(design, near)[0]!).map((c) => c.id)).toEqual(['near']);
    expect(index.query(far)).toEqual([{ id: 'far', distance: 0 }]);
    // 'far' in each of the 20 tables, 'near' wherever its key equals far's (low blocks are all
    // zero in both) and, through the fold, in table 0.
    const farKeys = tableKeys(design, far);
    const sameKey = tableKeys(design, near).filter((key, t) => key === farKeys[t]).length;
    expect(sameKey).toBeGreaterThan(0);
    expect(index.candidatesExamined).toBe(20 + sameKey + 1);
  });
});
