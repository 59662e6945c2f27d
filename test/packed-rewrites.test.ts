// PackedRewriteIndex (lib/index/packed-rewrites.ts) against RewriteIndex, the maps that
// test/rewrites.test.ts checks against comparing every pair: the same postings, the same
// fingerprints, the same matches for every page.
import { describe, expect, it } from 'vitest';
import { REWRITE_RULE, type RewriteFingerprints } from '../lib/fingerprint/rewrites';
import { decodeRewriteBytes, encodeRewriteBytes } from '../lib/fingerprint/rewrite-codec';
import { FIRST_LOG_VALUES, PACKED_LOG_CHUNK, PackedLog, readBits, writeBits } from '../lib/index/packed-log';
import { PackedRewriteIndex, PackedRewritePostings, REWRITE_KEY_BITS, rewriteHashOf, rewriteKeyOf } from '../lib/index/packed-rewrites';
import { DenseHolderCounter, RewriteIndex, findRewriteMatches } from '../lib/index/rewrite-index';
import { mulberry32 } from '../lib/random';
import { randomRewritePages } from './support/rewrite-pages';

/** Pages of several caps (at most the store's 64) and languages. */
const pages = (seed: number, count: number): RewriteFingerprints[] => randomRewritePages(seed, count, { caps: [16, 32, 64], languages: ['en', 'es', 'zh'] });

const matchText = (m: Awaited<ReturnType<typeof findRewriteMatches>>[number]): string =>
  `${m.id} ${m.comparison.shared} ${m.comparison.aInB} ${m.comparison.bInA} ${m.translated} ${m.lang} ${m.shared.join(',')}`;

