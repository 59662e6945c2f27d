// The rewrite index in the store (lib/index/rewrite-store.ts, through lib/store/pages.ts): every
// visit's answer and every report's list are what comparing the page with every stored page gives;
// forgetting a page, a site or everything removes its fingerprints and postings in the same
// transaction; damaged values are errors that say so.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { REWRITE_RULE, type RewriteFingerprints, compareRewrites, isRewritePair, sampleHashes } from '../lib/fingerprint/rewrites';
import { encodeRewriteBytes } from '../lib/fingerprint/rewrite-codec';
import { fingerprintFromHex } from '../lib/fingerprint/bits';
import { RewriteRows, REWRITE_MAX_PAGES } from '../lib/index/rewrite-store';
import { MAX_REWRITE_CANDIDATES } from '../lib/index/rewrite-index';
import { decodeSlots, encodeSlots, groupOf } from '../lib/index/slots';
import type { PageStore } from '../lib/store/pages';
import { mulberry32, pick, uint32s } from '../lib/random';
import { freshStore } from './support/fresh-store';
import { exportPages, importLines } from '../lib/store/transfer';
import { indexPending } from '../lib/organise/passage-organise';

interface Page {
  url: string;
  site: string;
  f: RewriteFingerprints;
}

/**
 * Pages in families of three or so whose rewrite fingerprints are drawn from the family's hashes,
 * with a few from a common pool that many pages share (some past REWRITE_MAX_PAGES pages when the
 * history is long), each page on its own site cycle; some capped.
 */
function history(seed: number, count: number): Page[] {
  const next = uint32s(seed);
  const random = mulberry32(seed);
  const hash = (): number => Math.floor(next() / 4096) * 4096;
  const families = Array.from({ length: Math.ceil(count / 3) }, () => Array.from({ length: 40 }, hash));
  const common = Array.from({ length: 6 }, hash);
  return Array.from({ length: count }, (_, i) => {
    const own = families[i % families.length]!.filter(() => random() < 0.6);
    const all = Uint32Array.from(new Set([...own, ...common.filter(() => random() < 0.5), ...Array.from({ length: 3 }, hash)])).sort();
    const { hashes, limit } = sampleHashes(all, { share: 1, cap: pick(random, [16, 64]), bits: 20 });
    return { url: `https://site${i % 7}.example/p-${i}`, site: `site${i % 7}.example`, f: { hashes, limit, anchors: hashes.length, lang: pick(random, ['en', 'es', 'zh'] as const) } };
  });
}

/** A simhash per page, far apart (no near-duplicates): 64 bits from the page's index. */
const simhashOf = (i: number): string => [...uint32s(1000 + i)().toString(16).padStart(8, '0'), ...uint32s(2000 + i)().toString(16).padStart(8, '0')].join('');

async function visit(store: PageStore, p: Page, i: number) {
  const simhash = fingerprintFromHex(simhashOf(i));
  return store.record({ url: p.url, title: p.url, site: p.site, simhash, check: simhash, rewrites: p.f, now: 1_000 + i });
}

/** A page's index hashes (below REWRITE_RULE.indexShare of its limit), computed here apart from the library's. */
const indexed = (f: RewriteFingerprints): Set<number> => new Set(Array.from(f.hashes).filter((h) => h < f.limit * REWRITE_RULE.indexShare));

/**
 * The reference: `own` against the other pages in `stored` sharing REWRITE_RULE.minIndexShared
 * index hashes with it (at most MAX_REWRITE_CANDIDATES, those sharing most), its index hashes on
 * more than REWRITE_MAX_PAGES of them left out.
 */
