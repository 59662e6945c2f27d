// The IndexedDB schema: the types of what Doppel's database holds (the opening code is db.ts).
// Nothing here stores page text: a page is its URL, title, site, two 64-bit fingerprints, visit
// times, and its entries in the tables and trees.
//
// Layout, version 2 (version 1 had no `credited` in the siteCounts rows, and no page kept what it
// says of where it comes from: lib/store/db.ts upgradeSchema):
// - `blocks`, out-of-line keys: the block number. BLOCK_PAGES pages a value (lib/rows/blocks.ts),
//   a page's id being block × BLOCK_PAGES + slot, given out in order from meta `nextId` and never
//   again.
// - `runs`, out-of-line keys [tree, level, run, chunk]: every tree of sorted runs (lib/index/runs.ts),
//   written with the blocks in their transaction, each holding exactly the entries of the stored
//   pages: the permuted-block tables, one tree per table (lib/index/table-runs.ts), and the url,
//   site, lastSeen, group and copySite trees (lib/rows/page-rows.ts). A chunk's words are kept as
//   bytes, its keys' gaps Rice-coded (lib/index/run-chunks.ts).
// - `meta`, out-of-line keys: MetaValues below.
// - `passages`, out-of-line keys: the block number. The passage fingerprints of the block's pages
//   (hashes and word positions, no text), and `postings`, out-of-line keys: the bucket number
//   (0 to 2^16 − 1), which pages hold each hash: the passage index (lib/store/passages.ts).
//   `passageMarks`, out-of-line keys: the block number. Which of each page's fingerprints another
//   page holds, a bit each (lib/index/passage-marks.ts): what a lookup of a stored page reads.
// - `rewrites`, out-of-line keys: the block number. The rewrite fingerprints of the block's pages
//   (hashes of pairs of rare words, 20 bits each, no text), and `rewritePostings`, out-of-line keys:
//   the bucket number, which pages hold each index hash, Rice-coded: the rewrite index
//   (lib/index/rewrite-store.ts).
// - `siteCounts`, keyed by bucket (0–63, a hash of the site: lib/store/tally.ts): {bucket, rows},
//   rows being {site, pages, copies, credited} for every site of the bucket with a page, kept by every write
//   in its transaction, so that the history page reads 64 values instead of counting pages.
// Every module of lib/store may import this one; it imports none of them.
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import type { PendingPassages } from '../index/pending-blocks';
import type { StoredCaptures } from '../protocol/captures';
import type { RunChunkKey, RunIndex } from '../index/runs';
import type { DesignParams as DesignMeta } from '../index/tables';
import type { StoredBlock } from '../rows/record';

export const DB_NAME = 'doppel';
/** The schema's version. A new one adds its step to upgradeSchema (db.ts) and a fixture (test/fixtures/db/). */
export const DB_VERSION = 2;

/** The record of a page, its fields, and a block of records (lib/rows/record.ts). */
export { OPTIONAL_RECORD_FIELDS, PAGE_RECORD_FIELDS } from '../rows/record';
export type { PageFields, PageRecord, StoredBlock } from '../rows/record';

/** Pages whose passage postings wait for organising (meta `passagePending`): lib/index/pending-blocks.ts. */
export type { PendingPassages } from '../index/pending-blocks';

/** The sorted runs' chunk keys and where every tree's runs are (meta `runs`): lib/index/runs.ts. */
export type { RunChunkKey, RunIndex, RunInfo } from '../index/runs';

/** The table design the tables are built for. */
export type { DesignParams as DesignMeta } from '../index/tables';

/** The state of the stored groups: the k they were computed with; complete false while a regroup is due. */
export interface GroupsMeta {
  k: number;
  complete: boolean;
}

/** Pages in a group (of near-duplicates and rewrites), and how many groups (of two or more pages) there are. */
export interface GroupCounts {
  grouped: number;
  groups: number;
}

/** A site's pages, how many of them are copies of an original on another site, and how many of those credit their source (version 2). */
export interface SiteCounts {
  site: string;
  pages: number;
  copies: number;
  credited: number;
}

/** The sites whose siteBucket (lib/store/tally.ts) is `bucket`, by site. */
export interface SiteBucket {
  bucket: number;
  rows: SiteCounts[];
}


/** The values of the `meta` store, by key. */
export interface MetaValues {
  /** The table design, and a migration to another under way (lib/index/design.ts, lib/organise/migrate.ts). */
  design: DesignMeta;
  /** The k the groups were computed with, and whether they are complete (lib/organise/regroup.ts). */
  groups: GroupsMeta;
  /** How many pages are stored, kept by every write that adds or removes one, in its transaction. */
  pageCount: number;
  /** Kept the same way (lib/store/tally.ts). */
  groupCounts: GroupCounts;
  /** Where every tree's runs and chunks are (lib/index/runs.ts). */
  runs: RunIndex;
  /** A random number written with every `runs`, so that a reader can tell it is the one it read last (lib/index/table-runs.ts). */
  runsStamp: number;
  /** The id the next new page gets (lib/rows/page-rows.ts); none in a store that has had no page. */
  nextId: number;
  /** Pages whose passage fingerprints are not yet in the postings; none when every page's are. */
  passagePending: PendingPassages;
  /** The content scripts' captures whose visit is stored (lib/protocol/captures.ts), kept by PageStore.record. */
  captures: StoredCaptures;
}

export interface DoppelDB extends DBSchema {
  runs: {
    key: RunChunkKey;
    value: Uint8Array;
  };
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
  passages: {
    key: number;
    value: Uint8Array;
  };
  postings: {
    key: number;
    value: Uint8Array;
  };
  passageMarks: {
    key: number;
    value: Uint8Array;
  };
  rewrites: {
    key: number;
    value: Uint8Array;
  };
  rewritePostings: {
    key: number;
    value: Uint8Array;
  };
}

export type Db = IDBPDatabase<DoppelDB>;
export type UpgradeTransaction = IDBPTransaction<DoppelDB, StoreNames<DoppelDB>[], 'versionchange'>;

/** A stored count: a whole number from 0 up. */
export const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
