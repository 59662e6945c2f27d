// When the browser refuses a write because the extension's storage is full (QuotaExceededError):
// Doppel makes room by forgetting the pages seen longest ago, tries once more, and remembers what
// it did, so that the popup can say so. Free of `browser.*` and of IndexedDB: the store and the
// status are passed in (lib/store/pages.ts and entrypoints/background/stores.ts in the extension,
// fakes in test/storage-full.test.ts).
//
// The rule (docs/reliability.md, "Storage full"):
// - a page's write fails with QuotaExceededError → forget the least recently seen pages (by
//   lastSeen, oldest first): 1% of the stored pages, at least EVICT_MIN (100), through
//   PageStore.forgetMany, so the groups of near-duplicates they leave stay consistent; then write
//   the page once more;
// - that write fails too → the status becomes `full`: nothing new is recorded, and the popup says
//   so. Each later page is still tried, once, WITHOUT forgetting more (a store that freeing pages
//   did not help must not be emptied 1% at a time); the first write that succeeds ends `full`;
// - the status (when, how many pages were forgotten) stays until the person dismisses the notice
//   in the popup, or clears all data.
import type { StorageStatus } from '../protocol/messages';


/** Pages forgotten per eviction: this share of the stored pages… */
export const EVICT_FRACTION = 0.01;
/** …and at least this many (all of them in a store smaller than this). */
export const EVICT_MIN = 100;

/** How many pages one eviction forgets from a store of `total` pages. */
export function evictionCount(total: number): number {
  if (!Number.isFinite(total) || total <= 0) return 0;
  return Math.min(Math.floor(total), Math.max(EVICT_MIN, Math.ceil(total * EVICT_FRACTION)));
}

/** How a browser's message names a full disk (Chromium's LevelDB: FILE_ERROR_NO_SPACE; POSIX ENOSPC). */
const DISK_FULL = /FILE_ERROR_NO_SPACE|No space left on device|ENOSPC/;

/** DOMException's legacy code for QuotaExceededError. */
const QUOTA_EXCEEDED_CODE = 22;

/**
 * True if `error` is, or was caused by, the browser refusing a write for lack of room: a
 * QuotaExceededError (a DOMException, or any error of that name), found on the error itself, its
 * `cause` chain (ImportInterruptedError, errors wrapped by callers), or the `error` of an aborted
 * transaction or request it carries (an AbortError whose transaction's error is the quota).
 */
export function isQuotaError(error: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): boolean => {
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 8) return false;
    seen.add(value);
    const v = value as { name?: unknown; code?: unknown; cause?: unknown; error?: unknown; target?: unknown };
    if (v.name === 'QuotaExceededError') return true;
    // Chromium with `unlimitedStorage` has no quota short of the disk: a full disk fails the
    // write with an I/O error naming it ("IO error: …/000003.log: FILE_ERROR_NO_SPACE").
    if (typeof (v as { message?: unknown }).message === 'string' && DISK_FULL.test((v as { message: string }).message)) return true;
    if (typeof DOMException !== 'undefined' && value instanceof DOMException && v.code === QUOTA_EXCEEDED_CODE) return true;
    return visit(v.cause, depth + 1) || visit(v.error, depth + 1) || visit((v.target as { error?: unknown } | undefined)?.error, depth + 1);
  };
  try {
    return visit(error, 0);
  } catch {
    return false; // a getter that throws: not something we recognise
  }
}

/**
 * True if `error` says the browser cannot use Doppel's storage at all for now: a full disk, or
 * what Chromium says after one (it closes every connection of the origin, "The database connection
 * is closing", and cannot open the store again, "Internal error opening backing store", until
 * there is room). Nothing stored is lost; the person needs to hear that, not the raw message.
 */
export function isStorageUnavailable(error: unknown): boolean {
  const message = typeof error === 'object' && error !== null ? String((error as { message?: unknown }).message ?? '') : '';
  return DISK_FULL.test(message) || /connection is closing|opening backing store/i.test(message) || isQuotaError(error);
}

