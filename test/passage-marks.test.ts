// Which of a page's passage fingerprints another page holds (lib/index/passage-marks.ts): the bytes,
// what a lookup reads with them, and how organising works them out (lib/index/posting-passes.ts
// PendingPlaces, against a brute-force count of holders); and the ranges of pending blocks
// (lib/index/pending-blocks.ts). The store's marks are checked against the stored pages in
// test/passage-store.test.ts.
import { describe, expect, it } from 'vitest';
import { encodeMarks, finalMarks, hashesToLookUp, isMarked, marksFit, marksOfCount, provisionalMarks, withHashMarked } from '../lib/index/passage-marks';
import { CountedPostings, NO_PLACE, PendingPlaces, SharedPairs, Words, byBucket, laterPasses, release, sortPairsInPlace } from '../lib/index/posting-passes';
import { type Bucket, EMPTY_BUCKET, applyBucketChange, bucketOf, hashOf, heldByAnother, highOf } from '../lib/index/postings';
import { addPendingBlocks, inRanges, parsePending, pendingAfter, pendingBlocks } from '../lib/index/pending-blocks';
import { PassageRows } from '../lib/store/passages';
import { mulberry32 } from '../lib/random';

describe('passage marks', () => {
  it.each([
    { count: 0, marked: [], bytes: [] },
    { count: 1, marked: [0], bytes: [0x80] },
    { count: 8, marked: [0, 7], bytes: [0x81] },
    { count: 9, marked: [8], bytes: [0, 0x80] },
    { count: 12, marked: [1, 2, 11], bytes: [0x60, 0x10] },
  ])('$count fingerprints, $marked marked: bytes $bytes', ({ count, marked, bytes }) => {
    const marks = encodeMarks(count, (i) => marked.includes(i));
    expect([...marks]).toEqual(bytes);
    expect(marksFit(marks, count)).toBe(true);
    expect(Array.from({ length: count }, (_, i) => i).filter((i) => isMarked(marks, i))).toEqual(marked);
  });

  it('a lookup reads the marked hashes, or every hash without marks that fit (none, provisional, another page\'s count)', () => {
    const hashes = [10, 20, 30, 20, 50];
    const marks = encodeMarks(5, (i) => i === 1 || i === 4);
    expect(hashesToLookUp(hashes, marks)).toEqual([20, 50]);
    expect(hashesToLookUp(hashes, undefined)).toEqual(hashes);
    expect(hashesToLookUp(hashes, provisionalMarks(5))).toEqual(hashes);
    expect(hashesToLookUp(hashes, encodeMarks(9, () => false))).toEqual(hashes);
    expect(hashesToLookUp(hashes, encodeMarks(5, () => false))).toEqual([]);
  });

  it('provisional marks are a byte longer, ending in 1; both kinds count as the page\'s, nothing else does', () => {
    expect([...provisionalMarks(9)]).toEqual([0, 0, 1]);
    expect(marksOfCount(provisionalMarks(9), 9)).toBe(true);
    expect(marksOfCount(encodeMarks(9, () => true), 9)).toBe(true);
    expect(marksOfCount(Uint8Array.of(0, 0, 2), 9)).toBe(false);
    expect(marksOfCount(encodeMarks(17, () => true), 9)).toBe(false);
  });

  it('marking a hash marks every fingerprint of it, and gives the same array when nothing changes', () => {
    const hashes = [7, 8, 7, 9];
    const marks = encodeMarks(4, () => false);
    const marked = withHashMarked(marks, hashes, 7);
    expect([...marked]).toEqual([0xa0]);
    expect([...marks]).toEqual([0]); // not changed in place
    expect(withHashMarked(marked, hashes, 7)).toBe(marked);
    expect(withHashMarked(marked, hashes, 4)).toBe(marked);
    expect([...withHashMarked(provisionalMarks(4), hashes, 9)]).toEqual([0x10, 1]); // provisional stays provisional
  });

  it('final marks: what organising found, and what was marked before it wrote (a visit meanwhile), as final marks', () => {
    const earlier = withHashMarked(provisionalMarks(10), [...Array(10).keys()], 9);
    expect([...finalMarks(10, (i) => i === 0, earlier)]).toEqual([0x80, 0x40]);
    expect([...finalMarks(10, (i) => i === 0, undefined)]).toEqual([0x80, 0]);
    expect([...finalMarks(10, (i) => i === 0, encodeMarks(3, () => true))]).toEqual([0x80, 0]); // another page's count: ignored
  });
});

