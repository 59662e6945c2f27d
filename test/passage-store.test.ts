// The passage index: its buckets (lib/index/postings.ts) against a brute-force set, its values'
// formats, and the store (lib/store/passages.ts, pages.ts, passage-organise.ts) against a
// brute-force reference over every pair of pages: which pages share passages with each, their
// shares and hashes, the one-site boilerplate marks, the passage copies, and postings that hold
// exactly the stored pages' hashes, after visits, forgetting, a changed text, an export and import.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { fingerprintText } from '../lib/fingerprint/features';
import { seenBefore } from '../lib/report/groups';
import {
  type Bucket,
  EMPTY_BUCKET,
  applyBucketChange,
  bucketOf,
  decodeBucket,
  encodeBucket,
  hashOf,
  highOf,
  idsWith,
  isFlagged,
  withFlag,
} from '../lib/index/postings';
import { MIN_PASSAGE_WORDS, type PassageFingerprints, passageFingerprints } from '../lib/fingerprint/passages';
import { BOILERPLATE, PassageIndex, hashesInside } from '../lib/index/passage-index';
import { coveredShare, sharedPassages } from '../lib/index/passage-match';
import { mulberry32 } from '../lib/random';
import { indexPending } from '../lib/organise/passage-organise';
import { type PageStore } from '../lib/store/pages';
import { decodePassageBlock, encodePassageBlock } from '../lib/store/passages';
import { isMarked, marksFit } from '../lib/index/passage-marks';
import { exportPages, importLines } from '../lib/store/transfer';
import { freshStore } from './support/fresh-store';
import { expectCountsKept } from './support/kept-counts';
import { passagesOf } from './support/store-queries';