/** What the person reads when isStorageUnavailable. */
export const STORAGE_UNAVAILABLE_TEXT =
  'The browser cannot write to Doppel’s storage right now; the disk is probably full. Nothing already stored is lost, and Doppel records again once there is room.';


/** Where the status is kept (storage.local in the extension). */
export interface StatusStore {
  get(): Promise<StorageStatus | undefined>;
  set(status: StorageStatus): Promise<void>;
  clear(): Promise<void>;
}

/** What eviction needs of the page store (PageStore has these). */
export interface EvictableStore {
  count(): Promise<number>;
  /** The URLs of the `limit` pages seen longest ago, oldest first (the `lastSeen` index). */
  leastRecentlySeen(limit: number): Promise<string[]>;
  /** Forgets these pages in one transaction, keeping their groups consistent; returns how many. */
  forgetMany(urls: readonly string[]): Promise<number>;
}

/** Thrown when a page could not be recorded because storage is full, even after making room. */
export class StorageFullError extends Error {
  override name = 'StorageFullError';
  constructor(
    readonly status: StorageStatus,
    cause?: unknown,
  ) {
    super('Storage is full: Doppel could not record the page, even after removing the pages seen longest ago.', { cause });
  }
}

export interface RoomKeeperDeps {
  status: StatusStore;
  now(): number;
  log(message: string): void;
}

export interface RoomKeeper {
  /**
   * Runs `write` (one page's record in `store`); on a quota error makes room by the rule at the top
   * of this file and runs it once more. Returns write's result; throws StorageFullError when
   * storage is still full, and any other error of `write` or of the store as it is.
   */
  write<T>(store: EvictableStore, write: () => Promise<T>): Promise<T>;
}

const describeError = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));

/**
 * One keeper per worker: writes that fail together (many tabs recording at once) share one
 * eviction instead of forgetting 1% each. A write that fails after an eviction that began after it
 * did is retried without forgetting more.
 */
export function createRoomKeeper({ status, now, log }: RoomKeeperDeps): RoomKeeper {
  let evicting: Promise<void> | undefined;
  let evictions = 0; // evictions begun so far

  const evict = async (store: EvictableStore): Promise<void> => {
    const at = now();
    let evicted = 0;
    try {
      const urls = await store.leastRecentlySeen(evictionCount(await store.count()));
      evicted = urls.length > 0 ? await store.forgetMany(urls) : 0;
      log(`storage is full: forgot the ${evicted} least recently seen pages to make room`);
    } catch (error) {
      // forgetting failed too (its transaction is rolled back whole): nothing was forgotten
      log(`storage is full and the pages seen longest ago could not be forgotten: ${describeError(error)}`);
    }
    await status.set({ state: 'evicted', at, evicted });
  };

  return {
    async write(store, write) {
      const before = await status.get();
      const generation = evictions;
      let first: unknown;
      try {
        const result = await write();
        if (before?.state === 'full') {
          await status.set({ ...before, state: 'evicted' }); // room again: recording goes on, the notice stays
          log('storage has room again: recording resumed');
        }
        return result;
      } catch (error) {
        if (!isQuotaError(error)) throw error;
        first = error;
      }
      if (before?.state === 'full') throw new StorageFullError(before, first); // room was made once already: forget no more
      if (evicting === undefined && evictions === generation) {
        evictions++;
        evicting = evict(store).finally(() => {
          evicting = undefined;
        });
      }
      await evicting;
      try {
        return await write();
      } catch (error) {
        if (!isQuotaError(error)) throw error;
        const made = (await status.get()) ?? { state: 'evicted', at: now(), evicted: 0 };
        const full: StorageStatus = { ...made, state: 'full' };
        if (made.state !== 'full') {
          await status.set(full);
          log('storage is still full after making room: nothing new is recorded until there is room');
        }
        throw new StorageFullError(full, error);
      }
    },
  };
}

/** A StatusStore in memory (tests, and a context without extension storage). */
export function memoryStatus(initial?: StorageStatus): StatusStore {
  let value = initial;
  return {
    get: async () => (value === undefined ? undefined : { ...value }),
    set: async (next) => {
      value = { ...next };
    },
    clear: async () => {
      value = undefined;
    },
  };
}
