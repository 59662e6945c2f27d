// The rewrite index's Rice-coded posting buckets (lib/index/rice-buckets.ts): exact bytes for a
// small bucket, round trips of seeded random buckets, smaller than the passage buckets' varints at
// a million pages' spread, and damaged bytes named.
import { describe, expect, it } from 'vitest';
import { type Bucket, EMPTY_BUCKET, HighCursor, applyBucketChange, encodeBucket, idsWith, sortedPairs } from '../lib/index/postings';
import { decodeRiceBucket, encodeRiceBucket } from '../lib/index/rice-buckets';
import { mulberry32 } from '../lib/random';

const bucket = (pairs: [number, number][]): Bucket => applyBucketChange(EMPTY_BUCKET, { add: pairs.flat(), remove: [] });

/** A bucket of `entries` random [high, id] pairs, ids below `maxId`. */
function randomBucket(seed: number, entries: number, maxId: number, highBits: number): Bucket {
  const random = mulberry32(seed);
  return bucket(Array.from({ length: entries }, () => [Math.floor(random() * 2 ** highBits), Math.floor(random() * maxId)]));
}

describe('Rice-coded rewrite buckets', () => {
  it('writes a small bucket as the format says', () => {
    // entries [0, 5], [0, 9], [2, 1]: 3 entries, mean gap (9 + 1) × 4 / 3 × ln 2 → k = 3
    const b = bucket([[0, 5], [0, 9], [2, 1]]);
    const bytes = encodeRiceBucket(b, 2);
    // head: 3 · k 3 · counts 2 0 1 0; gaps 5, 3, 1 → 0 101 · 0 011 · 0 001 → 0101 0011 0001 (pad 0000)
    expect([...bytes]).toEqual([3, 3, 2, 0, 1, 0, 0b0101_0011, 0b0001_0000]);
    expect(decodeRiceBucket(bytes, 2)).toEqual(b);
  });

  it('writes an empty bucket as one byte', () => {
    expect([...encodeRiceBucket(EMPTY_BUCKET, 4)]).toEqual([0]);
    expect(decodeRiceBucket(Uint8Array.of(0), 4)).toEqual(EMPTY_BUCKET);
  });

  it.each([
    [1, 1, 10, 4],
    [2, 50, 1_000, 4],
    [3, 427, 1_000_000, 4],
    [4, 2_000, 50_000, 4],
    [5, 300, 2 ** 32 - 1, 4],
    [6, 100, 1_000_000, 0],
  ])('seed %i: %i entries, ids below %i, %i high bits, read back as written', (seed, entries, maxId, highBits) => {
    const b = randomBucket(seed, entries, maxId, highBits);
    expect(decodeRiceBucket(encodeRiceBucket(b, highBits), highBits)).toEqual(b);
  });

  it('keeps a page id of 2^32 − 1 and a high with one far id', () => {
    const b = bucket([[0, 0], [0, 2 ** 32 - 1], [15, 7], [15, 8], [15, 9]]);
    expect(decodeRiceBucket(encodeRiceBucket(b, 4), 4)).toEqual(b);
  });

  it('takes about 17 bits an entry at a million pages (27 pages a hash), fewer than the passage buckets\' fixed-width ids', () => {
    const b = randomBucket(7, 427, 1_000_000, 4);
    const rice = encodeRiceBucket(b, 4).length / 427;
    expect(rice).toBeLessThan(2.3);
    expect(encodeBucket(b).length / 427).toBeGreaterThan(2.6); // 20 bits an id, and the highs' codes
  });

  it('refuses a bucket it cannot write', () => {
    expect(() => encodeRiceBucket(bucket([[16, 1]]), 4)).toThrow("a rewrite bucket's high 16 does not fit 4 bits");
    expect(() => encodeRiceBucket({ ...bucket([[1, 1]]), flagged: Uint16Array.of(1) }, 4)).toThrow('a rewrite bucket has no flagged hashes');
    expect(() => encodeRiceBucket({ highs: Uint16Array.of(1, 1), ids: Uint32Array.of(5, 5), flagged: new Uint16Array(0) }, 4)).toThrow('are not sorted, each once (entry 1)');
  });

  const good = [...encodeRiceBucket(bucket([[0, 5], [0, 9], [2, 1]]), 2)];
  it.each([
    ['no bytes', [], 'the bytes end inside a number'],
    ['a count past its bytes', [200, 1], 'counts more entries than its bytes can hold'],
    ['the head cut', [3], "the bytes end inside the bucket's head"],
    ['k past 31', [3, 40, 2, 0, 1, 0, 0], 'Rice parameter 40 is past 31'],
    ['highs holding more than the count', [3, 3, 2, 2, 1, 0, 0, 0], "a bucket's highs hold more entries than it counts"],
    ['highs holding fewer', [3, 3, 1, 0, 1, 0, 0, 0], "a bucket's highs hold 2 entries, not the 3 it counts"],
    ['the entries cut', good.slice(0, -1), 'the bytes end inside an entry'],
    ['a byte past the entries', [...good, 0], 'a bucket has 1 bytes past its entries'],
    ['bits set past the entries', [...good.slice(0, -1), 0b0001_0001], "a bucket's last byte has bits past its entries"],
    ['an empty bucket with more', [0, 1], 'an empty bucket has 1 bytes past its count'],
  ])('names what is wrong: %s', (_name, bytes, why) => {
    expect(() => decodeRiceBucket(Uint8Array.from(bytes), 2)).toThrow(why);
  });
});

