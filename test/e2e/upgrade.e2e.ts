// The upgrades from schema versions 4 and 5 in Chromium, with the worker stopped in the middle.
//
// A version 4 database (pages keyed by URL: lib/store/schema.ts before 8fc384a) of 30,000 pages
// is written from an extension page while the worker is stopped; then the worker is woken, and
// stopped again once it has moved some of the pages to their new keys (lib/store/move.ts), as
// Chrome stops an idle worker. At that moment every page must be in exactly one of the two
// stores; at the next wake (a popup opened) the popup must say that the store is being updated,
// then show its report; the move must finish by itself, and the store must be whole
// (test/e2e/consistency.ts) with every page once, fields unchanged, and queries answering.
//
// A version 5 database (pages keyed by `id`, the tables in a `keys` index) of 30,000 pages goes
// through the building of version 6's tables instead (lib/store/build.ts): the worker is stopped
// once it has built some batches. At that moment the trees must hold exactly the entries of the
// pages up to meta `tables`' cursor; at the next wake the build must go on from there and end
// with every page's entries once. Then the worker drops the records' old table keys
// (PageStore.dropLegacyKeys), until their `keys` index is empty and each record is as version 5
// wrote it but for its keys.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Fingerprint, fingerprintFromHex, fingerprintToHex } from '../../lib/fingerprint';
import { randomFingerprints } from '../../lib/random';
import { BUILD_BATCH } from '../../lib/store/build';
import { parseStoredDesign } from '../../lib/store/migrate';
import { DB_VERSION, LEGACY_PAGES } from '../../lib/store/schema';
import { slotBase } from '../../lib/store/slots';
import { readRunIndexValue } from '../../lib/store/table-trees';
import { toBuckets } from '../../lib/store/tally';
import { designTables } from '../../lib/tables';
import { countsOfRecords } from '../kept-counts';
import { tableProblems, tablesOfRecords, tablesOfRuns } from '../kept-tables';
import { legacyRecordKeys } from '../legacy-keys';
import { dumpStore, storeProblems } from './consistency';
import { type ExtensionSession, launchWithExtension, pollFor, popupUrl, sleep, stopServiceWorker } from './harness';

const EXTENSION_DIR = process.env.DOPPEL_EXTENSION_DIR ?? '.output/chrome-mv3';
const PAGES = 30_000;

const design = designTables({ k: 3, b: 4 });
const records = randomFingerprints(0x4e2en, PAGES).map((simhash, i) => {
  const site = `site${i % 40}.example`;
  const hex = fingerprintToHex(simhash);
  return {
    url: `https://${site}/articles/${i}`,
    title: `Article ${i} on ${site}`,
    site,
    simhash: hex,
    check: '00000000ffffffff',
    firstSeen: 1_700_000_000_000 + i,
    lastSeen: 1_700_000_000_000 + i,
    visits: 1 + (i % 3),
    keys: legacyRecordKeys(design, simhash),
  };
});
const counted = countsOfRecords(records);
const meta = { design: { k: 3, b: 4 }, groups: { k: 3, complete: true }, pageCount: PAGES, groupCounts: counted.groupCounts };
const siteCounts = toBuckets(counted.siteCounts);

/** Writes `records` as Doppel's version 4 or 5 wrote them, in database 'doppel' (deleted first). */
function writeOldVersion(page: Page, version: 4 | 5, records: object[]): Promise<void> {
  return page.evaluate(
    ({ version, records, meta, siteCounts }) =>
      new Promise<void>((resolve, reject) => {
        const deleting = indexedDB.deleteDatabase('doppel');
        deleting.onerror = () => reject(deleting.error);
        deleting.onblocked = () => reject(new Error('the worker still holds the database open'));
        deleting.onsuccess = () => {
          const request = indexedDB.open('doppel', version);
          request.onupgradeneeded = () => {
            const db = request.result;
            const pages = db.createObjectStore('pages', { keyPath: version === 5 ? 'id' : 'url' });
            pages.createIndex('keys', 'keys', { multiEntry: true });
            pages.createIndex('site', 'site');
            pages.createIndex('lastSeen', 'lastSeen');
            pages.createIndex('group', 'group');
            pages.createIndex('copySite', 'copySite');
            const metaStore = db.createObjectStore('meta');
            const counts = db.createObjectStore('siteCounts', { keyPath: 'bucket' });
            for (const record of records) pages.put(record);
            for (const [key, value] of Object.entries(meta)) metaStore.put(value, key);
            for (const bucket of siteCounts) counts.put(bucket);
          };
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            request.result.close();
            resolve();
          };
        };
      }),
    { version, records, meta, siteCounts },
  );
}

