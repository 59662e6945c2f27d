// The IndexedDB schema: the only place (with the rest of lib/store/) that knows how Doppel's
// database is laid out. Nothing here stores page text: a page is its URL, title, site, two
// 64-bit fingerprints, visit times and its permuted-block table keys.
//
// Layout, version 7:
// - `blocks`, out-of-line keys: the block number. BLOCK_PAGES pages a value (lib/store/blocks.ts),
//   a page's id being block × BLOCK_PAGES + slot, given out in order from meta `nextId` and never
//   again. bench:layout measured a record a page at a third of the write rate and 1.5× the bytes.
// - `runs`, out-of-line keys [tree, level, run, chunk]: every tree of sorted runs (lib/store/runs.ts),
//   written with the blocks in their transaction, each holding exactly the entries of the stored
//   pages: the permuted-block tables, one tree per table (lib/store/table-trees.ts), and in place
//   of indexes, the url, site, lastSeen, group and copySite trees (lib/store/page-rows.ts).
// - `pages`: version 6's store (a PageRecord a page, keyed by a hash of its URL: lib/store/slots.ts,
//   with indexes on site, lastSeen, group and copySite, and `keys` in a database upgraded from
//   version 1–5). Empty once lib/store/build.ts has moved its pages into blocks after the upgrade;
//   only an upgrade can delete a store. Version 5's move (lib/store/move.ts) still moves a version
//   1–4 database's pages into it first.
// - `meta`, out-of-line keys: `design` → the table design {k, b} the tables are built for, and a
//   migration to another under way (lib/store/migrate.ts); `runs` → the RunIndex of every tree,
//   and `runsStamp`, a random number written with it (a reader's cache: lib/store/table-trees.ts);
//   `toBlocks` → how far the pages of a database upgraded from version 1–6 are moved into blocks
//   (lib/store/build.ts); `nextId` → the next page id; `groups` → the k the groups
//   were computed with and whether they are complete (lib/store/groups.ts); `pageCount` → how many
//   pages are stored, kept by every write that adds or removes one, in its transaction.
//   Counting walks every page: at a million pages it holds the database for a second,
//   and the worker needs the count each time it starts (is the table design still the right size?);
//   `groupCounts` → how many pages are in a group and how many groups there are, kept the same way.
// - `siteCounts`, keyed by bucket (0–63, a hash of the site: lib/store/tally.ts): {bucket, rows},
//   rows being {site, pages, copies} for every site of the bucket with a page, kept by every write
//   in its transaction. The history page's counts and sites table read these 64 values instead of
//   counting a million index entries. Buckets, not a row per site: a batch of an import touches
//   hundreds of sites, and a read and a write per site slowed it by a third (bench:browser at 100,000
//   pages); a visit touches one bucket of a few dozen rows.
//
// Version 6 stored a PageRecord object a page in `pages`, with four indexes: 370 bytes a page and
// 6,320 pages/s of raw writes at a million pages (bench:layout), against 198–209 and 30,903–35,842
// for blocks (README, *Pages in blocks*).
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
// from version n − 1 to n. A version 8 bumps DB_VERSION and adds `if (oldVersion < 8) { … }` below
// the last step; a step never deletes data it does not understand.
import { type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames, unwrap } from 'idb';
import { type Fingerprint, fingerprintToHex } from '../fingerprint';
import type { StoredBlock } from './blocks';
import type { RunChunkKey, RunIndex } from './runs';
import { countGroups, countSiteInIndexes, toBuckets } from './tally';

export const DB_NAME = 'doppel';
export const DB_VERSION = 7;
/**
 * The store of a database upgraded from version 1–4: its pages keyed by URL, until
 * lib/store/move.ts has moved them all to `pages`; empty from then on. New databases have none.
 */
export const LEGACY_PAGES = 'pagesByUrl';

export interface PageRecord {
  /** The page's id: block × BLOCK_PAGES + slot (lib/store/page-rows.ts). In version 5–6's `pages` store, the key: slotBase(url) plus a probe (lib/store/slots.ts). */
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
  /** Left in a database upgraded from version 1–5 to 6: how far version 6's tables were built. Version 7 deletes it. */
  tables: BuildMeta;
  /** In a database upgraded from version 1–6: pages moved into blocks so far (lib/store/build.ts). */
  toBlocks: BuildMeta;
  /** The id the next new page gets (lib/store/page-rows.ts); none in a store that has had no page. */
  nextId: number;
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
  /** Version 7's pages, BLOCK_PAGES a value, keyed by the block's number (lib/store/blocks.ts). */
  blocks: {
    key: number;
    value: StoredBlock;
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
    const rows = await Promise.all(sites.map((site) => countSiteInIndexes(pages, site)));
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
  if (oldVersion < 7) {
    // The pages move from one record each in `pages` to BLOCK_PAGES a record in `blocks`, and the
    // indexes to trees of sorted runs (lib/store/page-rows.ts). lib/store/build.ts moves them once
    // the database is open, in batches of their own transactions (the reason is move.ts's), and
    // rewrites every tree with the pages' new ids; until then nothing reads the store. `pages`
    // stays, emptied by the move: only an upgrade can delete a store. A build of version 6's tables
    // still under way is dropped (the move rebuilds them), and so is a migration between designs
    // (it starts again once the move is done, lib/store/migrate.ts).
    db.createObjectStore('blocks');
    const meta = transaction.objectStore('meta');
    await meta.delete('tables');
    const pageCount = await meta.get('pageCount');
    if (oldVersion > 0 && pageCount !== 0) await meta.put({ built: 0, done: false } satisfies BuildMeta, 'toBlocks');
    const design = (await meta.get('design')) as (DesignMeta & { migration?: unknown }) | undefined;
    if (design?.migration !== undefined) await meta.put({ k: design.k, b: design.b } satisfies DesignMeta, 'design');
  }
  // if (oldVersion < 8) { … }: the next step goes here.
}
