// The near-duplicate index suite, shared by every storage backend: each factory is checked against
// a brute-force Hamming scan on the same seeded data. index.test.ts runs it for the in-memory index
// (directly and through the generic BackendIndex), store-index.test.ts for the store's own lookup.
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { type Fingerprint, asFingerprint } from '../../lib/fingerprint/bits';
import { splitmix64 } from '../../lib/random';
import { randomFingerprints } from '../../lib/fingerprint/bits';
import { type Match, type NearDuplicateIndex, bruteForceQuery } from '../../lib/index/near';
import { type TableDesign, designTables, planBlocks, tableKeys } from '../../lib/index/tables';

/** fp with the given bit positions flipped; positions count from the MSB (0) to the LSB (63). */
export function flipBits(fp: Fingerprint, positions: readonly number[]): Fingerprint {
  let out = fp as bigint;
  for (const pos of positions) out ^= 1n << BigInt(63 - pos);
  return asFingerprint(out);
}

export interface Entry {
  readonly id: number;
  readonly fp: Fingerprint;
}

export interface IndexFactory {
  readonly name: string;
  /** A fresh, empty index using this design. */
  make(design: TableDesign): NearDuplicateIndex<number> | Promise<NearDuplicateIndex<number>>;
  /** Random fingerprints stored besides the planted ones (default 100,000). */
  size?: number;
  /** The index promises ties in insertion order (ids here are insertion order). */
  insertionOrderTies?: boolean;
}

/** The designs every backend is checked with: b = k+1 … 7 at k = 3, and a few for k = 1, 2. */
export const SUITE_DESIGNS: readonly { k: number; b: number }[] = [
  { k: 3, b: 4 },
  { k: 3, b: 5 },
  { k: 3, b: 6 },
  { k: 3, b: 7 },
  { k: 2, b: 3 },
  { k: 2, b: 5 },
  { k: 1, b: 2 },
  { k: 1, b: 4 },
];
const MAX_K = 3;

// Bit patterns for planted neighbours at distance d (positions from the MSB): spread over the
// whole fingerprint (so over distinct blocks), clustered on the 32-bit boundary, packed into one
// place, and seeded-random.
function patterns(d: number, next: () => bigint): number[][] {
  if (d === 0) return [[], []]; // two exact duplicates
  const spread = Array.from({ length: d }, (_, i) => Math.floor((i * 64) / d) + 5);
  const boundary = [31, 32, 30, 33, 29].slice(0, d);
  const start = Number(next() % 60n);
  const packed = Array.from({ length: d }, (_, i) => start + i);
  const random = new Set<number>();
  while (random.size < d) random.add(Number(next() % 64n));
  return [spread, boundary, packed, [...random]];
}

/** All size-r subsets of 0 … n−1, ascending. */
function subsets(n: number, r: number): number[][] {
  if (r === 0) return [[]];
  const out: number[][] = [];
  for (let first = 0; first <= n - r; first++) {
    for (const rest of subsets(n - first - 1, r - 1)) out.push([first, ...rest.map((i) => i + first + 1)]);
  }
  return out;
}

export interface SuiteData {
  readonly entries: readonly Entry[];
  /** Planted queries: bases with neighbours at every distance 0 … MAX_K + 1. */
  readonly planted: readonly Fingerprint[];
  /** Stored fingerprints with 0 … MAX_K + 1 random bits flipped, and fresh random ones. */
  readonly random: readonly Fingerprint[];
  /** bruteForceQuery(entries, q, MAX_K + 1) for every query, keyed by the query. */
  readonly expected: ReadonlyMap<Fingerprint, readonly Match<number>[]>;
}

const dataCache = new Map<number, SuiteData>();

/** Seeded data: `size` random fingerprints with planted neighbours interleaved. */
export function suiteData(size: number): SuiteData {
  const cached = dataCache.get(size);
  if (cached !== undefined) return cached;
  const next = splitmix64(0x5eed_d0bbe1n + BigInt(size));
  const randoms = randomFingerprints(0xa11_ce5n + BigInt(size), size);
  const planted = randomFingerprints(0xba5e5n, 60);
  const neighbours: Fingerprint[] = [];
  for (const base of planted) {
    for (let d = 0; d <= MAX_K + 1; d++) for (const bits of patterns(d, next)) neighbours.push(flipBits(base, bits));
  }
  // For every suite design, and every set of k of its blocks, one neighbour at distance k with one
  // bit flipped in each of those blocks (alternately its first and last bit): only the table keyed
  // on the other blocks can find it, so every table is needed.
  let n = 0;
  for (const { k, b } of SUITE_DESIGNS) {
    const blocks = planBlocks(64, b);
    for (const set of subsets(b, k)) {
      const bits = set.map((i, j) => {
        const { start, bits: width } = blocks[i]!;
        return (n + j) % 2 === 0 ? start : start + width - 1;
      });
      neighbours.push(flipBits(planted[n % planted.length]!, bits));
      n++;
    }
  }
  // Interleave: neighbours land at seeded positions among the random fingerprints.
  const fps = [...randoms];
  for (const fp of neighbours) fps.splice(Number(next() % BigInt(fps.length + 1)), 0, fp);
  const entries = fps.map((fp, id) => ({ id, fp }));

  const random: Fingerprint[] = [];
  for (let i = 0; i < 120; i++) {
    const stored = fps[Number(next() % BigInt(fps.length))]!;
    const bits = new Set<number>();
    while (bits.size < i % (MAX_K + 2)) bits.add(Number(next() % 64n));
    random.push(flipBits(stored, [...bits]));
  }
  random.push(...randomFingerprints(0xf2e5bn, 120));

  const expected = new Map<Fingerprint, Match<number>[]>();
  for (const q of [...planted, ...random]) expected.set(q, bruteForceQuery(entries, q, MAX_K + 1));
  const data = { entries, planted, random, expected };
  dataCache.set(size, data);
  return data;
}