describe('applyBucketChange: additions sorted or not', () => {
  const start = bucket([[3, 7], [9, 1], [9, 4]]);
  const entries = (b: Bucket): [number, number][] => Array.from(b.highs, (h, i) => [h, b.ids[i]!]);
  it.each([
    { what: 'sorted, each once (taken as they are)', add: [[1, 2], [3, 7], [9, 2], [700, 0]] },
    { what: 'shuffled', add: [[9, 2], [700, 0], [1, 2], [3, 7]] },
    { what: 'sorted with a repeat', add: [[1, 2], [1, 2], [3, 7], [9, 2], [700, 0]] },
    { what: 'one high, ids falling', add: [[9, 2], [3, 7], [1, 2], [700, 0], [1, 2]] },
    { what: 'sorted, a repeat not next to its first', add: [[1, 2], [3, 7], [1, 2], [9, 2], [700, 0]] },
    { what: 'highs sorted, ids falling within one', add: [[1, 2], [3, 7], [9, 2], [9, 1], [700, 0]] },
  ])('gives the same bucket for additions $what', ({ add }) => {
    expect(entries(applyBucketChange(start, { add: add.flat(), remove: [] }))).toEqual([[1, 2], [3, 7], [9, 1], [9, 2], [9, 4], [700, 0]]);
  });

  it('equals a sort of the union on seeded changes, sorted and shuffled', () => {
    const random = mulberry32(31);
    for (let trial = 0; trial < 50; trial++) {
      const pairs = Array.from({ length: Math.floor(random() * 40) }, () => [Math.floor(random() * 8), Math.floor(random() * 20)] as [number, number]);
      const unique = [...new Map(pairs.map((p) => [`${p[0]},${p[1]}`, p])).values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const want = [...new Map([...entries(start), ...unique].map((p) => [`${p[0]},${p[1]}`, p])).values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      expect(entries(applyBucketChange(start, { add: unique.flat(), remove: [] }))).toEqual(want);
      expect(entries(applyBucketChange(start, { add: pairs.flat(), remove: [] }))).toEqual(want);
      const sortedWithRepeats = [...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]); // as byBucket gives them, repeats next to each other
      expect(entries(applyBucketChange(start, { add: sortedWithRepeats.flat(), remove: [] }))).toEqual(want);
    }
  });
});

describe('sortedPairs: [high, id] pairs sorted, each once', () => {
  it.each([
    { what: 'sorted, each once', flat: [1, 2, 3, 7, 9, 2], want: [[1, 2], [3, 7], [9, 2]] },
    { what: 'sorted, repeats next to their first', flat: [1, 2, 1, 2, 3, 7, 9, 2, 9, 2, 9, 2], want: [[1, 2], [3, 7], [9, 2]] },
    { what: 'shuffled with a repeat apart', flat: [9, 2, 1, 2, 3, 7, 1, 2], want: [[1, 2], [3, 7], [9, 2]] },
    { what: 'one high, ids falling', flat: [4, 9, 4, 3, 4, 3], want: [[4, 3], [4, 9]] },
    { what: 'none', flat: [], want: [] },
  ])('$what', ({ flat, want }) => {
    const { highs, ids } = sortedPairs(flat);
    expect(Array.from(highs, (h, i) => [h, ids[i]!])).toEqual(want);
  });
});

describe('HighCursor: idsWith and countWith from where the last search ended', () => {
  const start = bucket([[3, 7], [9, 1], [9, 4], [12, 5], [40, 2], [40, 3], [40, 8], [41, 0]]);
  it.each([
    { what: 'ascending, each once', asked: [0, 3, 9, 10, 12, 40, 41, 42] },
    { what: 'ascending with repeats', asked: [3, 3, 9, 9, 40, 40, 40] },
    { what: 'out of order', asked: [40, 3, 41, 9, 0, 12, 9] },
    { what: 'past the end, then back', asked: [65535, 40, 3] },
  ])('finds what idsWith finds, asked $what', ({ asked }) => {
    const cursor = new HighCursor(start);
    for (const high of asked) expect([...cursor.idsWith(high)], `high ${high}`).toEqual([...idsWith(start, high)]);
    // countWith and first, alone and between idsWith's
    const counting = new HighCursor(start);
    asked.forEach((high, i) => {
      const want = [...idsWith(start, high)];
      if (i % 3 === 2) expect([...counting.idsWith(high)], `high ${high}`).toEqual(want);
      else expect([counting.countWith(high), want.length > 0 ? counting.first : undefined], `high ${high}`).toEqual([want.length, want[0]]);
    });
  });

  it('equals idsWith on seeded buckets and seeded runs of highs, dense, sparse and shuffled', () => {
    const random = mulberry32(37);
    let asked = 0;
    for (let trial = 0; trial < 200; trial++) {
      const spread = [4, 64, 65536][trial % 3]!;
      const pairs = Array.from({ length: Math.floor(random() * 600) }, () => [Math.floor(random() * spread), Math.floor(random() * 1000)] as [number, number]);
      const b = applyBucketChange(EMPTY_BUCKET, { add: pairs.flat(), remove: [] });
      const highs = Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * spread));
      if (trial % 2 === 0) highs.sort((x, y) => x - y);
      const cursor = new HighCursor(b);
      for (const [i, high] of highs.entries()) {
        const want = [...idsWith(b, high)];
        if ((i + trial) % 2 === 0) expect([...cursor.idsWith(high)]).toEqual(want);
        else expect([cursor.countWith(high), want.length > 0 ? cursor.first : undefined]).toEqual([want.length, want[0]]);
        asked++;
      }
    }
    expect(asked).toBeGreaterThan(20_000);
  });
});
