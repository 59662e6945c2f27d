// The pages Doppel has recorded, and their near-duplicates, in IndexedDB (see schema.ts).
import { type Fingerprint, fingerprintFromHex, fingerprintToHex } from '../fingerprint/bits';
import type { PassageFingerprints } from '../fingerprint/passages';
import type { RewriteFingerprints } from '../fingerprint/rewrites';
import { type RewriteRecordMatch, RewriteRows, rewriteMatches } from '../index/rewrite-store';
import { DEFAULT_K, type TableDesign, designTables } from '../index/tables';
import { EMPTY_RUN_INDEX } from '../index/runs';
import { isContentCopy } from '../report/copies';
import { PageRows } from '../rows/page-rows';
import { writeRunIndex } from '../rows/run-index';
import type { IDBPTransaction } from 'idb';
import { type Db, type DesignMeta, type DoppelDB, type GroupsMeta, type PageFields, type PageRecord, type PendingPassages } from './schema';
import { getDb } from './db';
import { type MigrationState, type StoredDesign, designFor, parseStoredDesign, tablesOf, writeDesigns } from '../index/design';
import { Tally, readPageCount } from './tally';
import { within } from './within';
import { type Kept, PASSAGE_GROUP_PAGES, PassageRows, type RecordMatch, storedPassageMatches, withBytes } from './passages';
import { absentFrom } from '../index/slots';
import { parsePending, pendingAfter } from '../index/pending-blocks';
import { forget, recheckContentCopies, recordPassages } from './page-passages';
import { recordRewrites } from './page-rewrites';
import { isWatched, reportRewriteChanges } from './rewrite-watch';
import { regroupAround } from './page-groups';
import { type NearDuplicate, checkOf, findNear, withProvenance } from './records';
import type { Provenance } from '../text/provenance';
import { sameClaims } from '../report/original';
import { runChunks } from '../index/run-chunks';
import { type StoredCaptures, hasCapture, parseCaptures, withCapture } from '../protocol/captures';

/** The design of a new database: 4 tables keyed on 16-bit blocks, every page within 3 bits found. */
export const DEFAULT_DESIGN: DesignMeta = { k: DEFAULT_K, b: 4 };
/** Near-duplicates are pages within this many bits on the simhash (and confirmed by the check). */
export { DEFAULT_K };
/** The stores a write or a read of the pages touches: all of them. */
const STORES = ['blocks', 'meta', 'siteCounts', 'runs', 'passages', 'postings', 'passageMarks', 'rewrites', 'rewritePostings'] as const;
/** A readonly transaction over the pages' stores (PageStore.read). */
export type ReadTx = IDBPTransaction<DoppelDB, typeof STORES extends readonly (infer S)[] ? S[] : never, 'readonly'>;

/** What a write gets (PageStore.write): the pages, the tally of their counts, and meta's design and groups as of this transaction. */
export interface Writing {
  rows: PageRows;
  tally: Tally;
  /** The pages' passage fingerprints and postings. */
  passages: PassageRows;
  /** The pages' rewrite fingerprints and postings. */
  rewrites: RewriteRows;
  /** Pages whose contentCopy is to be worked out again once the postings are written (a page they share passages with, or rewrite, changed or went). */
  recheckCopies: Set<number>;
  stored: StoredDesign;
  groups: GroupsMeta;
  meta: {
    get(key: 'groups' | 'passagePending' | 'captures'): Promise<unknown>;
    put(value: GroupsMeta, key: 'groups'): Promise<unknown>;
    put(value: StoredCaptures, key: 'captures'): Promise<unknown>;
    put(value: PendingPassages, key: 'passagePending'): Promise<unknown>;
    delete(key: 'passagePending'): Promise<unknown>;
  };
}

export interface Visit {
  /** Canonical URL. */
  url: string;
  title: string;
  site: string;
  simhash: Fingerprint;
  check: Fingerprint;
  /** The page's passage fingerprints (lib/fingerprint/passages.ts); absent: none kept. */
  passages?: PassageFingerprints;
  /** The page's rewrite fingerprints (lib/fingerprint/rewrites.ts); absent: none kept. */
  rewrites?: RewriteFingerprints;
  /** What the page says of where it comes from, as believableProvenance keeps it (lib/text/provenance.ts); absent: nothing. */
  provenance?: Provenance;
  /** Milliseconds since the epoch. */
  now: number;
}

