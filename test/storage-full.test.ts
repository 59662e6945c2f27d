// lib/background/storage-full.ts: what Doppel does when the browser says storage is full. The rule on fakes
// that throw QuotaExceededError, then through the recorder on fake-indexeddb with a PageStore whose
// writes are refused the same way.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintText } from '../lib/fingerprint/features';
import { DEFAULT_SETTINGS, type PageExtracted, type Report, type Settings } from '../lib/protocol/messages';
import { type SenderInfo, createRecorder } from '../lib/background/recorder';
import {
  EVICT_MIN,
  type EvictableStore,
  StorageFullError,
  createRoomKeeper,
  evictionCount,
  isQuotaError,
  memoryStatus,
} from '../lib/background/storage-full';
import { parseStorageStatus } from '../lib/protocol/messages';
import { openDoppelDb } from '../lib/store/db';
import { PageStore } from '../lib/store/pages';
import { ImportInterruptedError } from '../lib/store/transfer';
import type { Db } from '../lib/store/schema';
import { recordVisit } from './support/store-queries';

const quota = (): DOMException => new DOMException('The current transaction exceeded its quota limitations.', 'QuotaExceededError');

describe('evictionCount', () => {
  it('is 1% of the pages, at least 100, at most all of them', () => {
    expect(EVICT_MIN).toBe(100);
    expect([0, 1, 50, 100, 101, 5_000, 10_000, 10_001, 123_456, 1_000_000].map(evictionCount)).toEqual([0, 1, 50, 100, 100, 100, 100, 101, 1_235, 10_000]);
    expect(evictionCount(-3)).toBe(0);
    expect(evictionCount(Number.NaN)).toBe(0);
  });
});

describe('isQuotaError', () => {
  it('recognises QuotaExceededError itself, as a cause, and as the error of an aborted transaction', () => {
    expect(isQuotaError(quota())).toBe(true);
    expect(isQuotaError({ name: 'QuotaExceededError', message: 'x' })).toBe(true);
    expect(isQuotaError(new Error('write failed', { cause: quota() }))).toBe(true);
    expect(isQuotaError(new Error('outer', { cause: new Error('inner', { cause: quota() }) }))).toBe(true);
    expect(isQuotaError(new ImportInterruptedError(10, { added: 0, merged: 0, unchanged: 0, rejected: [] }, quota()))).toBe(true);
    const abort = new DOMException('The transaction was aborted.', 'AbortError');
    expect(isQuotaError(Object.assign(abort, { target: { error: quota() } }))).toBe(true);
    expect(isQuotaError({ name: 'AbortError', error: quota() })).toBe(true);
  });

  it("recognises a full disk in an I/O error's message (Chromium with unlimitedStorage)", () => {
    // The message Chromium 156 gave when the profile's disk was full (test/e2e/storage-full.e2e.ts).
    const io = new DOMException('IO error: .../000003.log: FILE_ERROR_NO_SPACE (ChromeMethodBFE: 3::WritableFileAppend::8)', 'UnknownError');
    expect(isQuotaError(io)).toBe(true);
    expect(isQuotaError(new Error('page/extracted failed', { cause: io }))).toBe(true);
    expect(isQuotaError(new DOMException('write failed: No space left on device', 'DataError'))).toBe(true);
    expect(isQuotaError(new DOMException('IO error: .../000003.log: FILE_ERROR_ACCESS_DENIED', 'UnknownError'))).toBe(false);
  });

  it('is false for anything else', () => {
    expect(isQuotaError(new DOMException('aborted', 'AbortError'))).toBe(false);
    expect(isQuotaError(new DOMException('x', 'UnknownError'))).toBe(false);
    expect(isQuotaError(new TypeError('quota'))).toBe(false);
    expect(isQuotaError('QuotaExceededError')).toBe(false);
    expect(isQuotaError(null)).toBe(false);
    expect(isQuotaError(undefined)).toBe(false);
    const cyclic: { name: string; cause?: unknown } = { name: 'Error' };
    cyclic.cause = cyclic;
    expect(isQuotaError(cyclic)).toBe(false);
    expect(isQuotaError({ get name(): string { throw new Error('no'); } })).toBe(false);
  });
});

