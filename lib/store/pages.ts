// The pages Doppel has recorded, and their near-duplicates, in IndexedDB (see schema.ts).
import { confirmsNearDuplicate } from '../features';
import { type Fingerprint, fingerprintFromHalves, fingerprintFromHex, hammingDistance } from '../fingerprint';
import type { Candidate, IndexBackend } from '../index';
import { DEFAULT_K, type TableDesign, type TableKey, designTables, keyOf } from '../tables';
import { type Db, type DesignMeta, type GroupsMeta, type PageFields, type PageRecord, storedRecord, toHex } from './schema';
import { type GroupMember, chooseGroupId, componentsOf, groupFieldsOf } from '../groups';
import { getDb } from './db';
import { type MigrationState, type StoredDesign, designFor, parseStoredDesign, tablesOf, writeDesigns } from './migrate';
import { EMPTY_RUN_INDEX, MERGE_AT, type RunIndex, type RunReader, type RunStore, lookup as lookupRun } from './runs';
import { SlotFilter, readByUrl, readSlots } from './slots';
import { type RunIndexMeta, type TableChange, applyTableChanges, compactTable, readRunIndex, tableMatches, tableTree, tablesToCompact, writeRunIndex } from './table-trees';
import { Tally, readPageCount } from './tally';
import { within } from './within';

/** The design of a new database: 4 tables keyed on 16-bit blocks, every page within 3 bits found. */
export const DEFAULT_DESIGN: DesignMeta = { k: DEFAULT_K, b: 4 };
/** Near-duplicates are pages within this many bits on the simhash (and confirmed by the check). */
export { DEFAULT_K };
/**
 * The `check` of a record whose check fingerprint is unknown: a page imported without one
 * (lib/store/transfer.ts), since Doppel keeps no page text to recompute it from. Such a match
 * cannot be confirmed, so nearDuplicates accepts it on the simhash alone. The next visit to the
 * page (recordVisit) writes its real check.
 */
export const NO_CHECK = '';
/** The index of versions 1–5's table keys, left in a database upgraded from them (schema.ts). */
const LEGACY_KEYS_INDEX = 'keys';
/** Pages PageStore.dropLegacyKeys rewrites per transaction: a visit waits at most that long. */
export const LEGACY_KEYS_BATCH = 500;

export interface Visit {
  /** Canonical URL. */
  url: string;
  title: string;
  site: string;
  simhash: Fingerprint;
  check: Fingerprint;
  /** Milliseconds since the epoch. */
  now: number;
}

export interface NearDuplicate {
  record: PageRecord;
  /** Hamming distance between the simhashes. */
  distance: number;
}

export interface NearDuplicateOptions {
  /** At most the design's k (default 3). */
  k?: number;
  /** Lower k to the design's k instead of throwing (while a migration to a design for a larger k is under way). */
  clamp?: boolean;
  /** Leave this page out (the page the query is for). */
  excludeUrl?: string;
}

function checkK(design: TableDesign, k: number): void {
  if (!Number.isInteger(k) || k < 0 || k > design.k) {
    throw new RangeError(`k must be an integer from 0 to ${design.k} (the stored table design's k): got ${k}`);
  }
}

export class PageStore {
  private constructor(
    readonly db: Db,
    private stored: StoredDesign,
  ) {}

  /**
   * The design whose plain `${table}:${hex}` keys queries read: the design in meta, as of the
   * last transaction of this store that read it. During a migration (lib/store/migrate.ts) that is
   * the old design while new keys are added, the new one once meta has flipped.
   */
  get design(): TableDesign {
    return tablesOf(this.stored);
  }

  /** The migration under way (lib/store/migrate.ts), as of the last read of meta; undefined if none. */
  get migration(): MigrationState | undefined {
    return this.stored.migration;
  }

  /** Re-reads the design from meta (after a migration run elsewhere, say). Every query and write also does, in its transaction. */
  async refresh(): Promise<void> {
    const tx = this.db.transaction('meta', 'readonly');
    await within(tx, () => this.readMeta(tx.store));
  }

  /**
   * True if the store should be migrated (migrateDesign(store, designFor(count))): a migration is
   * under way and unfinished, or the stored design differs from designFor(count) — when the store
   * has grown past what its design is sized for, or shrunk to a quarter of that (designFor of
   * twice the count is still smaller: the hysteresis keeps a store near a threshold from being
   * migrated back and forth).
   */
  async needsMigration(k: number = DEFAULT_K): Promise<boolean> {
    const tx = this.db.transaction(['pages', 'meta'], 'readonly');
    const [count, stored] = await within(tx, () => Promise.all([readPageCount(tx.objectStore('pages'), tx.objectStore('meta')), this.readMeta(tx.objectStore('meta'))]));
    if (stored.migration !== undefined) return true;
    const wanted = designFor(count, k);
    if (wanted.k !== stored.k) return true;
    if (wanted.b > stored.b) return true;
    return designFor(count * 2, k).b < stored.b;
  }