/** A visit as record wrote it: the record, its near-duplicates within k, the pages sharing passages with it and those it rewrites or that rewrite it. */
export type Recorded = { record: PageRecord; matches: NearDuplicate[]; passages: RecordMatch[]; rewrites: RewriteRecordMatch<PageRecord>[] };

/** What an import writes of a page: its fields and, if the line had them, its passage fingerprints as checked bytes (lib/fingerprint/passage-codec.ts; indexed by organising). */
export type ImportedFields = PageFields & Kept;

/** A recorded page, its near-duplicates, the pages sharing passages with it and the pages it rewrites or that rewrite it (each page listed once, in that order). */
export interface PageMatches {
  record: PageRecord;
  near: NearDuplicate[];
  passages: RecordMatch[];
  rewrites: RewriteRecordMatch<PageRecord>[];
  /** The page's language as its rewrite fingerprints guess it ('und' if it has none). */
  ownLanguage: RewriteFingerprints['lang'];
}

export interface NearDuplicateOptions {
  /** At most the design's k (default 3). */
  k?: number;
  /** Lower k to the design's k instead of throwing (while a migration to a design for a larger k is under way). */
  clamp?: boolean;
  /** Leave this page out (the page the query is for). */
  excludeUrl?: string;
}

/**
 * The store as a context that only reads sees it (the history page, through PageStore.reader):
 * no method that writes, not even the design of a new database. The worker's writer has the whole
 * PageStore.
 */
export interface PageReader {
  /** The table design queries read (as of the last transaction that read meta). */
  readonly design: TableDesign;
  get(url: string): Promise<PageRecord | undefined>;
  /** How many pages are recorded: meta's `pageCount`. */
  count(): Promise<number>;
  /** The groups' state: the k they were computed with, and whether they are complete. */
  groupsState(): Promise<GroupsMeta>;
  /** Runs `work` in one readonly transaction over the pages, the passage index, meta and siteCounts. */
  read<T>(work: (rows: PageRows, tx: ReadTx, passages: PassageRows, rewrites: RewriteRows) => Promise<T>): Promise<T>;
  nearDuplicates(simhash: Fingerprint, check: Fingerprint | null, options?: NearDuplicateOptions): Promise<NearDuplicate[]>;
  getWithNear(url: string, options?: Omit<NearDuplicateOptions, 'excludeUrl'>): Promise<PageMatches | undefined>;
  pagesAfter(after: number | undefined, limit: number): Promise<PageRecord[]>;
  pagesAfter(after: number | undefined, limit: number, options: { passages: true }): Promise<(PageRecord & Kept)[]>;
}

function checkK(design: TableDesign, k: number): void {
  if (!Number.isInteger(k) || k < 0 || k > design.k) {
    throw new RangeError(`k must be an integer from 0 to ${design.k} (the stored table design's k): got ${k}`);
  }
}

export class PageStore implements PageReader {
  private constructor(
    readonly db: Db,
    private stored: StoredDesign,
  ) {}

  /**
   * The design whose plain `${table}:${hex}` keys queries read: the design in meta, as of the
   * last transaction of this store that read it. During a migration (lib/organise/migrate.ts) that is
   * the old design while new keys are added, the new one once meta has flipped.
   */
  get design(): TableDesign {
    return tablesOf(this.stored);
  }

  /** The migration under way (lib/organise/migrate.ts), as of the last read of meta; undefined if none. */
  get migration(): MigrationState | undefined {
    return this.stored.migration;
  }

  /** Re-reads the design from meta (after a migration run elsewhere, say). Every query and write also does, in its transaction. */
  async refresh(): Promise<void> {
    const tx = this.db.transaction('meta', 'readonly');
    await within(tx, () => this.readDesign(tx.store));
  }

