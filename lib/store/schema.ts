// The IndexedDB schema: the only place (with the rest of lib/store/) that knows how Doppel's
// database is laid out. Nothing here stores page text: a page is its URL, title, site, two
// 64-bit fingerprints, visit times and its permuted-block table keys.
//
// Layout, version 6:
// - `pages`, keyed by `id`, a number derived from the canonical URL (lib/url.ts) by
//   lib/store/slots.ts: a hash of the URL, and a probe on the rare clash. One PageRecord per
//   page; a URL's record is read with one getAll over its slot. Indexes:
//   - `site` (for forgetting a site and counting its pages);
//   - `lastSeen` (the history page lists pages newest first; the oldest are evicted first);
//   - `group` and `copySite`, sparse: only pages with a near-duplicate carry `group`, and only
//     copies (lib/groups.ts) carry `copySite`, so the many pages in no group cost no entry.
//   - `keys`, only in a database upgraded from version 1–5, where it indexes the old records' table
//     keys until each is rewritten; version 6 reads it nowhere (see the `< 6` step). The worker
//     rewrites the records that still carry keys after each start until it is empty
//     (PageStore.dropLegacyKeys).
// - `runs`, out-of-line keys [tree, level, run, chunk]: the permuted-block tables, one tree of
//   sorted runs per table (lib/store/table-trees.ts, lib/store/runs.ts), written with the records.
// - `meta`, out-of-line keys: `design` → the table design {k, b} the tables are built for, and a
//   migration to another under way (lib/store/migrate.ts); `runs` → the RunIndex of every tree,
//   and `runsStamp`, a random number written with it (a reader's cache: lib/store/table-trees.ts);
//   `tables` → how far the tables of a database upgraded from version 1–5 are built
//   (lib/store/build.ts); `groups` → the k the groups
//   were computed with and whether they are complete (lib/store/groups.ts); `pageCount` → how many
//   records `pages` holds, kept by every write that adds or removes one, in its transaction.
//   IndexedDB's count() walks every key: at a million pages it holds the database for a second,
//   and the worker needs the count each time it starts (is the table design still the right size?);
//   `groupCounts` → how many pages are in a group and how many groups there are, kept the same way.
// - `siteCounts`, keyed by bucket (0–63, a hash of the site: lib/store/tally.ts): {bucket, rows},
//   rows being {site, pages, copies} for every site of the bucket with a page, kept by every write
//   in its transaction. The history page's counts and sites table read these 64 values instead of
//   counting a million index entries. Buckets, not a row per site: a batch of an import touches
//   hundreds of sites, and a read and a write per site slowed it by a third (bench:browser at 100,000
//   pages); a visit touches one bucket of a few dozen rows.
//
// Version 5 kept the tables as a multiEntry index `keys` over a `keys` field of `${table}:${hex}`
// strings: 4 index entries a page, which bounded the import rate (bench:layout: 2,566 pages/s raw
// at a million pages, against 5,144 with the tables as runs).
// Version 1 had no `group`/`copySite` fields and an index on `firstSeen` instead of `lastSeen`.
// Version 2 had no `pageCount`. Version 3 had no `groupCounts` and no `siteCounts`. Versions 1–4
// keyed `pages` by the URL itself: every index entry carried the URL (twice, in Chromium), so a
// page took 1,147 bytes at a million pages and an import wrote 488 pages a second (README). A
// database upgraded from them keeps their store, renamed LEGACY_PAGES, until its pages are moved
// (lib/store/move.ts, as soon as the database is opened), and empty after.
//
// Upgrades: `upgradeSchema` is a ladder of `if (oldVersion < n)` steps, each taking the database
// from version n − 1 to n. A version 7 bumps DB_VERSION and adds `if (oldVersion < 7) { … }` below
// the last step; a step never deletes data it does not understand.
import { type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames, unwrap } from 'idb';
import { type Fingerprint, fingerprintToHex } from '../fingerprint';
import type { RunChunkKey, RunIndex } from './runs';
import { countGroups, countSite, toBuckets } from './tally';

export const DB_NAME = 'doppel';
export const DB_VERSION = 6;
/**
 * The store of a database upgraded from version 1–4: its pages keyed by URL, until
 * lib/store/move.ts has moved them all to `pages`; empty from then on. New databases have none.
 */
export const LEGACY_PAGES = 'pagesByUrl';

export interface PageRecord {
  /** The key: slotBase(url) plus a probe (lib/store/slots.ts). */
  id: number;
  /** Canonical URL. */
  url: string;
  title: string;
  /** URL.host of the page. */
  site: string;
  /** The term-frequency simhash (lib/features.ts), 16 lowercase hex digits. */
  simhash: string;
  /** The set-of-words check fingerprint, 16 lowercase hex digits. */
  check: string;
  /** Milliseconds since the epoch. */
  firstSeen: number;
  lastSeen: number;
  visits: number;
  /** The id of the page's group of near-duplicates; absent when it has none (lib/groups.ts). */
  group?: string;
  /** The page's site, present only when the page is a copy of a page first seen on another site. */
  copySite?: string;
}

