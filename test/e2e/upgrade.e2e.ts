// The upgrades from schema versions 4, 5 and 6 to version 7 in Chromium, with the worker stopped
// in the middle.
//
// A version 4 database (pages keyed by URL: lib/store/schema.ts before 8fc384a) of 30,000 pages
// is written from an extension page while the worker is stopped; then the worker is woken, and
// stopped again once it has moved some of the pages to their keys of version 5
// (lib/store/move.ts), as Chrome stops an idle worker. At that moment every page must be in
// exactly one of the stores, and none yet in version 7's blocks (they are moved there once the
// first move is done); at the next wake (a popup opened) the popup must say that the store is being
// updated, then show its report; both moves must finish by themselves, and the store must be whole
// (test/e2e/consistency.ts) with every page once in the blocks, fields unchanged, ids counted up
// from 0, and the stores moved out of empty.
//
// A version 5 database (pages keyed by `id`, the tables in a `keys` index) and a version 6 one
// (pages keyed by `id`, the tables in sorted runs of the old ids) of 30,000 pages go through the
// move into version 7's blocks and trees instead (lib/store/build.ts, meta `toBlocks`): the worker
// is stopped once it has moved some batches. At that moment each page must be in exactly one of
// `pages` and the blocks, the blocks must hold exactly the pages up to meta `toBlocks`' cursor,
// with ids counted up in the old key order, and the trees exactly their entries (version 6's,
// of the old ids, gone); at the next wake the move must go on from there and end with every page
// once in the blocks, `pages` empty, and a near-duplicate pair moved in two sessions finding each
// other.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Fingerprint, fingerprintFromHex, fingerprintToHex } from '../../lib/fingerprint';
import { newGroupId, rootOf } from '../../lib/groups';
import { randomFingerprints } from '../../lib/random';
import { BUILD_BATCH } from '../../lib/store/build';
import { EMPTY_RUN_INDEX, type RunChunkKey, type RunStore } from '../../lib/store/runs';
import { DB_VERSION, type PageRecord } from '../../lib/store/schema';
import { slotBase } from '../../lib/store/slots';
import { addToTables, tablePagesOf } from '../../lib/store/table-trees';
import { toBuckets } from '../../lib/store/tally';
import { designTables } from '../../lib/tables';
import { countsOfRecords } from '../kept-counts';
import { legacyRecordKeys } from '../legacy-keys';
import { type StoreDump, dumpStore, storeProblems } from './consistency';
import { type ExtensionSession, launchWithExtension, pollFor, popupUrl, sleep, stopServiceWorker } from './harness';

const EXTENSION_DIR = process.env.DOPPEL_EXTENSION_DIR ?? '.output/chrome-mv3';
const PAGES = 30_000;
const DESIGN = { k: 3, b: 4 };

const design = designTables(DESIGN);

/** A record of versions 1–6 (no id in 1–4, keyed by URL), with versions 1–5's table keys (a multiEntry index). */
type OldRecord = Omit<PageRecord, 'id'> & { id?: number; keys?: string[] };