  /**
   * True if the store should be migrated (migrateDesign(store, designFor(count))): a migration is
   * under way and unfinished, or the stored design differs from designFor(count) — when the store
   * has grown past what its design is sized for, or shrunk to a quarter of that (designFor of
   * twice the count is still smaller: the hysteresis keeps a store near a threshold from being
   * migrated back and forth).
   */
  async needsMigration(k: number = DEFAULT_K): Promise<boolean> {
    const [count, stored] = await this.read((rows, tx) => Promise.all([readPageCount(rows, tx.objectStore('meta')), this.readDesign(tx.objectStore('meta'))]));
    if (stored.migration !== undefined) return true;
    const wanted = designFor(count, k);
    if (wanted.k !== stored.k) return true;
    if (wanted.b > stored.b) return true;
    return designFor(count * 2, k).b < stored.b;
  }

  /**
   * Runs `work` in one readwrite transaction over the pages (lib/rows/page-rows.ts), then writes
   * the counts and the pages, blocks and trees, in that transaction: every change lands whole, or
   * none does. `work` must make every change before it resolves.
   */
  async write<T>(work: (w: Writing) => Promise<T>): Promise<T> {
    const tx = this.db.transaction(STORES, 'readwrite');
    const meta = tx.objectStore('meta');
    return within(tx, async () => {
      const [stored, groups, rows] = await Promise.all([this.readDesign(meta), readGroupsMeta(meta), PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), meta)]);
      const tally = new Tally(rows);
      // the groups of ids not given out yet hold nothing: not read (an import's new pages)
      const firstAbsent = rows.firstAbsentGroup(PASSAGE_GROUP_PAGES);
      const passages = new PassageRows(absentFrom(tx.objectStore('passages'), firstAbsent), tx.objectStore('postings'), absentFrom(tx.objectStore('passageMarks'), firstAbsent));
      const rewrites = new RewriteRows(absentFrom(tx.objectStore('rewrites'), firstAbsent), tx.objectStore('rewritePostings'));
      const recheckCopies = new Set<number>();
      const result = await work({ rows, tally, passages, rewrites, recheckCopies, stored, groups, meta });
      if (rewrites.isChanged && isWatched(this.db)) reportRewriteChanges(this.db, await rewrites.changedIndexHashes());
      const rewritesPending = rewrites.isChanged ? await rewrites.flush() : [];
      if (passages.isChanged || rewritesPending.length > 0) {
        const written = await passages.flush(async (id) => (await rows.get(id))?.site);
        written.pendingBlocks.push(...rewritesPending);
        const pending = parsePending(await meta.get('passagePending'));
        if (written.pendingBlocks.length > 0 || pending.blocks.length > 0) await meta.put(pendingAfter(pending, written), 'passagePending');
      }
      await recheckContentCopies(rows, tally, passages, rewrites, recheckCopies);
      await tally.flush(meta, tx.objectStore('siteCounts'));
      await rows.flush(meta, (id) => writeDesigns(stored, id));
      return result;
    });
  }

  /** Runs `work` in one readonly transaction over the pages (and meta and siteCounts, through `tx`; the passage index through `passages`). */
  read<T>(work: (rows: PageRows, tx: ReadTx, passages: PassageRows, rewrites: RewriteRows) => Promise<T>): Promise<T> {
    return readPages(this.db, work);
  }

  /** Reads meta's design in the caller's transaction and keeps it; the cached one if meta has none. */
  async readDesign(meta: { get(key: 'design'): Promise<unknown> }): Promise<StoredDesign> {
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

  /**
   * The store for a context that only reads (the history page): it never writes, not even the
   * design of a new database. Until the worker records one there are no pages, so the default
   * design reads them as well as any; every query re-reads the stored design (readMeta).
   */
  static async reader(db: Db): Promise<PageReader> {
    const look = db.transaction('meta', 'readonly');
    const existing = await within(look, () => look.store.get('design'));
    return new PageStore(db, existing === undefined ? { k: DEFAULT_DESIGN.k, b: DEFAULT_DESIGN.b } : PageStore.usable(existing));
  }

  /** A stored design, parsed; throws "the stored table design is unreadable: …". */
  private static usable(stored: unknown): StoredDesign {
    const parsed = parseStoredDesign(stored);
    tablesOf(parsed);
    return parsed;
  }

  /**
   * Records a visit and returns the record as written, with the page's near-duplicates within k
   * (nearDuplicates' rule) and the pages sharing passages with it. First visit: visits 1,
   * firstSeen = lastSeen = now. Later visits: visits + 1, lastSeen = now, the title, fingerprints
   * and keys replaced (the page's text may have changed), firstSeen kept. One readwrite
   * transaction: concurrent visits to a page are serialised and none is lost, and the record, its
   * table keys (those of the design in meta at that moment; both designs' during a migration:
   * lib/organise/migrate.ts) and its groups are written together or not at all. The page joins the
   * groups of its near-duplicates (merging them), or leaves its old group if its text changed;
   * groups use the k they were computed with (meta `groups`), not this call's k. With a `capture`
   * (lib/protocol/captures.ts), null and nothing written if that capture's visit is stored already.
   */
  record(visit: Visit, options?: { k?: number }): Promise<Recorded>;
  record(visit: Visit, options: { k?: number; capture: string }): Promise<Recorded | null>;
  async record(visit: Visit, { k = DEFAULT_K, capture }: { k?: number; capture?: string } = {}): Promise<Recorded | null> {
    const simhash = fingerprintToHex(visit.simhash);
    const check = fingerprintToHex(visit.check);
    return this.write(async ({ rows, tally, passages, rewrites, recheckCopies, stored, groups: groupsMeta, meta }) => {
      if (capture !== undefined) {
        const captures = parseCaptures(await meta.get('captures'));
        if (hasCapture(captures, capture)) return null;
        await meta.put(withCapture(captures, capture, visit.now), 'captures');
      }
      const old = await rows.byUrl(visit.url);
      const design = tablesOf(stored);
      checkK(design, Math.min(k, design.k));
      const record: PageRecord = {
        id: old?.id ?? rows.newId(),
        url: visit.url,
        title: visit.title,
        site: visit.site,
        simhash,
        check,
        firstSeen: old?.firstSeen ?? visit.now,
        lastSeen: visit.now,
        visits: (old?.visits ?? 0) + 1,
      };
      withProvenance(record, visit.provenance ?? {});
      // what the page says of where it comes from can make it, or the pages it shares text with, copies or originals
      const claimsChanged = old !== undefined && !sameClaims(old, record);
      const groupK = Math.min(groupsMeta.k, design.k);
      const lookupK = Math.max(groupK, Math.min(k, design.k));
      passages.prefetch(visit.passages), rewrites.prefetch(visit.rewrites); // both indexes' buckets read while the tables are
      const near = await findNear(rows, stored, visit.simhash, visit.check, lookupK, visit.url);
      const shared = await recordPassages(rows, passages, recheckCopies, record, old, visit.passages, claimsChanged);
      const { matches: rewritten, same: sameRewrites } = await recordRewrites(rows, rewrites, recheckCopies, record, old, visit.rewrites, claimsChanged);
      if (isContentCopy(record, shared, rewritten)) record.contentCopy = true;
      // the trees (the tables among them) follow the record when the transaction's writes are flushed
      if (old !== undefined && old.simhash === simhash && old.site === record.site && sameRewrites && !claimsChanged) {
        // same text: the groups stay as they are
        if (old.group !== undefined) record.group = old.group;
        if (old.copySite !== undefined) record.copySite = old.copySite;
        tally.change(old, record);
        await rows.put(record);
      } else {
        await regroupAround({ rows, tally, rewrites }, record, old, near.filter((m) => m.distance <= groupK), rewritten.map((m) => m.record), groupK);
      }
      const matches = near.filter((m) => m.distance <= k);
      const nearIds = new Set(matches.map((m) => m.record.id));
      const listed = new Set([...nearIds, ...shared.map((m) => m.record.id)]);
      return { record, matches, passages: shared.filter((m) => !nearIds.has(m.record.id)), rewrites: rewritten.filter((m) => !listed.has(m.record.id)) };
    });
  }

  async get(url: string): Promise<PageRecord | undefined> {
    return this.read((rows) => rows.byUrl(url));
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
    return this.write(async (w) => {
      const found = await Promise.all([...new Set(urls)].map((url) => w.rows.byUrl(url)));
      return forget(w, found.filter((record): record is PageRecord => record !== undefined), Math.min(w.groups.k, tablesOf(w.stored).k));
    });
  }

  /** Forgets every page of a site (URL.host); returns how many. */
  async forgetSite(site: string): Promise<number> {
    return this.write(async (w) => forget(w, await w.rows.where('site', site), Math.min(w.groups.k, tablesOf(w.stored).k)));
  }

  /** How many pages are recorded: meta's `pageCount`, kept by every write (no walk over the store). */
  async count(): Promise<number> {
    return storedPageCount(this.db);
  }

  async groupsState(): Promise<GroupsMeta> {
    return this.read((_rows, tx) => readGroupsMeta(tx.objectStore('meta')));
  }

  /** The URLs of the `limit` pages seen longest ago, oldest first (then by id): the lastSeen tree. */
  async leastRecentlySeen(limit: number): Promise<string[]> {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a whole number: got ${limit}`);
    if (limit === 0) return [];
    return this.read(async (rows) => (await rows.oldestFirst(limit)).map((record) => record.url));
  }

  /**
   * Recorded pages within k bits of `simhash` whose check fingerprint confirms them
   * (confirmsNearDuplicate), nearest first, then earliest first. A null `check` (the query's is
   * unknown), or a record whose check is NO_CHECK (imported without one), cannot confirm: such a
   * match is accepted on the simhash alone. One lookup per table tree of meta's design, read in
   * this readonly transaction (lib/organise/migrate.ts).
   */
  async nearDuplicates(simhash: Fingerprint, check: Fingerprint | null, options: NearDuplicateOptions = {}): Promise<NearDuplicate[]> {
    return this.read(async (rows, tx) => {
      const stored = await this.readDesign(tx.objectStore('meta'));
      return findNear(rows, stored, simhash, check, queryK(stored, options), options.excludeUrl);
    });
  }

  /** get(url) and, if stored, its near-duplicates, passages and rewrites in one readonly transaction: what the popup's report needs. */
  async getWithNear(url: string, options: Omit<NearDuplicateOptions, 'excludeUrl'> = {}): Promise<PageMatches | undefined> {
    return this.read(async (rows, tx, passages, rewrites) => {
      // its fingerprints and buckets asked for beside its record's block, not after it: the store answers one request at a time
      rows.onUrlId(url, (id) => void Promise.all([passages.prefetchStored(id), rewrites.fingerprintsOf(id).then((f) => rewrites.prefetch(f))]).catch(() => undefined));
      const [record, stored] = await Promise.all([rows.byUrl(url), this.readDesign(tx.objectStore('meta'))]);
      if (record === undefined) return undefined;
      const [near, own, ownRewrites] = await Promise.all([
        findNear(rows, stored, fingerprintFromHex(record.simhash), checkOf(record), queryK(stored, options), record.url),
        passages.prefetchStored(record.id), // buckets on their way at once
        rewrites.fingerprintsOf(record.id).then((f) => (rewrites.prefetch(f), f)),
      ]);
      const listed = new Set(near.map((m) => m.record.id));
      const shared = own === undefined ? [] : await storedPassageMatches(passages, (id) => rows.get(id), own, record.id, listed);
      for (const m of shared) listed.add(m.record.id);
      const rewritten = ownRewrites === undefined ? [] : await rewriteMatches(rewrites, (id) => rows.get(id), ownRewrites, record.id, listed);
      return { record, near, passages: shared, rewrites: rewritten, ownLanguage: ownRewrites?.lang ?? 'und' };
    });
  }

  /** Forgets every page; returns how many there were. The table design and settings stay. */
  async clear(): Promise<number> {
    reportRewriteChanges(this.db, 'everything');
    const tx = this.db.transaction(STORES, 'readwrite');
    return within(tx, async () => {
      const meta = tx.objectStore('meta');
      const rows = await PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), meta);
      const count = await readPageCount(rows, meta);
      // meta `nextId` stays: ids are never given out twice
      await Promise.all([
        tx.objectStore('blocks').clear(),
        tx.objectStore('siteCounts').clear(),
        tx.objectStore('runs').clear(),
        tx.objectStore('passages').clear(),
        tx.objectStore('postings').clear(),
        tx.objectStore('passageMarks').clear(),
        tx.objectStore('rewrites').clear(),
        tx.objectStore('rewritePostings').clear(),
        meta.delete('passagePending'),
        writeRunIndex(meta, EMPTY_RUN_INDEX),
      ]);
      const groups = await readGroupsMeta(meta);
      await meta.put({ k: groups.k, complete: true }, 'groups');
      await meta.put(0, 'pageCount');
      await meta.put({ grouped: 0, groups: 0 }, 'groupCounts');
      return count;
    });
  }

  /**
   * Up to `limit` records in id order (the order they were first stored in), after the id `after`
   * (from the start if undefined), in one readonly transaction: for reading every page a chunk at
   * a time.
   */
  async pagesAfter(after: number | undefined, limit: number): Promise<PageRecord[]>;
  async pagesAfter(after: number | undefined, limit: number, options: { passages: true }): Promise<(PageRecord & Kept)[]>;
  async pagesAfter(after: number | undefined, limit: number, { passages: withKept = false }: { passages?: boolean } = {}): Promise<(PageRecord & Kept)[]> {
    return this.read(async (rows, _tx, passages, rewrites) => {
      const records = await rows.pagesAfter(after, limit);
      return withKept ? Promise.all(records.map((record) => withBytes(record, passages, rewrites))) : records;
    });
  }
}

/** Runs `work` over the pages of `db` in one readonly transaction (PageStore.read). */
async function readPages<T>(db: Db, work: (rows: PageRows, tx: ReadTx, passages: PassageRows, rewrites: RewriteRows) => Promise<T>): Promise<T> {
  const tx = db.transaction(STORES, 'readonly');
  const rewrites = new RewriteRows(tx.objectStore('rewrites'), tx.objectStore('rewritePostings'));
  return within(tx, async () =>
    work(await PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), tx.objectStore('meta')), tx, new PassageRows(tx.objectStore('passages'), tx.objectStore('postings'), tx.objectStore('passageMarks')), rewrites),
  );
}

/** How many pages `db` holds: meta `pageCount` (readPageCount), in a readonly transaction of its own. */
function storedPageCount(db: Db): Promise<number> {
  return readPages(db, (rows, tx) => readPageCount(rows, tx.objectStore('meta')));
}

/** meta's `groups` value: a store without one (new) has complete k = 3 groups. */
export async function readGroupsMeta(meta: { get(key: 'groups'): Promise<unknown> }): Promise<GroupsMeta> {
  const value = (await meta.get('groups')) as Partial<GroupsMeta> | undefined;
  if (value === undefined || !Number.isInteger(value.k)) return { k: DEFAULT_K, complete: true };
  return { k: value.k!, complete: value.complete === true };
}

/** A query's k: checked against the stored design's (with clamp, lowered to it). */
function queryK(stored: StoredDesign, { k = DEFAULT_K, clamp = false }: NearDuplicateOptions): number {
  const design = tablesOf(stored);
  if (clamp) k = Math.min(k, design.k);
  checkK(design, k);
  return k;
}

/**
 * A function giving a store over the shared connection (getDb), opened once per connection by
 * `open`: every query and write re-reads the table design in its own transaction, so a kept store
 * is never stale, and when the browser closed the connection (a full disk) getDb opens a new one
 * and a new store is opened over it. A failed open is not kept.
 */
function keptStore<S>(open: (db: Db) => Promise<S>): () => Promise<S> {
  let kept: { db: Db; pages: Promise<S> } | undefined;
  return async () => {
    const db = await getDb();
    if (kept === undefined || kept.db !== db) {
      const pages = open(db);
      kept = { db, pages };
      pages.catch(() => {
        if (kept?.pages === pages) kept = undefined;
      });
    }
    return kept.pages;
  };
}

/** The worker's store, the one that writes (keptStore). */
export const keptPageStore = (): (() => Promise<PageStore>) => keptStore((db) => PageStore.open(db));

/** A reading context's store (the history page), which never writes (PageStore.reader, keptStore). */
export const keptPageReader = (): (() => Promise<PageReader>) => keptStore(PageStore.reader);