interface MoveState {
  version: number | null;
  move?: { moved: number; done: boolean };
  /** URLs in `pages` and in the legacy store. */
  moved: string[];
  left: string[];
}

/** The database's version (read without opening it), and, at the current version, meta `move` and the URLs in each store. */
function moveState(page: Page, withUrls: boolean): Promise<MoveState> {
  return page.evaluate(async ({ legacy, withUrls, current }) => {
    const version = (await indexedDB.databases()).find((d) => d.name === 'doppel')?.version ?? null;
    if (version !== current) return { version, moved: [], left: [] };
    return new Promise<MoveState>((resolve, reject) => {
      const request = indexedDB.open('doppel');
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const db = request.result;
        const hasLegacy = db.objectStoreNames.contains(legacy); // a new database has none
        const tx = db.transaction(hasLegacy ? ['meta', 'pages', legacy] : ['meta', 'pages'], 'readonly');
        const move = tx.objectStore('meta').get('move');
        const moved = withUrls ? tx.objectStore('pages').getAll() : null;
        const left = withUrls && hasLegacy ? tx.objectStore(legacy).getAllKeys() : null;
        tx.oncomplete = () => {
          db.close();
          resolve({
            version,
            move: move.result as MoveState['move'],
            moved: ((moved?.result ?? []) as { url: string }[]).map((r) => r.url),
            left: (left?.result ?? []) as string[],
          });
        };
        tx.onerror = () => reject(tx.error);
      };
    });
  }, { legacy: LEGACY_PAGES, withUrls, current: DB_VERSION });
}

const send = (page: Page, message: unknown): Promise<{ ok: boolean; value?: { state: string; matches: unknown[] }; error?: string } | undefined> =>
  page.evaluate((m) => (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<never> } } }).chrome.runtime.sendMessage(m), message);

/**
 * Launches Chromium with the extension for the describe block it is called in, on an extension
 * page that opens no database of its own (the reader document answers only the worker).
 */
function onExtensionPage(): { ext: ExtensionSession; page: Page } {
  const session = {} as { ext: ExtensionSession; page: Page };
  beforeAll(async () => {
    session.ext = await launchWithExtension(EXTENSION_DIR);
    session.page = await session.ext.ctx.newPage();
    await session.page.goto(`chrome-extension://${session.ext.extensionId}/reader.html`);
  });
  afterAll(async () => {
    await session.ext?.close();
  });
  return session;
}