describe('organising\'s places: the pending fingerprints in one bit array, held set from the merged buckets', () => {
  it('marks held exactly the fingerprints another page holds (seeded pages and buckets, against a count of holders)', () => {
    const random = mulberry32(21);
    // 40 pages of up to 60 hashes from a small pool (shared often, repeats within a page), over 64 buckets
    const pool = Array.from({ length: 300 }, () => ((Math.floor(random() * 2 ** 10) << 16) | Math.floor(random() * 64)) >>> 0);
    const pages = Array.from({ length: 40 }, (_, p) => ({ id: 1000 + 7 * p, hashes: Array.from({ length: Math.floor(random() * 60) }, () => pool[Math.floor(random() * pool.length)]!) }));
    const buckets = new Map<number, Bucket>();
    for (const { id, hashes } of pages) {
      for (const h of hashes) buckets.set(bucketOf(h), applyBucketChange(buckets.get(bucketOf(h)) ?? EMPTY_BUCKET, { add: [highOf(h), id], remove: [] }));
    }
    // the last 25 pages are pending: listed with their counts, then their postings in two passes of
    // buckets, each merged bucket given its postings and their places
    const listed = pages.slice(15);
    const places = new PendingPlaces();
    for (const { id, hashes } of listed) places.add(id, hashes.length);
    expect(places.size).toBe(listed.reduce((n, p) => n + p.hashes.length, 0));
    const p15 = places.indexOf(pages[15]!.id);
    expect([places.firstOf(p15), places.countOf(p15)]).toEqual([0, pages[15]!.hashes.length]);
    expect(places.indexOf(pages[0]!.id)).toBe(-1); // not listed
    for (const [low, high] of [[0, 30], [30, 64]] as const) {
      const keys: number[] = [];
      const ids: number[] = [];
      const at: number[] = [];
      for (const { id, hashes } of listed) {
        const first = places.firstOf(places.indexOf(id));
        hashes.forEach((h, i) => {
          if (bucketOf(h) < low || bucketOf(h) >= high) return;
          keys.push(((bucketOf(h) - low) << 16) | highOf(h));
          ids.push(id);
          at.push(first + i);
        });
      }
      const { starts, pairs, placed } = byBucket(Uint32Array.from(keys), Uint32Array.from(ids), high - low, Uint32Array.from(at));
      for (let b = low; b < high; b++) {
        const [from, to] = [starts[b - low]!, starts[b - low + 1]!];
        if (from !== to) places.markHeld(buckets.get(b)!, pairs.subarray(2 * from, 2 * to), placed.subarray(from, to));
      }
    }
    let held = 0;
    let alone = 0;
    listed.forEach(({ id, hashes }, p) => {
      hashes.forEach((h, i) => {
        const others = pages.some((q) => q.id !== id && q.hashes.includes(h));
        expect(places.heldOf(p)(i), `page ${id}, fingerprint ${i}`).toBe(others);
        if (others) held++;
        else alone++;
      });
    });
    expect(held > 0 && alone > 0, `both kinds (${held} held, ${alone} alone)`).toBe(true);
  });

  it('byBucket gives each bucket its postings sorted by high, a high\'s in the order read, places alongside (seeded, against a stable sort)', () => {
    const random = mulberry32(43);
    for (let trial = 0; trial < 60; trial++) {
      const buckets = 1 + Math.floor(random() * 6);
      const spread = [3, 300, 65536][trial % 3]!;
      const n = Math.floor(random() * 700);
      const keys = Uint32Array.from({ length: n }, () => (Math.floor(random() * buckets) << 16) | Math.floor(random() * spread));
      const ids = Uint32Array.from({ length: n }, (_, i) => Math.floor(i / 3)); // page order, a page's repeats included
      const places = Uint32Array.from({ length: n }, (_, i) => (i % 11 === 0 ? NO_PLACE : i));
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (keys[a]! >>> 16) - (keys[b]! >>> 16) || (keys[a]! & 0xffff) - (keys[b]! & 0xffff)); // Array sort is stable
      const { starts, pairs, placed } = byBucket(keys, ids, buckets, places);
      expect([...pairs]).toEqual(order.flatMap((i) => [keys[i]! & 0xffff, ids[i]!]));
      expect([...placed]).toEqual(order.map((i) => places[i]!));
      expect([...starts]).toEqual(Array.from({ length: buckets + 1 }, (_, b) => order.filter((i) => keys[i]! >>> 16 < b).length));
      expect(byBucket(keys, ids, buckets).pairs).toEqual(pairs); // without places, the same pairs
    }
  });

  it('CountedPostings gives each bucket what byBucket gives of the same postings and places: counted exactly, or more or fewer than counted, pages unlisted or listed with fewer fingerprints (seeded)', () => {
    const random = mulberry32(47);
    const triples = (pairs: Uint32Array, placed: Uint32Array): string[] => Array.from(placed, (place, i) => `${pairs[2 * i]},${pairs[2 * i + 1]},${place}`);
    for (let trial = 0; trial < 60; trial++) {
      const buckets = 1 + Math.floor(random() * 6);
      const spread = [3, 300, 65536][trial % 3]!;
      // pages in increasing ids, most listed with their fingerprints, some with fewer (their text changed since), some not at all (visited since)
      const places = new PendingPlaces();
      const pages: { id: number; p: number; hashes: [bucket: number, high: number][] }[] = [];
      for (let q = 0, id = 0; q < Math.floor(random() * 60); q++) {
        id += 1 + Math.floor(random() * 3);
        const hashes = Array.from({ length: Math.floor(random() * 14) }, (): [number, number] => [Math.floor(random() * buckets), Math.floor(random() * spread)]);
        const kind = random();
        const p = kind < 0.9 ? places.ids.length : -1;
        if (kind < 0.8) places.add(id, hashes.length);
        else if (kind < 0.9) places.add(id, Math.max(0, hashes.length - 3));
        pages.push({ id, p, hashes });
      }
      const keys: number[] = [];
      const ids: number[] = [];
      const at: number[] = [];
      const placeable = new Array<number>(buckets).fill(0);
      const unplaced = new Array<number>(buckets).fill(0);
      for (const { id, p, hashes } of pages) {
        hashes.forEach(([b, high], i) => {
          const placed = p >= 0 && i < places.countOf(p);
          keys.push((b << 16) | high);
          ids.push(id);
          at.push(placed ? places.firstOf(p) + i : NO_PLACE);
          if (placed) placeable[b]!++;
          else unplaced[b]!++;
        });
      }
      const want = byBucket(Uint32Array.from(keys), Uint32Array.from(ids), buckets, Uint32Array.from(at));
      for (const counts of [placeable, placeable.map((c, b) => (b % 2 === 0 ? c + 1 : c)), placeable.map((c, b) => (b % 2 === 1 ? Math.max(0, c - 1 - (trial % 4)) : c))]) {
        const counted = new CountedPostings(counts, places);
        for (const { id, p, hashes } of pages) hashes.forEach(([b, high], i) => counted.add(b, high, p, i, id));
        if (trial === 0) expect(() => counted.bucket(0)).toThrow('finish() comes before bucket()');
        counted.finish();
        for (let b = 0; b < buckets; b++) {
          const got = counted.bucket(b);
          const wanted = { pairs: want.pairs.subarray(2 * want.starts[b]!, 2 * want.starts[b + 1]!), placed: want.placed.subarray(want.starts[b]!, want.starts[b + 1]!) };
          if (counts[b]! >= placeable[b]! && unplaced[b] === 0) expect(got).toEqual(wanted); // all in place: sorted as byBucket sorts
          else expect(triples(got.pairs, got.placed).sort()).toEqual(triples(wanted.pairs, wanted.placed).sort()); // some aside: the same postings
        }
      }
    }
  });

  it.each([
    { counts: [5, 5, 5, 5], from: 1, most: 10, ends: [3, 4] },
    { counts: [5, 5, 5, 5], from: 0, most: 9, ends: [1, 2, 3, 4] },
    { counts: [1, 20, 1, 1], from: 0, most: 5, ends: [1, 2, 4] }, // a bucket past `most` is a pass alone
    { counts: [0, 0, 0], from: 0, most: 1, ends: [3] },
    { counts: [4, 4], from: 2, most: 8, ends: [] },
    { counts: [4, 4, 4, 4, 4, 4], from: 0, most: 16, ends: [3, 6] }, // two passes either way: of 12 and 12 postings, not 16 and 8
    { counts: [9, 1, 1, 1, 1, 1, 1, 1, 1, 1], from: 0, most: 10, ends: [1, 10] }, // the cap no lower than the largest bucket alone
    { counts: [3, 3, 3, 3, 3, 3, 3], from: 1, most: 100, ends: [7] },
  ])('laterPasses($counts from $from, at most $most) ends at $ends', ({ counts, from, most, ends }) => {
    expect(laterPasses(counts, from, most)).toEqual(ends);
  });

  it('release detaches the buffers of the arrays it is given where buffers can be transferred, once each, and does nothing elsewhere', () => {
    const calls: number[] = [];
    const transferable = { byteLength: 16, detached: false, transfer: (length: number) => { calls.push(length); transferable.detached = true; return new ArrayBuffer(length); } };
    const empty = { byteLength: 0, detached: false, transfer: (length: number) => { calls.push(-1); return new ArrayBuffer(length); } };
    const view = (buffer: object): ArrayBufferView => ({ buffer }) as unknown as ArrayBufferView;
    release(view(transferable), view(transferable), view({ byteLength: 16 }), view(empty));
    // the second view's buffer is detached already; a buffer without transfer is left, and an empty
    // one (EMPTY_BUCKET's arrays are shared: detached, a subarray of them would throw)
    expect(calls).toEqual([0]);
    const plain = new Uint32Array(4);
    expect(() => release(plain, plain.subarray(1))).not.toThrow();
    if (typeof (plain.buffer as { transfer?: unknown }).transfer === 'function') expect(plain.length).toBe(0); // Chromium and Firefox; Node 20 has no transfer
    else expect(plain.length).toBe(4);
  });

  it('a hash is held by another page when its holders name any page but the own one', () => {
    const cases: [number[] | undefined, boolean][] = [[undefined, false], [[], false], [[5], false], [[4], true], [[5, 9], true], [[2, 5], true]];
    for (const [ids, held] of cases) expect(heldByAnother(ids, 5), JSON.stringify(ids)).toBe(held);
  });

  it('pages are listed in increasing order, or it is an error', () => {
    const places = new PendingPlaces();
    places.add(5, 2);
    expect(() => places.add(5, 1)).toThrow(/increasing order/);
    expect(() => places.add(3, 1)).toThrow(/increasing order/);
  });

  it('a posting without a place (its page changed since it was listed) marks nothing', () => {
    const places = new PendingPlaces();
    places.add(5, 2);
    const bucket = applyBucketChange(EMPTY_BUCKET, { add: [7, 5, 7, 9], remove: [] });
    places.markHeld(bucket, Uint32Array.of(7, 5), Uint32Array.of(NO_PLACE));
    expect([places.heldOf(0)(0), places.heldOf(0)(1)]).toEqual([false, false]);
    places.markHeld(bucket, Uint32Array.of(7, 5), Uint32Array.of(1));
    expect([places.heldOf(0)(0), places.heldOf(0)(1)]).toEqual([false, true]);
  });
});