function reference(stored: readonly Page[], own: Page): string[] {
  const others = stored.filter((p) => p.url !== own.url);
  const pagesOf = new Map<number, number>();
  for (const p of others) for (const h of indexed(p.f)) pagesOf.set(h, (pagesOf.get(h) ?? 0) + 1);
  const ownIndexed = indexed(own.f);
  const skip = (h: number): boolean => ownIndexed.has(h) && (pagesOf.get(h) ?? 0) > REWRITE_MAX_PAGES;
  const hits = (p: Page): number => {
    const theirs = indexed(p.f);
    return [...ownIndexed].filter((h) => theirs.has(h) && !skip(h)).length;
  };
  // the MAX_REWRITE_CANDIDATES sharing the most index hashes, then the earliest stored
  const candidates = others
    .map((p) => ({ p, n: hits(p) }))
    .filter(({ n }) => n >= REWRITE_RULE.minIndexShared)
    .sort((x, y) => y.n - x.n || stored.indexOf(x.p) - stored.indexOf(y.p))
    .slice(0, MAX_REWRITE_CANDIDATES);
  return candidates
    .map(({ p }) => {
      const below = Math.min(own.f.limit, p.f.limit) * REWRITE_RULE.indexShare;
      return { p, c: compareRewrites(own.f, p.f, (h) => h < below && skip(h)) };
    })
    .filter(({ c }) => isRewritePair(c))
    .sort((x, y) => Math.max(y.c.aInB, y.c.bInA) - Math.max(x.c.aInB, x.c.bInA) || stored.indexOf(x.p) - stored.indexOf(y.p))
    .map(({ p, c }) => `${p.url} ${c.shared}`);
}

const listed = (matches: { record: { url: string }; match: { comparison: { shared: number } } }[]): string[] => matches.map((m) => `${m.record.url} ${m.match.comparison.shared}`);

async function expectReports(store: PageStore, stored: readonly Page[], when: string): Promise<void> {
  for (const p of stored) {
    const found = await store.getWithNear(p.url);
    expect(listed(found!.rewrites), `${when}: ${p.url}`).toEqual(reference(stored, p));
  }
}

describe('the rewrite index in the store', () => {
  // 240 pages: the common hashes are on more than REWRITE_MAX_PAGES of them, and left out
  const pages = history(35, 240);

  it('visits: each answer is the page against every earlier page; each report against every other page', { timeout: 120_000 }, async () => {
    const store = await freshStore();
    let answered = 0;
    for (const [i, p] of pages.entries()) {
      const { rewrites } = await visit(store, p, i);
      expect(listed(rewrites), p.url).toEqual(reference(pages.slice(0, i), p));
      answered += rewrites.length;
    }
    expect(answered).toBeGreaterThan(20);
    const holders = new Map<number, number>();
    for (const p of pages) for (const h of p.f.hashes) holders.set(h, (holders.get(h) ?? 0) + 1);
    expect(Math.max(...holders.values())).toBeGreaterThan(REWRITE_MAX_PAGES);
    await expectReports(store, pages, 'after the visits');
    // the postings hold the index hashes only: every hash of a page at or above its index limit is in none (unless another page indexes it)
    const everyIndexed = new Set(pages.flatMap((p) => [...indexed(p.f)]));
    const notIndexed = [...new Set(pages.flatMap((p) => Array.from(p.f.hashes)))].filter((h) => !everyIndexed.has(h));
    expect(notIndexed.length).toBeGreaterThan(100);
    expect((await store.read(async (_rows, _tx, _passages, rewrites) => rewrites.postingsOf(notIndexed))).size).toBe(0);
  });

  it('forgetting a page, a site and everything removes their fingerprints and postings with them', { timeout: 120_000 }, async () => {
    const store = await freshStore();
    for (const [i, p] of pages.entries()) await visit(store, p, i);
    const gone = pages[3]!;
    expect(await store.forget(gone.url)).toBe(true);
    let now = pages.filter((p) => p !== gone);
    expect(await store.forgetSite('site2.example')).toBe(pages.filter((p) => p.site === 'site2.example' && p !== gone).length);
    now = now.filter((p) => p.site !== 'site2.example');
    await expectReports(store, now, 'after forgetting');
    // no posting names a forgotten page
    const remaining = new Set(now.map((p) => p.url));
    const ids = await store.read(async (rows) => (await rows.pagesAfter(undefined, 1000)).map((r) => r.id));
    const postings = await store.read(async (_rows, _tx, _passages, rewrites) => rewrites.postingsOf(pages.flatMap((p) => Array.from(p.f.hashes))));
    for (const holders of postings.values()) for (const id of holders) expect(ids).toContain(id);
    expect(ids).toHaveLength(remaining.size);

    expect(await store.clear()).toBe(now.length);
    const left = await store.read(async (_rows, tx) => Promise.all([tx.objectStore('rewrites').count(), tx.objectStore('rewritePostings').count()]));
    expect(left).toEqual([0, 0]);
  });

  it('an export carries the fingerprints; imported, they wait for organising (pages visited or forgotten meanwhile kept right), then answer as visited', { timeout: 180_000 }, async () => {
    const source = await freshStore();
    for (const [i, p] of pages.entries()) await visit(source, p, i);
    const lines: string[] = [];
    for await (const line of exportPages(source)) lines.push(line);
    expect(JSON.parse(lines[0]!).rewrites).toEqual({ scheme: 1, bits: 20, cap: 64 });
    expect(lines.slice(1).every((line) => typeof JSON.parse(line).rewrites === 'string')).toBe(true);

    const store = await freshStore();
    expect(await importLines(store, lines, { now: Date.UTC(2026, 5, 1), batchSize: 50 })).toMatchObject({ added: pages.length, rejected: [] });
    // pending: kept, but in no posting yet
    expect(await store.read((_rows, _tx, _passages, rewrites) => rewrites.fingerprintsOf(0))).toEqual(pages[0]!.f);
    expect((await store.getWithNear(pages[5]!.url))!.rewrites).toEqual([]);
    // meanwhile a page is forgotten and another visited with other fingerprints
    const gone = pages[7]!;
    const changed = pages[8]!;
    expect(await store.forget(gone.url)).toBe(true);
    const other = pages[9]!.f;
    await store.record({ url: changed.url, title: changed.url, site: changed.site, simhash: fingerprintFromHex(simhashOf(8)), check: fingerprintFromHex(simhashOf(8)), rewrites: other, now: Date.UTC(2026, 5, 2) });
    await indexPending(store);
    const now = pages.filter((p) => p !== gone).map((p) => (p === changed ? { ...p, f: other } : p));
    await expectReports(store, now, 'after importing and organising');
    const goneId = (await source.get(gone.url))!.id;
    const postings = await store.read(async (_rows, _tx, _passages, rewrites) => rewrites.postingsOf(pages.flatMap((p) => Array.from(p.f.hashes))));
    expect([...postings.values()].some((holders) => Array.from(holders).includes(goneId))).toBe(false);
    expect([...postings.values()].some((holders) => holders.length > 0)).toBe(true);
  });

  it('a revisit with other fingerprints moves the page\'s postings', async () => {
    const store = await freshStore();
    const [a, b, c] = pages.filter((p) => p.f.hashes.length >= 8);
    await visit(store, a!, 0);
    await visit(store, { ...b!, f: a!.f }, 1);
    expect(listed((await store.getWithNear(a!.url))!.rewrites)).toEqual([`${b!.url} ${a!.f.hashes.length}`]);
    // b now holds c's fingerprints: a no longer finds it through the old hashes
    await visit(store, { ...b!, f: c!.f }, 1);
    const stored = [a!, { ...b!, f: c!.f }];
    expect(listed((await store.getWithNear(a!.url))!.rewrites)).toEqual(reference(stored, a!));
  });
});