/** Order-independent form: by distance, then id. */
function canonical(matches: readonly Match<number>[]): Match<number>[] {
  return [...matches].sort((x, y) => x.distance - y.distance || x.id - y.id);
}

function within(matches: readonly Match<number>[], k: number): Match<number>[] {
  return canonical(matches.filter((m) => m.distance <= k));
}

async function rejection(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export function runIndexSuite(factories: readonly IndexFactory[]): void {
  describe.each(factories)('$name', (factory) => {
    const size = factory.size ?? 100_000;

    it('plants neighbours at every distance 0 … 4 around each planted query', () => {
      const data = suiteData(size);
      expect(data.entries.length).toBeGreaterThan(size);
      for (const q of data.planted) {
        const distances = new Set(data.expected.get(q)!.map((m) => m.distance));
        expect([...distances].sort()).toEqual([0, 1, 2, 3, 4]);
      }
    });

    describe.each(SUITE_DESIGNS)('k = $k, b = $b', ({ k, b }) => {
      const design = designTables({ k, b });
      let data: SuiteData;
      let index: NearDuplicateIndex<number> | undefined;
      const ready = (): NearDuplicateIndex<number> => {
        if (index === undefined) throw new Error('index not built');
        return index;
      };

      beforeAll(async () => {
        data = suiteData(size);
        index = await factory.make(design);
        for (const { id, fp } of data.entries) await index.add(id, fp);
      }, 180_000); // entering every document into an IndexedDB backend's trees is slow on shared cores
      afterAll(() => {
        index = undefined; // let the tables go before the next design
      });

      it('the planted data needs every table: each is the only one sharing a key with some neighbour', () => {
        const alone = new Set<number>();
        for (const q of data.planted) {
          const qKeys = tableKeys(design, q);
          for (const m of data.expected.get(q)!) {
            if (m.distance > k) continue;
            const keys = tableKeys(design, data.entries[m.id]!.fp);
            const shared = qKeys.flatMap((key, t) => (keys[t] === key ? [t] : []));
            if (shared.length === 1) alone.add(shared[0]!);
          }
        }
        expect(alone.size).toBe(design.tables.length);
      });

      it('counts every stored fingerprint', async () => {
        expect(await ready().size()).toBe(data.entries.length);
      });

      it('finds exactly the brute-force matches for planted queries', async () => {
        for (const q of data.planted) {
          const got = await ready().query(q);
          expect(canonical(got)).toEqual(within(data.expected.get(q)!, k));
          if (factory.insertionOrderTies) expect(got).toEqual(within(data.expected.get(q)!, k));
        }
      });

      it('finds exactly the brute-force matches for random and perturbed stored queries', async () => {
        let nonEmpty = 0;
        for (const q of data.random) {
          const got = await ready().query(q);
          const want = within(data.expected.get(q)!, k);
          if (want.length > 0) nonEmpty++;
          expect(canonical(got)).toEqual(want);
        }
        expect(nonEmpty).toBeGreaterThan(20);
      });

      it('answers every smaller query k exactly, nearest first', async () => {
        for (const q of [...data.planted, ...data.random.slice(0, 60)]) {
          for (let kq = 0; kq <= k; kq++) {
            const got = await ready().query(q, kq);
            expect(canonical(got)).toEqual(within(data.expected.get(q)!, kq));
            const distances = got.map((m) => m.distance);
            expect(distances).toEqual([...distances].sort((x, y) => x - y));
          }
        }
      });

      it('rejects a query k outside 0 … the design k', async () => {
        const q = data.planted[0]!;
        for (const bad of [k + 1, -1, 1.5]) {
          const error = await rejection(() => ready().query(q, bad));
          expect(error).toBeInstanceOf(RangeError);
          expect((error as Error).message).toBe(`query k must be an integer from 0 to ${k} (the design's k): got ${bad}`);
        }
      });

      it('forgets removed documents and finds them again once re-added', async () => {
        const q = data.planted[1]!;
        const before = within(data.expected.get(q)!, k);
        const gone = before.filter((_, i) => i % 2 === 0);
        expect(gone.length).toBeGreaterThan(0);
        for (const m of gone) expect(await ready().remove(m.id)).toBe(true);
        expect(await ready().remove(gone[0]!.id)).toBe(false);
        expect(await ready().size()).toBe(data.entries.length - gone.length);
        const goneIds = new Set(gone.map((m) => m.id));
        expect(canonical(await ready().query(q))).toEqual(before.filter((m) => !goneIds.has(m.id)));

        for (const m of gone) await ready().add(m.id, data.entries[m.id]!.fp);
        expect(await ready().size()).toBe(data.entries.length);
        expect(canonical(await ready().query(q))).toEqual(before);
      });
    });
  });
}
