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

// Migration scheme. The `keys` index is ONE multiEntry index of strings; the plain entries
// `${table}:${hex}` (schema.ts recordKeys) belong to the design in meta. A migration from design
// D to design N goes through two passes over the records, in key order, a batch of whole records
// per readwrite transaction; its state (phase and cursor) lives in meta's `design` value, written
// in the same transaction as each batch, so it always describes the records exactly:
//
//   meta.design                       a record's keys          a query looks up       writes use
//   ───────────────────────────────   ──────────────────────   ────────────────────   ──────────────────
//   {D}                stable         0:abcd 1:… (D)           D plain                D plain
//   {D, adding → N, after: key}       D plain                  D plain                D plain + N tagged
//     pass 1: every record gets        + N tagged "k3b5/0:…"   (every record has them)
//   {N, removing ← D, after: key}     N tagged (not yet done)   N plain + N tagged     N plain
//     pass 2: every record gets        or N plain (done)      (every record has one)
//   {N}                stable         N plain                  N plain                N plain
//
// A tagged entry is `k${k}b${b}/` + the plain entry ("k3b5/3:1a2b3c4"): it can never equal a plain
// entry (those start with a digit), nor one of another design. Invariants: while adding, every
// record carries D's plain keys (pass 1 only adds to them); when meta flips to removing, every
// record carries N's tagged keys (pass 1 gave them to every record at or before the cursor, and
// every write since the phase began wrote them); while removing, every record carries N's tagged or
// N's plain keys. A query reads meta in its own transaction, so it always looks up what the
// records of that moment carry: a migration interrupted at any point (a failed batch is rolled
// back whole) leaves a store where every query finds every near-duplicate, and migrateDesign
// continues from the cursor. Writers (PageStore.recordVisit, updateMany) also read meta in their
// transaction and write the keys of the current phase, so pages recorded during a migration —
// through any PageStore over the database — are not lost either.
import { type Fingerprint, fingerprintFromHex } from '../fingerprint';
import { DEFAULT_K, type TableDesign, chooseDesign, designTables } from '../tables';
import type { PageStore } from './pages';
import { type Db, type DesignMeta, type PageRecord, recordKeys } from './schema';

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
export type MigrationState =
  | { phase: 'adding'; to: DesignMeta; after?: number }
  | { phase: 'removing'; from: DesignMeta; after?: number };

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
  if (m.phase === 'adding' && isDesign(m.to)) out.migration = { phase: 'adding', to: { k: m.to.k, b: m.to.b }, ...after };
  else if (m.phase === 'removing' && isDesign(m.from)) out.migration = { phase: 'removing', from: { k: m.from.k, b: m.from.b }, ...after };
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

/** The prefix of a design's tagged entries, e.g. "k3b5/". */
export function designTag(design: DesignMeta): string {
  return `k${design.k}b${design.b}/`;
}

/** A design's tagged entries for fp: its plain entries, each prefixed with designTag. */
export function taggedKeys(design: DesignMeta, fp: Fingerprint): string[] {
  const tag = designTag(design);
  return recordKeys(tablesOf(design), fp).map((entry) => tag + entry);
}

/** The entries a record with simhash fp must carry while meta is `stored` (the "writes use" column). */
export function writeKeys(stored: StoredDesign, fp: Fingerprint): string[] {
  const plain = recordKeys(tablesOf(stored), fp);
  if (stored.migration?.phase === 'adding') return [...plain, ...taggedKeys(stored.migration.to, fp)];
  return plain;
}

/** The entries a query for fp looks up while meta is `stored` (the "a query looks up" column). */
export function queryKeys(stored: StoredDesign, fp: Fingerprint): string[] {
  const plain = recordKeys(tablesOf(stored), fp);
  if (stored.migration?.phase === 'removing') return [...plain, ...taggedKeys(stored, fp)];
  return plain;
}

export interface MigrationProgress {
  phase: 'adding' | 'removing';
  from: DesignMeta;
  to: DesignMeta;
  /** Records rewritten in this phase so far (by this call and by earlier interrupted ones). */
  done: number;
  /** Records in the store when the phase's pass started (or resumed). */
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
  /** Records rewritten by this call (both passes). */
  rewritten: number;
  /** False if the store already used `target` with no migration under way. */
  migrated: boolean;
}

async function readStored(db: Db): Promise<StoredDesign> {
  const value = await db.get('meta', 'design');
  if (value === undefined) throw new Error('the store has no table design: open it with PageStore.open first');
  return parseStoredDesign(value);
}

/** Runs body in tx; aborts tx if body throws; resolves once tx has committed. */
async function inTx<T>(tx: { readonly done: Promise<void>; abort(): void }, body: () => Promise<T>): Promise<T> {
  tx.done.catch(() => undefined);
  try {
    const result = await body();
    await tx.done;
    return result;
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // already finished
    }
    throw error;
  }
}

/**
 * One batch of the current phase's pass in one readwrite transaction over pages and meta: the
 * next `batchSize` records after the cursor get writeKeys of the phase, and the cursor moves to
 * the last of them; when none are left the phase ends (adding → removing → stable) in the same
 * transaction. Returns the records rewritten, or null if meta is not in `phase` any more.
 */
