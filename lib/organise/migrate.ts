// Moving the store to a new table design (lib/index/design.ts chooses it) without losing a page,
// and without a moment in which a query misses a near-duplicate. Each design has trees of its own
// (lib/index/table-runs.ts numbers them by design), so a migration from design D to design N
// builds N's trees beside D's, in one pass over the records in key order, a batch per readwrite
// transaction. Its state lives in meta's `design` value, written in the same transaction as each
// batch:
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
import { DESIGN_K, type StoredDesign, designFor, parseStoredDesign, sameDesign, tablesOf } from '../index/design';
import type { PageStore } from '../store/pages';
import { MERGE_AT, type RunIndex, type RunTree, mergeAll } from '../index/runs';
import type { Db, DesignMeta } from '../store/schema';
import { addToTables, tablePagesOf, tableTree } from '../index/table-runs';
import { dropTables, readRunIndex, writeRunIndex } from '../rows/run-index';
import { FIELD_TREES, PageRows, treeRange } from '../rows/page-rows';
import { runChunkWords, runChunks } from '../index/run-chunks';
import { within } from '../store/within';

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
    const runs = runChunks(tx.objectStore('runs'));
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
  const chunks = (await db.getAll('runs', treeRange(FIELD_TREES.url.tree))).map((value) => runChunkWords(value, FIELD_TREES.url));
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
      const index = await dropTables(runChunks(tx.objectStore('runs')), await readRunIndex(meta), now.migration.to);
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

/**
 * Merges each tree that holds `minRuns` runs or more into one run (the tables of meta's design,
 * and the url, site, lastSeen, group and copySite trees), a tree per readwrite transaction;
 * returns how many trees were merged. A query reads one chunk per run: after a million-page
 * import, 17 runs a table (68 reads); after this, 4 reads. Run when the store is otherwise at
 * rest (organise, after an import).
 */
export async function compactTables(store: PageStore, minRuns: number = MERGE_AT): Promise<number> {
  // a readonly look first: at every start of the worker there is usually nothing to merge, and a
  // readwrite transaction would hold up the visits meanwhile
  const look = store.db.transaction('meta', 'readonly');
  const due = await within(look, async () => {
    const [stored, index] = await Promise.all([store.readDesign(look.store), readRunIndex(look.store)]);
    return treesToCompact(index, stored, minRuns);
  });
  let merged = 0;
  for (const tree of due) {
    const tx = store.db.transaction(['meta', 'runs'], 'readwrite');
    const meta = tx.objectStore('meta');
    await within(tx, async () => {
      // looked at again: another context may have merged it, or migrated the store, since
      const [stored, index] = await Promise.all([store.readDesign(meta), readRunIndex(meta)]);
      if (!treesToCompact(index, stored, minRuns).some((spec) => spec.tree === tree.tree)) return;
      await writeRunIndex(meta, await mergeAll(runChunks(tx.objectStore('runs')), index, tree));
      merged++;
    });
  }
  return merged;
}

/** The trees with at least `minRuns` runs, and two at least (one run is merged already): the tables of the design, and the page fields'. */
function treesToCompact(index: RunIndex, design: StoredDesign, minRuns: number): RunTree[] {
  const least = Math.max(2, minRuns);
  const trees: RunTree[] = [...tablesOf(design).tables.map((_, t) => tableTree(design, t)), ...Object.values(FIELD_TREES)];
  return trees.filter((spec) => index.runs.filter((run) => run.tree === spec.tree).length >= least);
}
