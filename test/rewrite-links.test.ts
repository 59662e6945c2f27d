// The regroup's rewrite links (lib/organise/rewrite-links.ts linkRewritePages) against each page
// looked up in RewriteIndex, the maps that test/rewrites.test.ts checks against comparing every
// pair: the same matches, in the same order, whatever the slices; PackedLog, the keys' log; and
// PackedRewriteBytes, the fingerprints' bytes in chunks.
import { describe, expect, it } from 'vitest';
import { REWRITE_RULE, type RewriteFingerprints } from '../lib/fingerprint/rewrites';
import { decodeRewriteBytes, encodeRewriteBytes } from '../lib/fingerprint/rewrite-codec';
import { FIRST_LOG_VALUES, PACKED_LOG_CHUNK, PackedLog } from '../lib/index/packed-log';
import { BYTES_CHUNK, PackedRewriteBytes } from '../lib/index/packed-rewrites';
import { RewriteIndex, findRewriteMatches } from '../lib/index/rewrite-index';
import { linkRewritePages } from '../lib/organise/rewrite-links';
import { mulberry32 } from '../lib/random';
import { randomRewritePages } from './support/rewrite-pages';
import { pagesInMemory } from './support/rewrite-pages-in-memory';

/** Pages of several caps (at most the store's 64) and languages. */
const pages = (seed: number, count: number): RewriteFingerprints[] => randomRewritePages(seed, count, { caps: [16, 32, 64], languages: ['en', 'es', 'zh'] });

describe('linkRewritePages', () => {
  // maxPages small enough that some hashes are left out (the comparison skips them); pages at
  // indices with gaps, the largest of 22 bits; candidate pairs judged one, seven or all at a time
  it.each([
    [1, Infinity, 0],
    [2, 20, 0],
    [3, 12, 0],
    [4, 10, 0],
    [5, 20, 2 ** 21 + 7],
  ])('seed %i, maxPages %s, indices from %i: every page links what its lookup in the maps finds, in order', async (seed, maxPages, first) => {
    const all = pages(seed, 120);
    const ids = all.map((_, i) => first + 4 * i + (i % 3));
    const maps = new RewriteIndex(maxPages, REWRITE_RULE.indexShare);
    all.forEach((f, i) => maps.add(ids[i]!, f));
    const want: string[] = [];
    for (const [i, own] of all.entries()) for (const { id } of await findRewriteMatches(maps, own, ids[i]!)) want.push(`${ids[i]}→${id}`);
    expect(want.length).toBeGreaterThan(20); // the pages link
    const bytes: (Uint8Array | undefined)[] = [];
    all.forEach((f, i) => (bytes[ids[i]!] = encodeRewriteBytes(f)));
    for (const [pairsPerSlice, pagesPerSlice] of [[1, undefined], [7, undefined], [undefined, 9], [undefined, undefined]] as const) {
      const looked: string[] = [];
      const { lookups } = await linkRewritePages(pagesInMemory(bytes), (i, j) => looked.push(`${i}→${j}`), { maxPages, pairsPerSlice, pagesPerSlice, expectedPages: 16 });
      expect(looked).toEqual(want);
      expect(lookups).toBe(all.length);
    }
  });

  it('a hash on more than maxPages pages is left out of the candidates and of the comparison, as the maps leave it', async () => {
    const hashes = Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8].map((h) => h * 4096));
    const page = (n: number): RewriteFingerprints => ({ hashes: hashes.slice(0, n), limit: 2 ** 32, anchors: n, lang: 'en' });
    const looked: [number, number, number][] = [];
    const all = [page(8), page(8), page(2)];
    const maps = new RewriteIndex(2);
    all.forEach((f, id) => maps.add(id, f));
    // hashes 1 and 2 are on three pages (more than 2): pages 0 and 1 share the six others, and the comparison counts those
    const shared = new Map<string, number>();
    for (const [id, own] of all.entries()) for (const m of await findRewriteMatches(maps, own, id)) shared.set(`${id}→${m.id}`, m.comparison.shared);
    expect([...shared]).toEqual([
      ['0→1', 6],
      ['1→0', 6],
    ]);
    await linkRewritePages(pagesInMemory(all.map((f) => encodeRewriteBytes(f))), (i, j) => looked.push([i, j, shared.get(`${i}→${j}`)!]), { maxPages: 2 });
    expect(looked).toEqual([
      [0, 1, 6],
      [1, 0, 6],
    ]);
  });

  it('damaged bytes are neither indexed nor looked up; a store without pages links nothing', async () => {
    const all = pages(9, 30);
    const bytes = all.map((f) => encodeRewriteBytes(f));
    bytes[4] = Uint8Array.of(1, 2);
    const indexed: number[] = [];
    const { lookups } = await linkRewritePages(pagesInMemory(bytes), () => undefined, { maxPages: Infinity, indexed: (i) => indexed.push(i) });
    expect(indexed).toEqual(Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 4));
    expect(lookups).toBe(29);
    expect(await linkRewritePages(pagesInMemory([]), () => expect.unreachable(), { maxPages: Infinity })).toMatchObject({ lookups: 0 });
    await expect(linkRewritePages(pagesInMemory(bytes), () => undefined, { maxPages: Infinity, pairsPerSlice: 0 })).rejects.toThrow('pairsPerSlice');
    await expect(linkRewritePages(pagesInMemory(bytes), () => undefined, { maxPages: Infinity, pagesPerSlice: 0 })).rejects.toThrow('pagesPerSlice');
  });
});