describe('upgrade from version 4, the worker stopped mid-move', () => {
  const session = onExtensionPage();

  test(`${PAGES.toLocaleString('en')} pages: none lost or doubled at the stop, the move resumes at the next wake, the store is whole`, async () => {
    const { ext, page } = session;
    await pollFor(async () => (await moveState(page, false)).version, DB_VERSION); // the worker created a new database at start-up
    await stopServiceWorker(ext.ctx, ext.extensionId); // its connection closes with it
    await writeOldVersion(page, 4, records);
    expect((await moveState(page, false)).version).toBe(4);

    // wake the worker (settings/get does not touch the store; the worker opens it at start-up)
    expect((await send(page, { type: 'settings/get', payload: {} }))?.ok).toBe(true);
    const deadline = Date.now() + 60_000;
    let state = await moveState(page, false);
    while (!(state.move && state.move.moved >= 2000) && Date.now() < deadline) {
      await sleep(50);
      state = await moveState(page, false);
    }
    expect(state.version).toBe(DB_VERSION);
    expect(state.move?.done).toBe(false);
    await stopServiceWorker(ext.ctx, ext.extensionId);

    const atStop = await moveState(page, true);
    expect(atStop.move?.done).toBe(false); // stopped mid-move
    expect(atStop.move?.moved).toBe(atStop.moved.length);
    expect(atStop.moved.length).toBeGreaterThan(0);
    expect(atStop.left.length).toBeGreaterThan(0);
    expect([...atStop.moved, ...atStop.left].sort()).toEqual(records.map((r) => r.url).sort()); // each page once
    const notMoved = atStop.left[atStop.left.length - 1]!;

    // The next wake: the popup for a page still in the old store. Its report waits for the move;
    // meanwhile the popup says what is happening, then shows the report.
    const popup = await ext.ctx.newPage();
    await popup.goto(popupUrl(ext.extensionId, notMoved));
    await popup.waitForSelector('#report[data-move]', { timeout: 60_000 });
    expect(await popup.textContent('#status-text')).toBe('Updating how your history is stored…');
    expect(await popup.textContent('#status-detail')).toMatch(/^Once, after an update of Doppel: \d+% of 30,000 pages done\. The report appears when it ends/);
    await popup.waitForSelector('#report[data-state="ready"]', { timeout: 120_000 });
    expect(await popup.getAttribute('#report', 'data-move')).toBeNull();
    expect(await popup.textContent('#page-title')).toBe(records.find((r) => r.url === notMoved)!.title);
    const reply = await send(page, { type: 'report/get', payload: { url: notMoved } });
    expect(reply?.ok, JSON.stringify(reply)).toBe(true);
    expect(reply?.value?.state).toBe('recorded');

    const after = await moveState(page, true);
    expect(after.move).toEqual({ moved: PAGES, done: true });
    expect(after.left).toEqual([]);
    const dump = await dumpStore(page);
    expect(storeProblems(dump)).toEqual([]);
    const byUrl = (list: object[]) => [...list].sort((a, b) => ((a as { url: string }).url < (b as { url: string }).url ? -1 : 1));
    // every page once, its fields unchanged (its old table keys dropped: version 6 keeps the tables in runs)
    expect(byUrl(dump.records.map(({ id: _, ...rest }) => rest))).toEqual(byUrl(records.map(({ keys: _, ...rest }) => rest)));
  });
});

interface BuildState {
  version: number | null;
  /** meta `tables`: pages built so far, and the last page id built. */
  tables?: { built: number; done: boolean; after?: number };
}

/** The database's version (read without opening it), and, at the current version, meta `tables`. */
function buildState(page: Page): Promise<BuildState> {
  return page.evaluate(async (current) => {
    const version = (await indexedDB.databases()).find((d) => d.name === 'doppel')?.version ?? null;
    if (version !== current) return { version };
    return new Promise<BuildState>((resolve, reject) => {
      const request = indexedDB.open('doppel');
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const db = request.result;
        const tx = db.transaction('meta', 'readonly');
        const tables = tx.objectStore('meta').get('tables');
        tx.oncomplete = () => {
          db.close();
          resolve({ version, tables: tables.result as BuildState['tables'] });
        };
        tx.onerror = () => reject(tx.error);
      };
    });
  }, DB_VERSION);
}

