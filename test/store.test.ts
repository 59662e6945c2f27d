// lib/store/: the IndexedDB schema, PageStore and opening, on fake-indexeddb. Each test
// opens a fresh IDBFactory, so tests share nothing.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_MAX_DISTANCE, confirmsNearDuplicate } from '../lib/fingerprint/features';
import { type Fingerprint, asFingerprint, fingerprintToHex, hammingDistance } from '../lib/fingerprint/bits';
import { mulberry32, splitmix64 } from '../lib/random';
import { randomFingerprints } from '../lib/fingerprint/bits';
import { regroupAll } from '../lib/organise/regroup';
import { readOverview, readSiteStanding } from '../lib/ui/history-data';
import { siteBucket } from '../lib/store/tally';
import { within } from '../lib/store/within';
import { migrateDesign } from '../lib/organise/migrate';
import { getDb, isOpen, openDoppelDb, openVersioned, resetDb, upgradeSchema } from '../lib/store/db';
import { DEFAULT_DESIGN, PageStore, keptPageStore } from '../lib/store/pages';
import type { NearDuplicate } from '../lib/store/records';
import { tablesOf } from '../lib/index/design';
import { FIELD_TREES, FIELD_TREE_BASE, textKey } from '../lib/rows/page-rows';
import { tableTree } from '../lib/index/table-runs';
import { type Db, DB_VERSION } from '../lib/store/schema';
import { PAGE_RECORD_FIELDS, type PageRecord } from '../lib/rows/record';
import { flipBits } from './support/index-suite';
import { expectCountsKept } from './support/kept-counts';
import { expectTablesOfRecords, storedPages } from './support/kept-tables';
import { nearDuplicatesOf, recordVisit } from './support/store-queries';
import { updateMany } from '../lib/store/transfer';
import { decodeRunChunk } from '../lib/index/run-chunks';

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function freshDb(factory = new IDBFactory(), name = 'doppel'): Promise<Db> {
  const db = await openDoppelDb(name, { factory });
  opened.push(db);
  return db;
}

async function freshStore(): Promise<PageStore> {
  return PageStore.open(await freshDb());
}