describe('parseStorageStatus', () => {
  it('keeps a well-formed status and drops anything else', () => {
    expect(parseStorageStatus({ state: 'full', at: 5, evicted: 100, extra: 1 })).toEqual({ state: 'full', at: 5, evicted: 100 });
    expect(parseStorageStatus({ state: 'evicted', at: 5, evicted: 0 })).toEqual({ state: 'evicted', at: 5, evicted: 0 });
    for (const bad of [undefined, null, 'full', { state: 'gone', at: 1, evicted: 1 }, { state: 'full', at: 'now', evicted: 1 }, { state: 'full', at: 1, evicted: -1 }, { state: 'full', at: 1, evicted: 1.5 }]) {
      expect(parseStorageStatus(bad)).toBeUndefined();
    }
  });
});

/** Pages in memory (url → lastSeen) that refuse a new page past `capacity`, as a full disk would. */
function fakeStore(count: number, capacity: number) {
  const pages = new Map<string, number>();
  for (let i = 0; i < count; i++) pages.set(`https://a.example/${String(i).padStart(6, '0')}`, 1_000 + i);
  const calls = { forgetMany: 0, writes: 0 };
  const store: EvictableStore & { capacity: number; failWith?: unknown } = {
    capacity,
    count: async () => pages.size,
    leastRecentlySeen: async (limit) => [...pages].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit).map(([url]) => url),
    forgetMany: async (urls) => {
      calls.forgetMany++;
      let n = 0;
      for (const url of urls) if (pages.delete(url)) n++;
      return n;
    },
  };
  const write = (url: string, now: number) => async (): Promise<string> => {
    calls.writes++;
    await Promise.resolve();
    if (store.failWith !== undefined) throw store.failWith;
    if (!pages.has(url) && pages.size >= store.capacity) throw quota();
    pages.set(url, now);
    return url;
  };
  return { pages, store, write, calls };
}

function keeper(clock = { t: 50_000 }) {
  const status = memoryStatus();
  const logs: string[] = [];
  const room = createRoomKeeper({ status, now: () => clock.t, log: (m) => void logs.push(m) });
  return { status, logs, room };
}