const records: OldRecord[] = randomFingerprints(0x4e2en, PAGES).map((simhash, i) => {
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

/** Meta and the site buckets of a store of `records`, as the old versions kept them. */
function oldMeta(records: readonly OldRecord[]): { meta: Record<string, unknown>; siteCounts: object[] } {
  const counted = countsOfRecords(records);
  return {
    meta: { design: DESIGN, groups: { k: 3, complete: true }, pageCount: records.length, groupCounts: counted.groupCounts },
    siteCounts: toBuckets(counted.siteCounts),
  };
}

/** Version 6's tables of `records` (keyed by their version 5/6 ids): the chunks of one run a table, and the run index. */
async function version6Tables(records: readonly OldRecord[]): Promise<{ chunks: { key: RunChunkKey; words: number[] }[]; index: unknown }> {
  const chunks = new Map<string, { key: RunChunkKey; words: number[] }>();
  const store: RunStore = {
    get: async (key) => {
      const chunk = chunks.get(key.join('/'));
      return chunk && Uint32Array.from(chunk.words);
    },
    put: async (value, key) => void chunks.set(key.join('/'), { key, words: Array.from(value) }),
    getAll: () => Promise.reject(new Error('version6Tables writes one run a table: nothing to merge')),
    delete: () => Promise.reject(new Error('version6Tables writes one run a table: nothing to merge')),
  };
  const index = await addToTables(store, EMPTY_RUN_INDEX, DESIGN, tablePagesOf(records.map((r) => ({ id: r.id!, simhash: r.simhash }))));
  return { chunks: [...chunks.values()], index };
}

/**
 * Writes `records` as Doppel's version 4, 5 or 6 wrote them, in database 'doppel' (deleted first):
 * version 4 keyed by URL, 5 and 6 by id; 4 and 5 with the `keys` index, 6 with its tables in `runs`.
 */
async function writeOldVersion(page: Page, version: 4 | 5 | 6, records: readonly OldRecord[]): Promise<void> {
  const { meta, siteCounts } = oldMeta(records);
  const stored = version === 6 ? records.map(({ keys: _, ...rest }) => rest) : records;
  const tables = version === 6 ? await version6Tables(records) : null;
  if (tables !== null) Object.assign(meta, { runs: tables.index, runsStamp: 12345, tables: { built: records.length, done: true } });
  return page.evaluate(
    ({ version, records, meta, siteCounts, chunks }) =>
      new Promise<void>((resolve, reject) => {
        const deleting = indexedDB.deleteDatabase('doppel');
        deleting.onerror = () => reject(deleting.error);
        deleting.onblocked = () => reject(new Error('the worker still holds the database open'));
        deleting.onsuccess = () => {
          const request = indexedDB.open('doppel', version);
          request.onupgradeneeded = () => {
            const db = request.result;
            const pages = db.createObjectStore('pages', { keyPath: version >= 5 ? 'id' : 'url' });
            if (version < 6) pages.createIndex('keys', 'keys', { multiEntry: true });
            pages.createIndex('site', 'site');
            pages.createIndex('lastSeen', 'lastSeen');
            pages.createIndex('group', 'group');
            pages.createIndex('copySite', 'copySite');
            const metaStore = db.createObjectStore('meta');
            const counts = db.createObjectStore('siteCounts', { keyPath: 'bucket' });
            for (const record of records) pages.put(record);
            for (const [key, value] of Object.entries(meta)) metaStore.put(value, key);
            for (const bucket of siteCounts) counts.put(bucket);
            if (version === 6) {
              const runs = db.createObjectStore('runs');
              for (const { key, words } of chunks) runs.put(new Uint32Array(words), key);
            }
          };
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            request.result.close();
            resolve();
          };
        };
      }),
    { version, records: stored, meta, siteCounts, chunks: tables?.chunks ?? [] },
  );
}

interface MoveState {
  version: number | null;
  /** meta `move`: pages moved from the store keyed by URL (lib/store/move.ts). */
  move?: { moved: number; done: boolean; after?: string };
  /** meta `toBlocks`: pages moved into blocks (lib/store/build.ts). */
  toBlocks?: { built: number; done: boolean; after?: number };
  /** meta `tables`: version 6's build of its tables, which version 7 deletes. */
  tables?: unknown;
  nextId?: unknown;
}

/** The database's version (read without opening it), and, at the current version, the meta of its moves. */
function moveState(page: Page): Promise<MoveState> {
  return page.evaluate(async (current) => {
    const version = (await indexedDB.databases()).find((d) => d.name === 'doppel')?.version ?? null;
    if (version !== current) return { version };
    return new Promise<MoveState>((resolve, reject) => {
      const request = indexedDB.open('doppel');
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const db = request.result;
        const tx = db.transaction('meta', 'readonly');
        const meta = tx.objectStore('meta');
        const [move, toBlocks, tables, nextId] = ['move', 'toBlocks', 'tables', 'nextId'].map((key) => meta.get(key));
        tx.oncomplete = () => {
          db.close();
          resolve({
            version,
            move: move!.result as MoveState['move'],
            toBlocks: toBlocks!.result as MoveState['toBlocks'],
            tables: tables!.result as unknown,
            nextId: nextId!.result as unknown,
          });
        };
        tx.onerror = () => reject(tx.error);
      };
    });
  }, DB_VERSION);
}