  /** Reads meta's design in the caller's transaction and keeps it; the cached one if meta has none. */
  private async readMeta(meta: { get(key: 'design'): Promise<unknown> }): Promise<StoredDesign> {
    const value = await meta.get('design');
    if (value !== undefined) this.stored = parseStoredDesign(value);
    return this.stored;
  }

  /**
   * The store over an open database. A new database records `preferred` (default {k: 3, b: 4})
   * as its table design; after that the stored design is used whatever is passed, because every
   * page's keys were written with it.
   */
  static async open(db: Db, preferred: DesignMeta = DEFAULT_DESIGN): Promise<PageStore> {
    // A readonly look first: a store opened per message must not queue behind writes, and only a
    // new database (no design yet) needs the readwrite transaction that records one.
    const look = db.transaction('meta', 'readonly');
    const existing = await within(look, () => look.store.get('design'));
    if (existing !== undefined) return new PageStore(db, PageStore.usable(existing));
    const tx = db.transaction('meta', 'readwrite');
    const meta = await within(tx, async () => {
      const stored = await tx.store.get('design');
      if (stored === undefined) {
        const chosen = { k: preferred.k, b: preferred.b };
        designTables(chosen); // a usable design, or a RangeError before anything is written
        await tx.store.put(chosen, 'design');
        return chosen;
      }
      return PageStore.usable(stored); // another context recorded one meanwhile
    });
    return new PageStore(db, meta);
  }

  /** A stored design, parsed; throws "the stored table design is unreadable: …". */
  private static usable(stored: unknown): StoredDesign {
    const parsed = parseStoredDesign(stored);
    tablesOf(parsed);
    return parsed;
  }

  /**
   * Records a visit and returns the record as written. First visit: visits 1, firstSeen = lastSeen
   * = now. Later visits: visits + 1, lastSeen = now, the title, fingerprints and keys replaced (the
   * page's text may have changed), firstSeen kept. One read and one put in one readwrite
   * transaction: concurrent visits to a page are serialised and none is lost, and the record and
   * its table keys are written together or not at all. The keys are those of the design in meta
   * at that moment (both designs' during a migration: lib/store/migrate.ts).
   */
  async recordVisit(visit: Visit): Promise<PageRecord> {
    return (await this.record(visit)).record;
  }

  /**
   * recordVisit, returning also the page's near-duplicates within k (nearDuplicates' rule), and
   * keeping the groups (lib/groups.ts) in the same transaction: the page joins the groups of its
   * near-duplicates (merging them), or leaves its old group if its text changed. The group
   * fields of every member touched are written with the record, so a group is never half
   * updated. Groups use the k they were computed with (meta `groups`), not this call's k.
   */
  async record(visit: Visit, { k = DEFAULT_K }: { k?: number } = {}): Promise<{ record: PageRecord; matches: NearDuplicate[] }> {
    const simhash = toHex(visit.simhash);
    const check = toHex(visit.check);
    const tx = this.db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readwrite');
    const pages = tx.objectStore('pages');
    const meta = tx.objectStore('meta');
    const runs = tx.objectStore('runs');
    const tally = new Tally(pages);
    return within(tx, async () => {
      const [slot, stored, groupsMeta, index] = await Promise.all([readSlots(pages, [visit.url]), this.readMeta(meta), readGroupsMeta(meta), readRunIndex(meta)]);
      const old = slot.records.get(visit.url);
      const design = tablesOf(stored);
      checkK(design, Math.min(k, design.k));
      const record: PageRecord = {
        id: slot.keys.get(visit.url)!,
        url: visit.url,
        title: visit.title,
        site: visit.site,
        simhash,
        check,
        firstSeen: old?.firstSeen ?? visit.now,
        lastSeen: visit.now,
        visits: (old?.visits ?? 0) + 1,
      };
      const groupK = Math.min(groupsMeta.k, design.k);
      const lookupK = Math.max(groupK, Math.min(k, design.k));
      const near = await lookup(pages, runs, index, stored, visit.simhash, visit.check, lookupK, visit.url);
      // the tables: the page's old entries out (if its simhash changed), its new ones in
      const change = tableChange(record.id, old, record);
      if (change.before !== change.after) await writeRunIndex(meta, await applyTableChanges(runs, index, (id) => writeDesigns(stored, id), [change]));
      if (old !== undefined && old.simhash === simhash && old.site === record.site) {
        // same text: the groups stay as they are
        if (old.group !== undefined) record.group = old.group;
        if (old.copySite !== undefined) record.copySite = old.copySite;
        tally.change(old, record);
        await pages.put(record);
      } else {
        await regroupAround(pages, tally, record, old, near.filter((m) => m.distance <= groupK), groupK);
      }
      await tally.flush(meta, tx.objectStore('siteCounts'));
      return { record, matches: near.filter((m) => m.distance <= k) };
    });
  }

