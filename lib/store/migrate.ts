// Choosing the table design from the store's size, and moving the store to a new design without
// losing a page, and without a moment in which a query misses a near-duplicate.
//
// Choice (designFor). For 2^d stored pages and a table keyed on p bits, a query's lookup in that
// table returns 2^(d − p) random candidates on average (the true near-duplicates aside), so a
// design of T tables costs T lookups and about T · 2^(d − p) candidates per query. chooseDesign
// takes the fewest blocks b whose narrowest key keeps that at most 16 per table, for the current
// page count (HEADROOM = 1): the store is redesigned once it has grown past what its design is
// good for. (It once asked for twice the count, to start the pass over every record early; at a
// million pages that moved the store to 10 tables, 2.5 times the index entries of 4, each about a
// hundred bytes, and a 45-minute pass, for a query that returns 64 candidates instead of 32 at
// the top of the range: not worth it. The pass is resumable and queries stay exact during it.)
// For k = 3:
//
//   pages (count)              design  tables  key bits (tables)     per table     per query, at the top
//   0 … 1,048,576 (2^20)       b = 4      4    16 (4)                2^(d−16)      4·16 = 64
//   … 536,870,912 (2^29)       b = 5     10    25 (4), 26 (6)        2^(d−25/26)   4·16 + 6·8 = 112
//   … 34,359,738,368 (2^35)    b = 6     20    31 (4), 32 (12), 33 (4)             4·16 + 12·8 + 4·4 = 176
//
// (4 tables of 16-bit keys serve up to a million pages at 16 candidates per table. Right after the
// move a query costs 10 lookups returning about 2^(20−25) ≈ 0.03 random candidates each.)

// Migration scheme (schema versions 6 and 7). Each design has trees of its own (lib/store/table-trees.ts
// numbers them by design), so a migration from design D to design N builds N's trees beside D's,
// in one pass over the records in key order, a batch per readwrite transaction. Its state lives
// in meta's `design` value, written in the same transaction as each batch:
//
//   meta.design                        queries read    a write enters a page in
//   ────────────────────────────────   ────────────   ─────────────────────────────────────────
//   {D}                     stable      D's trees      D's trees
//   {D, adding → N, after: id}          D's trees      D's trees, and N's if id ≤ after
//   {N}                     stable      N's trees      N's trees
//
// The pass enters the records after the cursor; a page at or before it is in N's trees already, so
// a write keeps it there (a changed simhash: its old entries purged, new ones added; a forgotten
// page: purged), while a page after the cursor is left to the pass, which enters it as it then is.
// So no page is entered twice, and none is missed. The batch that finds no records left flips meta
// to {N} and deletes D's trees, in one transaction: a query reads meta and the trees in its own
// transaction, so it always reads complete trees. A migration interrupted at any point (a failed
// batch is rolled back whole) goes on from its cursor when migrateDesign is called again.
import { DEFAULT_K, type TableDesign, chooseDesign, designTables } from '../tables';
import type { PageStore } from './pages';
import type { Db, DesignMeta } from './schema';
import { type DesignId, addToTables, dropTables, readRunIndex, tablePagesOf, writeRunIndex } from './table-trees';
import { FIELD_TREES, PageRows, treeRange } from './page-rows';
import { within } from './within';

/** designFor sizes the design for this many times the current count (see above). */
export const HEADROOM = 1;
/** The k of every design Doppel chooses. */
export const DESIGN_K = DEFAULT_K;

/**
 * Past this many tables a design costs too much storage (every table is one index entry per page;
 * about 80 bytes while the URL was the key, before schema version 5): for k > 3, designFor takes no
 * more, longer-bucketed tables.
 */
export const MAX_TABLES = 20;

/**
 * The design for a store of `count` pages whose near-duplicates are wanted within k bits:
 * chooseDesign for HEADROOM · count pages at max(k, 3) (a k = 3 design answers every k below 3 as
 * well, so lowering k moves nothing). For k > 3 chooseDesign's designs need up to 165 tables at a
 * million pages; then the design with the most tables up to MAX_TABLES is taken instead, whose
 * lookups return more candidates (slower queries on a large store, at the same storage).
 */
export function designFor(count: number, k: number = DESIGN_K): DesignMeta {
  const kk = Math.max(k, DESIGN_K);
  const { design } = chooseDesign({ k: kk, expectedSize: count * HEADROOM });
  if (kk === DESIGN_K || design.tables.length <= MAX_TABLES) return { k: design.k, b: design.b };
  let b = kk + 1;
  while (b + 1 < design.b && designTables({ k: kk, b: b + 1 }).tables.length <= MAX_TABLES) b++;
  return { k: kk, b };
}

