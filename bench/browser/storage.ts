// bench:browser, 2. Bytes per page, all-in (the store and, with passages, its passage index):
// navigator.storage.estimate().usage from an extension page after the import minus before it,
// divided by the page count; the IndexedDB folder's size on disk beside it. Again at the end of the
// history's measurements (after --settle-seconds: LevelDB reclaims the space of rewritten chunks
// later, if at all), and with --store-bytes every object store's values' bytes a page.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { sleep } from '../../test/e2e/harness';
import type { SyntheticHistory } from '../data/synthetic-history';
import { PASSAGES, REWRITES, SETTLE_SECONDS, STORE_BYTES, TARGETS } from './options';
import { atMost, int, log, mb, progress, results } from './output';
import { folderBytes, userDataDir } from './processes';

type Estimate = { usage: number; usageDetails?: Record<string, number> };

/** navigator.storage.estimate() in an extension page: the extension origin's usage. */
const estimate = (page: Page): Promise<Estimate> => page.evaluate(() => navigator.storage.estimate() as Promise<Estimate>);

/** Deletes the extension origin's IndexedDB database `name` from an extension page (none there is no error). */
export const deleteDatabase = (page: Page, name: string): Promise<void> =>
  page.evaluate(
    (name) =>
      new Promise<void>((done, fail) => {
        const request = indexedDB.deleteDatabase(name);
        request.onsuccess = () => done();
        request.onerror = () => fail(request.error);
      }),
    name,
  );

/** "target ≤ … B: met" (or missed) for a figure of bytes per page. */
const bytesTarget = (perPage: number): string =>
  `target ≤ ${TARGETS.bytesPerPage} B${REWRITES ? ' with passages and rewrites' : PASSAGES ? ' with passages' : ''}: ${atMost(perPage, TARGETS.bytesPerPage, (n) => `${n.toFixed(0)} B`)}`;

/** The storage before the import: the origin's usage, and the IndexedDB folder (in the profile Chromium runs with) and its size on disk. */
export interface StorageBefore {
  before: Estimate;
  profile: string | null;
  idbDir: string | null;
  diskBefore: number;
}

export async function storageBeforeImport(page: Page): Promise<StorageBefore> {
  const before = await estimate(page);
  const profile = userDataDir();
  const idbDir = profile ? join(profile, 'Default', 'IndexedDB') : null;
  const diskBefore = idbDir ? folderBytes(idbDir) : NaN;
  return { before, profile, idbDir, diskBefore };
}

/** Prints the bytes per page the import added. */
export async function storageAfterImport(page: Page, history: SyntheticHistory, { before, profile, idbDir, diskBefore }: StorageBefore): Promise<void> {
  await sleep(2000);
  const after = await estimate(page);
  const diskAfter = idbDir ? folderBytes(idbDir) : NaN;
  const perPage = (after.usage - before.usage) / history.pages;
  results['storage'] = { before, after, perPage, diskBefore, diskAfter, diskPerPage: (diskAfter - diskBefore) / history.pages };
  log('');
  log(`Storage${PASSAGES ? ', all-in: the store and its passage index' : ''}`);
  log(`  bytes per page                  ${perPage.toFixed(0)} B   (navigator.storage.estimate().usage ${mb(after.usage)} after − ${mb(before.usage)} before, ÷ ${int(history.pages)})   ${bytesTarget(perPage)}`);
  log(`  usageDetails after              ${Object.entries(after.usageDetails ?? {}).map(([k, v]) => `${k} ${mb(v)}`).join(', ')}`);
  if (idbDir) log(`  IndexedDB folder on disk        ${mb(diskAfter)} (${((diskAfter - diskBefore) / history.pages).toFixed(0)} B per page; ${idbDir.replace(profile!, '<profile>')})`);
  log(`  the records hold                URL ${history.meanUrlChars.toFixed(0)} + title ${history.meanTitleChars.toFixed(0)} characters on average, two fingerprints, dates, visits, deflated 64 pages to a block; and one entry per table and per page-field tree (url, site, lastSeen; group and copySite when set) in sorted runs (schema version 1)`);
  log(`  the file imported               ${(history.bytes / history.pages).toFixed(0)} B a line${history.passages ? `, of which the passages field ${(history.passageBytes / history.pages).toFixed(0)} B (${history.meanFingerprints.toFixed(1)} fingerprints a page, in base64)` : ' (no passages)'}`);
}