  async get(url: string): Promise<PageRecord | undefined> {
    const tx = this.db.transaction('pages', 'readonly');
    return within(tx, () => readByUrl(tx.store, url));
  }

  /** Forgets one page; false if it was not recorded. */
  async forget(url: string): Promise<boolean> {
    return (await this.forgetMany([url])) === 1;
  }

  /**
   * Forgets the pages at `urls` (those recorded), in one readwrite transaction, and regroups what
   * is left of their groups (a group may split, or lose its root). Returns how many were forgotten.
   */
  async forgetMany(urls: readonly string[]): Promise<number> {
    const tx = this.db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readwrite');
    const pages = tx.objectStore('pages');
    const tally = new Tally(pages);
    return within(tx, async () => {
      const [found, groupsMeta, stored] = await Promise.all([
        Promise.all([...new Set(urls)].map((url) => readByUrl(pages, url))),
        readGroupsMeta(tx.objectStore('meta')),
        this.readMeta(tx.objectStore('meta')),
      ]);
      const gone = found.filter((record): record is PageRecord => record !== undefined);
      await Promise.all(
        gone.map((record) => {
          tally.change(record, undefined);
          return pages.delete(record.id);
        }),
      );
      await forgetInTables(tx.objectStore('runs'), tx.objectStore('meta'), stored, gone);
      await regroupAfterRemoval(pages, tally, gone, Math.min(groupsMeta.k, tablesOf(stored).k));
      await tally.flush(tx.objectStore('meta'), tx.objectStore('siteCounts'));
      return gone.length;
    });
  }

  /** Forgets every page of a site (URL.host); returns how many. */
  async forgetSite(site: string): Promise<number> {
    const tx = this.db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readwrite');
    const pages = tx.objectStore('pages');
    const tally = new Tally(pages);
    return within(tx, async () => {
      const [groupsMeta, stored] = await Promise.all([readGroupsMeta(tx.objectStore('meta')), this.readMeta(tx.objectStore('meta'))]);
      const gone: PageRecord[] = [];
      let cursor = await pages.index('site').openCursor(IDBKeyRange.only(site));
      while (cursor) {
        gone.push(cursor.value);
        tally.change(cursor.value, undefined);
        await cursor.delete();
        cursor = await cursor.continue();
      }
      await forgetInTables(tx.objectStore('runs'), tx.objectStore('meta'), stored, gone);
      await regroupAfterRemoval(pages, tally, gone, Math.min(groupsMeta.k, tablesOf(stored).k));
      await tally.flush(tx.objectStore('meta'), tx.objectStore('siteCounts'));
      return gone.length;
    });
  }

  /** How many pages are recorded: meta's `pageCount`, kept by every write (no walk over the store). */
  async count(): Promise<number> {
    return storedPageCount(this.db);
  }