/** A migration in progress, as stored in meta's `design` value (alongside the readable {k, b}). */
export type MigrationState = { phase: 'adding'; to: DesignMeta; after?: number };

/** meta's `design` value: the design whose plain keys queries read, and a migration under way. */
export interface StoredDesign extends DesignMeta {
  migration?: MigrationState;
}

const sameDesign = (x: DesignMeta, y: DesignMeta): boolean => x.k === y.k && x.b === y.b;
const isInt = (x: unknown): x is number => Number.isInteger(x);
const isDesign = (x: unknown): x is DesignMeta =>
  typeof x === 'object' && x !== null && isInt((x as DesignMeta).k) && isInt((x as DesignMeta).b);

/** Parses meta's design value; throws on an unreadable one. */
export function parseStoredDesign(value: unknown): StoredDesign {
  if (!isDesign(value)) throw new Error(`the stored table design is unreadable: ${JSON.stringify(value)}`);
  const out: StoredDesign = { k: value.k, b: value.b };
  const m = (value as StoredDesign).migration;
  if (m === undefined) return out;
  // (a cursor that is not a number, a URL written before schema version 5, starts the pass over)
  const after = typeof m.after === 'number' ? { after: m.after } : {};
  // (version 5's `removing` phase is cleared by the upgrade to version 6: schema.ts)
  if (m.phase === 'adding' && isDesign(m.to)) out.migration = { phase: 'adding', to: { k: m.to.k, b: m.to.b }, ...after };
  else throw new Error(`the stored table design's migration is unreadable: ${JSON.stringify(value)}`);
  return out;
}

const designs = new Map<string, TableDesign>();
/** designTables, memoised per {k, b}. */
export function tablesOf(meta: DesignMeta): TableDesign {
  const id = `${meta.k}/${meta.b}`;
  let design = designs.get(id);
  if (design === undefined) {
    design = designTables({ k: meta.k, b: meta.b });
    designs.set(id, design);
  }
  return design;
}

/** The designs whose trees a write to page `id` must keep while meta is `stored` (the table above). */
export function writeDesigns(stored: StoredDesign, id: number): DesignId[] {
  const m = stored.migration;
  if (m !== undefined && m.after !== undefined && id <= m.after) return [stored, m.to];
  return [stored];
}

export interface MigrationProgress {
  phase: 'adding';
  from: DesignMeta;
  to: DesignMeta;
  /** Records entered in the new design's trees so far (by this call and by earlier interrupted ones). */
  done: number;
  /** Records in the store when the pass started (or resumed). */
  total: number;
}

export interface MigrateOptions {
  /** Records per readwrite transaction (default 1000). */
  batchSize?: number;
  /**
   * Called after each committed batch. Throwing (or rejecting) stops the migration there: the
   * store stays consistent and queryable, and migrateDesign resumes it.
   */
  onProgress?: (progress: MigrationProgress) => void | Promise<void>;
}

export interface MigrationResult {
  from: DesignMeta;
  to: DesignMeta;
  /** Records entered in the new trees by this call. */
  rewritten: number;
  /** False if the store already used `target` with no migration under way. */
  migrated: boolean;
}

async function readStored(db: Db): Promise<StoredDesign> {
  const value = await db.get('meta', 'design');
  if (value === undefined) throw new Error('the store has no table design: open it with PageStore.open first');
  return parseStoredDesign(value);
}

/**
 * One batch of the pass in one readwrite transaction over pages, meta and runs: the next
 * `batchSize` records after the cursor are entered in the new design's trees, and the cursor moves
 * to the last of them; when none are left, meta flips to the new design and the old design's trees
 * are deleted, in the same transaction. Returns the records entered, or null if no migration is
 * under way (another context finished it).
 */
