// Finishing the upgrade to schema version 5: moving every page of a store that versions 1–4 keyed
// by URL to the key of its URL's slot (lib/store/slots.ts), in batches, each batch one transaction.
//
// Why not in the upgrade transaction: it is as long as the store is big (29 s at 100,000 pages in
// Chromium, bench:browser on a kept version 4 profile), and Chrome stops an extension's service
// worker after 30 s without an event or an extension API call, which aborts a versionchange
// transaction whole: a big store would start its upgrade again at every wake and never finish.
// So the upgrade step (schema.ts) only renames the old store to LEGACY_PAGES and creates the new
// one, and the move happens here, after the open and before anything uses the store
// (openDoppelDb awaits it). Each batch takes the next MOVE_BATCH records of LEGACY_PAGES in URL
// order, adds them to `pages` and deletes them from LEGACY_PAGES in one readwrite transaction, and
// writes meta `move`: how many are moved, and the last URL moved. A worker stopped mid-move loses
// nothing (the batch in flight is rolled back whole), and the next open goes on after that URL.
// A batch starts after it, not at the store's start: the records before it are deleted, and
// LevelDB skips each of their deleted entries again on every read until it compacts them. Once
// the store is empty, meta `move` says so ({done: true}), and later opens read that instead of
// the emptied store (a read of it slowed the history page's first screen). Two contexts moving at
// once (the worker and the history page) take turns: their batches' transactions overlap, so they
// run one after the other, and each starts after the last URL the other moved. The emptied
// LEGACY_PAGES store stays: only an upgrade can delete a store, and an empty one costs nothing; a
// version 6 step may delete it.
import { unwrap } from 'idb';
import { type Db, LEGACY_PAGES, type MoveMeta, storedRecord } from './schema';
import { readSlots } from './slots';
import { readBuild } from './build';
import { isCount } from './tally';
import { within } from './within';

/** Records moved per transaction. */
export const MOVE_BATCH = 2000;

export interface MoveProgress {
  /** Pages moved so far, by every context (meta `move`). */
  moved: number;
  /** Pages in the store (meta `pageCount`), moved or not. */
  total: number;
}

export interface MoveOptions {
  batchSize?: number;
  /** Called after each batch. */
  onProgress?: (progress: MoveProgress) => void;
  /** Stop after this many batches, even if pages are left (tests: a move cut off half way). */
  maxBatches?: number;
}

/** Whether `db` has the store of pages keyed by URL (a database upgraded from version 1–4; maybe empty). */
export function hasLegacyPages(db: Db): boolean {
  return (unwrap(db) as IDBDatabase).objectStoreNames.contains(LEGACY_PAGES);
}

/** meta `move`, read leniently: a missing or garbled value is a move not started. */
function readMove(value: unknown): MoveMeta {
  const move = value as Partial<MoveMeta> | undefined;
  return { moved: isCount(move?.moved) ? move.moved : 0, done: move?.done === true, ...(typeof move?.after === 'string' ? { after: move.after } : {}) };
}

/**
 * Moves what is left in LEGACY_PAGES to `pages` (see above). Returns how many pages this call moved.
 * A URL already in `pages` (nothing writes there before the move ends; handled all the same) keeps
 * the record there, and its legacy record is dropped.
 */
export async function moveLegacyPages(db: Db, { batchSize = MOVE_BATCH, onProgress, maxBatches = Infinity }: MoveOptions = {}): Promise<number> {
  if (!hasLegacyPages(db) || readMove(await db.get('meta', 'move')).done) return 0;
  let movedHere = 0;
  for (let batches = 0; batches < maxBatches; batches++) {
    const tx = db.transaction([LEGACY_PAGES, 'pages', 'meta'], 'readwrite');
    const legacy = tx.objectStore(LEGACY_PAGES);
    const pages = tx.objectStore('pages');
    const meta = tx.objectStore('meta');
    const step = await within(tx, async (): Promise<{ count: number; progress: MoveProgress } | null> => {
      const move = readMove(await meta.get('move'));
      // after the last URL moved (see above)
      const batch = move.done ? [] : await legacy.getAll(move.after === undefined ? null : IDBKeyRange.lowerBound(move.after, true), batchSize);
      if (batch.length === 0) {
        if (!move.done) await meta.put({ moved: move.moved, done: true }, 'move');
        return null;
      }
      const slots = await readSlots(pages, batch.map((record) => record.url));
      const total = await meta.get('pageCount');
      const next = { moved: move.moved + batch.length, total: isCount(total) ? total : 0 };
      await Promise.all([
        ...batch.filter((record) => !slots.records.has(record.url)).map((record) => pages.add(storedRecord({ ...record, id: slots.keys.get(record.url)! }))),
        legacy.delete(IDBKeyRange.bound(batch[0]!.url, batch[batch.length - 1]!.url)),
        meta.put({ moved: next.moved, done: false, after: batch[batch.length - 1]!.url }, 'move'),
      ]);
      return { count: batch.length, progress: next };
    });
    if (step === null) break;
    movedHere += step.count;
    onProgress?.(step.progress);
  }
  return movedHere;
}

/**
 * How far the move of database `name` has got, read from meta `move` (then, once it is done, how
 * far the move into blocks has, from meta `toBlocks`) without waiting for it,
 * without upgrading anything and without creating a database that does not exist: for a page that
 * waits on the worker (the popup) to say why. null when no move is under way (none needed, done,
 * not started, or the database cannot be read).
 */
export function readMoveProgress(name: string, factory: IDBFactory = globalThis.indexedDB): Promise<MoveProgress | null> {
  return new Promise((resolve) => {
    const request = factory.open(name); // no version: the current one, never an upgrade of an existing database
    request.onupgradeneeded = () => request.transaction?.abort(); // it does not exist: create nothing
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
    request.onsuccess = () => {
      const db = request.result;
      const done = (value: MoveProgress | null): void => {
        db.close();
        resolve(value);
      };
      if (!db.objectStoreNames.contains('meta')) return done(null);
      const tx = db.transaction('meta', 'readonly');
      const move = tx.objectStore('meta').get('move');
      const build = tx.objectStore('meta').get('toBlocks');
      const total = tx.objectStore('meta').get('pageCount');
      tx.oncomplete = () => {
        const pages = isCount(total.result) ? total.result : 0;
        const moving = db.objectStoreNames.contains(LEGACY_PAGES) ? readMove(move.result) : { done: true, moved: 0 };
        if (!moving.done) return done({ moved: moving.moved, total: pages });
        // then the pages move into version 7's blocks (lib/store/build.ts)
        const building = readBuild(build.result);
        done(building.done ? null : { moved: building.built, total: pages });
      };
      tx.onerror = () => done(null);
      tx.onabort = () => done(null);
    };
  });
}
