// The pages in one transaction (lib/rows/page-rows.ts) against a Map of pages, the
// brute-force reference: seeded transactions of puts and deletes, each read checked mid-way
// (reads see the transaction's own changes) and after the commit, and every tree checked against
// the records (test/kept-tables.ts).
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { asFingerprint, fingerprintToHex } from '../lib/fingerprint/bits';
import { mulberry32, splitmix64 } from '../lib/random';
import { writeDesigns } from '../lib/index/design';
import { MAX_PAGE_ID, PageRows, lastSeenEntry, textKey } from '../lib/rows/page-rows';
import { DEFAULT_DESIGN } from '../lib/store/pages';
import type { Db, PageRecord } from '../lib/store/schema';
import { expectTablesOfRecords, storedPages } from './support/kept-tables';
import { freshStore } from './support/fresh-store';
import { updateMany } from '../lib/store/transfer';
import { runChunks } from '../lib/index/run-chunks';


/** `work` over the rows of one readwrite transaction, flushed (the tables of the default design) and committed. */
/** The id each URL's onUrlId gives (undefined where it calls nothing: it calls at once after idsWhere settles, or never). */
async function earlyIds(rows: PageRows, urls: readonly string[]): Promise<(number | undefined)[]> {
  return Promise.all(
    urls.map(async (url) => {
      let early: number | undefined;
      rows.onUrlId(url, (id) => (early = id));
      await rows.idsWhere('url', url);
      await Promise.resolve(); // onUrlId's own idsWhere settled in the same turn: its callback has run
      return early;
    }),
  );
}

async function inTransaction<T>(db: Db, work: (rows: PageRows) => Promise<T>): Promise<T> {
  const tx = db.transaction(['blocks', 'meta', 'siteCounts', 'runs'], 'readwrite');
  const meta = tx.objectStore('meta');
  const rows = await PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), meta);
  const result = await work(rows);
  await rows.flush(meta, (id) => writeDesigns(DEFAULT_DESIGN, id));
  await tx.done;
  return result;
}

describe('lastSeenEntry', () => {
  it.each([
    ['an ordinary time', 1_700_000_123_456, [1_700_000_123, 456, 7]],
    ['the epoch', 0, [0, 0, 7]],
    ['before the epoch: clamped to the start', -5_000, [0, 0, 7]],
    ['past 2106: clamped to the end', 2 ** 32 * 1000 + 5, [MAX_PAGE_ID, 999, 7]],
    ['not a number: the start', Number.NaN, [0, 0, 7]],
  ])('%s', (_, ms, entry) => {
    expect(lastSeenEntry(ms, 7)).toEqual(entry);
  });

  it('orders times as the milliseconds do, then by id', () => {
    const times = [5, 999, 1_000, 1_001, 86_400_000, 1_700_000_000_000, 1_700_000_000_001];
    const entries = times.flatMap((ms) => [lastSeenEntry(ms, 2), lastSeenEntry(ms, 1)]);
    const sorted = [...entries].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    expect(sorted).toEqual(times.flatMap((ms) => [lastSeenEntry(ms, 1), lastSeenEntry(ms, 2)]));
  });
});