describe('pending blocks', () => {
  it('keep increasing, apart ranges: added blocks merge, lookups find them', () => {
    const ranges = addPendingBlocks([[2, 4]], [5, 9, 0, 10]);
    expect(ranges).toEqual([[0, 0], [2, 5], [9, 10]]);
    expect([...pendingBlocks({ blocks: ranges })]).toEqual([0, 2, 3, 4, 5, 9, 10]);
    expect([0, 1, 2, 5, 6, 8, 9, 10, 11].map((b) => inRanges(ranges, b))).toEqual([true, false, true, true, false, false, true, true, false]);
  });

  it('read back, checked: a damaged list is an error that says what is wrong', () => {
    expect(parsePending(undefined)).toEqual({ blocks: [], fingerprints: 0, touched: [] });
    expect(parsePending({ blocks: [[1, 2]], fingerprints: 5 })).toEqual({ blocks: [[1, 2]], fingerprints: 5, touched: [] });
    expect(() => parsePending({ blocks: [[3, 4], [4, 6]], fingerprints: 1 })).toThrow('its ranges are not increasing and apart');
    expect(() => parsePending({ blocks: [], fingerprints: -1 })).toThrow('its count is not a count');
    expect(() => parsePending({ blocks: 'x', fingerprints: 0 })).toThrow('it is not a list of blocks');
  });

  it('after a write: its pending blocks added, the pages it changed otherwise in pending blocks touched', () => {
    const pending = { blocks: [[1, 1]] as [number, number][], fingerprints: 10, touched: [70] };
    // page 64 × 1 + 5 = 69 is in block 1; page 3 is in block 0, not pending
    expect(pendingAfter(pending, { pendingBlocks: [2], pendingFingerprints: 4, changedNow: [69, 3] })).toEqual({ blocks: [[1, 2]], fingerprints: 14, touched: [69, 70] });
  });
});