describe('PackedRewriteIndex', () => {
  // the holders are packed in the largest id's bits: 9 (values cross words) and 22
  it.each([
    [1, Infinity, Infinity, 5],
    [2, 20, Infinity, 5],
    [3, 15, 50, 5],
    [4, 100, 3, 5],
    [5, 20, Infinity, 2 ** 21 + 7],
  ])('seed %i, maxPages %s, maxCandidates %s, ids from %i: every page\'s lookup, postings and fingerprints are the maps\'', async (seed, maxPages, maxCandidates, first) => {
    const all = pages(seed, 120);
    const ids = all.map((_, i) => first + 4 * i + (i % 3)); // ascending, with gaps
    const maps = new RewriteIndex(maxPages, REWRITE_RULE.indexShare);
    const packed = new PackedRewriteIndex(maxPages);
    all.forEach((f, i) => {
      maps.add(ids[i]!, f);
      expect(packed.add(ids[i]!, encodeRewriteBytes(f))).toBe(true);
    });
    packed.seal();
    expect(packed.size).toBe(all.length);
    expect([...packed.pages()].map(([id]) => id)).toEqual(ids);
    let matched = 0;
    for (const [i, own] of all.entries()) {
      const id = ids[i]!;
      expect(packed.fingerprintsOf(id)).toEqual(decodeRewriteBytes(encodeRewriteBytes(own)));
      const asked = Array.from(own.hashes);
      // the holders of a hash on more than maxPages pages are given as their count alone
      const postings = (m: ReadonlyMap<number, ArrayLike<number>>): [number, number[] | number][] =>
        [...m].map(([h, holders]) => [h, holders.length > maxPages ? holders.length : Array.from(holders)] as [number, number[] | number]).sort((a, b) => a[0] - b[0]);
      expect(postings(packed.postingsOf(asked))).toEqual(postings(maps.postingsOf(asked)));
      const want = (await findRewriteMatches(maps, own, id, { maxCandidates })).map(matchText);
      expect((await findRewriteMatches(packed, own, id, { maxCandidates })).map(matchText)).toEqual(want);
      matched += want.length;
    }
    expect(matched).toBeGreaterThan(0); // the pages link
    // lookups made at once (as organising's copy marking makes them) find the same: each call's
    // lists are views of one buffer, counted before another lookup can ask
    const sequential: string[][] = [];
    for (const [i, own] of all.entries()) sequential.push((await findRewriteMatches(packed, own, ids[i]!, { maxCandidates })).map(matchText));
    const together = await Promise.all(all.map(async (own, i) => (await findRewriteMatches(packed, own, ids[i]!, { maxCandidates })).map(matchText)));
    expect(together).toEqual(sequential);
    // ids between, before and after those added have no fingerprints
    for (const id of [0, first - 1, first + 1, ids.at(-1)! + 1]) expect(packed.fingerprintsOf(id)).toBeUndefined();
  });

  it('a hash on more than maxPages pages is left out of the lookups, as the maps leave it', async () => {
    const hashes = Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8].map((h) => h * 4096));
    const page = (n: number): RewriteFingerprints => ({ hashes: hashes.slice(0, n), limit: 2 ** 32, anchors: n, lang: 'en' });
    const packed = new PackedRewriteIndex(2);
    [8, 8, 2].forEach((n, id) => packed.add(id, encodeRewriteBytes(page(n))));
    packed.seal();
    // hashes 1 and 2 are on three pages (more than 2): pages 0 and 1 share the six others
    expect((await findRewriteMatches(packed, page(8), 0)).map((m) => [m.id, m.comparison.shared])).toEqual([[1, 6]]);
    // page 2 holds only those two: it finds nothing
    expect(await findRewriteMatches(packed, page(2), 2)).toEqual([]);
    const maps = new RewriteIndex(2);
    [8, 8, 2].forEach((n, id) => maps.add(id, page(n)));
    expect((await findRewriteMatches(maps, page(8), 0)).map((m) => [m.id, m.comparison.shared])).toEqual([[1, 6]]);
  });

  it('refuses pages out of order, pages after seal and lookups before it; damaged bytes add nothing', () => {
    const f = pages(9, 1)[0]!;
    const packed = new PackedRewriteIndex(100);
    expect(packed.add(7, encodeRewriteBytes(f))).toBe(true);
    expect(() => packed.add(7, encodeRewriteBytes(f))).toThrow('ascending id order');
    expect(() => packed.add(-1, encodeRewriteBytes(f))).toThrow('32-bit count');
    expect(() => packed.postingsOf(f.hashes)).toThrow('before seal');
    expect(packed.add(8, Uint8Array.of(1, 2))).toBe(false);
    expect(packed.add(9, encodeRewriteBytes(f))).toBe(true);
    packed.seal();
    expect(packed.size).toBe(2);
    expect(packed.fingerprintsOf(8)).toBeUndefined();
    expect([...(packed.postingsOf(f.hashes).values())].map((ids) => Array.from(ids))).toEqual(Array.from({ length: packed.postingsOf(f.hashes).size }, () => [7, 9]));
    expect(packed.postingsOf(f.hashes).size).toBeGreaterThan(0);
    expect(() => packed.add(10, encodeRewriteBytes(f))).toThrow('after seal');
    expect(() => packed.seal()).toThrow('sealed twice');
  });
});