describe('createRoomKeeper', () => {
  it('a write that fits is just written; nothing is forgotten or remembered', async () => {
    const { store, write, calls } = fakeStore(10, 100);
    const { room, status, logs } = keeper();
    expect(await room.write(store, write('https://new.example/', 9))).toBe('https://new.example/');
    expect(calls).toEqual({ forgetMany: 0, writes: 1 });
    expect(await status.get()).toBeUndefined();
    expect(logs).toEqual([]);
  });

  it('storage full: forgets the 100 pages seen longest ago, writes again, and remembers when and how many', async () => {
    const { pages, store, write, calls } = fakeStore(500, 500);
    const { room, status, logs } = keeper();
    await room.write(store, write('https://new.example/', 9_999));
    expect(calls).toEqual({ forgetMany: 1, writes: 2 });
    expect(pages.size).toBe(401);
    // the oldest 100 (lastSeen 1000…1099) are gone, the rest and the new page are there
    expect([...pages.values()].filter((t) => t < 1_100)).toEqual([]);
    expect(pages.has('https://a.example/000100')).toBe(true);
    expect(pages.get('https://new.example/')).toBe(9_999);
    expect(await status.get()).toEqual({ state: 'evicted', at: 50_000, evicted: 100 });
    expect(logs).toEqual(['storage is full: forgot the 100 least recently seen pages to make room']);
  });

  it('forgets 1% of a large store', async () => {
    const { pages, store, write } = fakeStore(25_000, 25_000);
    const { room, status } = keeper();
    await room.write(store, write('https://new.example/', 1));
    expect(await status.get()).toMatchObject({ state: 'evicted', evicted: 250 });
    expect(pages.size).toBe(25_000 - 250 + 1);
  });

  it('many pages failing at once share one eviction', async () => {
    const { pages, store, write, calls } = fakeStore(1_000, 1_000);
    const { room, status } = keeper();
    const urls = Array.from({ length: 12 }, (_, i) => `https://new.example/${i}`);
    await Promise.all(urls.map((url) => room.write(store, write(url, 5_000))));
    expect(calls.forgetMany).toBe(1);
    expect(pages.size).toBe(1_000 - 100 + 12);
    expect(await status.get()).toMatchObject({ state: 'evicted', evicted: 100 });
  });

  it('still full after forgetting: StorageFullError and `full`; later pages forget nothing more; the first write that fits ends it', async () => {
    const { pages, store, write, calls } = fakeStore(300, 300);
    store.capacity = 100; // forgetting 100 of 300 does not bring it under
    const clock = { t: 50_000 };
    const { room, status, logs } = keeper(clock);
    const error = await room.write(store, write('https://new.example/1', 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageFullError);
    expect((error as StorageFullError).status).toEqual({ state: 'full', at: 50_000, evicted: 100 });
    expect(isQuotaError((error as StorageFullError).cause)).toBe(true);
    expect(await status.get()).toEqual({ state: 'full', at: 50_000, evicted: 100 });
    expect(pages.size).toBe(200);
    expect(logs.at(-1)).toMatch(/still full/);

    clock.t = 60_000;
    for (let i = 2; i < 6; i++) await expect(room.write(store, write(`https://new.example/${i}`, i))).rejects.toBeInstanceOf(StorageFullError);
    expect(calls.forgetMany).toBe(1); // no second eviction
    expect(pages.size).toBe(200);
    expect(await status.get()).toEqual({ state: 'full', at: 50_000, evicted: 100 });

    store.capacity = 1_000; // room again (the browser compacted, the person freed disk space)
    await room.write(store, write('https://new.example/6', 6));
    expect(pages.has('https://new.example/6')).toBe(true);
    expect(await status.get()).toEqual({ state: 'evicted', at: 50_000, evicted: 100 }); // the notice stays until dismissed
    expect(logs.at(-1)).toMatch(/room again/);

    // full again later: a new eviction
    store.capacity = pages.size;
    await room.write(store, write('https://new.example/7', 7)).catch(() => undefined);
    expect(calls.forgetMany).toBe(2);
  });

  it('an error that is not about room is thrown as it is, and nothing is forgotten', async () => {
    const { store, write, calls } = fakeStore(500, 500);
    store.failWith = new DOMException('bad key', 'DataError');
    const { room, status } = keeper();
    await expect(room.write(store, write('https://new.example/', 1))).rejects.toMatchObject({ name: 'DataError' });
    expect(calls.forgetMany).toBe(0);
    expect(await status.get()).toBeUndefined();
  });

  it('if forgetting fails too, nothing is counted as forgotten and storage is full', async () => {
    const { store, write } = fakeStore(500, 500);
    store.forgetMany = async () => {
      throw quota();
    };
    const { room, status, logs } = keeper();
    await expect(room.write(store, write('https://new.example/', 1))).rejects.toBeInstanceOf(StorageFullError);
    expect(await status.get()).toEqual({ state: 'full', at: 50_000, evicted: 0 });
    expect(logs[0]).toMatch(/could not be forgotten/);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the recorder, on a PageStore over fake-indexeddb whose record() is refused like a full disk.

const ext = { id: 'doppel@test', origin: 'chrome-extension://doppelid/' };
const popup: SenderInfo = { id: ext.id, url: 'chrome-extension://doppelid/popup.html' };
const tab = (url: string): SenderInfo => ({ id: ext.id, url, frameId: 0, tab: { id: 1, incognito: false } });

/** An article of its own: 60 words drawn from a vocabulary by a seed, so no two are near-duplicates. */
function text(seed: number): string {
  const words: string[] = [];
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < 80; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(`w${x % 5000}`);
  }
  return words.join(' ');
}
const article = (url: string, seed: number): PageExtracted => ({ url, title: `Page ${seed}`, lang: 'en', siteName: null, outcome: { kind: 'article', text: text(seed), truncated: false } });

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function setup(pages: number) {
  const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
  opened.push(db);
  const store = await PageStore.open(db);
  for (let i = 0; i < pages; i++) {
    const { simhash, check } = fingerprintText(text(i));
    await recordVisit(store, { url: `https://old.example/${String(i).padStart(4, '0')}`, title: '', site: 'old.example', simhash, check, now: 10_000 + i });
  }
  // the disk: a write of a new page past `capacity` pages is refused, as Chromium does at commit
  const disk = { capacity: Infinity };
  const record = store.record.bind(store);
  store.record = async (visit, options) => {
    if ((await store.get(visit.url)) === undefined && (await store.count()) >= disk.capacity) throw quota();
    return record(visit, options);
  };
  const settings: Settings = { ...DEFAULT_SETTINGS };
  const status = memoryStatus();
  const logs: string[] = [];
  let clock = 1_000_000;
  const recorder = createRecorder({
    store,
    settings: { get: async () => structuredClone(settings), set: async () => undefined },
    outcomes: { get: async () => undefined, set: async () => undefined, delete: async () => undefined },
    storage: status,
    now: () => (clock += 1_000),
    log: (m) => void logs.push(m),
  });
  const send = (message: unknown, sender: SenderInfo) => recorder.handle(message, sender, ext);
  const report = async (url: string): Promise<Report> => {
    const reply = await send({ type: 'report/get', payload: { url } }, popup);
    if (!reply.ok) throw new Error(reply.error);
    return reply.value as Report;
  };
  const visit = (url: string, seed: number) => send({ type: 'page/extracted', payload: article(url, seed) }, tab(url));
  return { store, disk, status, logs, send, report, visit };
}

describe('the recorder when storage is full', () => {
  it('forgets the 100 least recently seen pages, records the page, and the report says so until dismissed', async () => {
    const { store, disk, report, visit, send } = await setup(150);
    disk.capacity = 150;
    expect(await visit('https://new.example/a', 9_001)).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect(await store.count()).toBe(51);
    // the pages seen longest ago are gone, the newer ones stay
    expect(await store.get('https://old.example/0099')).toBeUndefined();
    expect(await store.get('https://old.example/0100')).toBeDefined();
    expect(await store.leastRecentlySeen(3)).toEqual(['https://old.example/0100', 'https://old.example/0101', 'https://old.example/0102']);
    const r = await report('https://new.example/a');
    expect(r).toMatchObject({ state: 'recorded', storage: { state: 'evicted', evicted: 100 } });
    expect(await send({ type: 'storage/dismiss', payload: {} }, popup)).toEqual({ ok: true, value: { dismissed: true } });
    expect((await report('https://new.example/a')).storage).toBeNull();
  });

  it('still full: the page is not recorded, its report is storage-full, and recording comes back once there is room', async () => {
    const { store, disk, report, visit, send } = await setup(120);
    disk.capacity = 10;
    expect(await visit('https://new.example/a', 9_001)).toEqual({ ok: true, value: { state: 'storage-full', matches: 0, passages: 0, rewrites: 0 } });
    expect(await store.count()).toBe(20); // 100 forgotten, then still full
    expect(await report('https://new.example/a')).toMatchObject({ state: 'storage-full', page: null, storage: { state: 'full', evicted: 100 } });
    // a recorded page's report is still its report, with the notice
    expect(await report('https://old.example/0119')).toMatchObject({ state: 'recorded', storage: { state: 'full' } });
    // the notice cannot be dismissed while storage is full
    expect(await send({ type: 'storage/dismiss', payload: {} }, popup)).toEqual({ ok: true, value: { dismissed: false } });
    // the next page forgets nothing more
    expect(await visit('https://new.example/b', 9_002)).toEqual({ ok: true, value: { state: 'storage-full', matches: 0, passages: 0, rewrites: 0 } });
    expect(await store.count()).toBe(20);

    disk.capacity = Infinity;
    expect(await visit('https://new.example/b', 9_002)).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect(await report('https://new.example/a')).toMatchObject({ state: 'unknown', storage: { state: 'evicted', evicted: 100 } });
  });

  it('clearing all data clears the status', async () => {
    const { disk, report, visit, send } = await setup(120);
    disk.capacity = 10;
    await visit('https://new.example/a', 9_001);
    expect((await report('https://new.example/a')).state).toBe('storage-full');
    await send({ type: 'data/clear', payload: {} }, popup);
    expect(await report('https://new.example/a')).toMatchObject({ state: 'unknown', storage: null });
  });
});

describe('PageStore.leastRecentlySeen', () => {
  it('lists URLs by lastSeen, oldest first, then in the order they were first stored; a revisit moves a page to the end', async () => {
    const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
    opened.push(db);
    const store = await PageStore.open(db);
    const { simhash, check } = fingerprintText(text(1));
    for (const [url, now] of [['https://b.example/', 5], ['https://a.example/', 5], ['https://c.example/', 1], ['https://d.example/', 9]] as const) {
      await recordVisit(store, { url, title: '', site: new URL(url).host, simhash, check, now });
    }
    expect(await store.leastRecentlySeen(10)).toEqual(['https://c.example/', 'https://b.example/', 'https://a.example/', 'https://d.example/']);
    expect(await store.leastRecentlySeen(2)).toEqual(['https://c.example/', 'https://b.example/']);
    expect(await store.leastRecentlySeen(0)).toEqual([]);
    await recordVisit(store, { url: 'https://c.example/', title: '', site: 'c.example', simhash, check, now: 20 });
    expect(await store.leastRecentlySeen(1)).toEqual(['https://b.example/']);
    await expect(store.leastRecentlySeen(-1)).rejects.toThrow(RangeError);
  });
});