describe('PackedLog', () => {
  it.each([1, 7, 20, 32])('values of %i bits read back across chunks, and the chunks before an index let go (seeded)', (width) => {
    const random = mulberry32(width);
    const log = new PackedLog(width);
    const count = 2 * PACKED_LOG_CHUNK + 99;
    const values = Uint32Array.from({ length: count }, () => Math.floor(random() * 2 ** width));
    for (const v of values) log.push(v);
    expect(log.length).toBe(count);
    for (let i = 0; i < count; i += 997) expect(log.get(i)).toBe(values[i]);
    expect(log.get(count - 1)).toBe(values[count - 1]);
    // two full chunks, and the last as first made (FIRST_LOG_VALUES values: 99 fit)
    const first = (FIRST_LOG_VALUES / 8) * width;
    expect(log.heldBytes()).toBe(2 * (PACKED_LOG_CHUNK / 8) * width + first);
    log.releaseBefore(PACKED_LOG_CHUNK + 5); // the first chunk only
    expect(log.heldBytes()).toBe((PACKED_LOG_CHUNK / 8) * width + first);
    expect(() => log.get(3)).toThrow('not held');
    expect(log.get(PACKED_LOG_CHUNK)).toBe(values[PACKED_LOG_CHUNK]);
    expect(() => log.get(count)).toThrow('not held');
    log.releaseBefore(Infinity);
    expect(log.heldBytes()).toBe(0);
  });

  it('refuses a width outside 1 to 32 bits', () => {
    expect(() => new PackedLog(0)).toThrow('1 to 32');
    expect(() => new PackedLog(33)).toThrow('1 to 32');
  });

  it.each([1, 7, 20, 32])('values of %i bits set in any order, over values pushed and a length extended, leave their neighbours as they were (seeded)', (width) => {
    const random = mulberry32(100 + width);
    const draw = (): number => Math.floor(random() * 2 ** width);
    const log = new PackedLog(width);
    const want: number[] = [];
    for (let i = 0; i < 3000; i++) want.push(draw());
    for (const v of want) log.push(v); // the last chunk grows past FIRST_LOG_VALUES, its values kept
    log.extend(PACKED_LOG_CHUNK + 500); // into a second chunk, sized to what it holds
    while (want.length < PACKED_LOG_CHUNK + 500) want.push(0);
    expect(log.length).toBe(PACKED_LOG_CHUNK + 500);
    expect(log.heldBytes()).toBe((PACKED_LOG_CHUNK / 8) * width + (FIRST_LOG_VALUES / 8) * width);
    for (let n = 0; n < 20_000; n++) {
      const i = n % 3 === 0 ? PACKED_LOG_CHUNK - 50 + Math.floor(random() * 550) : Math.floor(random() * want.length);
      want[i] = n % 5 === 0 ? 2 ** width - 1 : draw(); // all ones, to show a neighbour's bits are not touched
      log.set(i, want[i]!);
    }
    for (const v of [draw(), 2 ** width - 1]) {
      log.push(v); // a push after the extended length grows the short last chunk
      want.push(v);
    }
    for (let i = 0; i < want.length; i++) if (log.get(i) !== want[i]) expect.unreachable(`value ${i}: ${log.get(i)}, not ${want[i]}`);
    expect(() => log.set(want.length, 1)).toThrow('not held');
  });

  it('widened: the same values in more bits, the narrower log let go; never narrowed', () => {
    const random = mulberry32(41);
    const log = new PackedLog(20);
    const values = Array.from({ length: PACKED_LOG_CHUNK + 77 }, () => Math.floor(random() * 2 ** 20));
    for (const v of values) log.push(v);
    const wider = log.widened(23);
    expect(wider.width).toBe(23);
    expect(wider.length).toBe(values.length);
    for (let i = 0; i < values.length; i += 7) if (wider.get(i) !== values[i]) expect.unreachable(`value ${i}`);
    expect(wider.get(values.length - 1)).toBe(values.at(-1));
    expect(log.heldBytes()).toBe(0);
    wider.set(3, 2 ** 23 - 1);
    expect(wider.get(3)).toBe(2 ** 23 - 1);
    expect(() => wider.widened(22)).toThrow('cannot be narrowed');
  });
});