describe('SharedPairs', () => {
  it.each([1, 2, 3])('the pairs sharing two hashes, one page involved, boilerplate left out, as comparing every pair (seed %i)', (seed) => {
    const random = mulberry32(seed);
    // 30 pages, each holding 12 hashes of 40 (in 5 buckets of 8 highs), so that pairs share 0 to several
    const holders = new Map<number, number[]>(); // hash → pages
    const hashes = Array.from({ length: 40 }, (_, i) => hashOf(i % 5, Math.floor(i / 5)));
    for (let page = 0; page < 30; page++) for (const h of hashes.filter(() => random() < 0.3)) holders.set(h, [...(holders.get(h) ?? []), page]);
    const involved = (id: number): boolean => id % 3 !== 0;
    const maxPages = 11;
    const shared = new SharedPairs(involved, maxPages);
    for (let b = 0; b < 5; b++) {
      const add: number[] = [];
      for (const [h, pages] of holders) if (bucketOf(h) === b) for (const page of pages) add.push(highOf(h), page);
      shared.add(b, applyBucketChange(EMPTY_BUCKET, { add, remove: [] }));
    }
    const common = [...holders].filter(([, pages]) => pages.length > maxPages).map(([h]) => h);
    expect(common.length).toBeGreaterThan(0);
    expect([...shared.boilerplate].sort((x, y) => x - y)).toEqual(common.sort((x, y) => x - y));
    const want: [number, number][] = [];
    for (let a = 0; a < 30; a++) {
      for (let b = a + 1; b < 30; b++) {
        if (!involved(a) && !involved(b)) continue;
        const both = [...holders].filter(([h, pages]) => !common.includes(h) && pages.includes(a) && pages.includes(b)).length;
        if (both >= 2) want.push([a, b]);
      }
    }
    expect(want.length).toBeGreaterThan(5);
    const held = shared.heldBytes();
    expect(held).toBeGreaterThan(0);
    expect(shared.sharingTwo()).toEqual(want);
    // the pairs met are let go once the pairs sharing two are out, and the most they held is still told
    expect(shared.heldBytes()).toBe(held);
    expect(shared.sharingTwo()).toEqual([]);
  });
});