/** Entries in the `keys` index of version 6's `pages` store (versions 1–5's table keys, left in an upgraded store); null if it has none. */
function keysIndexEntries(page: Page): Promise<number | null> {
  return page.evaluate(
    () =>
      new Promise<number | null>((resolve, reject) => {
        const request = indexedDB.open('doppel');
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const db = request.result;
          const tx = db.transaction('pages', 'readonly');
          const store = tx.objectStore('pages');
          const count = store.indexNames.contains('keys') ? store.index('keys').count() : null;
          tx.oncomplete = () => {
            db.close();
            resolve(count === null ? null : count.result);
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
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

/** Every URL the dump holds, wherever it is (blocks, version 6's `pages`, the store keyed by URL), sorted. */
const everyUrl = (dump: StoreDump): string[] => [...dump.records.map((r) => r.url), ...[...dump.oldPages, ...dump.legacyPages].map((r) => r['url'] as string)].sort();
const byUrl = <T extends { url: string }>(list: readonly T[]): T[] => [...list].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
/** A record's fields, but for its id (which version 7 gives anew) and the old table keys (version 7 keeps the tables in runs). */
const fieldsOf = ({ id: _, keys: __, ...rest }: OldRecord): OldRecord => rest;

describe('upgrade from version 4, the worker stopped mid-move', () => {
  const session = onExtensionPage();

  test(`${PAGES.toLocaleString('en')} pages: none lost or doubled at the stop, the moves resume at the next wake, the store is whole`, async () => {
    const { ext, page } = session;
    await pollFor(async () => (await moveState(page)).version, DB_VERSION); // the worker created a new database at start-up
    await stopServiceWorker(ext.ctx, ext.extensionId); // its connection closes with it
    await writeOldVersion(page, 4, records);
    expect((await moveState(page)).version).toBe(4);

    // wake the worker (settings/get does not touch the store; the worker opens it at start-up)
    expect((await send(page, { type: 'settings/get', payload: {} }))?.ok).toBe(true);
    const deadline = Date.now() + 60_000;
    let state = await moveState(page);
    while (!(state.move && state.move.moved >= 2000) && Date.now() < deadline) {
      await sleep(50);
      state = await moveState(page);
    }
    expect(state.version).toBe(DB_VERSION);
    expect(state.move?.done).toBe(false);
    await stopServiceWorker(ext.ctx, ext.extensionId);

    const atStop = await moveState(page);
    expect(atStop.move?.done).toBe(false); // stopped mid-move
    expect(atStop.toBlocks).toEqual({ built: 0, done: false }); // the move into blocks waits for it
    const dumpAtStop = await dumpStore(page);
    expect(storeProblems(dumpAtStop)).toEqual([]); // each page once, the counts those of every page
    expect(dumpAtStop.oldPages).toHaveLength(atStop.move!.moved);
    expect(dumpAtStop.oldPages.length).toBeGreaterThan(0);
    expect(dumpAtStop.legacyPages.length).toBeGreaterThan(0);
    expect(dumpAtStop.records).toEqual([]);
    expect(everyUrl(dumpAtStop)).toEqual(records.map((r) => r.url).sort());
    const notMoved = dumpAtStop.legacyPages.at(-1)!['url'] as string;

    // The next wake: the popup for a page still in the old store. Its report waits for the moves;
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

    const after = await moveState(page);
    expect(after.move).toEqual({ moved: PAGES, done: true });
    expect(after.toBlocks).toEqual({ built: PAGES, done: true });
    expect(after.nextId).toBe(PAGES);
    const dump = await dumpStore(page);
    expect(storeProblems(dump)).toEqual([]);
    expect(dump.legacyPages).toEqual([]);
    expect(dump.oldPages).toEqual([]);
    // every page once, in the blocks, its fields unchanged; ids 0 … PAGES − 1
    expect(byUrl(dump.records.map(fieldsOf))).toEqual(byUrl(records.map(fieldsOf)));
    expect(dump.records.map((r) => r.id)).toEqual(Array.from({ length: PAGES }, (_, i) => i));
  });
});

for (const version of [5, 6] as const) {
  describe(`upgrade from version ${version}, the worker stopped mid-move into blocks`, () => {
    const session = onExtensionPage();
    // The move takes pages in their old key order. The page of the highest key (moved last, after
    // the stop) is made a near-duplicate (1 bit apart) of the page of the lowest (moved first,
    // before it), and the two are a group: a query must find one from the other through the tables
    // built in two sessions, and the group's trees must hold both.
    const oldRecords: OldRecord[] = records.map((record) => ({ id: slotBase(record.url), ...record })).sort((a, b) => a.id! - b.id!);
    const first = oldRecords[0]!;
    const last = oldRecords[PAGES - 1]!;
    const nearSimhash = fingerprintFromHex(first.simhash) ^ 1n;
    oldRecords[PAGES - 1] = Object.assign({ ...last }, { simhash: fingerprintToHex(nearSimhash as Fingerprint), keys: legacyRecordKeys(design, nearSimhash as Fingerprint) });
    const pair = [oldRecords[0]!, oldRecords[PAGES - 1]!];
    const root = rootOf(pair);
    for (const member of pair) {
      member.group = newGroupId(root.url);
      if (member.site !== root.site) member.copySite = member.site;
    }
    const newIdOf = new Map(oldRecords.map((r, i) => [r.url, i])); // ids counted up from 0 in the old key order

    test(`${PAGES.toLocaleString('en')} pages: at the stop the blocks and trees hold exactly the pages moved, the move resumes at the next wake, the store is whole`, async () => {
      const { ext, page } = session;
      expect(new Set(oldRecords.map((r) => r.id)).size).toBe(PAGES); // no two URLs share a slot: each record keeps its key
      await pollFor(async () => (await moveState(page)).version, DB_VERSION);
      await stopServiceWorker(ext.ctx, ext.extensionId);
      await writeOldVersion(page, version, oldRecords);
      expect((await moveState(page)).version).toBe(version);

      expect((await send(page, { type: 'settings/get', payload: {} }))?.ok).toBe(true); // wakes the worker, which opens the store
      const deadline = Date.now() + 60_000;
      let state = await moveState(page);
      while (!(state.toBlocks && state.toBlocks.built >= 2 * BUILD_BATCH) && Date.now() < deadline) {
        await sleep(20);
        state = await moveState(page);
      }
      expect(state.version).toBe(DB_VERSION);
      expect(state.toBlocks?.done).toBe(false);
      await stopServiceWorker(ext.ctx, ext.extensionId);

      const atStop = (await moveState(page)).toBlocks!;
      expect(atStop.done).toBe(false); // stopped mid-move
      expect(atStop.after).toBeDefined();
      const movedPages = oldRecords.filter((r) => r.id! <= atStop.after!);
      expect(atStop.built).toBe(movedPages.length);
      expect(atStop.built).toBeLessThan(PAGES);
      const dumpAtStop = await dumpStore(page);
      // each page once (in the blocks up to the cursor, in `pages` after it); the trees hold the
      // moved pages' entries once and nothing else (version 6's entries, of the old ids, are gone)
      expect(storeProblems(dumpAtStop)).toEqual([]);
      expect(everyUrl(dumpAtStop)).toEqual(records.map((r) => r.url).sort());
      expect(byUrl(dumpAtStop.records.map(fieldsOf))).toEqual(byUrl(movedPages.map(fieldsOf)));
      expect(dumpAtStop.records.map((r) => [r.url, r.id])).toEqual(movedPages.map((r) => [r.url, newIdOf.get(r.url)]));
      expect(dumpAtStop.oldPages.map((r) => r['url'])).toEqual(oldRecords.filter((r) => r.id! > atStop.after!).map((r) => r.url));
      expect(dumpAtStop.nextId).toBe(movedPages.length);

      // The next wake: the popup of a page the move had not reached waits for it, then shows the
      // report. (It says that the store is being updated only if the rest of the move outlasts its
      // first look, 300 ms in, which on a fast run it does not; the version 4 test checks that text.)
      expect(atStop.after!).toBeLessThan(last.id!);
      const notMoved = oldRecords[PAGES - 1]!;
      const popup = await ext.ctx.newPage();
      await popup.goto(popupUrl(ext.extensionId, notMoved.url));
      await popup.waitForSelector('#report[data-move], #report[data-state="ready"]', { timeout: 60_000 });
      if ((await popup.getAttribute('#report', 'data-move')) !== null) expect(await popup.textContent('#status-text')).toBe('Updating how your history is stored…');
      await popup.waitForSelector('#report[data-state="ready"]', { timeout: 120_000 });
      expect(await popup.textContent('#page-title')).toBe(notMoved.title);
      expect(await popup.locator('#matches a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([first.url]);

      const after = await moveState(page);
      expect(after.toBlocks).toEqual({ built: PAGES, done: true });
      expect(after.tables).toBeUndefined(); // version 6's build state, deleted by the upgrade
      expect(after.nextId).toBe(PAGES);
      // `pages` is empty, and so its `keys` index (a version 5 store's; version 6's had none)
      expect(await keysIndexEntries(page)).toBe(version === 5 ? 0 : null);
      const dump = await dumpStore(page);
      expect(storeProblems(dump)).toEqual([]);
      expect(dump.oldPages).toEqual([]);
      // each as version 5 or 6 wrote it, but for its id (counted up in the old key order) and its keys
      expect(byUrl(dump.records.map(fieldsOf))).toEqual(byUrl(oldRecords.map(fieldsOf)));
      expect(dump.records.map((r) => [r.url, r.id])).toEqual(oldRecords.map((r) => [r.url, newIdOf.get(r.url)]));
      // the planted pair, moved before and after the stop, find each other; no other page is within 3 bits
      for (const [page1, page2] of [[pair[1]!, pair[0]!], [pair[0]!, pair[1]!]] as const) {
        const reply = await send(page, { type: 'report/get', payload: { url: page1.url } });
        expect(reply?.ok, JSON.stringify(reply)).toBe(true);
        expect(reply?.value?.state).toBe('recorded');
        expect((reply?.value?.matches as { url: string; distance: number }[]).map((m) => [m.url, m.distance])).toEqual([[page2.url, 1]]);
      }
    });
  });
}
