// lib/store/tally.ts on its own: what it accepts as kept counts, and the deltas of single changes.
// (test/store.test.ts checks the counts against every record over a seeded mix of writes; test/
// groups.test.ts, the counts the upgrade from each earlier version writes.)
import { PageRows } from '../lib/rows/page-rows';
import { DEFAULT_DESIGN } from '../lib/store/pages';
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openDoppelDb } from '../lib/store/db';
import type { PageRecord } from '../lib/store/schema';
import { SITE_BUCKETS, Tally, parseGroupCounts, parseSiteBucket, parseSiteCounts, siteBucket } from '../lib/store/tally';
import { runChunks } from '../lib/index/run-chunks';

describe('parseGroupCounts', () => {
  it.each([
    [{ grouped: 5, groups: 2 }, { grouped: 5, groups: 2 }],
    [{ grouped: 0, groups: 0, extra: 1 }, { grouped: 0, groups: 0 }],
    [{ grouped: 2, groups: 3 }, null], // more groups than pages in groups
    [{ grouped: -1, groups: 0 }, null],
    [{ grouped: 1.5, groups: 0 }, null],
    [{ grouped: '3', groups: 1 }, null],
    [{ groups: 1 }, null],
    [undefined, null],
    [null, null],
    [7, null],
  ])('%j → %j', (value, want) => expect(parseGroupCounts(value)).toEqual(want));
});

describe('parseSiteCounts', () => {
  it.each([
    [{ site: 'a.example', pages: 3, copies: 1, credited: 1 }, { site: 'a.example', pages: 3, copies: 1, credited: 1 }],
    [{ site: 'a.example', pages: 3, copies: 1, credited: 0, extra: 'x' }, { site: 'a.example', pages: 3, copies: 1, credited: 0 }],
    [{ site: 'a.example', pages: 1, copies: 2, credited: 0 }, null], // more copies than pages
    [{ site: 'a.example', pages: 2, copies: 1, credited: 2 }, null], // more credited copies than copies
    [{ site: 'a.example', pages: 3, copies: 1 }, null], // a version 1 row: its store is upgraded (lib/store/db.ts)
    [{ site: 'a.example', pages: -1, copies: 0, credited: 0 }, null],
    [{ site: 4, pages: 1, copies: 0, credited: 0 }, null],
    [{ site: 'a.example', pages: 1 }, null],
    [undefined, null],
  ])('%j → %j', (value, want) => expect(parseSiteCounts(value)).toEqual(want));
});

describe('site buckets', () => {
  it('a site always lands in the same one of the 64 buckets, and 3,000 sites spread over all of them', () => {
    const sites = Array.from({ length: 3000 }, (_, i) => `s${i}.example`);
    const buckets = sites.map(siteBucket);
    expect(buckets.every((b) => Number.isInteger(b) && b >= 0 && b < SITE_BUCKETS)).toBe(true);
    expect(sites.map(siteBucket)).toEqual(buckets);
    const sizes = Array.from({ length: SITE_BUCKETS }, (_, b) => buckets.filter((x) => x === b).length);
    expect(Math.min(...sizes)).toBeGreaterThan(20); // 46.9 on average
    expect(Math.max(...sizes)).toBeLessThan(80);
  });

  it('parseSiteBucket keeps the readable rows that belong in the bucket', () => {
    const bucket = siteBucket('a.example');
    const other = Array.from({ length: 100 }, (_, i) => `o${i}.example`).find((site) => siteBucket(site) !== bucket)!;
    const value = { bucket, rows: [{ site: 'a.example', pages: 2, copies: 1, credited: 0 }, { site: other, pages: 1, copies: 0, credited: 0 }, { site: 'a.example', pages: 'x' }] };
    expect(parseSiteBucket(value)).toEqual(new Map([['a.example', { site: 'a.example', pages: 2, copies: 1, credited: 0 }]]));
    expect(parseSiteBucket({ bucket, rows: 'x' })).toBeNull();
    expect(parseSiteBucket({ rows: [] })).toBeNull();
    expect(parseSiteBucket(undefined)).toBeNull();
  });
});