describe('PackedRewriteBytes', () => {
  it('pages of every size read back by id across chunks, none split between two; damaged bytes read as none', () => {
    const random = mulberry32(5);
    const held = new PackedRewriteBytes(4);
    const all = pages(6, 40);
    const added = new Map<number, Uint8Array>();
    let id = 3;
    // pages of their own bytes, and large runs of filler that fill a chunk to within a few bytes of its end
    for (const [i, f] of all.entries()) {
      const bytes = i % 10 === 9 ? new Uint8Array(BYTES_CHUNK - 1 - Math.floor(random() * 300)) : encodeRewriteBytes(f);
      id += 1 + Math.floor(random() * 3);
      held.add(id, bytes);
      added.set(id, bytes);
    }
    expect(held.size).toBe(40);
    for (const [at, bytes] of added) {
      if (bytes.length > 1000) expect(held.fingerprintsOf(at)).toBeUndefined(); // zeros: not fingerprints
      else expect(held.fingerprintsOf(at)).toEqual(decodeRewriteBytes(bytes));
    }
    expect(held.fingerprintsOf(2)).toBeUndefined();
    expect(held.fingerprintsOf(id + 1)).toBeUndefined();
    // the chunks hold every byte, and spare room of less than a chunk beside each filler (and the first)
    const added_ = [...added.values()].reduce((sum, b) => sum + b.length, 0);
    const lists = 3 * 4 * 64; // ids, starts and ends: words that double from 4
    expect(held.heldBytes() - lists).toBeGreaterThanOrEqual(added_);
    expect(held.heldBytes() - lists).toBeLessThan(added_ + 5 * BYTES_CHUNK);
    expect(() => held.add(id, encodeRewriteBytes(all[0]!))).toThrow('ascending id order');
    expect(() => held.add(id + 1, new Uint8Array(BYTES_CHUNK + 1))).toThrow('at most');
    held.release();
    expect(held.heldBytes()).toBeLessThan(BYTES_CHUNK);
  });
});