async function step(db: Db, batchSize: number): Promise<{ rewritten: number; ended: boolean } | null> {
  const tx = db.transaction(['blocks', 'meta', 'runs'], 'readwrite');
  return within(tx, async () => {
    const meta = tx.objectStore('meta');
    const runs = tx.objectStore('runs');
    const stored = parseStoredDesign(await meta.get('design'));
    const m = stored.migration;
    if (m === undefined) return null;
    const rows = await PageRows.open(tx.objectStore('blocks'), runs, meta);
    const runIndex = rows.runIndex;
    const records = await rows.pagesAfter(m.after, batchSize);
    const pages = tablePagesOf(records);
    let index = await addToTables(runs, runIndex, m.to, pages);
    const ended = records.length === 0;
    let next: StoredDesign;
    if (ended) {
      index = await dropTables(runs, index, stored);
      next = { k: m.to.k, b: m.to.b };
    } else {
      next = { k: stored.k, b: stored.b, migration: { ...m, after: records[records.length - 1]!.id } };
    }
    await Promise.all([writeRunIndex(meta, index), meta.put(next, 'design')]);
    return { rewritten: pages.length, ended };
  });
}

/** Records at or before the cursor: those the pass has already been through (a walk over their ids in the url tree). */
async function countThrough(db: Db, after: number | undefined): Promise<number> {
  if (after === undefined) return 0;
  const chunks = await db.getAll('runs', treeRange(FIELD_TREES.url.tree));
  let count = 0;
  for (const chunk of chunks) for (let e = 1; e < chunk.length; e += FIELD_TREES.url.stride) if (chunk[e]! <= after) count++;
  return count;
}

/**
 * Moves the store to the `target` design: builds its trees from every record (see the scheme
 * above), batchSize records per readwrite transaction, then leaves meta at {target}. Queries find
 * every near-duplicate throughout, and after an interruption at any point (an error, onProgress
 * throwing, the context being killed); calling migrateDesign again finishes the migration. A
 * migration already under way towards another design is redirected to `target`: its partial trees
 * are deleted and the pass starts over. Updates `store` to the design it ends with.
 */
export async function migrateDesign(store: PageStore, target: DesignMeta, { batchSize = 1000, onProgress }: MigrateOptions = {}): Promise<MigrationResult> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer: got ${batchSize}`);
  const to = { k: target.k, b: target.b };
  tablesOf(to); // a usable design, or a RangeError before anything is written
  const db = store.db;
  let rewritten = 0;
  let ran = false;
  const from: DesignMeta = await readStored(db).then((stored) => ({ k: stored.k, b: stored.b }));

  for (;;) {
    const stored = await readStored(db);
    const m = stored.migration;
    if (m === undefined && sameDesign(stored, to)) {
      await store.refresh();
      return { from, to, rewritten, migrated: ran };
    }
    if (m === undefined || !sameDesign(m.to, to)) {
      // start, or redirect: the trees of a migration towards another design are deleted
      if (!(await startMigration(db, stored, { k: stored.k, b: stored.b, migration: { phase: 'adding', to } }))) continue;
    }
    await store.refresh();
    ran = true;

    const current = await readStored(db);
    let done = await countThrough(db, current.migration?.after);
    const total = await store.count();
    const phaseFrom = { k: current.k, b: current.b };
    for (;;) {
      const result = await step(db, batchSize);
      if (result === null) break; // another migrateDesign finished it: look again
      rewritten += result.rewritten;
      if (result.ended) await store.refresh();
      done = result.ended ? total : done + batchSize;
      await onProgress?.({ phase: 'adding', from: phaseFrom, to, done: Math.min(done, total), total });
      if (result.ended) break;
    }
  }
}

/**
 * Puts `next` in meta if meta still holds `expected` (compare-and-set in one transaction), and
 * deletes the trees of the migration `expected` was under way to, if any (sharing none with `next`).
 */
async function startMigration(db: Db, expected: StoredDesign, next: StoredDesign): Promise<boolean> {
  const tx = db.transaction(['meta', 'runs'], 'readwrite');
  return within(tx, async () => {
    const meta = tx.objectStore('meta');
    const now = parseStoredDesign(await meta.get('design'));
    if (JSON.stringify(now) !== JSON.stringify(expected)) return false;
    if (now.migration !== undefined) {
      const index = await dropTables(tx.objectStore('runs'), await readRunIndex(meta), now.migration.to);
      await writeRunIndex(meta, index);
    }
    await meta.put(next, 'design');
    return true;
  });
}

/**
 * Moves the store to the design its size calls for, if it needs it; a no-op otherwise. Safe to
 * call at any time and from any context: an interrupted migration is resumed. Returns null when
 * nothing was to be done.
 */
export async function keepDesignFitted(store: PageStore, options: MigrateOptions & { k?: number } = {}): Promise<MigrationResult | null> {
  const k = options.k ?? DESIGN_K;
  if (!(await store.needsMigration(k))) return null;
  return migrateDesign(store, designFor(await store.count(), k), options);
}