let ids = 0;
const page = (url: string, fields: Partial<PageRecord> = {}): PageRecord => ({
  id: ids++,
  url,
  title: '',
  site: new URL(url).host,
  simhash: '0000000000000000',
  check: '0000000000000000',
  firstSeen: 1,
  lastSeen: 1,
  visits: 1,
  ...fields,
});

describe('Tally', () => {
  /** Applies `changes` ([before, after] pairs, written in order) in one transaction through a Tally; returns the kept counts. */
  async function apply(db: Awaited<ReturnType<typeof openDoppelDb>>, changes: [PageRecord | undefined, PageRecord | undefined][]) {
    const tx = db.transaction(['blocks', 'meta', 'siteCounts', 'runs'], 'readwrite');
    const meta = tx.objectStore('meta');
    const rows = await PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), meta);
    while (rows.peekNextId < ids) rows.newId(); // the ids page() gave out
    const tally = new Tally(rows);
    for (const [before, after] of changes) {
      tally.change(before, after);
      if (after !== undefined) void rows.put(after);
      else void rows.delete(before!.id);
    }
    await tally.flush(meta, tx.objectStore('siteCounts'));
    await rows.flush(meta, () => [DEFAULT_DESIGN]);
    await tx.done;
    const buckets = await db.getAll('siteCounts');
    for (const { bucket, rows } of buckets) for (const row of rows) expect(siteBucket(row.site)).toBe(bucket);
    const sites = buckets.flatMap((bucket) => bucket.rows).sort((a, b) => a.site.localeCompare(b.site));
    return { pageCount: await db.get('meta', 'pageCount'), groupCounts: await db.get('meta', 'groupCounts'), sites };
  }

  it('counts pages, groups and copies as records come, move and go, a record written twice in one transaction included', async () => {
    const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
    const a = page('https://a.example/1', { group: 'g' });
    const b = page('https://b.example/1', { group: 'g', copySite: 'b.example' });
    expect(await apply(db, [[undefined, a], [undefined, b]])).toEqual({
      pageCount: 2,
      groupCounts: { grouped: 2, groups: 1 },
      sites: [{ site: 'a.example', pages: 1, copies: 0, credited: 0 }, { site: 'b.example', pages: 1, copies: 1, credited: 0 }],
    });
    // b leaves g for h (a new group), then is written again with `before` as first read: the tally uses what it wrote
    const bInH = { ...b, group: 'h', copySite: undefined };
    delete bInH.copySite;
    const c = page('https://c.example/1', { group: 'h', copySite: 'c.example' });
    expect(await apply(db, [[b, bInH], [b, bInH], [undefined, c]])).toEqual({
      pageCount: 3,
      groupCounts: { grouped: 3, groups: 2 },
      sites: [{ site: 'a.example', pages: 1, copies: 0, credited: 0 }, { site: 'b.example', pages: 1, copies: 0, credited: 0 }, { site: 'c.example', pages: 1, copies: 1, credited: 0 }],
    });
    // a alone in g is deleted: g is gone; a site with no page left has no row
    expect(await apply(db, [[a, undefined]])).toEqual({
      pageCount: 2,
      groupCounts: { grouped: 2, groups: 1 },
      sites: [{ site: 'b.example', pages: 1, copies: 0, credited: 0 }, { site: 'c.example', pages: 1, copies: 1, credited: 0 }],
    });
    // c names its source (it credits it): a credited copy; a page that names a source but is no copy is not counted
    const cCredits = { ...c, source: 'https://a.example/1', sourceBy: 'canonical' as const };
    const d = page('https://d.example/1', { source: 'https://a.example/1', sourceBy: 'credit' });
    expect(await apply(db, [[c, cCredits], [undefined, d]])).toEqual({
      pageCount: 3,
      groupCounts: { grouped: 2, groups: 1 },
      sites: [{ site: 'b.example', pages: 1, copies: 0, credited: 0 }, { site: 'c.example', pages: 1, copies: 1, credited: 1 }, { site: 'd.example', pages: 1, copies: 0, credited: 0 }],
    });
    // c stops being a copy: it is no longer a credited one either
    const cAlone = { ...cCredits, group: undefined, copySite: undefined };
    delete cAlone.group;
    delete cAlone.copySite;
    expect((await apply(db, [[cCredits, cAlone]])).sites[1]).toEqual({ site: 'c.example', pages: 1, copies: 0, credited: 0 });
  });
});