/** The fields of a PageRecord, in order: tests assert a stored record has exactly these. */
export const PAGE_RECORD_FIELDS = ['id', 'url', 'title', 'site', 'simhash', 'check', 'firstSeen', 'lastSeen', 'visits'] as const;
/** Fields present only on some records (see PageRecord). */
export const OPTIONAL_RECORD_FIELDS = ['group', 'copySite'] as const;

/** The table design the tables are built for. */
export interface DesignMeta {
  k: number;
  b: number;
}

/** The state of the stored groups: the k they were computed with; complete false while a regroup is due. */
export interface GroupsMeta {
  k: number;
  complete: boolean;
}

/** Pages in a group of near-duplicates, and how many groups (of two or more pages) there are. */
export interface GroupCounts {
  grouped: number;
  groups: number;
}

/** A site's pages, and how many of them are copies of a page first seen on another site. */
export interface SiteCounts {
  site: string;
  pages: number;
  copies: number;
}

/** The sites whose siteBucket (lib/store/tally.ts) is `bucket`, by site. */
export interface SiteBucket {
  bucket: number;
  rows: SiteCounts[];
}

export interface MetaValues {
  design: DesignMeta;
  groups: GroupsMeta;
  pageCount: number;
  groupCounts: GroupCounts;
  /** In a database upgraded from version 1–4: pages moved from LEGACY_PAGES so far, and whether all are (lib/store/move.ts). */
  move: MoveMeta;
  /** Where every tree's runs and chunks are (lib/store/runs.ts). */
  runs: RunIndex;
  /** A random number written with every `runs`, so that a reader can tell it is the one it read last (lib/store/table-trees.ts). */
  runsStamp: number;
  /** In a database upgraded from version 1–5: pages entered in the tables so far (lib/store/build.ts). */
  tables: BuildMeta;
}

export interface BuildMeta {
  built: number;
  done: boolean;
  /** The last page id built: the next batch starts after it. */
  after?: number;
}

export interface MoveMeta {
  moved: number;
  done: boolean;
  /** The last URL moved: every URL up to it is moved, and the next batch starts after it. */
  after?: string;
}

export interface DoppelDB extends DBSchema {
  pages: {
    key: number;
    value: PageRecord;
    indexes: { site: string; lastSeen: number; group: string; copySite: string };
  };
  runs: {
    key: RunChunkKey;
    value: Uint32Array;
  };
  meta: {
    key: keyof MetaValues;
    value: MetaValues[keyof MetaValues];
  };
  siteCounts: {
    key: number;
    value: SiteBucket;
  };
  /** LEGACY_PAGES: only in a database upgraded from version 1–4 (see above). */
  pagesByUrl: {
    key: string;
    value: Omit<PageRecord, 'id'>;
  };
}

export type Db = IDBPDatabase<DoppelDB>;
export type UpgradeTransaction = IDBPTransaction<DoppelDB, StoreNames<DoppelDB>[], 'versionchange'>;

/** A record without its key and group fields: what writers give updateMany, which derives them. */
export type PageFields = Omit<PageRecord, 'id' | 'group' | 'copySite'>;

/**
 * The record to store: exactly PageRecord's fields. A record read from a database upgraded from
 * version 5 also has `keys`, which must not be written back (it would keep its entries in the old
 * `keys` index).
 */
export function storedRecord(record: PageRecord): PageRecord {
  const out: PageRecord = {
    id: record.id,
    url: record.url,
    title: record.title,
    site: record.site,
    simhash: record.simhash,
    check: record.check,
    firstSeen: record.firstSeen,
    lastSeen: record.lastSeen,
    visits: record.visits,
  };
  if (record.group !== undefined) out.group = record.group;
  if (record.copySite !== undefined) out.copySite = record.copySite;
  return out;
}

export function toHex(fp: Fingerprint): string {
  return fingerprintToHex(fp);
}

/**
 * Brings the database from `oldVersion` (0: it did not exist) to DB_VERSION inside the
 * versionchange transaction. Throwing (or rejecting) aborts the upgrade: the database stays as it
 * was, at oldVersion.
 */
