// Opening a database written by an earlier build: each fixture of test/fixtures/db/ (written by
// scripts/db-fixture.ts at its schema version) is loaded raw into a fresh fake-indexeddb, opened
// with the current code, which upgrades it to DB_VERSION, and asked the queries its build
// answered: the answers must be the same, the trees and counts must match the pages, and the
// store must take new visits.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { asFingerprint } from '../lib/fingerprint/bits';
import { openDoppelDb } from '../lib/store/db';
import { PageStore } from '../lib/store/pages';
import { DB_VERSION } from '../lib/store/schema';
import { answersOf, decodeValue, encodeValue, loadFixture, readFixtures } from './support/db-fixtures';
import { expectCountsKept } from './support/kept-counts';
import { expectTablesOfRecords } from './support/kept-tables';

const fixtures = readFixtures();

describe('databases written by earlier builds', () => {
  it('there is a fixture for every version from 1 to DB_VERSION', () => {
    expect(fixtures.map((f) => f.version)).toEqual(Array.from({ length: DB_VERSION }, (_, i) => i + 1));
  });

  it('typed arrays survive the fixture encoding', () => {
    const value = [1, new Uint8Array([0, 255, 7]), { runs: new Uint32Array([0xffffffff, 0]) }, 'x'];
    expect(decodeValue(JSON.parse(JSON.stringify(encodeValue(value))))).toEqual(value);
  });

  it.each(fixtures.map((f) => [f.version, f] as const))('version %i: opens at DB_VERSION and answers as the build that wrote it', async (_, fixture) => {
    const factory = new IDBFactory();
    await loadFixture(factory, 'doppel', fixture);
    const db = await openDoppelDb('doppel', { factory });
    try {
      expect(db.version).toBe(DB_VERSION);
      const store = await PageStore.open(db);
      const urls = Object.keys(fixture.answers.pages);
      expect(await answersOf(store, urls)).toEqual(fixture.answers);
      await expectTablesOfRecords(db);
      await expectCountsKept(db, `version ${fixture.version}, opened`);

      // it takes new writes: a new page near a stored one finds it, and gets the next id
      const [first] = Object.values(fixture.answers.pages).filter((p) => p !== null) as { url: string; simhash: string; check: string }[];
      const nextId = (await db.get('meta', 'nextId')) as number;
      const { record, matches } = await store.record({
        url: 'https://new.example/after-upgrade',
        title: 'New',
        site: 'new.example',
        simhash: asFingerprint(BigInt('0x' + first!.simhash) ^ 1n),
        check: asFingerprint(BigInt('0x' + (first!.check || first!.simhash))),
        now: Date.UTC(2030, 0, 1),
      });
      expect(record.id).toBe(nextId);
      expect(matches.map((m) => m.record.url)).toContain(first!.url);
      // the visit rewrote its block in format 2 (lib/rows/blocks.ts), and the pages stored before it read as they did, bar the ones it grouped
      expect(((await db.get('blocks', Math.floor(nextId / 64))) as unknown[])[0]).toBe(2);
      const grouped = new Set([first!.url, ...matches.map((m) => m.record.url)]);
      const after = (await answersOf(store, urls)).pages;
      for (const url of urls.filter((u) => !grouped.has(u))) expect(after[url], url).toEqual(fixture.answers.pages[url]);
      for (const url of grouped) expect(after[url], url).toMatchObject({ url, simhash: (fixture.answers.pages[url] as { simhash: string }).simhash });
      expect(await store.count()).toBe(fixture.answers.count + 1);
      await expectTablesOfRecords(db);
      await expectCountsKept(db, `version ${fixture.version}, after a visit`);
    } finally {
      db.close();
    }
  });

  it('version 1 holds what its writer says: three pages of one article on three sites, one left its group, one forgotten; passages of an excerpt and a quote', () => {
    const v1 = fixtures[0]!;
    expect(v1.answers.count).toBe(6);
    expect(v1.answers.overview).toEqual({ pages: 6, articles: 5, groups: 1 });
    expect(v1.answers.pages['https://gone.example/']).toBeNull();
    expect(v1.answers.near['https://news.example/mill-closes']).toEqual([['https://copy.example/2026/mill', 1]]);
    expect(v1.answers.near['https://news.example/weather']).toEqual([['https://imported.example/weather', 2]]);
    expect(v1.answers.passages['https://news.example/mill-closes']!.map(([url]) => url)).toEqual(['https://aggregator.example/a?id=7', 'https://blog.example/ünïcode-päth']);
    expect(v1.answers.pages['https://aggregator.example/a?id=7']).toMatchObject({ contentCopy: true });
    expect(v1.stores.map((s) => s.name)).toEqual(['blocks', 'meta', 'passageMarks', 'passages', 'postings', 'rewritePostings', 'rewrites', 'runs', 'siteCounts']);
  });

  it('version 2 holds what its writer says: the article states its date; a partner and a farm name it as their source, credited copies of it however early the farm dates itself', () => {
    const v2 = fixtures[1]!;
    expect(v2.answers.pages['https://news.example/mill-closes']).toMatchObject({ published: Date.UTC(2026, 9, 31) });
    expect(v2.answers.pages['https://news.example/mill-closes']).not.toHaveProperty('copySite');
    expect(v2.answers.pages['https://partner.example/mill']).toMatchObject({ copySite: 'partner.example', source: 'https://news.example/mill-closes', sourceBy: 'canonical' });
    expect(v2.answers.pages['https://farm.example/mill']).toMatchObject({ copySite: 'farm.example', source: 'https://news.example/mill-closes', sourceBy: 'credit', published: Date.UTC(2026, 9, 23) });
    const rows = v2.records['siteCounts']!.flatMap(([, bucket]) => (bucket as { rows: { site: string; credited: number }[] }).rows);
    expect(rows.filter((row) => row.credited > 0).map((row) => row.site).sort()).toEqual(['farm.example', 'partner.example']);
  });
});
