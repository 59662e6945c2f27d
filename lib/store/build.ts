// Finishing the upgrade to schema version 7: moving every page of a database upgraded from
// version 1–6 from `pages` (a record a page, keyed by its slot) into `blocks` (lib/store/blocks.ts),
// and entering it in every tree under its new id (lib/store/page-rows.ts), in batches, each batch
// one transaction, for the reason lib/store/move.ts gives (a long upgrade transaction is aborted
// when the worker stops). The `< 7` step of schema.ts writes meta `toBlocks` {built: 0, done:
// false}; openDoppelDb awaits buildBlocks after version 5's move (move.ts), so nothing reads a
// store whose pages are half moved.
//
// The first batch clears the runs store: version 6's tables hold the pages' old ids. Each batch
// then reads the next BUILD_BATCH records of `pages` in key order, gives each the next id, writes
// their blocks and one run per tree, deletes them from `pages` and moves meta's cursor, in one
// readwrite transaction: a worker stopped mid-move loses nothing and moves no page twice, and two
// contexts moving at once take turns, as they do for version 5's move. The counts (meta
// `pageCount`, `groupCounts`, `siteCounts`) are the same pages' and stay as they are.
import { parseStoredDesign, writeDesigns } from './migrate';
import type { MoveProgress } from './move';
import { PageRows } from './page-rows';
import { siteOf } from '../url';
import { checkStorable } from './codec';
import { type BuildMeta, type Db, type PageRecord, storedRecord } from './schema';
import { EMPTY_RUN_INDEX } from './runs';
import { readRunIndex } from './table-trees';
import { isCount } from './tally';
import { within } from './within';

/** Records moved per transaction: 32 blocks. */
export const BUILD_BATCH = 2048;

/** meta `toBlocks`, read leniently: none is a database that needs no move (new, or empty when upgraded). */
export function readBuild(value: unknown): BuildMeta {
  if (value === undefined) return { built: 0, done: true };
  const build = value as Partial<BuildMeta>;
  return { built: isCount(build.built) ? build.built : 0, done: build.done === true, ...(isCount(build.after) ? { after: build.after } : {}) };
}

export interface BuildOptions {
  batchSize?: number;
  /** Called after each batch: pages moved so far, of the store's pages. */
  onProgress?: (progress: MoveProgress) => void;
  /** Stop after this many batches, even if pages are left (tests: a move cut off half way). */
  maxBatches?: number;
}

/**
 * A version 6 record as a block can hold it (lib/store/codec.ts checkStorable): the site is its
 * URL's host, a time that is not a finite number is 0, visits that are not a count are 1. null
 * for a record whose URL does not parse: no version wrote one (URLs are canonical, lib/url.ts).
 */
export function storableRecord(record: PageRecord): PageRecord | null {
  let site: string;
  try {
    site = siteOf(record.url);
  } catch {
    return null;
  }
  const page = storedRecord({ ...record, site });
  if (typeof page.title !== 'string') page.title = '';
  for (const name of ['firstSeen', 'lastSeen'] as const) if (typeof page[name] !== 'number' || !Number.isFinite(page[name])) page[name] = 0;
  if (!Number.isSafeInteger(page.visits) || page.visits < 0) page.visits = 1;
  if (page.group !== undefined && typeof page.group !== 'string') delete page.group;
  if (page.copySite !== undefined && typeof page.copySite !== 'string') delete page.copySite;
  try {
    checkStorable(page);
  } catch {
    return null;
  }
  return page;
}

/** Moves what is left of `pages` into blocks and trees (see above); returns how many pages this call moved. */
export async function buildBlocks(db: Db, { batchSize = BUILD_BATCH, onProgress, maxBatches = Infinity }: BuildOptions = {}): Promise<number> {
  if (readBuild(await db.get('meta', 'toBlocks')).done) return 0;
  let builtHere = 0;
  for (let batches = 0; batches < maxBatches; batches++) {
    const tx = db.transaction(['pages', 'blocks', 'meta', 'runs'], 'readwrite');
    const meta = tx.objectStore('meta');
    const runs = tx.objectStore('runs');
    const step = await within(tx, async (): Promise<{ count: number; progress: MoveProgress } | null> => {
      const build = readBuild(await meta.get('toBlocks'));
      if (build.done) return null;
      const pages = tx.objectStore('pages');
      const [records, design, total] = await Promise.all([
        pages.getAll(build.after === undefined ? null : IDBKeyRange.lowerBound(build.after, true), batchSize),
        meta.get('design'),
        meta.get('pageCount'),
      ]);
      if (records.length === 0 || design === undefined) {
        // (no design: no PageStore ever opened the database, so it holds no page)
        await meta.put({ built: build.built, done: true }, 'toBlocks');
        return null;
      }
      const stored = parseStoredDesign(design);
      let index = await readRunIndex(meta);
      if (build.after === undefined) {
        // the first batch: version 6's trees name the old ids
        await runs.clear();
        index = EMPTY_RUN_INDEX;
      }
      const rows = await PageRows.open(tx.objectStore('blocks'), runs, meta, index);
      const moved: number[] = [];
      const puts: Promise<void>[] = [];
      for (const record of records) {
        const page = storableRecord(record);
        if (page === null) continue; // kept in `pages`, where nothing reads it, rather than lost
        puts.push(rows.put({ ...page, id: rows.newId() }));
        moved.push(record.id);
      }
      await Promise.all(puts);
      await rows.flush(meta, (id) => writeDesigns(stored, id));
      const last = records[records.length - 1]!.id;
      const next: BuildMeta = { built: build.built + records.length, done: false, after: last };
      await Promise.all([...moved.map((id) => pages.delete(id)), meta.put(next, 'toBlocks')]);
      return { count: records.length, progress: { moved: next.built, total: isCount(total) ? total : 0 } };
    });
    if (step === null) break;
    builtHere += step.count;
    onProgress?.(step.progress);
  }
  return builtHere;
}