/** Entries in the `keys` index of database 'doppel' (versions 1–5's table keys, left in an upgraded store). */
function keysIndexEntries(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const request = indexedDB.open('doppel');
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const db = request.result;
          const tx = db.transaction('pages', 'readonly');
          const count = tx.objectStore('pages').index('keys').count();
          tx.oncomplete = () => {
            db.close();
            resolve(count.result);
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}

describe('upgrade from version 5, the worker stopped mid-build', () => {
  const session = onExtensionPage();
  // The build enters pages in id order. The page of the highest id (built last, after the stop) is
  // made a near-duplicate (1 bit apart) of the page of the lowest (built first, before it): a query
  // must find one from the other through the tables built in two sessions.
  const v5Records = records.map((record) => ({ id: slotBase(record.url), ...record })).sort((a, b) => a.id - b.id);
  const first = v5Records[0]!;
  const last = v5Records[PAGES - 1]!;
  const nearSimhash = fingerprintFromHex(first.simhash) ^ 1n;
  Object.assign(last, { simhash: fingerprintToHex(nearSimhash as Fingerprint), keys: legacyRecordKeys(design, nearSimhash as Fingerprint) });
  const stored = parseStoredDesign(meta.design);

  test(`${PAGES.toLocaleString('en')} pages: the trees hold exactly the pages built at the stop, the build resumes at the next wake, the store is whole`, async () => {
    const { ext, page } = session;
    expect(new Set(v5Records.map((r) => r.id)).size).toBe(PAGES); // no two URLs share a slot: each record keeps its key
    await pollFor(async () => (await buildState(page)).version, DB_VERSION);
    await stopServiceWorker(ext.ctx, ext.extensionId);
    await writeOldVersion(page, 5, v5Records);
    expect((await buildState(page)).version).toBe(5);

    expect((await send(page, { type: 'settings/get', payload: {} }))?.ok).toBe(true); // wakes the worker, which opens the store
    const deadline = Date.now() + 60_000;
    let state = await buildState(page);
    while (!(state.tables && state.tables.built >= 2 * BUILD_BATCH) && Date.now() < deadline) {
      await sleep(20);
      state = await buildState(page);
    }
    expect(state.version).toBe(DB_VERSION);
    expect(state.tables?.done).toBe(false);
    await stopServiceWorker(ext.ctx, ext.extensionId);

    const atStop = (await buildState(page)).tables!;
    expect(atStop.done).toBe(false); // stopped mid-build
    expect(atStop.after).toBeDefined();
    const builtPages = v5Records.filter((r) => r.id <= atStop.after!);
    expect(atStop.built).toBe(builtPages.length);
    expect(atStop.built).toBeLessThan(PAGES);
    const dumpAtStop = await dumpStore(page);
    // the trees hold every built page's entries once, and nothing of the pages after the cursor
    expect(tableProblems(tablesOfRecords(stored, builtPages), tablesOfRuns(readRunIndexValue(dumpAtStop.runIndex), dumpAtStop.chunks))).toEqual([]);
    expect(dumpAtStop.records).toHaveLength(PAGES);

    // The next wake: the popup of a page the build had not reached waits for the build, then shows
    // the report. (It says that the store is being updated only if the rest of the build outlasts
    // its first look, 300 ms in, which on a fast run it does not; the move's test above checks
    // that text.)
    expect(atStop.after!).toBeLessThan(last.id);
    const notBuilt = last;
    const popup = await ext.ctx.newPage();
    await popup.goto(popupUrl(ext.extensionId, notBuilt.url));
    await popup.waitForSelector('#report[data-move], #report[data-state="ready"]', { timeout: 60_000 });
    if ((await popup.getAttribute('#report', 'data-move')) !== null) expect(await popup.textContent('#status-text')).toBe('Updating how your history is stored…');
    await popup.waitForSelector('#report[data-state="ready"]', { timeout: 120_000 });
    expect(await popup.textContent('#page-title')).toBe(notBuilt.title);
    expect(await popup.locator('#matches a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([first.url]);

    expect((await buildState(page)).tables).toEqual({ built: PAGES, done: true });
    // then the worker drops the records' old table keys (PageStore.dropLegacyKeys) until their
    // index has no entry left
    await pollFor(() => keysIndexEntries(page), 0, 60_000);
    const dump = await dumpStore(page);
    expect(storeProblems(dump)).toEqual([]);
    const byId = (list: object[]) => [...list].sort((a, b) => (a as { id: number }).id - (b as { id: number }).id);
    expect(byId(dump.records)).toEqual(byId(v5Records.map(({ keys: _, ...rest }) => rest))); // each as version 5 wrote it, but for its keys
    // the planted pair, entered before and after the stop, find each other; no other page is within 3 bits
    for (const [page1, page2] of [[last, first], [first, last]] as const) {
      const reply = await send(page, { type: 'report/get', payload: { url: page1.url } });
      expect(reply?.ok, JSON.stringify(reply)).toBe(true);
      expect(reply?.value?.state).toBe('recorded');
      expect((reply?.value?.matches as { url: string; distance: number }[]).map((m) => [m.url, m.distance])).toEqual([[page2.url, 1]]);
    }
  });
});
