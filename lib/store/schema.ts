// The IndexedDB schema: the only place (with the rest of lib/store/) that knows how Doppel's
// database is laid out. Nothing here stores page text: a page is its URL, title, site, two
// 64-bit fingerprints, visit times and its permuted-block table keys.
//
// Layout, version 1:
// - `pages`, keyed by canonical URL (lib/url.ts), one PageRecord per page. Indexes:
//   - `keys` (multiEntry over `keys`): one entry per table, `${table}:${fixed-width hex key}`, so
//     a near-duplicate lookup is one IDBKeyRange.only per table (lib/tables.ts);
//   - `site` (for forgetting a site), `firstSeen` (for listing pages by age).
// - `meta`, out-of-line keys: `design` → the table design {k, b} the `keys` were written with, so
//   that a later version can tell whether the keys must be rewritten.
//
// Upgrades: `upgradeSchema` is a ladder of `if (oldVersion < n)` steps, each taking the database
// from version n − 1 to n. Version 2 bumps DB_VERSION and adds `if (oldVersion < 2) { … }` below
// the last step; a step never deletes data it does not understand.
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import { type Fingerprint, fingerprintToHex } from '../fingerprint';
import { type TableDesign, tableKeyHex, tableKeys } from '../tables';

export const DB_NAME = 'doppel';
export const DB_VERSION = 1;

export interface PageRecord {
  /** Canonical URL (the key). */
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
  /** One `${table}:${hex key}` entry per table of the design in meta (see recordKeys). */
  keys: string[];
}

/** The fields of a PageRecord, in order: tests assert a stored record has exactly these. */
export const PAGE_RECORD_FIELDS = ['url', 'title', 'site', 'simhash', 'check', 'firstSeen', 'lastSeen', 'visits', 'keys'] as const;

/** The table design the `keys` of every page were computed with. */
export interface DesignMeta {
  k: number;
  b: number;
}

export interface MetaValues {
  design: DesignMeta;
}

export interface DoppelDB extends DBSchema {
  pages: {
    key: string;
    value: PageRecord;
    indexes: { keys: string; site: string; firstSeen: number };
  };
  meta: {
    key: keyof MetaValues;
    value: MetaValues[keyof MetaValues];
  };
}

export type Db = IDBPDatabase<DoppelDB>;
export type UpgradeTransaction = IDBPTransaction<DoppelDB, StoreNames<DoppelDB>[], 'versionchange'>;

/** The index entry of table t's key: the table number, a colon, the key in fixed-width hex. */
export function keyEntry(design: TableDesign, table: number, key: number): string {
  return `${table}:${tableKeyHex(design, table, key)}`;
}

/** The `keys` of a page with fingerprint fp: one entry per table of the design. */
/** A record without its table keys: what writers give updateMany, which derives the keys. */
export type PageFields = Omit<PageRecord, 'keys'>;

export function recordKeys(design: TableDesign, fp: Fingerprint): string[] {
  return tableKeys(design, fp).map((key, t) => keyEntry(design, t, key));
}

export function toHex(fp: Fingerprint): string {
  return fingerprintToHex(fp);
}

/**
 * Brings the database from `oldVersion` (0: it did not exist) to DB_VERSION inside the
 * versionchange transaction. Throwing (or rejecting) aborts the upgrade: the database stays as it
 * was, at oldVersion.
 */
export async function upgradeSchema(db: Db, oldVersion: number, _transaction: UpgradeTransaction): Promise<void> {
  if (oldVersion < 1) {
    const pages = db.createObjectStore('pages', { keyPath: 'url' });
    pages.createIndex('keys', 'keys', { multiEntry: true });
    pages.createIndex('site', 'site');
    pages.createIndex('firstSeen', 'firstSeen');
    db.createObjectStore('meta');
  }
  // if (oldVersion < 2) { … }: the next step goes here.
}