describe('PageRows', () => {
  it('two URLs with one hash: each found by its own URL, and forgetting one leaves the other', async () => {
    // a clash of the url tree's 32-bit hash, found by search (about 2^16 URLs by the birthday bound)
    const seen = new Map<number, string>();
    let clash: [string, string] | undefined;
    for (let i = 0; clash === undefined; i++) {
      const url = `https://clash.example/${i}`;
      const other = seen.get(textKey(url));
      if (other !== undefined) clash = [other, url];
      seen.set(textKey(url), url);
    }
    const store = await freshStore();
    const simhash = splitmix64(3n);
    for (const [i, url] of clash.entries()) {
      await updateMany(store, [url], () => [{ url, title: `page ${i}`, site: 'clash.example', simhash: fingerprintToHex(asFingerprint(simhash())), check: '', firstSeen: i, lastSeen: i, visits: 1 }]);
    }
    expect(await Promise.all(clash.map(async (url) => (await store.get(url))?.title))).toEqual(['page 0', 'page 1']);
    // both URLs' ids under the one key: the ids alone cannot say which page a URL is, so onUrlId names none
    const ids = await Promise.all(clash.map(async (url) => (await store.get(url))!.id));
    expect(await inTransaction(store.db, (rows) => Promise.all(clash.map((url) => rows.idsWhere('url', url))))).toEqual([ids, ids]);
    expect(await inTransaction(store.db, (rows) => earlyIds(rows, clash))).toEqual([undefined, undefined]);
    expect(await store.forget(clash[0])).toBe(true);
    expect([await store.get(clash[0]), (await store.get(clash[1]))?.title]).toEqual([undefined, 'page 1']);
    await expectTablesOfRecords(store.db);
  });

  it('over 25 seeded transactions of puts and deletes, reads equal a Map of pages, mid-transaction and after', async () => {
    const store = await freshStore();
    const db = store.db;
    const random = mulberry32(0xb10c);
    const next64 = splitmix64(0x5eedn);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const reference = new Map<number, PageRecord>();
    const sites = ['a.example', 'b.example', 'c.example:8080'];
    const groups = ['g1', 'g2', 'g3'];
    let urls = 0;
    const byId = (a: PageRecord, b: PageRecord): number => a.id - b.id;
    const expectReads = async (rows: PageRows, when: string): Promise<void> => {
      const pages = [...reference.values()].sort(byId);
      for (const site of sites) expect([when, site, await rows.where('site', site)]).toEqual([when, site, pages.filter((p) => p.site === site)]);
      for (const group of groups) {
        expect([when, group, await rows.where('group', group)]).toEqual([when, group, pages.filter((p) => p.group === group)]);
        expect([when, group, await rows.hasGroup(group)]).toEqual([when, group, pages.some((p) => p.group === group)]);
      }
      expect([when, await rows.where('copySite', 'b.example', 2)]).toEqual([when, pages.filter((p) => p.copySite === 'b.example').slice(0, 2)]);
      for (const page of pages.slice(0, 5)) expect(await rows.byUrl(page.url)).toEqual(page);
      expect(await rows.byUrl('https://never.example/')).toBeUndefined();
      const urls = [...pages.slice(0, 5).map((p) => p.url), 'https://never.example/'];
      expect([when, await earlyIds(rows, urls)]).toEqual([when, [...pages.slice(0, 5).map((p) => p.id), undefined]]);
      expect(await rows.countAll()).toBe(pages.length);
      const grouped = pages.filter((p) => p.group !== undefined);
      expect(await rows.countGroups()).toEqual({ grouped: grouped.length, groups: new Set(grouped.map((p) => p.group)).size });
    };
    for (let round = 0; round < 25; round++) {
      const before = new Map(reference);
      await inTransaction(db, async (rows) => {
        for (let change = 0; change < 1 + Math.floor(random() * 30); change++) {
          const stored = [...reference.values()];
          if (stored.length > 0 && random() < 0.15) {
            const gone = pick(stored);
            expect(await rows.delete(gone.id)).toBe(true);
            reference.delete(gone.id);
          } else {
            const old = stored.length > 0 && random() < 0.3 ? pick(stored) : undefined;
            const site = old?.site ?? pick(sites);
            const page: PageRecord = {
              id: old?.id ?? rows.newId(),
              url: old?.url ?? `https://${site}/page/${urls++}`,
              title: `round ${round}`,
              site,
              simhash: fingerprintToHex(asFingerprint(next64())),
              check: random() < 0.2 ? '' : fingerprintToHex(asFingerprint(next64())),
              firstSeen: old?.firstSeen ?? round * 1000,
              lastSeen: round * 1000 + Math.floor(random() * 3) * 500,
              visits: (old?.visits ?? 0) + 1,
            };
            if (random() < 0.5) page.group = pick(groups);
            if (page.group !== undefined && random() < 0.5) page.copySite = site;
            await rows.put(page);
            reference.set(page.id, page);
          }
        }
        await expectReads(rows, `round ${round}, before the flush`);
        // what was there before this transaction's first change to it
        for (const group of groups) expect(await rows.hadGroup(group)).toBe([...before.values()].some((p) => p.group === group));
      });
      const tx = db.transaction(['blocks', 'meta', 'runs'], 'readonly');
      const rows = await PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), tx.objectStore('meta'));
      await expectReads(rows, `round ${round}, committed`);
      const byLastSeen = [...reference.values()].sort((a, b) => a.lastSeen - b.lastSeen || a.id - b.id);
      expect((await rows.oldestFirst(7)).map((p) => p.id)).toEqual(byLastSeen.slice(0, 7).map((p) => p.id));
      const newest = await rows.newestFirst(4);
      expect(newest.pages.map((p) => p.id)).toEqual([...byLastSeen].reverse().slice(0, 4).map((p) => p.id));
      if (newest.next !== null) expect((await rows.newestFirst(3, newest.next)).pages.map((p) => p.id)).toEqual([...byLastSeen].reverse().slice(4, 7).map((p) => p.id));
      expect((await rows.pagesAfter(40, 100)).map((p) => p.id)).toEqual([...reference.keys()].filter((id) => id > 40).sort((a, b) => a - b).slice(0, 100));
      await tx.done;
      expect(await storedPages(db)).toEqual([...reference.values()].sort(byId));
      await expectTablesOfRecords(db);
    }
    expect(reference.size).toBeGreaterThan(50);
  });

  it('refuses, at once, a page it could not read back or an id not given out, and the transaction writes nothing', async () => {
    const store = await freshStore();
    const page: PageRecord = { id: 0, url: 'https://a.example/', title: 'A', site: 'a.example', simhash: '0123456789abcdef', check: '', firstSeen: 1, lastSeen: 1, visits: 1 };
    const cases: [string, (rows: PageRows) => PageRecord, string][] = [
      ['a time that is not finite', (rows) => ({ ...page, id: rows.newId(), lastSeen: Number.NaN }), 'its lastSeen is not a time'],
      ['a site that is not the URL\'s host', (rows) => ({ ...page, id: rows.newId(), site: 'b.example' }), 'its site "b.example" is not its URL\'s host "a.example"'],
      ['a URL that does not parse', (rows) => ({ ...page, id: rows.newId(), url: 'not a url' }), 'its URL is not a URL'],
      ['an id not given out', () => ({ ...page, id: 99 }), 'page id 99 was not given out'],
    ];
    for (const [why, make, message] of cases) {
      const error = await inTransaction(store.db, async (rows) => {
        await rows.put({ ...page, id: rows.newId(), url: 'https://a.example/ok' });
        rows.put(make(rows)); // throws, before any change
        return null;
      }).catch((e: unknown) => e);
      expect([why, (error as Error).message]).toEqual([why, expect.stringContaining(message)]);
    }
    expect(await storedPages(store.db)).toEqual([]);
    expect(await store.db.getAll('runs')).toEqual([]);
    expect(await store.db.get('meta', 'nextId')).toBeUndefined();
  });
});