describe('postings buckets', () => {
  const pairKey = (high: number, id: number): string => `${high}:${id}`;
  const asSet = (bucket: Bucket): Set<string> => new Set(Array.from(bucket.highs, (h, i) => pairKey(h, bucket.ids[i]!)));

  it('split a hash into its bucket (low 16 bits) and its high 16 bits, and back', () => {
    for (const hash of [0, 1, 0xffff, 0x10000, 0xdeadbeef, 0xffffffff]) {
      expect(bucketOf(hash)).toBe(hash & 0xffff);
      expect(highOf(hash)).toBe(hash >>> 16);
      expect(hashOf(bucketOf(hash), highOf(hash))).toBe(hash);
    }
  });

  it('encode a small bucket exactly: counts, flagged highs as gaps, Rice codes of the high gaps, fixed-width ids', () => {
    const bucket: Bucket = { highs: Uint16Array.of(3, 3, 200), ids: Uint32Array.of(10, 15, 70_000), flagged: Uint16Array.of(3, 9) };
    // 3 entries, 2 flagged (3, +6); k 5 (the shortest: 24 bits), ids 17 bits wide (70,000);
    // high gaps 3, 0, 197 as 0·00011 0·00000 111111 0·00101, then 10, 15, 70,000 in 17 bits each
    expect([...encodeBucket(bucket)]).toEqual([3, 2, 3, 6, 5, 17, 12, 15, 197, 0, 5, 0, 3, 226, 46, 0]);
    expect(decodeBucket(encodeBucket(bucket))).toEqual(bucket);
  });

  it('take about 3.3 bytes an entry for a bucket of a million pages\' passages (770 entries, highs crowded toward 0 as winnowing leaves them)', () => {
    const random = mulberry32(8);
    const entries = Array.from({ length: 770 }, () => [Math.min(0xffff, Math.floor(-Math.log(1 - random()) * 3473)), Math.floor(random() * 1_000_000)] as const);
    const sorted = [...new Map(entries.map((e) => [pairKey(e[0], e[1]), e])).values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const bucket: Bucket = { highs: Uint16Array.from(sorted, (e) => e[0]), ids: Uint32Array.from(sorted, (e) => e[1]), flagged: new Uint16Array(0) };
    const perEntry = encodeBucket(bucket).length / sorted.length;
    expect(perEntry).toBeGreaterThan(3.2); // 20 bits an id: not much to gain
    expect(perEntry).toBeLessThan(3.4); // varints took 4.0 on these entries
    expect(decodeBucket(encodeBucket(bucket))).toEqual(bucket);
  });

  it('encode an empty bucket as its counts and flags alone', () => {
    expect([...encodeBucket(EMPTY_BUCKET)]).toEqual([0, 0]);
    expect([...encodeBucket({ ...EMPTY_BUCKET, flagged: Uint16Array.of(4) })]).toEqual([0, 1, 4]);
    expect(decodeBucket(Uint8Array.of(0, 1, 4))).toEqual({ ...EMPTY_BUCKET, flagged: Uint16Array.of(4) });
  });

  it('apply seeded additions and removals exactly as a set would, sorted, each entry once', () => {
    const random = mulberry32(11);
    let bucket = EMPTY_BUCKET;
    const reference = new Set<string>();
    for (let step = 0; step < 300; step++) {
      const add: number[] = [];
      const remove: number[] = [];
      for (let i = Math.floor(random() * 20); i > 0; i--) {
        const high = Math.floor(random() * 40); // few highs: many repeats and shared highs
        const id = Math.floor(random() * 30) * 1_000_003;
        if (random() < 0.6) add.push(high, id);
        else remove.push(high, id);
      }
      bucket = applyBucketChange(bucket, { add, remove });
      for (let i = 0; i < remove.length; i += 2) reference.delete(pairKey(remove[i]!, remove[i + 1]!));
      for (let i = 0; i < add.length; i += 2) reference.add(pairKey(add[i]!, add[i + 1]!));
      expect(asSet(bucket)).toEqual(reference);
      expect(bucket.highs.length).toBe(reference.size);
      for (let i = 1; i < bucket.highs.length; i++) expect(bucket.highs[i - 1]! < bucket.highs[i]! || (bucket.highs[i - 1] === bucket.highs[i] && bucket.ids[i - 1]! < bucket.ids[i]!)).toBe(true);
      expect(decodeBucket(encodeBucket(bucket))).toEqual({ ...bucket, highs: Uint16Array.from(bucket.highs), ids: Uint32Array.from(bucket.ids) });
    }
    for (let high = 0; high < 40; high++) {
      expect([...idsWith(bucket, high)]).toEqual([...reference].filter((k) => k.startsWith(`${high}:`)).map((k) => Number(k.split(':')[1])).sort((a, b) => a - b));
    }
  });

  it('mark and unmark a high as one site\'s boilerplate, and keep the marks through changes', () => {
    let bucket = withFlag(withFlag(EMPTY_BUCKET, 9, true), 2, true);
    expect([...bucket.flagged]).toEqual([2, 9]);
    expect(isFlagged(bucket, 9) && !isFlagged(bucket, 3)).toBe(true);
    bucket = applyBucketChange(bucket, { add: [9, 1], remove: [] });
    expect([...withFlag(bucket, 2, false).flagged]).toEqual([9]);
    expect(withFlag(bucket, 9, true)).toBe(bucket);
  });

  it.each([
    // [1, 0, 1, 3, 0b1101_1110] is one entry, high 5 (k 1: 11·0·1), id 7 (3 bits: 111)
    ['bytes past the entries', [1, 0, 1, 3, 0xde, 0], 'a bucket has 1 bytes past its entries'],
    ['bits set past the entries', [1, 0, 1, 3, 0xdf], "a bucket's last byte has bits past its entries"],
    ['an entry twice', [2, 0, 1, 3, 0xd3, 0xf0], "a bucket's ids of one hash are not increasing, each once"],
    ['a high past 16 bits', [1, 0, 16, 0, 0x80, 0, 0], "a bucket entry's hash is past 16 bits"],
    ['code widths out of range', [1, 0, 17, 3, 0], "a bucket's code widths 17 and 3 are out of range"],
    ['flagged highs that do not increase', [0, 2, 4, 0], "a bucket's flagged hashes are not increasing 16-bit values"],
    ['more entries than bytes', [100, 0, 1, 1], 'a bucket counts more entries than its bytes can hold'],
    ['bytes that end inside the head', [1, 0, 5], "the bytes end inside the bucket's head"],
    ['bytes that end inside an entry', [1, 0, 1, 3], 'the bytes end inside an entry'],
    ['bytes that end inside a count', [0x80], 'the bytes end inside a number'],
  ])('refuse %s', (_, bytes, why) => {
    expect(() => decodeBucket(Uint8Array.from(bytes))).toThrow(why);
  });
});

describe('passage blocks', () => {
  it('keep each slot\'s bytes, empty slots as 0, and drop trailing empty slots', () => {
    const a = Uint8Array.of(1, 2, 3);
    const b = Uint8Array.of(9);
    const value = encodePassageBlock([a, undefined, b, undefined, undefined])!;
    expect([...value]).toEqual([3, 1, 2, 3, 0, 1, 9]);
    expect(decodePassageBlock(4, value)).toEqual([a, undefined, b]);
    expect(encodePassageBlock([undefined, undefined])).toBeUndefined();
  });

  it.each([
    ['not bytes', [1, 2], 'they are not bytes'],
    ['a slot past the end', Uint8Array.of(5, 1), 'slot 0 runs past the end'],
    ['more than 64 slots', new Uint8Array(65), 'they hold more than 64 slots'],
  ])('refuse %s, naming the block', (_, value, why) => {
    expect(() => decodePassageBlock(7, value)).toThrow(`Doppel's stored passage fingerprints of block 7 are damaged: ${why}.`);
  });
});

// ---- the store against a brute-force reference ----------------------------------------------

interface TestPage {
  url: string;
  site: string;
  words: string[];
  at: number;
}

/** A seeded history: originals, their excerpts, stitched pages and quotes on other sites, a site's newsletter box on 22 of its pages, a credit line on 105 pages. */
function history(seed: number): TestPage[] {
  const random = mulberry32(seed);
  const words = (n: number): string[] => Array.from({ length: n }, () => `w${Math.floor(random() * 30_000)}`);
  const box = words(45);
  const credit = words(40);
  const pages: TestPage[] = [];
  let at = Date.UTC(2026, 0, 1);
  const add = (url: string, text: string[]): void => {
    pages.push({ url, site: new URL(url).host, words: text, at: (at += 60_000) });
  };
  const originals: string[][] = [];
  for (let i = 0; i < 12; i++) {
    originals.push(words(250 + Math.floor(random() * 300)));
    add(`https://origin${i % 4}.example/story-${i}`, originals[i]!);
  }
  for (let i = 0; i < 12; i++) {
    const o = originals[i]!;
    const kind = i % 4;
    if (kind === 0) add(`https://excerpts.example/e-${i}`, o.slice(0, Math.floor(o.length * (0.3 + 0.3 * random()))));
    if (kind === 1) add(`https://stitch.example/s-${i}`, [...o.slice(0, Math.floor(o.length / 2)), ...originals[(i + 5) % 12]!.slice(100)]);
    if (kind === 2) {
      const from = Math.floor(random() * (o.length - 60));
      add(`https://quotes.example/q-${i}`, [...words(150), ...o.slice(from, from + 60), ...words(150)]);
    }
    if (kind === 3) add(`https://origin${i % 4}.example/same-site-${i}`, o.slice(0, 200)); // the same site's excerpt: no copy
  }
  for (let i = 0; i < 22; i++) add(`https://boxed.example/p-${i}`, [...words(120), ...box]);
  for (let i = 0; i < 105; i++) add(`https://wire${i % 30}.example/c-${i}`, [...words(60), ...credit]);
  // unrelated pages
  for (let i = 0; i < 10; i++) add(`https://other${i}.example/`, words(300));
  // a boxed page's last 50 words and its box, on another site: a copy only if the box counted (as
  // the reference finds without ignoring the box)
  const boxed = pages.find((p) => p.url === 'https://boxed.example/p-0')!.words;
  add('https://boxcopy.example/b-0', boxed.slice(70));
  return pages;
}

const fingerprintsOf = (page: TestPage): PassageFingerprints => {
  const { words, hashes, positions } = passageFingerprints(page.words.join(' '));
  return { words, hashes, positions };
};

async function visit(store: PageStore, page: TestPage, text = page.words): Promise<void> {
  const joined = text.join(' ');
  const { simhash, check } = fingerprintText(joined);
  const { words, hashes, positions } = passageFingerprints(joined);
  await store.record({ url: page.url, title: page.url, site: page.site, simhash, check, passages: { words, hashes, positions }, now: page.at });
}

interface Expected {
  matches: Map<string, { url: string; share: number; otherShare: number; hashes: number[] }[]>;
  copies: Set<string>;
  flagged: Set<number>;
}

/** What every lookup should give, over every pair: boilerplate by document frequency over the pages (the rule of lib/index/passage-index.ts), judged on the looked-up page's own hashes. */
function reference(pages: readonly (TestPage & { f: PassageFingerprints; firstSeen: number })[], ignoreBoilerplate = true): Expected {
  const index = new PassageIndex(BOILERPLATE);
  pages.forEach((p, i) => index.add(i, p.f, p.site));
  const matches = new Map<string, { url: string; share: number; otherShare: number; hashes: number[] }[]>();
  const copies = new Set<string>();
  for (const p of pages) {
    const own = new Set(p.f.hashes);
    const list = [];
    for (const q of pages) {
      if (q.url === p.url) continue;
      const passages = sharedPassages(p.f, q.f, { ignore: (h) => ignoreBoilerplate && own.has(h) && index.isBoilerplate(h), minWords: MIN_PASSAGE_WORDS });
      if (passages.length === 0) continue;
      const share = coveredShare(passages.map((x) => x.a), p.f.words);
      list.push({ url: q.url, share, otherShare: coveredShare(passages.map((x) => x.b), q.f.words), hashes: hashesInside(p.f, passages.map((x) => x.a)) });
      if (q.site !== p.site && seenBefore({ firstSeen: q.firstSeen, url: q.url }, { firstSeen: p.firstSeen, url: p.url }) && share >= 0.5) copies.add(p.url);
    }
    matches.set(p.url, list.sort((a, b) => b.share - a.share || b.otherShare - a.otherShare));
  }
  // one site's boilerplate: on 20 pages or more of one site, and on at most 100 pages in all
  const flagged = new Set<number>();
  const holders = new Map<number, TestPage[]>();
  for (const p of pages) for (const h of new Set(p.f.hashes)) holders.set(h, [...(holders.get(h) ?? []), p]);
  for (const [h, list] of holders) {
    if (list.length > BOILERPLATE.maxPages) continue;
    const bySite = new Map<string, number>();
    for (const p of list) bySite.set(p.site, (bySite.get(p.site) ?? 0) + 1);
    if ([...bySite.values()].some((n) => n >= BOILERPLATE.maxSitePages)) flagged.add(h);
  }
  return { matches, copies, flagged };
}

/** Every posting in the store as "hash:id", and every flagged hash. */
async function postingsIn(store: PageStore): Promise<{ postings: Set<string>; flagged: Set<number> }> {
  const tx = store.db.transaction('postings');
  const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
  const postings = new Set<string>();
  const flagged = new Set<number>();
  keys.forEach((b, i) => {
    const bucket = decodeBucket(values[i]!);
    bucket.highs.forEach((high, e) => postings.add(`${hashOf(b, high)}:${bucket.ids[e]}`));
    for (const high of bucket.flagged) flagged.add(hashOf(b, high));
  });
  return { postings, flagged };
}

/**
 * Every stored page's marks (lib/index/passage-marks.ts) against the pages' fingerprints: final, and
 * each hash another page holds marked; with `exact`, only those (no page went since they were set).
 */
async function expectMarks(store: PageStore, pages: readonly (TestPage & { f: PassageFingerprints })[], exact: boolean, what: string): Promise<void> {
  let marked = 0;
  let unmarked = 0;
  for (const p of pages) {
    const id = (await store.get(p.url))!.id;
    const marks = await store.read((_rows, _tx, passages) => passages.marksOf(id));
    expect(marks !== undefined && marksFit(marks, p.f.hashes.length), `${what}: ${p.url} has final marks`).toBe(true);
    p.f.hashes.forEach((h, i) => {
      const shared = pages.some((q) => q !== p && q.f.hashes.includes(h));
      const isSet = isMarked(marks!, i);
      if (shared || exact) expect(isSet, `${what}: ${p.url}'s fingerprint ${i} marked`).toBe(shared);
      if (isSet) marked++;
      else unmarked++;
    });
  }
  expect(marked > 0 && unmarked > 0, `${what}: marks both ways (${marked} marked, ${unmarked} not)`).toBe(true);
}

/** A fresh store that imported an export of `pages` (visited in another store): every page pending. */
async function importedPending(pages: readonly TestPage[]): Promise<PageStore> {
  const source = await freshStore();
  for (const p of pages) await visit(source, p);
  const lines: string[] = [];
  for await (const line of exportPages(source)) lines.push(line);
  const store = await freshStore();
  await importLines(store, lines, { now: Date.UTC(2026, 5, 1) });
  return store;
}

/** Checks the whole store against the reference for `pages` (the stored ones, with their fingerprints and first visits), and their marks (exact: see expectMarks). */
async function expectStoreMatches(store: PageStore, pages: readonly (TestPage & { f: PassageFingerprints; firstSeen: number })[], what: string, exactMarks = false): Promise<void> {
  await expectMarks(store, pages, exactMarks, what);
  const expected = reference(pages);
  // postings: exactly the stored pages' distinct hashes, each under its page's id
  const ids = new Map<string, number>();
  for (const p of pages) ids.set(p.url, (await store.get(p.url))!.id);
  const wanted = new Set<string>();
  for (const p of pages) for (const h of new Set(p.f.hashes)) wanted.add(`${h}:${ids.get(p.url)}`);
  const { postings, flagged } = await postingsIn(store);
  expect(postings, `${what}: postings`).toEqual(wanted);
  expect(flagged, `${what}: one site's boilerplate`).toEqual(expected.flagged);
  for (const p of pages) {
    const found = (await store.getWithNear(p.url))!;
    const near = new Set(found.near.map((m) => m.record.url));
    const got = found.passages.map(({ record, match }) => ({ url: record.url, share: match.share, otherShare: match.otherShare, hashes: match.hashes }));
    expect(got, `${what}: ${p.url}`).toEqual(expected.matches.get(p.url)!.filter((m) => !near.has(m.url)));
    expect((await store.get(p.url))!.contentCopy === true, `${what}: is ${p.url} a passage copy?`).toBe(expected.copies.has(p.url));
  }
  await expectCountsKept(store.db, what);
}

describe('the passage index in the store', () => {
  const pages = history(5).map((p) => ({ ...p, f: fingerprintsOf(p), firstSeen: p.at }));

  it('has a history that exercises it: excerpts, stitched pages, quotes, both boilerplate rules, copies', () => {
    const expected = reference(pages);
    const urls = (prefix: string): number => [...expected.copies].filter((u) => u.startsWith(prefix)).length;
    expect(urls('https://excerpts.example/')).toBe(3);
    expect(urls('https://origin')).toBe(0); // the same site's excerpt is no copy
    expect(expected.flagged.size).toBeGreaterThan(0);
    expect(expected.matches.get('https://quotes.example/q-2')!.map((m) => m.url)).toContain('https://origin2.example/story-2');
    expect(expected.matches.get('https://origin1.example/story-1')!.map((m) => m.url)).toContain('https://stitch.example/s-1');
    expect(expected.matches.get('https://boxed.example/p-0')).toEqual([]); // the box is one site's boilerplate
    expect(expected.matches.get('https://wire0.example/c-0')).toEqual([]); // the credit line is on more than 100 pages
    // the box is ignored where the page holds it: counted, it would make a copy
    expect(expected.copies.has('https://boxcopy.example/b-0')).toBe(false);
    expect(reference(pages, false).copies.has('https://boxcopy.example/b-0')).toBe(true);
  });

  it('visits: every page\'s passages, the marks and the copies are what the reference gives; forgetting and a changed text keep them so', { timeout: 180_000 }, async () => {
    const store = await freshStore();
    for (const p of pages) await visit(store, p);
    await expectStoreMatches(store, pages, 'after the visits', true);

    // a revisit with the same text changes nothing, and answers as the first visit did
    const excerpt = pages.find((p) => p.url === 'https://excerpts.example/e-0')!;
    const first = (await store.getWithNear(excerpt.url))!.passages.map((m) => m.record.url);
    const again = await store.record({ url: excerpt.url, title: excerpt.url, site: excerpt.site, ...fingerprintText(excerpt.words.join(' ')), passages: excerpt.f, now: excerpt.at + 1e8 });
    expect(again.passages.map((m) => m.record.url)).toEqual(first);
    await expectStoreMatches(store, pages, 'after a revisit with the same text', true);

    // a page whose text changed: an excerpt becomes a whole other text
    const changed = pages.find((p) => p.url === 'https://excerpts.example/e-4')!;
    const newText = history(99)[3]!.words;
    await visit(store, { ...changed, at: changed.at + 1e9 }, newText);
    let now = pages.map((p) => (p === changed ? { ...p, words: newText, f: fingerprintsOf({ ...p, words: newText }) } : p));
    await expectStoreMatches(store, now, 'after a changed text');

    // forgetting an original that made a copy, and a site that had a boilerplate box
    expect(await store.forget('https://origin0.example/story-0')).toBe(true);
    expect(await store.forgetSite('boxed.example')).toBe(22);
    now = now.filter((p) => p.url !== 'https://origin0.example/story-0' && p.site !== 'boxed.example');
    await expectStoreMatches(store, now, 'after forgetting');
    expect(await passagesOf(store, 'https://origin0.example/story-0')).toBeUndefined();
  });

  it('an export carries the fingerprints; imported, they are pending until organised, then the same as visited', { timeout: 180_000 }, async () => {
    const source = await freshStore();
    for (const p of pages) await visit(source, p);
    const lines: string[] = [];
    for await (const line of exportPages(source)) lines.push(line);
    expect(JSON.parse(lines[1]!).passages).toMatch(/^[A-Za-z0-9+/]+=*$/);

    const store = await freshStore();
    expect(await importLines(store, lines, { now: Date.UTC(2026, 5, 1), batchSize: 50 })).toMatchObject({ added: pages.length, rejected: [] });
    // pending: kept, but not in the postings yet
    expect(await passagesOf(store, pages[0]!.url)).toEqual(pages[0]!.f);
    expect((await postingsIn(store)).postings.size).toBe(0);
    expect((await store.getWithNear('https://quotes.example/q-2'))!.passages).toEqual([]);

    // while organising, after it read the pending fingerprints and before it writes their postings, a
    // pending page is visited with a new text and another is forgotten: no posting of their old texts is added
    const revisited = pages.find((p) => p.url === 'https://stitch.example/s-1')!;
    const newText = history(77)[5]!.words;
    const organised = await indexPending(store, {
      onProgress: async ({ phase, done }) => {
        if (phase !== 'passages' || done !== 1) return; // the first pass has read, and writes next
        await visit(store, { ...revisited, at: revisited.at + 1e9 }, newText);
        await store.forget('https://quotes.example/q-6');
      },
    });
    expect(organised).toMatchObject({ pages: pages.length, passes: 1 }); // counted as read, before the forgetting
    expect(await indexPending(store)).toBeNull(); // nothing left pending
    const now = pages
      .filter((p) => p.url !== 'https://quotes.example/q-6')
      .map((p) => (p === revisited ? { ...p, words: newText, f: fingerprintsOf({ ...p, words: newText }) } : p));
    await expectStoreMatches(store, now, 'imported and organised');

    // importing the same file again adds nothing and leaves nothing pending
    expect(await importLines(store, lines, { now: Date.UTC(2026, 5, 2) })).toMatchObject({ added: 1, rejected: [] }); // the forgotten page comes back
    await indexPending(store);
    await expectStoreMatches(store, [...now, pages.find((p) => p.url === 'https://quotes.example/q-6')!], 'imported again');
  });

  it('imported in the reverse order of the visits (each copy given a lower id than its original), organising finds the same copies', { timeout: 180_000 }, async () => {
    const source = await freshStore();
    for (const p of pages) await visit(source, p);
    const lines: string[] = [];
    for await (const line of exportPages(source)) lines.push(line);
    const store = await freshStore();
    await importLines(store, [lines[0]!, ...lines.slice(1).reverse()], { now: Date.UTC(2026, 5, 1) });
    expect((await store.get(pages[0]!.url))!.id).toBe(pages.length - 1);
    await indexPending(store);
    await expectStoreMatches(store, pages, 'imported in reverse');
  });

  it('organising in many passes (a few buckets each) gives the same index as in one, and keeps the marks that visits set while it works', { timeout: 180_000 }, async () => {
    const store = await importedPending(pages);
    // a new page copies an imported one between two passes, and another after the passes' merges and
    // before the marks are written: the hashes each shares only with its original are marked by the
    // merges of later passes or by the visit, and organising must keep the visits' marks
    const excerptOf = (original: TestPage & { f: PassageFingerprints }, n: number): TestPage & { f: PassageFingerprints; firstSeen: number } => {
      const page = {
        url: `https://late.example/excerpt-${n}`,
        site: 'late.example',
        words: [...original.words.slice(0, Math.floor(original.words.length * 0.6)), ...history(31 + n)[0]!.words.slice(0, 40)],
        at: Date.UTC(2026, 5, 2) + n,
        firstSeen: Date.UTC(2026, 5, 2) + n,
      };
      return { ...page, f: fingerprintsOf(page) };
    };
    const excerpts = [excerptOf(pages[0]!, 0), excerptOf(pages[1]!, 1)];
    const steps: string[] = [];
    const organised = await indexPending(store, {
      postingsPerPass: 200,
      onProgress: async ({ phase, done, total }) => {
        steps.push(`${phase} ${done}/${total}`);
        if (phase !== 'passages') return;
        const passes = (total - 4) / 2; // the count, a read and a write a pass, the marks, the copies, the list
        if (done === 3) await visit(store, excerpts[0]!); // the first pass merged; the second reads next
        if (done === 1 + 2 * passes) await visit(store, excerpts[1]!); // every pass merged; the marks are written next
      },
    });
    expect(organised!.passes).toBeGreaterThan(3);
    // the copies' step in its four parts, between the marks and the list
    const total = 2 * organised!.passes + 4;
    const passages = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `passages ${from + i}/${total}`);
    expect(steps, 'progress goes forward, one step at a time').toEqual([...passages(0, total - 2), 'copies 0/4', 'copies 1/4', 'copies 2/4', 'copies 3/4', ...passages(total - 1, total)]);
    excerpts.forEach((excerpt, n) => {
      const original = pages[n]!;
      const unique = original.f.hashes.filter((h) => pages.every((q) => q === original || !q.f.hashes.includes(h)));
      expect(unique.some((h) => excerpt.f.hashes.includes(h)), `excerpt ${n} shares hashes its original held alone`).toBe(true);
    });
    await expectStoreMatches(store, [...pages, ...excerpts], 'organised in passes, pages visited between them and before the marks', true);
  });

  it('a pending page visited with a new text once the buckets are counted and the first pass has merged: the later passes read more of its postings in some buckets than counted, fewer in others, and the index is as the reference says', { timeout: 180_000 }, async () => {
    const store = await importedPending(pages);
    const revisited = pages.find((p) => p.url === 'https://stitch.example/s-1')!;
    const newText = history(78)[3]!.words;
    const organised = await indexPending(store, {
      postingsPerPass: 200,
      onProgress: async ({ phase, done }) => {
        if (phase === 'passages' && done === 3) await visit(store, { ...revisited, at: revisited.at + 1e9 }, newText); // the second pass reads next
      },
    });
    expect(organised!.passes).toBeGreaterThan(3);
    const now = pages.map((p) => (p === revisited ? { ...p, words: newText, f: fingerprintsOf({ ...p, words: newText }) } : p));
    // the marks of the hashes the page's old text shared stay set (marks may say more than is held: a lookup reads those hashes' postings)
    await expectStoreMatches(store, now, 'organised in passes, a pending page visited with a new text after the count and the first pass');
  });

  it('a file without passages still imports, its pages without fingerprints; one with other parameters has them left out', async () => {
    const store = await freshStore();
    const page = { url: 'https://a.example/x', title: 'X', simhash: '0123456789abcdef', passages: 'AQID' };
    const header = { format: 'doppel', version: 1 };
    expect(await importLines(store, [JSON.stringify(header), JSON.stringify(page)], { now: 0 })).toMatchObject({ added: 1, rejected: [] });
    expect(await passagesOf(store, page.url)).toBeUndefined();
    const other = { ...header, passages: { k: 4, w: 20 } };
    expect(await importLines(store, [JSON.stringify(other), JSON.stringify({ ...page, url: 'https://a.example/y' })], { now: 0 })).toMatchObject({ added: 1, rejected: [] });
    expect(await passagesOf(store, 'https://a.example/y')).toBeUndefined();
    const ours = { ...header, passages: { k: 5, w: 26 } };
    expect(await importLines(store, [JSON.stringify(ours), JSON.stringify({ ...page, url: 'https://a.example/z' })], { now: 0 })).toEqual({
      added: 0,
      merged: 0,
      unchanged: 0,
      rejected: [{ line: 2, problems: [{ code: 'unreadable', field: 'passages' }] }],
    });
    // a file of version 1's bytes (no `bytes` in its header): read and kept as this version's; an unknown version's left out
    const version1 = { url: 'https://a.example/v1', title: 'V1', simhash: '0123456789abcdef', passages: 'CgECAQIDBA==' }; // 10 words, at 2 the hash 0x01020304
    expect(await importLines(store, [JSON.stringify(ours), JSON.stringify(version1)], { now: 0 })).toMatchObject({ added: 1, rejected: [] });
    expect(await passagesOf(store, version1.url)).toEqual({ words: 10, hashes: Uint32Array.of(0x01020304), positions: Int32Array.of(2) });
    const unknown = { ...header, passages: { k: 5, w: 26, bytes: 3 } };
    expect(await importLines(store, [JSON.stringify(unknown), JSON.stringify({ ...version1, url: 'https://a.example/v3' })], { now: 0 })).toMatchObject({ added: 1, rejected: [] });
    expect(await passagesOf(store, 'https://a.example/v3')).toBeUndefined();
  });

  it('clearing everything leaves no fingerprint and no posting', async () => {
    const store = await freshStore();
    for (const p of pages.slice(0, 30)) await visit(store, p);
    await store.clear();
    const tx = store.db.transaction(['passages', 'postings', 'meta']);
    expect([await tx.objectStore('passages').count(), await tx.objectStore('postings').count(), await tx.objectStore('meta').get('passagePending')]).toEqual([0, 0, undefined]);
  });
});
