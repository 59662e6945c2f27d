// Finishing the upgrade to schema version 6: entering every page of a database upgraded from
// version 1–5 in the tables' sorted runs (lib/store/table-trees.ts), in batches, each batch one
// transaction, for the reason lib/store/move.ts gives (a long upgrade transaction is aborted when
// the worker stops). The `< 6` step of schema.ts writes meta `tables` {built: 0, done: false};
// openDoppelDb awaits buildTables after the move, so nothing queries tables that lack pages.
// Each batch reads the next BUILD_BATCH records after meta's cursor, adds one run a table, and
// moves the cursor, in one readwrite transaction: a worker stopped mid-build loses nothing and
// enters no page twice, and two contexts building at once take turns, as they do for the move.
import { parseStoredDesign } from './migrate';
import type { MoveProgress } from './move';
import type { BuildMeta, Db } from './schema';
import { addToTables, readRunIndex, tablePagesOf, writeRunIndex } from './table-trees';
import { isCount } from './tally';
import { within } from './within';

/** Records entered per transaction. */
export const BUILD_BATCH = 2000;

/** meta `tables`, read leniently: none is a database that needs no build (new, or empty when upgraded). */
export function readBuild(value: unknown): BuildMeta {
  if (value === undefined) return { built: 0, done: true };
  const build = value as Partial<BuildMeta>;
  return { built: isCount(build.built) ? build.built : 0, done: build.done === true, ...(isCount(build.after) ? { after: build.after } : {}) };
}

export interface BuildOptions {
  batchSize?: number;
  /** Called after each batch: pages built so far, of the store's pages. */
  onProgress?: (progress: MoveProgress) => void;
  /** Stop after this many batches, even if pages are left (tests: a build cut off half way). */
  maxBatches?: number;
}

/** Builds what is left of the tables (see above); returns how many pages this call entered. */
export async function buildTables(db: Db, { batchSize = BUILD_BATCH, onProgress, maxBatches = Infinity }: BuildOptions = {}): Promise<number> {
  if (readBuild(await db.get('meta', 'tables')).done) return 0;
  let builtHere = 0;
  for (let batches = 0; batches < maxBatches; batches++) {
    const tx = db.transaction(['pages', 'meta', 'runs'], 'readwrite');
    const meta = tx.objectStore('meta');
    const step = await within(tx, async (): Promise<{ count: number; progress: MoveProgress } | null> => {
      const build = readBuild(await meta.get('tables'));
      if (build.done) return null;
      const [records, design, runIndex, total] = await Promise.all([
        tx.objectStore('pages').getAll(build.after === undefined ? null : IDBKeyRange.lowerBound(build.after, true), batchSize),
        meta.get('design'),
        readRunIndex(meta),
        meta.get('pageCount'),
      ]);
      if (records.length === 0 || design === undefined) {
        // (no design: no PageStore ever opened the database, so it holds no page)
        await meta.put({ built: build.built, done: true }, 'tables');
        return null;
      }
      const stored = parseStoredDesign(design);
      const index = await addToTables(tx.objectStore('runs'), runIndex, stored, tablePagesOf(records));
      const next: BuildMeta = { built: build.built + records.length, done: false, after: records[records.length - 1]!.id };
      await Promise.all([writeRunIndex(meta, index), meta.put(next, 'tables')]);
      return { count: records.length, progress: { moved: next.built, total: isCount(total) ? total : 0 } };
    });
    if (step === null) break;
    builtHere += step.count;
    onProgress?.(step.progress);
  }
  return builtHere;
}
