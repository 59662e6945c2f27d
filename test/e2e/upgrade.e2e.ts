// The upgrade from schema version 4 in Chromium, with the worker stopped in the middle of it.
//
// A version 4 database (pages keyed by URL: lib/store/schema.ts before 8fc384a) of 30,000 pages
// is written from an extension page while the worker is stopped; then the worker is woken, and
// stopped again once it has moved some of the pages to their new keys (lib/store/move.ts), as
// Chrome stops an idle worker. At that moment every page must be in exactly one of the two
// stores; at the next wake (a popup opened) the popup must say that the store is being updated,
// then show its report; the move must finish by itself, and the store must be whole
// (test/e2e/consistency.ts) with every page once, fields unchanged, and queries answering.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fingerprintToHex } from '../../lib/fingerprint';
import { randomFingerprints } from '../../lib/random';
import { DB_VERSION, LEGACY_PAGES } from '../../lib/store/schema';
import { toBuckets } from '../../lib/store/tally';
import { designTables } from '../../lib/tables';
import { countsOfRecords } from '../kept-counts';
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

/** Writes `records` as Doppel's version 4 wrote them, in database 'doppel' (deleted first). */
function writeVersion4(page: Page): Promise<void> {
  return page.evaluate(
    ({ records, meta, siteCounts }) =>
      new Promise<void>((resolve, reject) => {
        const deleting = indexedDB.deleteDatabase('doppel');
        deleting.onerror = () => reject(deleting.error);
        deleting.onblocked = () => reject(new Error('the worker still holds the database open'));
        deleting.onsuccess = () => {
          const request = indexedDB.open('doppel', 4);
          request.onupgradeneeded = () => {
            const db = request.result;
            const pages = db.createObjectStore('pages', { keyPath: 'url' });
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
    { records, meta, siteCounts },
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

describe('upgrade from version 4, the worker stopped mid-move', () => {
  let ext: ExtensionSession;
  let page: Page;

  beforeAll(async () => {
    ext = await launchWithExtension(EXTENSION_DIR);
    page = await ext.ctx.newPage();
    // an extension page that opens no database of its own (the reader document answers only the worker)
    await page.goto(`chrome-extension://${ext.extensionId}/reader.html`);
  });
  afterAll(async () => {
    await ext?.close();
  });

  test(`${PAGES.toLocaleString('en')} pages: none lost or doubled at the stop, the move resumes at the next wake, the store is whole`, async () => {
    await pollFor(async () => (await moveState(page, false)).version, DB_VERSION); // the worker created a new database at start-up
    await stopServiceWorker(ext.ctx, ext.extensionId); // its connection closes with it
    await writeVersion4(page);
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