describe('PackedRewritePostings.sealFromLog', () => {
  /** Seeded pages' index hashes (distinct keys each; some pages none): `pages` ids from `first`, with gaps. */
  const history = (seed: number, pages: number, first: number, keys: number): { ids: number[]; hashes: number[][] } => {
    const random = mulberry32(seed);
    const ids: number[] = [];
    const hashes: number[][] = [];
    for (let p = 0, id = first; p < pages; p++, id += 1 + Math.floor(random() * 3)) {
      const own = new Set<number>();
      const count = p % 17 === 5 ? 0 : Math.floor(random() * 40);
      // a few keys on many pages, most on few
      while (own.size < count) own.add(random() < 0.1 ? Math.floor(random() * 8) : Math.floor(random() * keys));
      ids.push(id);
      hashes.push([...own].map(rewriteHashOf));
    }
    return { ids, hashes };
  };
  /** Every key's holders, as postingsOf gives them. */
  const everyKey = (postings: PackedRewritePostings): number[][] => {
    const out: number[][] = [];
    for (let key = 0; key < 2 ** REWRITE_KEY_BITS; key += 1024) {
      const asked = Array.from({ length: 1024 }, (_, j) => rewriteHashOf(key + j));
      const found = postings.postingsOf(asked);
      for (const h of asked) out.push(Array.from(found.get(h) ?? []));
    }
    return out;
  };

  // ids of 8 bits (the log's 20 hold them), of 20, and of 22 (the log widened first); 60,000 pages
  // of about 20 keys put the log past its first chunk (PACKED_LOG_CHUNK values)
  it.each([
    [1, 200, 0, 64],
    [2, 3000, 2 ** 20 - 9000, 5000],
    [3, 2000, 2 ** 21 + 7, 2 ** 20],
    [4, 60_000, 0, 2 ** 20],
  ])('seed %i, %i pages from id %i, %i keys: every key\'s holders are seal\'s, ascending', async (seed, pages, first, keys) => {
    const { ids, hashes } = history(seed, pages, first, keys);
    const sealed = new PackedRewritePostings(Infinity, pages);
    const fromLog = new PackedRewritePostings(Infinity, pages);
    const log = new PackedLog(REWRITE_KEY_BITS);
    const ends: number[] = [];
    ids.forEach((id, p) => {
      sealed.count(id, hashes[p]!);
      fromLog.count(id, hashes[p]!);
      for (const h of hashes[p]!) log.push(rewriteKeyOf(h));
      ends.push(log.length);
    });
    sealed.seal((p) => hashes[p]!);
    let pauses = 0;
    const extra = await fromLog.sealFromLog(log, ends, () => void pauses++);
    // every 65,536 values placed (a cycle's steps) and keys sorted: 2^20 keys, 16 of them
    expect(pauses).toBe(16 + Math.floor(log.length / 65_536));
    expect(extra).toBeGreaterThan(4 * 2 ** REWRITE_KEY_BITS); // the starts' copy, and a bit a value
    const want = everyKey(sealed);
    expect(want.flat().length).toBe(log.length);
    expect(everyKey(fromLog)).toEqual(want);
    for (const holders of want) for (let i = 1; i < holders.length; i++) if (holders[i]! <= holders[i - 1]!) expect.unreachable('holders ascend');
    expect(fromLog.heldBytes()).toBeLessThanOrEqual(sealed.heldBytes() + (FIRST_LOG_VALUES / 8) * 32 + (PACKED_LOG_CHUNK / 8) * 32);
  });

  it('refuses a log that is not the keys counted', async () => {
    const counted = (): PackedRewritePostings => {
      const postings = new PackedRewritePostings(Infinity);
      postings.count(0, [rewriteHashOf(1), rewriteHashOf(2)]);
      postings.count(1, [rewriteHashOf(2)]);
      return postings;
    };
    const logOf = (keys: number[]): PackedLog => {
      const log = new PackedLog(REWRITE_KEY_BITS);
      for (const key of keys) log.push(key);
      return log;
    };
    await expect(counted().sealFromLog(logOf([1, 2]), [2, 2])).rejects.toThrow('a log of 2 keys for 3 counted');
    await expect(counted().sealFromLog(logOf([1, 2, 2]), [2])).rejects.toThrow('a log of 3 keys');
    await expect(counted().sealFromLog(logOf([1, 1, 2]), [2, 3])).rejects.toThrow('more holders');
    const postings = counted();
    await postings.sealFromLog(logOf([1, 2, 2]), [2, 3]);
    expect([...postings.postingsOf([rewriteHashOf(1), rewriteHashOf(2)])].map(([h, ids]) => [rewriteKeyOf(h), Array.from(ids)])).toEqual([
      [1, [0]],
      [2, [0, 1]],
    ]);
    await expect(postings.sealFromLog(logOf([1, 2, 2]), [2, 3])).rejects.toThrow('sealed twice');
  });
});

