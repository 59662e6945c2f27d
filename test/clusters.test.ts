import { describe, expect, it } from 'vitest';
import { UnionFind, clustersOf } from '../lib/report/clusters';

describe('clustersOf', () => {
  const cases: { name: string; n: number; pairs: [number, number][]; clusters: number[][] }[] = [
    { name: 'no items', n: 0, pairs: [], clusters: [] },
    { name: 'no pairs: singletons are not clusters', n: 4, pairs: [], clusters: [] },
    { name: 'one pair', n: 3, pairs: [[0, 2]], clusters: [[0, 2]] },
    { name: 'pair given high index first', n: 3, pairs: [[2, 0]], clusters: [[0, 2]] },
    { name: 'self pair is no cluster', n: 3, pairs: [[1, 1]], clusters: [] },
    { name: 'duplicate pairs', n: 3, pairs: [[0, 1], [1, 0], [0, 1]], clusters: [[0, 1]] },
    { name: 'chain joins transitively', n: 5, pairs: [[0, 1], [1, 2], [2, 3]], clusters: [[0, 1, 2, 3]] },
    { name: 'chain given backwards', n: 5, pairs: [[3, 4], [2, 3], [1, 2]], clusters: [[1, 2, 3, 4]] },
    {
      name: 'two clusters ordered by first member, members sorted',
      n: 8,
      pairs: [[7, 2], [5, 1], [2, 4], [1, 6]],
      clusters: [[1, 5, 6], [2, 4, 7]],
    },
    {
      name: 'interleaved clusters and singletons',
      n: 10,
      pairs: [[9, 0], [3, 8], [1, 5], [5, 3]],
      clusters: [[0, 9], [1, 3, 5, 8]],
    },
    { name: 'star', n: 6, pairs: [[5, 0], [5, 1], [5, 2], [5, 3]], clusters: [[0, 1, 2, 3, 5]] },
    {
      name: 'merging two big clusters',
      n: 8,
      pairs: [[0, 1], [1, 2], [2, 3], [4, 5], [5, 6], [6, 7], [3, 7]],
      clusters: [[0, 1, 2, 3, 4, 5, 6, 7]],
    },
  ];
  for (const { name, n, pairs, clusters } of cases) {
    it(name, () => {
      expect(clustersOf(n, pairs)).toEqual(clusters);
    });
  }

  it('rejects indices out of range', () => {
    expect(() => clustersOf(3, [[0, 3]])).toThrow(RangeError);
    expect(() => clustersOf(3, [[-1, 0]])).toThrow(RangeError);
    expect(() => clustersOf(3, [[0.5, 1]])).toThrow(RangeError);
  });

  it('handles a long chain (no recursion, compressed paths)', () => {
    const n = 100_000;
    const pairs: [number, number][] = [];
    for (let i = n - 1; i > 0; i--) pairs.push([i, i - 1]);
    const clusters = clustersOf(n, pairs);
    expect(clusters).toHaveLength(1);
    expect(clusters[0]).toHaveLength(n);
    expect(clusters[0]![0]).toBe(0);
    expect(clusters[0]![n - 1]).toBe(n - 1);
  });
});

describe('UnionFind', () => {
  it('unions, finds and counts', () => {
    const uf = new UnionFind(6);
    expect(uf.union(0, 1)).toBe(true);
    expect(uf.union(1, 0)).toBe(false);
    expect(uf.union(2, 3)).toBe(true);
    expect(uf.connected(0, 2)).toBe(false);
    expect(uf.union(3, 1)).toBe(true);
    expect(uf.connected(0, 2)).toBe(true);
    expect(uf.sizeOf(2)).toBe(4);
    expect(uf.sizeOf(5)).toBe(1);
    expect(uf.find(5)).toBe(5);
  });

  it('union by size keeps the larger root', () => {
    const uf = new UnionFind(4);
    uf.union(0, 1);
    uf.union(0, 2);
    const big = uf.find(0);
    uf.union(3, 0); // the singleton joins the big set, not the other way round
    expect(uf.find(3)).toBe(big);
  });

  it('rejects a bad size', () => {
    expect(() => new UnionFind(-1)).toThrow(RangeError);
    expect(() => new UnionFind(1.5)).toThrow(RangeError);
  });
});