describe('Words', () => {
  it.each([1, 3, 1024])('keeps every value pushed past its capacity (%i), and lets each outgrown buffer go at once', (capacity) => {
    const words = new Words(capacity);
    const outgrown: Uint32Array[] = [];
    for (let i = 0; i < 5000; i++) {
      if (words.length === words.data.length) outgrown.push(words.data);
      words.push((i * 2654435761) >>> 0);
    }
    expect(Array.from(words.view())).toEqual(Array.from({ length: 5000 }, (_, i) => (i * 2654435761) >>> 0));
    expect(outgrown.length).toBeGreaterThan(0);
    for (const data of outgrown) expect(data.byteLength).toBe(0);
  });
});

describe('sortPairsInPlace', () => {
  it.each([
    { n: 0, values: 5 },
    { n: 1, values: 5 },
    { n: 2, values: 5 },
    { n: 17, values: 3 },
    { n: 1_000, values: 2 }, // nearly all equal
    { n: 1_000, values: 2 ** 32 },
    { n: 100_000, values: 300 }, // many runs of equal pairs
    { n: 100_000, values: 2 ** 32 },
  ])('sorts $n pairs of values below $values as sorting them as [a, b] does (seeded)', ({ n, values }) => {
    const random = mulberry32(n + values);
    const draw = (): number => Math.floor(random() * values);
    const a = Uint32Array.from({ length: n }, draw);
    const b = Uint32Array.from({ length: n }, draw);
    const want = Array.from(a, (x, i) => [x, b[i]!]).sort((p, q) => p[0]! - q[0]! || p[1]! - q[1]!);
    sortPairsInPlace(a, b);
    expect(Array.from(a, (x, i) => [x, b[i]!])).toEqual(want);
  });

  it('sorts pairs given in order, in reverse order, and all equal', () => {
    for (const make of [(i: number) => i, (i: number) => 50_000 - i, () => 7]) {
      const a = Uint32Array.from({ length: 50_000 }, (_, i) => make(i));
      const b = Uint32Array.from({ length: 50_000 }, (_, i) => make(i) % 3);
      const want = Array.from(a, (x, i) => [x, b[i]!]).sort((p, q) => p[0]! - q[0]! || p[1]! - q[1]!);
      sortPairsInPlace(a, b);
      expect(Array.from(a, (x, i) => [x, b[i]!])).toEqual(want);
    }
  });
});