  /** The URLs of the `limit` pages seen longest ago, oldest first (then by key): the `lastSeen` index. */
  async leastRecentlySeen(limit: number): Promise<string[]> {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a whole number: got ${limit}`);
    if (limit === 0) return [];
    const tx = this.db.transaction('pages', 'readonly');
    return within(tx, async () => (await tx.store.index('lastSeen').getAll(null, limit)).map((record) => record.url));
  }

  /**
   * Recorded pages within k bits of `simhash` whose check fingerprint confirms them
   * (confirmsNearDuplicate), nearest first, then earliest first. A record whose check is NO_CHECK
   * (imported without one) cannot be confirmed and is accepted on the simhash alone. One
   * IDBKeyRange.only lookup per table on the `keys` index, in one readonly transaction.
   */
  async nearDuplicates(simhash: Fingerprint, check: Fingerprint, options: NearDuplicateOptions = {}): Promise<NearDuplicate[]> {
    return this.near(simhash, check, options);
  }

  /**
   * nearDuplicates of a stored record (itself left out unless excludeUrl says otherwise). Unlike
   * nearDuplicates(fingerprintFromHex(record.simhash), fingerprintFromHex(record.check)), this
   * works for a record whose check is NO_CHECK: its matches are then accepted on the simhash alone.
   */
  async nearDuplicatesOf(record: PageRecord, { k = DEFAULT_K, excludeUrl = record.url, clamp = false }: NearDuplicateOptions = {}): Promise<NearDuplicate[]> {
    const check = record.check === NO_CHECK ? null : fingerprintFromHex(record.check);
    return this.near(fingerprintFromHex(record.simhash), check, { k, excludeUrl, clamp });
  }

  /** Forgets every page; returns how many there were. The table design and settings stay. */
  async clear(): Promise<number> {
    const tx = this.db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readwrite');
    return within(tx, async () => {
      const pages = tx.objectStore('pages');
      const meta = tx.objectStore('meta');
      const count = await readPageCount(pages, meta);
      await Promise.all([pages.clear(), tx.objectStore('siteCounts').clear(), tx.objectStore('runs').clear(), writeRunIndex(meta, EMPTY_RUN_INDEX)]);
      const groups = await readGroupsMeta(meta);
      await meta.put({ k: groups.k, complete: true }, 'groups');
      await meta.put(0, 'pageCount');
      await meta.put({ grouped: 0, groups: 0 }, 'groupCounts');
      return count;
    });
  }

  /**
   * Up to `limit` records in key order (lib/store/slots.ts: the order of a hash of the URL), after
   * the key `after` (from the start if undefined), in one readonly transaction: for reading every
   * page a chunk at a time.
   */
  async pagesAfter(after: number | undefined, limit: number): Promise<PageRecord[]> {
    const tx = this.db.transaction('pages', 'readonly');
    return within(tx, () => tx.store.getAll(after === undefined ? undefined : IDBKeyRange.lowerBound(after, true), limit));
  }

  /**
   * Reads the records at `urls` (absent ones are not in the map), lets `update` compute the records
   * to write, and writes them, all in one readwrite transaction: every record lands whole, with
   * its keys, or none does. `update` is synchronous (an await outside the transaction would let
   * it commit early); if it throws, nothing is written. `update` gives records without table keys:
   * the keys are those the design in meta requires at the moment of the write, computed from each
   * record's simhash (this store's `design` may be stale: another store may have migrated the
   * database, lib/store/migrate.ts; during a migration, both designs' keys while new keys are
   * being added). A record whose simhash is unchanged keeps its group fields; a new or changed one
   * is written in no group, and meta `groups` is marked incomplete: regroup (lib/store/groups.ts)
   * then finds its near-duplicates. With a `filter` (slotFilter), the slots it says are empty are
   * not read, and their pages are added; if a page was stored in one since, the batch is rolled
   * back and written again with every slot read. Written keys are added to the filter.
   */
  async updateMany(urls: readonly string[], update: (current: Map<string, PageRecord>) => readonly PageFields[], { filter }: { filter?: SlotFilter } = {}): Promise<void> {
    if (filter === undefined) return this.writeMany(urls, update);
    try {
      await this.writeMany(urls, update, filter);
    } catch (error) {
      // a page added since the filter was filled has a slot it says is empty: the batch was rolled
      // back whole, and is written again with every slot read
      if ((error as { name?: unknown } | null)?.name !== 'ConstraintError') throw error;
      await this.writeMany(urls, update, filter, true);
    }
  }

  /**
   * A SlotFilter (lib/store/slots.ts) of every page stored now, read `chunk` keys a transaction.
   * An import of many pages fills one once, so that its new pages' slots need not be read.
   */
  async slotFilter(chunk = 100_000): Promise<SlotFilter> {
    const filter = new SlotFilter();
    for (let after: number | undefined; ; ) {
      const tx = this.db.transaction('pages', 'readonly');
      const keys = await within(tx, () => tx.store.getAllKeys(after === undefined ? null : IDBKeyRange.lowerBound(after, true), chunk));
      for (const key of keys) filter.add(key);
      if (keys.length < chunk) return filter;
      after = keys[keys.length - 1];
    }
  }

  /** updateMany's one try: reads the slots `filter` may hold (every slot without one, or with readAll), writes, and adds the keys written to `filter`. */
  private async writeMany(urls: readonly string[], update: (current: Map<string, PageRecord>) => readonly PageFields[], filter?: SlotFilter, readAll = false): Promise<void> {
    const tx = this.db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readwrite');
    const pages = tx.objectStore('pages');
    const meta = tx.objectStore('meta');
    const tally = new Tally(pages);
    const written: number[] = [];
    await within(tx, async () => {
      const [slots, stored, index] = await Promise.all([readSlots(pages, urls, new Set(), readAll ? undefined : filter), this.readMeta(meta), readRunIndex(meta)]);
      const current = slots.records;
      const puts: Promise<number>[] = [];
      const changes: TableChange[] = [];
      let ungrouped = false;
      for (const fields of update(current)) {
        const id = slots.keys.get(fields.url);
        if (id === undefined) throw new Error(`updateMany: ${fields.url} was not among the URLs read`);
        // id first (the stored field order), and `fields` cannot move the record to another key
        const record = storedRecord({ ...fields, id });
        const before = current.get(record.url);
        if (before === undefined || before.simhash !== record.simhash) changes.push(tableChange(id, before, record));
        if (before !== undefined && before.simhash === record.simhash) {
          // same fingerprint: same groups
          if (before.group !== undefined) record.group = before.group;
          if (before.copySite !== undefined) record.copySite = before.copySite;
        } else {
          ungrouped = true; // a new or changed page is in no group until the next regroup
        }
        tally.change(before, record);
        // add where the slot was not read: a page stored there since the filter was filled fails the batch (ConstraintError)
        const put = slots.unread.has(record.url) ? pages.add(record) : pages.put(record); // may throw (DataError, DataCloneError): the transaction is then aborted
        put.catch(() => undefined); // the puts before it then reject with AbortError: reported through Promise.all
        puts.push(put);
        written.push(id);
      }
      if (ungrouped) {
        const groups = await readGroupsMeta(meta);
        if (groups.complete) await meta.put({ k: groups.k, complete: false }, 'groups');
      }
      await Promise.all(puts);
      if (changes.length > 0) await writeRunIndex(meta, await applyTableChanges(tx.objectStore('runs'), index, (id) => writeDesigns(stored, id), changes));
      await tally.flush(tx.objectStore('meta'), tx.objectStore('siteCounts'));
    });
    for (const id of written) filter?.add(id);
  }

  /**
   * Rewrites, without their `keys`, the records of a database upgraded from version 1–5 that still
   * carry them, `batchSize` pages a transaction, until the `keys` index (which version 6 reads
   * nowhere) is empty. Each batch is the first pages of that index, so the work needs no cursor:
   * a worker stopped half way goes on at its next start, and a page rewritten meanwhile by a visit
   * has already left the index. Nothing else of a record changes. Returns the pages rewritten.
   * (The index itself stays: deleting it takes the upgrade transaction, 34 s at a million pages.)
   */
  async dropLegacyKeys(batchSize = LEGACY_KEYS_BATCH): Promise<number> {
    if (!(this.db.transaction('pages', 'readonly').store.indexNames as DOMStringList).contains(LEGACY_KEYS_INDEX)) return 0;
    let rewritten = 0;
    for (;;) {
      const tx = this.db.transaction('pages', 'readwrite');
      const pages = tx.store;
      const count = await within(tx, async () => {
        // a page has one entry per table of its design there (4 in the default one): 8 keys a page
        // give batchSize pages unless the design had more tables, and then fewer, still some
        const keyed = await pages.index(LEGACY_KEYS_INDEX as never).getAllKeys(null, batchSize * 8);
        const ids = [...new Set(keyed as unknown as number[])].slice(0, batchSize);
        const records = await Promise.all(ids.map((id) => pages.get(id)));
        await Promise.all(records.map((record) => record && pages.put(storedRecord(record))));
        return ids.length;
      });
      if (count === 0) return rewritten;
      rewritten += count;
    }
  }

  /**
   * Merges each table's tree of meta's design that holds `minRuns` runs or more into one run, a
   * tree per readwrite transaction; returns how many trees were merged. A query reads one chunk per
   * run: after a million-page import, 17 runs a table (68 reads); after this, 4 reads. Run when the
   * store is otherwise at rest (organise, after an import or an upgrade).
   */
  async compactTables(minRuns: number = MERGE_AT): Promise<number> {
    // a readonly look first: at every start of the worker there is usually nothing to merge, and a
    // readwrite transaction would hold up the visits meanwhile
    const look = this.db.transaction('meta', 'readonly');
    const due = await within(look, async () => {
      const [stored, index] = await Promise.all([this.readMeta(look.store), readRunIndex(look.store)]);
      return tablesToCompact(index, stored, minRuns);
    });
    let merged = 0;
    for (const t of due) {
      const tx = this.db.transaction(['meta', 'runs'], 'readwrite');
      const meta = tx.objectStore('meta');
      await within(tx, async () => {
        // looked at again: another context may have merged it, or migrated the store, since
        const [stored, index] = await Promise.all([this.readMeta(meta), readRunIndex(meta)]);
        if (!tablesToCompact(index, stored, minRuns).includes(t)) return;
        await writeRunIndex(meta, await compactTable(tx.objectStore('runs'), index, stored, t));
        merged++;
      });
    }
    return merged;
  }

  /** nearDuplicates, where a null check (the query's check is unknown) confirms every match. */
  private async near(simhash: Fingerprint, check: Fingerprint | null, { k = DEFAULT_K, excludeUrl, clamp = false }: NearDuplicateOptions): Promise<NearDuplicate[]> {
    const tx = this.db.transaction(['pages', 'meta', 'runs'], 'readonly');
    return within(tx, async () => {
      // the trees to read are those of meta's design in this very transaction (migrate.ts)
      const meta = tx.objectStore('meta');
      const [stored, index] = await Promise.all([this.readMeta(meta), readRunIndex(meta)]);
      if (clamp) k = Math.min(k, tablesOf(stored).k);
      checkK(tablesOf(stored), k);
      return lookup(tx.objectStore('pages'), tx.objectStore('runs'), index, stored, simhash, check, k, excludeUrl);
    });
  }
}

/** What lookup and the group upkeep need of the `pages` store, in any readable transaction. */
interface PagesReader {
  get(id: number): Promise<PageRecord | undefined>;
  index(name: 'group'): { getAll(query: IDBKeyRange): Promise<PageRecord[]> };
}
interface PagesWriter extends PagesReader {
  put(record: PageRecord): Promise<unknown>;
}

/** How many pages `db` holds: meta `pageCount` (readPageCount), in a readonly transaction of its own. */
async function storedPageCount(db: Db): Promise<number> {
  const tx = db.transaction(['pages', 'meta'], 'readonly');
  return within(tx, () => readPageCount(tx.objectStore('pages'), tx.objectStore('meta')));
}

/** meta's `groups` value: a store without one (new, or empty when upgraded) has complete k = 3 groups. */
export async function readGroupsMeta(meta: { get(key: 'groups'): Promise<unknown> }): Promise<GroupsMeta> {
  const value = (await meta.get('groups')) as Partial<GroupsMeta> | undefined;
  if (value === undefined || !Number.isInteger(value.k)) return { k: DEFAULT_K, complete: true };
  return { k: value.k!, complete: value.complete === true };
}


/** A record's simhash; undefined if it is unreadable (such a record is in no table). */
function readableSimhash(record: PageRecord): Fingerprint | undefined {
  try {
    return fingerprintFromHex(record.simhash);
  } catch {
    return undefined;
  }
}

/** The change to the tables when `before` (absent: a new page) is replaced by `after`. */
function tableChange(id: number, before: PageRecord | undefined, after: PageRecord): TableChange {
  const change: TableChange = { id };
  const old = before === undefined ? undefined : readableSimhash(before);
  const next = readableSimhash(after);
  if (old !== undefined) change.before = old;
  if (next !== undefined) change.after = next;
  return change;
}

/** Purges the forgotten records `gone` from the tables of every design they are in (migrate.ts writeDesigns). */
async function forgetInTables(runs: RunStore, meta: RunIndexMeta, stored: StoredDesign, gone: readonly PageRecord[]): Promise<void> {
  const changes = gone.map((record) => tableChange(record.id, record, { ...record, simhash: '' }));
  if (changes.every((change) => change.before === undefined)) return;
  await writeRunIndex(meta, await applyTableChanges(runs, await readRunIndex(meta), (id) => writeDesigns(stored, id), changes));
}

/**
 * The records within k bits of simhash (confirmed by check: nearDuplicates' rule) among the
 * candidates of the tables of meta's design (every page within the design's k shares a key with
 * it in one table), nearest first, then earliest first; excludeUrl left out. A candidate's entry
 * carries the simhash it was entered with, so only candidates within k are read; a record that is
 * gone, or whose simhash is no longer the entry's, is dropped (the tables are kept with every
 * write, so neither should happen: the records are the truth).
 */
async function lookup(pages: PagesReader, runs: RunReader, index: RunIndex, stored: StoredDesign, simhash: Fingerprint, check: Fingerprint | null, k: number, excludeUrl: string | undefined): Promise<NearDuplicate[]> {
  const matches = await tableMatches(runs, index, stored, simhash, k);
  const records = await Promise.all(matches.map((match) => pages.get(match.id)));
  const seen = new Set<string>();
  const out: NearDuplicate[] = [];
  records.forEach((record, i) => {
    if (record === undefined || seen.has(record.url)) return;
    const member = memberOf(record);
    if (member === null) return; // an unreadable record matches nothing
    const entry = matches[i]!.simhash;
    if (member.simhash !== fingerprintFromHalves(entry.hi, entry.lo)) return; // an entry of the page's earlier text
    seen.add(record.url);
    if (record.url === excludeUrl) return;
    const distance = hammingDistance(simhash, member.simhash);
    // a missing check (either side) cannot confirm or refute: accepted on the simhash alone
    if (distance <= k && (check === null || member.check === null || confirmsNearDuplicate(check, member.check))) out.push({ record, distance });
  });
  return out.sort(
    (x, y) => x.distance - y.distance || x.record.firstSeen - y.record.firstSeen || (x.record.url < y.record.url ? -1 : x.record.url > y.record.url ? 1 : 0),
  );
}

/** A record as lib/groups.ts sees it; null if its fingerprints are unreadable. */
export function memberOf(record: PageRecord): (GroupMember & { record: PageRecord }) | null {
  try {
    const simhash = fingerprintFromHex(record.simhash);
    const check = record.check === NO_CHECK ? null : fingerprintFromHex(record.check);
    return { url: record.url, site: record.site, simhash, check, firstSeen: record.firstSeen, record };
  } catch {
    return null;
  }
}

/**
 * Above this many pages in the groups one change touches, the pairwise regroup (O(n²)) is skipped:
 * the groups are merged (a visit) or kept whole (a removal), and the next full regroup splits them.
 */
export const MAX_PAIRWISE = 400;

/** Members of the groups `ids`, by group id. */
async function membersOf(pages: PagesReader, ids: Iterable<string>): Promise<PageRecord[]> {
  const index = pages.index('group');
  return (await Promise.all([...new Set(ids)].map((id) => index.getAll(IDBKeyRange.only(id))))).flat();
}

type Node = GroupMember & { record: PageRecord };

/**
 * Writes the group fields of `components` (lists of members; their records as stored, except the
 * record at `always`, which is new and written whatever its fields): each record whose fields
 * change is put once. Every component of two or more pages gets a distinct id: the largest keeps
 * the id most of its members have (fewer records rewritten, stable links), a part split off a
 * group gets a new one.
 */
async function writeComponents(
  pages: PagesWriter,
  tally: Tally,
  components: readonly Node[][],
  always: { url: string; hint: string | undefined; before: PageRecord | undefined } | null,
): Promise<void> {
  const claimed = new Set<string>();
  const puts: Promise<unknown>[] = [];
  const hintOf = (node: Node): string | undefined => (always !== null && node.url === always.url ? always.hint : node.record.group);
  for (const component of [...components].sort((x, y) => y.length - x.length)) {
    const id = component.length > 1 ? chooseGroupId(component.map(hintOf), component[0]!.url, claimed) : undefined;
    const fields = groupFieldsOf(component, id ?? '');
    for (const { record } of component) {
      const next = fields.get(record.url)!;
      if ((always === null || record.url !== always.url) && next.group === record.group && next.copySite === record.copySite) continue;
      // the new record itself is updated in place: record() returns it as written
      const written: PageRecord = always !== null && record.url === always.url ? record : storedRecord(record);
      delete written.group;
      delete written.copySite;
      if (next.group !== undefined) written.group = next.group;
      if (next.copySite !== undefined) written.copySite = next.copySite;
      tally.change(always !== null && record.url === always.url ? always.before : record, written);
      puts.push(pages.put(written));
    }
  }
  await Promise.all(puts);
}

/** Puts `record` (a new or changed page) and regroups it with its near-duplicates `near` and its old group. */
async function regroupAround(pages: PagesWriter, tally: Tally, record: PageRecord, old: PageRecord | undefined, near: readonly NearDuplicate[], k: number): Promise<void> {
  const self = memberOf(record);
  if (self === null) {
    tally.change(old, record);
    await pages.put(record); // unreadable: in no group
    if (old !== undefined) await regroupAfterRemoval(pages, tally, [old], k);
    return;
  }
  const groupIds = near.map((m) => m.record.group).filter((g): g is string => g !== undefined);
  if (old?.group !== undefined) groupIds.push(old.group);
  const byUrl = new Map<string, Node>();
  for (const other of [...(await membersOf(pages, groupIds)), ...near.map((m) => m.record)]) {
    if (other.url === record.url) continue;
    const member = memberOf(other);
    if (member !== null) byUrl.set(other.url, member);
  }
  const nodes: Node[] = [self, ...byUrl.values()];
  const components = nodes.length <= MAX_PAIRWISE ? componentsOf(nodes, k) : [nodes]; // too many to compare: merged
  await writeComponents(pages, tally, components, { url: record.url, hint: old?.group, before: old });
}

/** After `gone` were deleted: regroups the rest of their groups (split, re-rooted or dissolved). */
async function regroupAfterRemoval(pages: PagesWriter, tally: Tally, gone: readonly PageRecord[], k: number): Promise<void> {
  const goneUrls = new Set(gone.map((record) => record.url));
  const ids = new Set(gone.map((record) => record.group).filter((g): g is string => g !== undefined));
  for (const id of ids) {
    const rest = (await membersOf(pages, [id])).filter((record) => !goneUrls.has(record.url));
    const members = rest.map(memberOf).filter((m): m is Node => m !== null);
    if (members.length === 0) continue;
    await writeComponents(pages, tally, members.length <= MAX_PAIRWISE ? componentsOf(members, k) : [members], null);
  }
}

/**
 * lib/index.ts's IndexBackend over the same `pages` store and `keys` index, so that the shared
 * index suite (test/index-suite.ts) checks the IndexedDB layout. Ids are stored as URLs of minimal
 * records (no title, site or visits; check = simhash). For tests and benchmarks, not the extension.
 */
export class IdbIndexBackend implements IndexBackend<string> {
  constructor(
    readonly db: Db,
    readonly design: TableDesign,
  ) {}

  async add(id: string, fp: Fingerprint, keys: readonly TableKey[]): Promise<void> {
    if (keys.length !== this.design.tables.length) {
      throw new RangeError(`expected ${this.design.tables.length} table keys: got ${keys.length}`);
    }
    const hex = toHex(fp);
    const record: PageRecord = {
      id: 0, // its slot's key, below
      url: id,
      title: '',
      site: '',
      simhash: hex,
      check: hex,
      firstSeen: 0,
      lastSeen: 0,
      visits: 0,
    };
    const tx = this.db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readwrite');
    const tally = new Tally(tx.objectStore('pages'));
    await within(tx, async () => {
      const pages = tx.objectStore('pages');
      const meta = tx.objectStore('meta');
      const [slot, index] = await Promise.all([readSlots(pages, [id]), readRunIndex(meta)]);
      if (slot.records.has(id)) throw new DOMException(`${id} is already stored`, 'ConstraintError');
      record.id = slot.keys.get(id)!;
      tally.change(undefined, record);
      await pages.add(record);
      // the trees' keys are computed from fp: they are `keys` for this design (lib/tables.ts tableKeys)
      await writeRunIndex(meta, await applyTableChanges(tx.objectStore('runs'), index, () => [this.design], [{ id: record.id, after: fp }]));
      await tally.flush(meta, tx.objectStore('siteCounts'));
    });
  }

  async remove(id: string): Promise<boolean> {
    const tx = this.db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readwrite');
    const pages = tx.objectStore('pages');
    const tally = new Tally(pages);
    return within(tx, async () => {
      const record = await readByUrl(pages, id);
      if (record === undefined) return false;
      tally.change(record, undefined);
      await pages.delete(record.id);
      const meta = tx.objectStore('meta');
      await writeRunIndex(meta, await applyTableChanges(tx.objectStore('runs'), await readRunIndex(meta), () => [this.design], [tableChange(record.id, record, { ...record, simhash: '' })]));
      await tally.flush(meta, tx.objectStore('siteCounts'));
      return true;
    });
  }

  /** The pages whose key in `table` is `key` (a 32-bit word of the tree can hold longer keys that differ: those are left out). */
  async candidates(table: number, key: TableKey): Promise<Candidate<string>[]> {
    const tx = this.db.transaction(['pages', 'meta', 'runs'], 'readonly');
    return within(tx, async () => {
      const index = await readRunIndex(tx.objectStore('meta'));
      const entries = await lookupRun(tx.objectStore('runs'), index, tableTree(this.design, table), key % 2 ** 32);
      const steps = this.design.tables[table]!.steps;
      const exact = entries.filter((entry) => keyOf(steps, entry[1]!, entry[2]!) === key);
      const records = await Promise.all(exact.map((entry) => tx.objectStore('pages').get(entry[3]! * 2 ** 32 + entry[4]!)));
      return records.filter((record): record is PageRecord => record !== undefined).map((record) => ({ id: record.url, fp: fingerprintFromHex(record.simhash) }));
    });
  }

  async size(): Promise<number> {
    return storedPageCount(this.db);
  }
}

/**
 * A function giving the PageStore over the shared connection (getDb), opened once per connection:
 * every query and write re-reads the table design in its own transaction, so a kept store is never
 * stale, and when the browser closed the connection (a full disk) getDb opens a new one and a new
 * store is opened over it. A failed open is not kept. The worker and the history page each keep one.
 */
export function keptPageStore(): () => Promise<PageStore> {
  let kept: { db: Db; pages: Promise<PageStore> } | undefined;
  return async () => {
    const db = await getDb();
    if (kept?.db !== db) {
      const pages = PageStore.open(db);
      kept = { db, pages };
      pages.catch(() => {
        if (kept?.pages === pages) kept = undefined;
      });
    }
    return kept.pages;
  };
}