describe('writeBits and readBits', () => {
  it.each([1, 2, 7, 9, 20, 31, 32])('values of %i bits, packed end to end, read back as written (seeded)', (width) => {
    const random = mulberry32(width);
    const count = 500;
    const values = Array.from({ length: count }, (_, i) => (i < 3 ? [0, 2 ** width - 1, 2 ** (width - 1)][i]! : Math.floor(random() * 2 ** width)));
    const words = new Uint32Array(Math.ceil((count * width) / 32) + 1);
    // written out of order, as seal writes each key's holders where its count puts them
    const order = values.map((_, i) => i).sort((a, b) => ((a * 7919) % count) - ((b * 7919) % count));
    for (const i of order) writeBits(words, i, width, values[i]!);
    expect(values.map((_, i) => readBits(words, i, width))).toEqual(values);
  });
});

describe('DenseHolderCounter', () => {
  const sorted = (pairs: [number, number][]): [number, number][] => [...pairs].sort((a, b) => a[0] - b[0]);

  it.each([
    { lists: [], min: 1, want: [] },
    { lists: [[1, 2, 3], [2, 3], [3]], min: 1, want: [[1, 1], [2, 2], [3, 3]] },
    { lists: [[1, 2, 3], [2, 3], [3]], min: 2, want: [[2, 2], [3, 3]] },
    { lists: [[0, 9], [9], [0]], min: 2, want: [[0, 2], [9, 2]] },
    { lists: [[5], [6]], min: 2, want: [] },
  ])('counts $lists with min $min', ({ lists, min, want }) => {
    expect(sorted(new DenseHolderCounter(9).count(lists.map((l) => Uint32Array.from(l)), min))).toEqual(want);
  });

  it('starts each call afresh, counts more ids than its first list of them holds, and refuses ids past its range', () => {
    const counter = new DenseHolderCounter(5000);
    expect(sorted(counter.count([[1, 2], [2]], 1))).toEqual([[1, 1], [2, 2]]);
    expect(sorted(counter.count([[2]], 1))).toEqual([[2, 1]]); // not 3: the last call's counts are gone
    const many = Array.from({ length: 3000 }, (_, i) => i);
    expect(counter.count([many, many.filter((i) => i % 2 === 0)], 2).length).toBe(1500);
    expect(counter.count([many], 1).length).toBe(3000);
    expect(() => counter.count([[5001]], 1)).toThrow('not from 0 to 5000');
    expect(() => counter.count([[-1]], 1)).toThrow('not from 0 to 5000');
    // a call that throws after counting some ids leaves nothing behind for the next
    expect(() => counter.count([[3, 4], [3, 5001]], 1)).toThrow('not from 0 to 5000');
    expect(counter.count([[3], [4]], 2)).toEqual([]);
    expect(sorted(counter.count([[3, 4]], 1))).toEqual([[3, 1], [4, 1]]);
  });

  it('equals a count by map on seeded lists, ids sharing a word of its bit sets and not', () => {
    const random = mulberry32(49);
    for (let trial = 0; trial < 40; trial++) {
      const maxId = 1 + Math.floor(random() * (trial % 2 === 0 ? 64 : 100_000));
      const counter = new DenseHolderCounter(maxId);
      for (let call = 0; call < 5; call++) {
        const lists = Array.from({ length: Math.floor(random() * 12) }, () =>
          Uint32Array.from(new Set(Array.from({ length: Math.floor(random() * 30) }, () => Math.floor(random() * (maxId + 1))))),
        );
        const min = 1 + Math.floor(random() * 3);
        const byMap = new Map<number, number>();
        for (const list of lists) for (const id of list) byMap.set(id, (byMap.get(id) ?? 0) + 1);
        const want = sorted([...byMap].filter(([, n]) => n >= min));
        expect(sorted(counter.count(lists, min))).toEqual(want);
      }
    }
  });
});