/** Prints the bytes per page again at the end of the history's measurements (the figure right after an import includes chunks that the trees' merges have deleted and LevelDB has not yet reclaimed), against `baseline` (the usage before the import; 0 on a reused profile), `launchedAt` the launch's performance.now(). */
export async function storageAtEnd(page: Page, history: SyntheticHistory, baseline: number, launchedAt: number): Promise<void> {
  if (SETTLE_SECONDS > 0) {
    progress(`Waiting ${SETTLE_SECONDS} s before measuring storage again (--settle-seconds) …`);
    await sleep(SETTLE_SECONDS * 1000);
  }
  const atEnd = await estimate(page);
  const endPerPage = (atEnd.usage - baseline) / history.pages;
  const minutesIn = (performance.now() - launchedAt) / 60_000;
  results['storageAtEnd'] = { usage: atEnd.usage, baseline, perPage: endPerPage, minutesSinceLaunch: minutesIn, settleSeconds: SETTLE_SECONDS };
  log('');
  log(`Storage at the end of these measurements (${minutesIn.toFixed(1)} min after the launch${SETTLE_SECONDS > 0 ? `, after a wait of ${SETTLE_SECONDS} s` : ''})${PASSAGES ? ', all-in: the store and its passage index' : ''}`);
  log(`  bytes per page                  ${endPerPage.toFixed(0)} B   (navigator.storage.estimate().usage ${mb(atEnd.usage)}${baseline > 0 ? ` − ${mb(baseline)} before the import` : ', the whole origin (the import was an earlier run\'s)'}, ÷ ${int(history.pages)})   ${bytesTarget(endPerPage)}`);
  if (STORE_BYTES) {
    const sizes = await page.evaluate(storeValueBytes);
    results['storeValueBytes'] = sizes;
    log(`  values by object store (--store-bytes: every value's bytes, read with a cursor in history.html, before LevelDB compresses them; keys and LevelDB's overhead not counted), a page:`);
    for (const [name, { values, bytes }] of Object.entries(sizes)) log(`    ${name.padEnd(16)} ${(bytes / history.pages).toFixed(1).padStart(7)} B   (${int(values)} values, ${mb(bytes)})`);
  }
}

/** In history.html: each object store of Doppel's database, its values' count and bytes (before LevelDB's compression). */
async function storeValueBytes(): Promise<Record<string, { values: number; bytes: number }>> {
  const db = await new Promise<IDBDatabase>((ok, fail) => {
    const open = indexedDB.open('doppel');
    open.onsuccess = () => ok(open.result);
    open.onerror = () => fail(open.error);
  });
  const out: Record<string, { values: number; bytes: number }> = {};
  for (const name of Array.from(db.objectStoreNames)) {
    out[name] = await new Promise((ok, fail) => {
      let values = 0;
      let bytes = 0;
      const cursor = db.transaction(name, 'readonly').objectStore(name).openCursor();
      cursor.onerror = () => fail(cursor.error);
      cursor.onsuccess = () => {
        const at = cursor.result;
        if (at === null) return ok({ values, bytes });
        values++;
        // byte arrays as their length, strings as theirs, numbers as 8 bytes, objects as the sum of their fields
        // (no named inner function: the bench's compiler would wrap it in a helper the page lacks)
        const stack: unknown[] = [at.value];
        while (stack.length > 0) {
          const value = stack.pop();
          if (ArrayBuffer.isView(value)) bytes += value.byteLength;
          else if (value instanceof ArrayBuffer) bytes += value.byteLength;
          else if (typeof value === 'string') bytes += value.length;
          else if (typeof value === 'number') bytes += 8;
          else if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
          else bytes += 1;
        }
        at.continue();
      };
    });
  }
  db.close();
  return out;
}