/** Opens a database without Doppel's code: the version it is at, and its stores. */
function rawOpen(factory: IDBFactory, name: string, version?: number, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = version === undefined ? factory.open(name) : factory.open(name, version);
    request.onupgradeneeded = () => upgrade?.(request.result);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function rawGetAll(db: IDBDatabase, store: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const request = db.transaction(store).objectStore(store).getAll();
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

const fp = (hex: string): Fingerprint => asFingerprint(BigInt('0x' + hex));
const A = fp('0123456789abcdef');
const A_CHECK = fp('fedcba9876543210');

describe('within (one transaction: every write lands, or none does)', () => {
  it('returns what the body returns once the transaction has committed', async () => {
    const db = await freshDb();
    const tx = db.transaction('meta', 'readwrite');
    expect(await within(tx, async () => (await tx.store.put(7, 'pageCount'), 'done'))).toBe('done');
    expect(await db.get('meta', 'pageCount')).toBe(7);
  });

  it('aborts the transaction when the body throws: its earlier writes are rolled back, and the error is the body\'s', async () => {
    const db = await freshDb();
    const tx = db.transaction('meta', 'readwrite');
    const failure = new Error('the third write cannot be made');
    await expect(
      within(tx, async () => {
        await tx.store.put(41, 'pageCount');
        await tx.store.put({ grouped: 9, groups: 3 }, 'groupCounts');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.get('meta', 'pageCount')).toBe(0);
    expect(await db.get('meta', 'groupCounts')).toEqual({ grouped: 0, groups: 0 });
  });
});

describe('schema', () => {
  it(`creates version ${DB_VERSION}: the blocks, meta, runs, siteCounts, passages, postings, passageMarks, rewrites and rewritePostings stores, no page, zero counts`, async () => {
    const db = await freshDb();
    expect(DB_VERSION).toBe(2);
    expect(db.version).toBe(2);
    expect([...db.objectStoreNames]).toEqual(['blocks', 'meta', 'passageMarks', 'passages', 'postings', 'rewritePostings', 'rewrites', 'runs', 'siteCounts']);
    const tx = db.transaction(['blocks', 'meta', 'siteCounts', 'runs', 'passages', 'postings', 'passageMarks']);
    for (const name of ['blocks', 'meta', 'runs', 'passages', 'postings', 'passageMarks'] as const) {
      const store = tx.objectStore(name);
      expect([store.keyPath, store.autoIncrement, [...store.indexNames]]).toEqual([null, false, []]);
    }
    const siteCounts = tx.objectStore('siteCounts');
    expect([siteCounts.keyPath, siteCounts.autoIncrement, [...siteCounts.indexNames]]).toEqual(['bucket', false, []]);
    const meta = tx.objectStore('meta');
    expect(await meta.getAllKeys()).toEqual(['groupCounts', 'pageCount']); // no nextId yet: ids start at 0
    expect(await meta.get('pageCount')).toBe(0);
    expect(await meta.get('groupCounts')).toEqual({ grouped: 0, groups: 0 });
    await tx.done;
  });

  it('stores the table design {k, b} on first open and keeps using the stored one', async () => {
    const db = await freshDb();
    const store = await PageStore.open(db);
    expect([store.design.k, store.design.b, store.design.tables.length]).toEqual([3, 4, 4]);
    expect(await db.get('meta', 'design')).toEqual({ k: 3, b: 4 });
    const again = await PageStore.open(db, { k: 3, b: 6 });
    expect([again.design.k, again.design.b]).toEqual([3, 4]);
    expect(await db.get('meta', 'design')).toEqual({ k: 3, b: 4 });

    const other = await freshDb();
    expect((await PageStore.open(other, { k: 3, b: 6 })).design.tables.length).toBe(20);
    await expect(PageStore.open(await freshDb(), { k: 3, b: 3 })).rejects.toThrow('blocks must exceed k: got 3 blocks for k = 3');
  });

  it('enters a page in one tree per table ([key, simhash, id] entries of 4 words) and in the url, site and lastSeen trees, in a block of its own id', async () => {
    const store = await freshStore();
    const record = await recordVisit(store, { url: 'https://a.example/', title: 'A', site: 'a.example', simhash: A, check: A_CHECK, now: 1_234 });
    expect(record.id).toBe(0);
    const tx = store.db.transaction('runs');
    const [keys, chunks] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
    const byTree = new Map(keys.map((key, i) => [key[0], [...decodeRunChunk(chunks[i]!)]]));
    // one run of one entry in each of the 4 tables; the key of table t is block t (b = 4, k = 3: tables of 1 block)
    expect([0, 1, 2, 3].map((t) => byTree.get(tableTree(DEFAULT_DESIGN, t).tree))).toEqual([0x0123, 0x4567, 0x89ab, 0xcdef].map((key) => [key, 0x01234567, 0x89abcdef, 0]));
    expect(byTree.get(FIELD_TREES.url.tree)).toEqual([textKey('https://a.example/'), 0]);
    expect(byTree.get(FIELD_TREES.site.tree)).toEqual([textKey('a.example'), 0]);
    expect(byTree.get(FIELD_TREES.lastSeen.tree)).toEqual([1, 234, 0]);
    expect(byTree.size).toBe(7); // no group, no copy: no entry in those trees
    expect(await store.db.getAllKeys('blocks')).toEqual([0]);
    expect(await store.db.get('meta', 'nextId')).toBe(1);
    await expectTablesOfRecords(store.db);
  });
});

describe('opening and upgrading', () => {
  /** A version after this build's: a newer Doppel's, or an upgrade under test. */
  const NEXT = DB_VERSION + 1;
  it('refuses a database newer than DB_VERSION, naming both versions, and leaves it intact', async () => {
    const factory = new IDBFactory();
    const newer = await rawOpen(factory, 'doppel', NEXT, (db) => {
      db.createObjectStore('pages', { keyPath: 'url' }).put({ url: 'https://a.example/', fromTheFuture: true });
      db.createObjectStore('meta');
    });
    newer.close();

    const error = await openDoppelDb('doppel', { factory }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(new RegExp(`version ${NEXT}\\b.*version ${DB_VERSION}\\b`));
    expect((error as Error).message).toContain('left untouched');

    const after = await rawOpen(factory, 'doppel');
    expect(after.version).toBe(NEXT);
    expect(await rawGetAll(after, 'pages')).toEqual([{ url: 'https://a.example/', fromTheFuture: true }]);
    after.close();
  });

  it('a failed upgrade step names both versions and leaves the database at its old version, data kept', async () => {
    const factory = new IDBFactory();
    const db = await openDoppelDb('doppel', { factory });
    const store = await PageStore.open(db);
    await recordVisit(store, { url: 'https://a.example/', title: 'A', site: 'a.example', simhash: A, check: A_CHECK, now: 1 });
    db.close();

    // A next version whose step deletes the blocks store and then fails: nothing of it may land.
    const failing = openVersioned('doppel', NEXT, async (upgrading, oldVersion, tx) => {
      await upgradeSchema(upgrading, oldVersion, tx);
      if (oldVersion < NEXT) {
        upgrading.deleteObjectStore('blocks');
        throw new Error(`step ${NEXT} failed`);
      }
    }, { factory });
    await expect(failing).rejects.toThrow(`from version ${DB_VERSION} to version ${NEXT}: step ${NEXT} failed. Nothing was changed; it is still at version ${DB_VERSION}`);

    // The same when the step fails after awaiting a request of the upgrade transaction.
    const failingLater = openVersioned('doppel', NEXT, async (_db, _old, tx) => {
      await tx.objectStore('meta').put({ k: 9, b: 9 }, 'design');
      throw new Error('later');
    }, { factory });
    await expect(failingLater).rejects.toThrow(`from version ${DB_VERSION} to version ${NEXT}: later.`);

    const reopened = await freshDb(factory);
    expect(reopened.version).toBe(DB_VERSION);
    expect(await reopened.get('meta', 'design')).toEqual({ k: 3, b: 4 });
    expect((await storedPages(reopened)).map((record) => [record.url, record.visits])).toEqual([['https://a.example/', 1]]);
  });

  it('a connection closes itself when a newer version wants to upgrade, and says so', async () => {
    const factory = new IDBFactory();
    let closed = 0;
    const first = await openDoppelDb('doppel', { factory, onClose: () => closed++ });
    const upgraded = await openVersioned('doppel', NEXT, async (db, oldVersion, tx) => upgradeSchema(db, oldVersion, tx), { factory });
    expect(upgraded.version).toBe(NEXT);
    expect(closed).toBe(1);
    upgraded.close();
    expect(() => first.transaction('blocks')).toThrow();
  });

  it('getDb opens the shared connection once; resetDb closes it', async () => {
    const a = await getDb();
    expect(await getDb()).toBe(a);
    expect(a.name).toBe('doppel');
    await resetDb();
    const b = await getDb();
    expect(b).not.toBe(a);
    expect(b.version).toBe(DB_VERSION);
    await resetDb();
  });

  it('keptPageStore opens one store per connection, and a new one over a new connection', async () => {
    const store = keptPageStore();
    const a = await store();
    expect(await store()).toBe(a);
    a.db.close(); // the browser closed it (a full disk): getDb opens another
    const b = await store();
    expect(b).not.toBe(a);
    expect(b.db).not.toBe(a.db);
    expect(await b.count()).toBeGreaterThanOrEqual(0);
    expect(await store()).toBe(b);
    await resetDb();
  });

  it('a reader store (the history page) never writes: over a new database it records no design, and it reads what a writer records later with the stored design', async () => {
    const db = await freshDb();
    const modes: IDBTransactionMode[] = [];
    const transaction = db.transaction.bind(db);
    (db as { transaction: unknown }).transaction = (...args: Parameters<typeof transaction>) => {
      modes.push(args[1] ?? 'readonly');
      return transaction(...args);
    };
    const reader = await PageStore.reader(db);
    expect(await reader.count()).toBe(0);
    expect(await reader.get('https://a.example/')).toBeUndefined();
    expect(modes.filter((mode) => mode !== 'readonly')).toEqual([]);
    expect(await db.get('meta', 'design')).toBeUndefined();

    // the worker records a design other than the default, and a page under it
    const writer = await PageStore.open(db, { k: 3, b: 5 });
    await recordVisit(writer, { url: 'https://a.example/', title: 'A', site: 'a.example', simhash: A, check: A_CHECK, now: 1 });
    expect((await reader.getWithNear('https://a.example/'))?.record.title).toBe('A');
    expect((await reader.nearDuplicates(flipBits(A, [0, 9, 40]), null)).map((near) => near.record.url)).toEqual(['https://a.example/']);
    expect(reader.design).toBe(writer.design);
    expect(writer.design).not.toBe(tablesOf(DEFAULT_DESIGN));
    // the compiler holds the line: a reader has no method that writes (`npm run typecheck` checks these)
    // @ts-expect-error a reader cannot record
    void reader.record;
    // @ts-expect-error a reader cannot forget
    void reader.forget;
    // @ts-expect-error a reader cannot clear
    void reader.clear;
    // @ts-expect-error a reader has no database handle to write through
    void reader.db;
  });

  it('getDb opens a new connection when the shared one is closing without a close event (Chromium after a disk-full I/O error)', async () => {
    const a = await getDb();
    a.close(); // closes the connection; no 'close' event, as when Chromium's is "closing"
    expect(isOpen(a)).toBe(false);
    const b = await getDb();
    expect(b).not.toBe(a);
    expect(isOpen(b)).toBe(true);
    expect(await b.count('blocks')).toBeGreaterThanOrEqual(0);
    expect(await getDb()).toBe(b);
    await resetDb();
  });
});

describe('PageStore.recordVisit', () => {
  const visit = { url: 'https://news.example/story', title: 'Story', site: 'news.example', simhash: A, check: A_CHECK };

  it('first visit: visits 1, firstSeen = lastSeen = now, in every table; the record holds no text', async () => {
    const store = await freshStore();
    const record = await recordVisit(store, { ...visit, now: 1_000 });
    const want: PageRecord = {
      id: 0, // the first page: ids count up
      url: visit.url,
      title: 'Story',
      site: 'news.example',
      simhash: '0123456789abcdef',
      check: 'fedcba9876543210',
      firstSeen: 1_000,
      lastSeen: 1_000,
      visits: 1,
    };
    expect(record).toEqual(want);
    const stored = await store.get(visit.url);
    expect(stored).toEqual(want);
    expect(Object.keys(stored!)).toEqual([...PAGE_RECORD_FIELDS]);
    expect(Object.keys(stored!).sort()).toEqual(['check', 'firstSeen', 'id', 'lastSeen', 'simhash', 'site', 'title', 'url', 'visits']);
    expect(await store.count()).toBe(1);
    await expectTablesOfRecords(store.db);
  });

  it('revisit: visits + 1, lastSeen = now, title updated, firstSeen kept', async () => {
    const store = await freshStore();
    await recordVisit(store, { ...visit, now: 1_000 });
    const record = await recordVisit(store, { ...visit, title: 'Story (updated)', now: 5_000 });
    expect(record).toMatchObject({ visits: 2, firstSeen: 1_000, lastSeen: 5_000, title: 'Story (updated)', simhash: '0123456789abcdef' });
    expect(await store.get(visit.url)).toEqual(record);
    expect(await store.count()).toBe(1);
  });

  it('a changed text: the new fingerprints and table entries replace the old ones', async () => {
    const store = await freshStore();
    await recordVisit(store, { ...visit, now: 1_000 });
    const B = fp('f0f0f0f0f0f0f0f0');
    const B_CHECK = fp('0f0f0f0f0f0f0f0f');
    const record = await recordVisit(store, { ...visit, simhash: B, check: B_CHECK, now: 2_000 });
    expect(record).toMatchObject({ simhash: 'f0f0f0f0f0f0f0f0', check: '0f0f0f0f0f0f0f0f', visits: 2, firstSeen: 1_000 });
    expect(await store.nearDuplicates(A, A_CHECK)).toEqual([]);
    expect((await store.nearDuplicates(B, B_CHECK)).map((m) => m.record.url)).toEqual([visit.url]);
    // the old entries are gone from the trees: only B's are left
    const tx = store.db.transaction('runs');
    const [keys, chunks] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
    const simhashes = chunks.map(decodeRunChunk).flatMap((words, i) => (words.length === 0 || keys[i]![0] >= FIELD_TREE_BASE ? [] : [[words[1], words[2]]]));
    expect(simhashes).toEqual(Array.from({ length: 4 }, () => [0xf0f0f0f0, 0xf0f0f0f0]));
    await expectTablesOfRecords(store.db);
  });

  it('30 concurrent visits to one page count 30', async () => {
    const store = await freshStore();
    const records = await Promise.all(Array.from({ length: 30 }, (_, i) => recordVisit(store, { ...visit, now: 1_000 + i })));
    expect(records.map((r) => r.visits).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const stored = await store.get(visit.url);
    expect(stored).toMatchObject({ visits: 30, firstSeen: 1_000, lastSeen: 1_029 });
  });
});

describe('PageStore.forget and forgetSite', () => {
  it('forgets one page, and says whether it was there', async () => {
    const store = await freshStore();
    await recordVisit(store, { url: 'https://a.example/1', title: '', site: 'a.example', simhash: A, check: A_CHECK, now: 1 });
    await recordVisit(store, { url: 'https://a.example/2', title: '', site: 'a.example', simhash: A, check: A_CHECK, now: 2 });
    expect(await store.forget('https://a.example/1')).toBe(true);
    expect(await store.forget('https://a.example/1')).toBe(false);
    expect(await store.get('https://a.example/1')).toBeUndefined();
    expect(await store.count()).toBe(1);
    expect((await store.nearDuplicates(A, A_CHECK)).map((m) => m.record.url)).toEqual(['https://a.example/2']);
  });

  it('forgets every page of a site through the site index, and no other', async () => {
    const store = await freshStore();
    const pages = [
      ['https://a.example/1', 'a.example'],
      ['https://a.example/2', 'a.example'],
      ['http://a.example/3', 'a.example'],
      ['https://a.example:8080/', 'a.example:8080'],
      ['https://b.example/', 'b.example'],
    ] as const;
    for (const [i, [url, site]] of pages.entries()) await recordVisit(store, { url, title: '', site, simhash: A, check: A_CHECK, now: i });
    expect(await store.forgetSite('a.example')).toBe(3);
    expect(await store.forgetSite('a.example')).toBe(0);
    expect(await store.forgetSite('nowhere.example')).toBe(0);
    expect((await storedPages(store.db)).map((record) => record.url).sort()).toEqual(['https://a.example:8080/', 'https://b.example/']);
  });
});

describe('PageStore.nearDuplicates', () => {
  // Seeded random pages, and planted pages around a few bases at distances 0 … 4; some planted
  // ones have a check fingerprint far from their base's, so they must be rejected.
  const next = splitmix64(0xd0bb_e1n);
  const bases = randomFingerprints(0xba5en, 12);
  const baseChecks = randomFingerprints(0xc4ec4n, 12);
  interface Seed {
    url: string;
    simhash: Fingerprint;
    check: Fingerprint;
  }
  const seeds: Seed[] = [];
  const randoms = randomFingerprints(0x5eedn, 600);
  const randomChecks = randomFingerprints(0x5eed2n, 600);
  for (const [i, simhash] of randoms.entries()) seeds.push({ url: `https://random.example/${i}`, simhash, check: randomChecks[i]! });
  const randomBits = (d: number): number[] => {
    const bits = new Set<number>();
    while (bits.size < d) bits.add(Number(next() % 64n));
    return [...bits];
  };
  let rejectedPlanted = 0;
  for (const [b, base] of bases.entries()) {
    for (let d = 0; d <= 4; d++) {
      for (let copy = 0; copy < 3; copy++) {
        const farCheck = copy === 2 && b % 2 === 0;
        const check = flipBits(baseChecks[b]!, randomBits(farCheck ? 28 : Number(next() % 8n)));
        if (farCheck && d <= 3) rejectedPlanted++;
        const at = Number(next() % BigInt(seeds.length + 1));
        seeds.splice(at, 0, { url: `https://planted.example/${b}/${d}/${copy}`, simhash: flipBits(base, randomBits(d)), check });
      }
    }
  }

  function bruteForce(simhash: Fingerprint, check: Fingerprint, k: number, excludeUrl?: string): { url: string; distance: number; firstSeen: number }[] {
    return seeds
      .map((s, firstSeen) => ({ url: s.url, distance: hammingDistance(simhash, s.simhash), firstSeen, check: s.check }))
      .filter((s) => s.distance <= k && confirmsNearDuplicate(check, s.check) && s.url !== excludeUrl)
      .map(({ url, distance, firstSeen }) => ({ url, distance, firstSeen }))
      .sort((x, y) => x.distance - y.distance || x.firstSeen - y.firstSeen);
  }

  const shape = (found: NearDuplicate[]) => found.map((m) => ({ url: m.record.url, distance: m.distance, firstSeen: m.record.firstSeen }));

  it('finds exactly what a brute-force scan finds, for every k, nearest then earliest first', async () => {
    const store = await freshStore();
    for (const [i, s] of seeds.entries()) await recordVisit(store, { url: s.url, title: '', site: new URL(s.url).host, simhash: s.simhash, check: s.check, now: i });
    expect(await store.count()).toBe(seeds.length);
    expect(rejectedPlanted).toBeGreaterThan(0);

    let rejectedSeen = 0;
    for (const [b, base] of bases.entries()) {
      const check = baseChecks[b]!;
      const want = bruteForce(base, check, 3);
      expect(shape(await store.nearDuplicates(base, check))).toEqual(want);
      expect(new Set(want.map((m) => m.distance))).toEqual(new Set([0, 1, 2, 3]));
      for (let k = 0; k <= 3; k++) expect(shape(await store.nearDuplicates(base, check, { k }))).toEqual(bruteForce(base, check, k));
      // planted within 3 bits but with a far check: found by the tables, rejected by the check
      for (const s of seeds) {
        if (s.url.startsWith(`https://planted.example/${b}/`) && hammingDistance(base, s.simhash) <= 3 && hammingDistance(check, s.check) > CHECK_MAX_DISTANCE) {
          rejectedSeen++;
          expect(want.some((m) => m.url === s.url)).toBe(false);
        }
      }
    }
    expect(rejectedSeen).toBe(rejectedPlanted);

    // stored pages as queries (their own page excluded), and random queries that find nothing
    for (const s of seeds.filter((_, i) => i % 25 === 0)) {
      expect(shape(await store.nearDuplicates(s.simhash, s.check, { excludeUrl: s.url }))).toEqual(bruteForce(s.simhash, s.check, 3, s.url));
      // the popup's read, in one transaction: the same as get and nearDuplicatesOf, for each k
      for (const k of [0, 3, 5]) {
        const record = (await store.get(s.url))!;
        expect(await store.getWithNear(s.url, { k, clamp: true })).toEqual({ record, near: await nearDuplicatesOf(store, record, { k, clamp: true }), passages: [], rewrites: [], ownLanguage: 'und' });
      }
      expect(shape((await store.getWithNear(s.url))!.near)).toEqual(bruteForce(s.simhash, s.check, 3, s.url));
    }
    expect(await store.getWithNear('https://never.example/')).toBeUndefined();
    await expect(store.getWithNear(seeds[0]!.url, { k: 4 })).rejects.toThrow("k must be an integer from 0 to 3 (the stored table design's k): got 4");
    for (const [i, q] of randomFingerprints(0xf2e5n, 20).entries()) {
      expect(await store.nearDuplicates(q, randomChecks[i]!)).toEqual(bruteForce(q, randomChecks[i]!, 3));
    }
  });

  it('rejects a k beyond the stored design', async () => {
    const store = await freshStore();
    await expect(store.nearDuplicates(A, A_CHECK, { k: 4 })).rejects.toThrow("k must be an integer from 0 to 3 (the stored table design's k): got 4");
  });

  it('returns the stored records themselves (with their check, never any text)', async () => {
    const store = await freshStore();
    await recordVisit(store, { url: 'https://a.example/', title: 'T', site: 'a.example', simhash: A, check: A_CHECK, now: 7 });
    const [match] = await store.nearDuplicates(flipBits(A, [5]), A_CHECK);
    expect(match?.distance).toBe(1);
    expect(Object.keys(match!.record)).toEqual([...PAGE_RECORD_FIELDS]);
    expect(match!.record.check).toBe(fingerprintToHex(A_CHECK));
  });
});

describe('the counts kept as pages are written: pages, groups, and each site\'s pages and copies', () => {
  /** meta `pageCount` against a walk over the store (IndexedDB's own count()); the group and site counts against every record. */
  async function expectCountKept(store: PageStore, step: string): Promise<void> {
    const walked = (await storedPages(store.db)).length;
    expect([step, await store.count()]).toEqual([step, walked]);
    expect([step, await store.db.get('meta', 'pageCount')]).toEqual([step, walked]);
    await expectCountsKept(store.db, step);
  }

  it('follows every write that adds or removes pages, over a seeded mix of 300 of them', async () => {
    const store = await freshStore();
    const random = mulberry32(0xc0de);
    // pairs of fingerprints two bits apart, so that pages fall into groups (and sites copy each other)
    const fps = randomFingerprints(0xc017n, 32).flatMap((f, i) => [f, flipBits(f, [i % 64, (i * 7 + 3) % 64])]);
    const url = (): string => `https://s${Math.floor(random() * 4)}.example/${Math.floor(random() * 40)}`;
    const fields = (u: string, now: number) => {
      const simhash = fps[Math.floor(random() * fps.length)]!;
      return { url: u, title: '', site: new URL(u).host, simhash: fingerprintToHex(simhash), check: fingerprintToHex(simhash), firstSeen: now, lastSeen: now, visits: 1 };
    };
    await expectCountKept(store, 'empty');
    for (let i = 0; i < 300; i++) {
      const op = Math.floor(random() * 8);
      const now = 1_000 + i;
      let step: string;
      if (op <= 1) {
        const u = url();
        const simhash = fps[Math.floor(random() * fps.length)]!;
        await recordVisit(store, { url: u, title: '', site: new URL(u).host, simhash, check: simhash, now });
        step = `${i}: visit ${u}`;
      } else if (op === 2) {
        // several at once, the same URL twice among them
        const urls = Array.from({ length: 1 + Math.floor(random() * 5) }, url);
        await Promise.all(urls.map((u) => recordVisit(store, { url: u, title: '', site: new URL(u).host, simhash: fps[0]!, check: fps[0]!, now })));
        step = `${i}: concurrent visits ${urls.join(' ')}`;
      } else if (op === 3) {
        const urls = Array.from({ length: 1 + Math.floor(random() * 6) }, url);
        urls.push(urls[0]!); // written twice in one batch
        await updateMany(store, urls, () => urls.map((u) => fields(u, now)));
        step = `${i}: updateMany ${urls.join(' ')}`;
      } else if (op === 4) {
        const urls = Array.from({ length: 1 + Math.floor(random() * 4) }, url);
        await store.forgetMany([...urls, urls[0]!, 'https://never.example/']);
        step = `${i}: forgetMany ${urls.join(' ')}`;
      } else if (op === 5) {
        const site = `s${Math.floor(random() * 4)}.example`;
        await store.forgetSite(site);
        step = `${i}: forgetSite ${site}`;
      } else if (op === 7) {
        const k = 2 + Math.floor(random() * 2);
        await regroupAll(store, k, { batchSize: 5 });
        step = `${i}: regroupAll k=${k}`;
      } else if (random() < 0.15) {
        await store.clear();
        step = `${i}: clear`;
      } else {
        const u = url();
        await store.forget(u);
        step = `${i}: forget ${u}`;
      }
      await expectCountKept(store, step);
    }
    // a batch over more sites than flush reads one by one (an import's), then its removal
    const wide = Array.from({ length: 50 }, (_, i) => `https://w${i}.example/${i % 3}`);
    await updateMany(store, wide, () => wide.map((u) => fields(u, 5_000)));
    await expectCountKept(store, 'after an updateMany over 50 sites');
    await regroupAll(store, 3);
    await expectCountKept(store, 'after regroupAll');
    await store.forgetMany(wide.slice(0, 40));
    await expectCountKept(store, 'after forgetting 40 of the 50 sites');
    await migrateDesign(store, { k: 3, b: 5 }, { batchSize: 7 });
    await expectCountKept(store, 'after migrateDesign');
  });

  it('a write that fails leaves the count as it was; a missing count is counted afresh', async () => {
    const store = await freshStore();
    await recordVisit(store, { url: 'https://a.example/', title: '', site: 'a.example', simhash: A, check: A_CHECK, now: 1 });
    const bad = { url: 'https://b.example/', title: '', site: 'b.example', simhash: 'zz', check: 'zz', firstSeen: 1, lastSeen: 1, visits: 1 };
    await expect(updateMany(store, ['https://b.example/'], () => [{ ...bad, firstSeen: (() => 1) as unknown as number }])).rejects.toThrow();
    await expectCountKept(store, 'after a failed updateMany');

    await store.db.delete('meta', 'pageCount'); // as if lost: readers count, the next write stores it
    expect(await store.count()).toBe(1);
    await recordVisit(store, { url: 'https://c.example/', title: '', site: 'c.example', simhash: A, check: A_CHECK, now: 2 });
    await expectCountKept(store, 'after a write with no count stored');

    // the group counts garbled, a site's bucket lost, another's garbled: readers count them, the next writes store them
    await store.db.put('meta', { grouped: -1, groups: 'x' } as never, 'groupCounts');
    expect(siteBucket('a.example')).not.toBe(siteBucket('c.example'));
    await store.db.delete('siteCounts', siteBucket('a.example'));
    await store.db.put('siteCounts', { bucket: siteBucket('c.example'), rows: 'x' } as never);
    expect(await readOverview(store)).toEqual({ pages: 2, articles: 1, groups: 1 }); // a.example and c.example are one article
    expect(await readSiteStanding(store, 'a.example', null)).toMatchObject({ pages: 1, copies: 0 });
    expect(await readSiteStanding(store, 'c.example', null)).toMatchObject({ pages: 1, copies: 1 });
    await recordVisit(store, { url: 'https://a.example/2', title: '', site: 'a.example', simhash: A_CHECK, check: A, now: 3 });
    await recordVisit(store, { url: 'https://c.example/2', title: '', site: 'c.example', simhash: A_CHECK, check: A, now: 4 });
    await expectCountKept(store, 'after writes with the group counts and two sites\' buckets lost or garbled');
  });
});