describe('PassageRows.applyChanges flags one site\'s boilerplate at the bounds of the rule', () => {
  /** A store of byte values by number, in memory. */
  const memoryStore = (): { values: Map<number, Uint8Array>; get(key: number): Promise<Uint8Array | undefined>; put(value: Uint8Array, key: number): Promise<unknown>; delete(key: number): Promise<unknown> } => {
    const values = new Map<number, Uint8Array>();
    return { values, get: async (key) => values.get(key), put: async (value, key) => values.set(key, value), delete: async (key) => values.delete(key) };
  };
  // BOILERPLATE: at least maxSitePages (20) holders on one site, and at most maxPages (100) in all
  it.each([
    { holders: 19, site: 'one', flagged: false },
    { holders: 20, site: 'one', flagged: true },
    { holders: 100, site: 'one', flagged: true },
    { holders: 101, site: 'one', flagged: false }, // past maxPages the count decides alone (no flag)
    { holders: 40, site: 'two', flagged: true }, // 20 of them on one site
    { holders: 38, site: 'two', flagged: false }, // 19 a site
  ])('$holders holders on $site site(s): flagged $flagged', async ({ holders, site, flagged }) => {
    const rows = new PassageRows(memoryStore(), memoryStore(), memoryStore());
    const high = 777;
    const add = Array.from({ length: holders }, (_, id) => [high, id]).flat();
    await rows.applyChanges(new Map([[5, { add, remove: [] }]]), async (id) => (site === 'one' ? 'a.example' : id % 2 === 0 ? 'a.example' : 'b.example'));
    const bucket = await rows.bucket(5);
    expect([bucket.highs.length, [...bucket.flagged]]).toEqual([holders, flagged ? [high] : []]);
  });
});
