// bench:browser --put-floor: the floor an import works toward. In the history page (the extension's
// origin, the same browser and run), a plain loop writes the bytes the import stored (its share of
// navigator.storage.estimate().usage, random so that nothing compresses them) into a scratch
// IndexedDB database: one value a block of 64 pages, IMPORT_BATCH pages a transaction, nothing
// read, nothing indexed. Its pages a second beside the import's is the import's share of the floor.
// The scratch database is deleted after.
import type { Page } from 'playwright-core';
import { IMPORT_BATCH } from '../../lib/store/transfer';
import { BLOCK_PAGES } from '../../lib/rows/blocks';
import { int, log, results, s } from './output';
import { deleteDatabase } from './storage';

const SCRATCH_DB = 'doppel-bench-put-floor';

/** Writes `pages` × `bytesPerPage` bytes in a plain put loop and prints its rate beside `importRate` (pages/s). */
export async function measurePutFloor(page: Page, pages: number, bytesPerPage: number, importRate: number): Promise<void> {
  const blockBytes = Math.max(1, Math.round(bytesPerPage * BLOCK_PAGES));
  const blocks = Math.ceil(pages / BLOCK_PAGES);
  const blocksPerTransaction = Math.max(1, Math.round(IMPORT_BATCH / BLOCK_PAGES));
  await deleteDatabase(page, SCRATCH_DB);
  const seconds = await page.evaluate(
    async ({ name, blockBytes, blocks, blocksPerTransaction }) => {
      // no named functions in here: the bundler's name helper does not exist in the page
      const db = await new Promise<IDBDatabase>((done, fail) => {
        const open = indexedDB.open(name, 1);
        open.onupgradeneeded = () => open.result.createObjectStore('blocks');
        open.onsuccess = () => done(open.result);
        open.onerror = () => fail(open.error);
      });
      // random bytes, drawn once (getRandomValues fills at most 65,536 bytes a call): deflated blocks do not compress either
      const pool = new Uint8Array(blockBytes * 16);
      for (let at = 0; at < pool.length; at += 65_536) crypto.getRandomValues(pool.subarray(at, Math.min(pool.length, at + 65_536)));
      const start = performance.now();
      for (let first = 0; first < blocks; first += blocksPerTransaction) {
        const tx = db.transaction('blocks', 'readwrite');
        const store = tx.objectStore('blocks');
        for (let block = first; block < Math.min(blocks, first + blocksPerTransaction); block++) {
          const from = (block % 16) * blockBytes;
          store.put(pool.slice(from, from + blockBytes), block);
        }
        await new Promise((done, fail) => {
          tx.oncomplete = () => done(undefined);
          tx.onerror = () => fail(tx.error);
          tx.onabort = () => fail(tx.error ?? new Error('aborted'));
        });
      }
      const elapsed = (performance.now() - start) / 1000;
      db.close();
      return elapsed;
    },
    { name: SCRATCH_DB, blockBytes, blocks, blocksPerTransaction },
  );
  await deleteDatabase(page, SCRATCH_DB);
  const rate = pages / seconds;
  results['putFloor'] = { pages, bytesPerPage, seconds, rate, importShare: importRate / rate };
  log('');
  log('The floor: a plain put loop (history.html, a scratch database, deleted after)');
  log(`  plain put loop                  ${int(rate)} pages/s   (${int(pages)} pages' ${bytesPerPage.toFixed(0)} B each, random, in ${int(blocks)} values of ${int(blockBytes)} B, ${int(blocksPerTransaction * BLOCK_PAGES)} pages a transaction: ${s(seconds)})`);
  log(`  the import's share of it        ${((importRate / rate) * 100).toFixed(0)}%   (the import's ${int(importRate)} pages/s)`);
}