describe('RewriteRows', () => {
  it('says which page and which bucket are damaged', async () => {
    const f: RewriteFingerprints = { hashes: Uint32Array.from([4096, 8192]), limit: 2 ** 32, anchors: 2, lang: 'en' };
    const group = new Map<number, Uint8Array>([[0, encodeSlots([encodeRewriteBytes(f)])!], [1, Uint8Array.from([3, 1])]]);
    const bad = Uint8Array.from([9, 9, 9]);
    const rows = new RewriteRows({ get: async (g) => group.get(g) }, { get: async (b) => (b === 1 ? bad : undefined) });
    expect(await rows.fingerprintsOf(0)).toEqual(f);
    expect(await rows.fingerprintsOf(1)).toBeUndefined();
    await expect(rows.fingerprintsOf(64)).rejects.toThrow("Doppel's stored rewrite fingerprints of block 1 are damaged: slot 0 runs past the end.");
    await expect(rows.postingsOf([1 << 12])).rejects.toThrow("Doppel's stored rewrite postings of bucket 1 are damaged");
    await expect(rows.set(0, undefined)).resolves.toBeUndefined();
    await expect(rows.flush()).rejects.toThrow('the rewrite index was changed through a store that cannot be written');
  });

  it('keeps a group\'s slots: 64 pages a value, trailing empty slots left out', () => {
    expect(groupOf(130)).toEqual({ group: 2, slot: 2 });
    const a = Uint8Array.from([1, 2]);
    expect(decodeSlots(5, encodeSlots([undefined, a, undefined]), 'rewrite fingerprints')).toEqual([undefined, a]);
    expect(encodeSlots([undefined])).toBeUndefined();
  });
});