async function step(db: Db, phase: 'adding' | 'removing', batchSize: number): Promise<{ rewritten: number; ended: boolean } | null> {
  const tx = db.transaction(['pages', 'meta'], 'readwrite');
  return inTx(tx, async () => {
    const meta = tx.objectStore('meta');
    const pages = tx.objectStore('pages');
    const stored = parseStoredDesign(await meta.get('design'));
    const m = stored.migration;
    if (m === undefined || m.phase !== phase) return null;
    const records = await pages.getAll(m.after === undefined ? undefined : IDBKeyRange.lowerBound(m.after, true), batchSize);
    const puts: Promise<unknown>[] = [];
    for (const record of records) {
      let fp: Fingerprint;
      try {
        fp = fingerprintFromHex(record.simhash);
      } catch {
        continue; // an unreadable record matches nothing, whatever its keys: left as it is
      }
      const keys = writeKeys(stored, fp);
      if (keys.length === record.keys.length && keys.every((key, i) => key === record.keys[i])) continue;
      puts.push(pages.put({ ...record, keys } satisfies PageRecord));
    }
    await Promise.all(puts);
    let next: StoredDesign;
    const ended = records.length < batchSize;
    if (!ended) {
      next = { k: stored.k, b: stored.b, migration: { ...m, after: records[records.length - 1]!.id } };
    } else if (m.phase === 'adding') {
      next = { k: m.to.k, b: m.to.b, migration: { phase: 'removing', from: { k: stored.k, b: stored.b } } };
    } else {
      next = { k: stored.k, b: stored.b };
    }
    await meta.put(next, 'design');
    return { rewritten: puts.length, ended };
  });
}

/** Records at or before the cursor: those the phase's pass has already been through. */
async function countThrough(db: Db, after: number | undefined): Promise<number> {
  return after === undefined ? 0 : db.count('pages', IDBKeyRange.upperBound(after));
}

/**
 * Moves the store to the `target` design: rewrites every record's `keys` for it in two passes
 * (see the scheme above), batchSize whole records per readwrite transaction, then leaves meta at
 * {target}. Queries find every near-duplicate throughout, and after an interruption at any point
 * (an error, onProgress throwing, the context being killed); calling migrateDesign again finishes
 * the migration. A migration already under way is finished first: one still adding towards
 * another design is redirected to `target` (its pass restarts), one already removing completes
 * before the move to `target` begins. Updates `store` to the design it ends with.
 */
export async function migrateDesign(store: PageStore, target: DesignMeta, { batchSize = 1000, onProgress }: MigrateOptions = {}): Promise<MigrationResult> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer: got ${batchSize}`);
  const to = { k: target.k, b: target.b };
  tablesOf(to); // a usable design, or a RangeError before anything is written
  const db = store.db;
  let rewritten = 0;
  let ran = false;
  let from: DesignMeta | undefined;

  for (;;) {
    const stored = await readStored(db);
    const m = stored.migration;
    from ??= m?.phase === 'removing' ? m.from : { k: stored.k, b: stored.b };
    let phase: 'adding' | 'removing';
    if (m === undefined) {
      if (sameDesign(stored, to)) {
        await store.refresh();
        return { from, to, rewritten, migrated: ran };
      }
      phase = 'adding';
      const begin: StoredDesign = { k: stored.k, b: stored.b, migration: { phase: 'adding', to } };
      if (!(await startPhase(db, stored, begin))) continue;
    } else if (m.phase === 'adding' && !sameDesign(m.to, to)) {
      // redirect: the records' tagged keys for m.to are junk that the restarted pass replaces
      const begin: StoredDesign = { k: stored.k, b: stored.b, migration: { phase: 'adding', to } };
      if (!(await startPhase(db, stored, begin))) continue;
      phase = 'adding';
    } else {
      phase = m.phase;
    }
    await store.refresh();
    ran = true;

    // the pass of `phase`, from the cursor
    const current = await readStored(db);
    const cursor = current.migration?.after;
    let done = await countThrough(db, cursor);
    const total = await store.count();
    const phaseFrom = phase === 'adding' ? { k: current.k, b: current.b } : (current.migration as { from: DesignMeta }).from;
    const phaseTo = phase === 'adding' ? (current.migration as { to: DesignMeta }).to : { k: current.k, b: current.b };
    for (;;) {
      const result = await step(db, phase, batchSize);
      if (result === null) break; // another migrateDesign moved meta on: look again
      rewritten += result.rewritten;
      if (result.ended) {
        await store.refresh();
        done = total;
      } else {
        done += batchSize;
      }
      await onProgress?.({ phase, from: phaseFrom, to: phaseTo, done: Math.min(done, total), total });
      if (result.ended) break;
    }
  }
}

/** Puts `next` in meta if meta still holds `expected` (compare-and-set in one transaction). */
async function startPhase(db: Db, expected: StoredDesign, next: StoredDesign): Promise<boolean> {
  const tx = db.transaction('meta', 'readwrite');
  return inTx(tx, async () => {
    const now = parseStoredDesign(await tx.store.get('design'));
    if (JSON.stringify(now) !== JSON.stringify(expected)) return false;
    await tx.store.put(next, 'design');
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