export async function upgradeSchema(db: Db, oldVersion: number, transaction: UpgradeTransaction): Promise<void> {
  if (oldVersion < 1) {
    const pages = db.createObjectStore('pages', { keyPath: 'url' });
    (pages as unknown as IDBObjectStore).createIndex('keys', 'keys', { multiEntry: true });
    pages.createIndex('site', 'site');
    // version 1 also had an index on firstSeen, which version 2 replaces: see below
    (pages as unknown as IDBObjectStore).createIndex('firstSeen', 'firstSeen');
    db.createObjectStore('meta');
  }
  if (oldVersion < 2) {
    // Groups of near-duplicates. No record changes: a record without `group` is in no group
    // until the regroup that `groups: {complete: false}` calls for (lib/store/groups.ts) finds
    // its near-duplicates. Index changes only, so the step is as quick as the indexes are built.
    const pages = transaction.objectStore('pages');
    (pages as unknown as IDBObjectStore).deleteIndex('firstSeen');
    pages.createIndex('lastSeen', 'lastSeen');
    pages.createIndex('group', 'group');
    pages.createIndex('copySite', 'copySite');
    const meta = transaction.objectStore('meta');
    const design = await meta.get('design');
    if (design !== undefined) await meta.put({ k: 3, complete: false } satisfies GroupsMeta, 'groups');
  }
  if (oldVersion < 3) {
    // The page count, counted once here (the only count() over every page) and kept from now on.
    const pages = transaction.objectStore('pages');
    const meta = transaction.objectStore('meta');
    await meta.put(await pages.count(), 'pageCount');
  }
  if (oldVersion < 4) {
    // The group and site counts, counted once here from the indexes and kept from now on. At a
    // million pages on ten thousand sites this is a few seconds, once.
    const counts = db.createObjectStore('siteCounts', { keyPath: 'bucket' });
    const pages = transaction.objectStore('pages');
    const sites: string[] = [];
    let cursor = await pages.index('site').openKeyCursor(null, 'nextunique');
    while (cursor) {
      sites.push(cursor.key);
      cursor = await cursor.continue();
    }
    const rows = await Promise.all(sites.map((site) => countSite(pages, site)));
    await Promise.all(toBuckets(rows).map((bucket) => counts.put(bucket)));
    await transaction.objectStore('meta').put(await countGroups(pages.index('group')), 'groupCounts');
  }
  if (oldVersion < 5) {
    // `pages` keyed by a number instead of the URL. An object store's key cannot change, so the
    // old store is renamed LEGACY_PAGES and an empty `pages` is created; lib/store/move.ts moves
    // the records, in batches of their own transactions, once the database is open: a copy here
    // would hold one transaction as long as the store is big, and a stopped worker would abort it.
    const old = unwrap(transaction.objectStore('pages')) as IDBObjectStore;
    old.name = LEGACY_PAGES;
    const pages = db.createObjectStore('pages', { keyPath: 'id' });
    (pages as unknown as IDBObjectStore).createIndex('keys', 'keys', { multiEntry: true }); // version 6 drops it: see below
    pages.createIndex('site', 'site');
    pages.createIndex('lastSeen', 'lastSeen');
    pages.createIndex('group', 'group');
    pages.createIndex('copySite', 'copySite');
    if (oldVersion === 0) db.deleteObjectStore(LEGACY_PAGES); // a new database: created empty above, nothing to move
    // a migration's cursor was a URL; in key order it means nothing: the pass starts over (each
    // step skips the records that already have the keys it would write)
    const meta = transaction.objectStore('meta');
    const design = (await meta.get('design')) as { migration?: { after?: unknown } } | undefined;
    if (design?.migration?.after !== undefined) {
      delete design.migration.after;
      await meta.put(design as DesignMeta, 'design');
    }
  }
  if (oldVersion < 6) {
    // The tables move from the `keys` index to sorted runs in the new `runs` store. The runs are
    // built from the records by lib/store/build.ts once the database is open, in batches of their
    // own transactions, for the reason move.ts gives. The `keys` index of a `pages` store with
    // pages stays: deleting it took 34 s in this transaction at a million pages (Chromium 156), and
    // a stopped worker would abort it. Nothing reads it; a record rewritten by version 6 drops its
    // entries, and PageStore.dropLegacyKeys rewrites the rest, a batch a transaction. (Before
    // version 5, `pages` was created empty above: its pages are still to move.)
    db.createObjectStore('runs');
    const meta = transaction.objectStore('meta');
    const pages = unwrap(transaction.objectStore('pages')) as IDBObjectStore;
    const pageCount = await meta.get('pageCount');
    if (oldVersion < 5 || pageCount === 0) pages.deleteIndex('keys');
    if (oldVersion > 0 && pageCount !== 0) await meta.put({ built: 0, done: false } satisfies BuildMeta, 'tables');
    // a migration between designs (version 5 rewrote the `keys` of each record) starts over as the
    // building of new trees (lib/store/migrate.ts), once the tables are built
    const design = (await meta.get('design')) as (DesignMeta & { migration?: unknown }) | undefined;
    if (design?.migration !== undefined) await meta.put({ k: design.k, b: design.b } satisfies DesignMeta, 'design');
  }
  // if (oldVersion < 7) { … }: the next step goes here.
}
