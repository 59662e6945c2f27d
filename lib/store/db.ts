// Opening Doppel's IndexedDB database. The background opens it once per service-worker life
// (getDb) and every store shares that connection.
import { unwrap, wrap } from 'idb';
import { type Db, type UpgradeTransaction, DB_NAME, DB_VERSION } from './schema';

export interface OpenOptions {
  /** The IndexedDB to use: the global one by default (tests pass a fresh fake-indexeddb one). */
  factory?: IDBFactory;
  /**
   * Called once if this connection closes without db.close(): another connection wants to upgrade
   * the database (this one closes itself so as not to block it) or the browser closed it. Reopen.
   */
  onClose?: () => void;
  /** The upgrade waits for older connections that do not close; called while it waits. */
  onBlocked?: (currentVersion: number, requestedVersion: number | null) => void;
}

export type Upgrade = (db: Db, oldVersion: number, transaction: UpgradeTransaction) => void | Promise<void>;

const describe = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));

/** The version a database is at, without upgrading it (undefined if that cannot be read). */
function versionOf(factory: IDBFactory, name: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = factory.open(name);
    request.onsuccess = () => {
      const version = request.result.version;
      request.result.close();
      resolve(version);
    };
    request.onerror = () => resolve(undefined);
  });
}

/**
 * Opens `name` at `version`, running `upgrade` in the versionchange transaction when the database
 * is older. Rejects, never wiping anything:
 * - if the database is newer than `version` (written by a newer Doppel), naming both versions;
 * - if the upgrade fails (the transaction is aborted, so the database stays at its old version),
 *   naming both versions and the cause.
 * `upgrade` must await only requests of the upgrade transaction (any other await lets it commit).
 */
export async function openVersioned(name: string, version: number, upgrade: Upgrade, options: OpenOptions = {}): Promise<Db> {
  const factory = options.factory ?? globalThis.indexedDB;
  if (factory === undefined) throw new Error('IndexedDB is not available in this context');
  let upgradingFrom: number | undefined;
  let failure: { error: unknown } | undefined;

  const request = factory.open(name, version);
  const opened = wrap(request);
  request.addEventListener('upgradeneeded', (event) => {
    upgradingFrom = event.oldVersion;
    const db = wrap(request.result) as unknown as Db;
    const transaction = wrap(request.transaction!) as unknown as UpgradeTransaction;
    transaction.done.catch(() => undefined); // an aborted upgrade is reported by the open request
    const abort = (error: unknown): void => {
      failure ??= { error };
      try {
        request.transaction?.abort();
      } catch {
        // already finished or aborted
      }
    };
    try {
      Promise.resolve(upgrade(db, event.oldVersion, transaction)).catch(abort);
    } catch (error) {
      abort(error);
    }
  });
  request.addEventListener('blocked', (event) => options.onBlocked?.(event.oldVersion, event.newVersion));

  let db: Db;
  try {
    db = (await opened) as unknown as Db;
  } catch (error) {
    if (upgradingFrom !== undefined) {
      throw new Error(
        `Could not upgrade the Doppel database "${name}" from version ${upgradingFrom} to version ${version}: ` +
          `${describe(failure?.error ?? error)}. Nothing was changed; it is still at version ${upgradingFrom}.`,
        { cause: failure?.error ?? error },
      );
    }
    if (error instanceof Error && error.name === 'VersionError') {
      const current = await versionOf(factory, name);
      throw new Error(
        `The Doppel database "${name}" is at version ${current ?? 'unknown'}, newer than version ${version}, the newest this ` +
          `copy of Doppel can read: a newer Doppel wrote it. It was left untouched; update Doppel to use it again.`,
        { cause: error },
      );
    }
    throw new Error(`Could not open the Doppel database "${name}" at version ${version}: ${describe(error)}`, { cause: error });
  }

  let closed = false;
  const onClose = (): void => {
    if (closed) return;
    closed = true;
    options.onClose?.();
  };
  db.addEventListener('versionchange', () => {
    db.close(); // let the newer version upgrade; this context reopens (and then fails, or sees it)
    onClose();
  });
  db.addEventListener('close', () => {
    db.close(); // closed by the browser (a full disk): release it on our side too
    onClose();
  });
  return db;
}

/**
 * Brings the database from `oldVersion` (0: it did not exist) to DB_VERSION inside the
 * versionchange transaction. Throwing (or rejecting) aborts the upgrade: the database stays as it
 * was, at oldVersion. Each version adds one step, `if (oldVersion < n) { … }`, taking the database
 * from version n − 1 to n, and a fixture of what version n − 1 wrote (test/fixtures/db/, opened by
 * test/schema-fixtures.test.ts). A step never deletes data it does not understand, and awaits only
 * requests of `transaction` (any other await lets it commit).
 */
export async function upgradeSchema(db: Db, oldVersion: number, transaction: UpgradeTransaction): Promise<void> {
  if (oldVersion < 1) {
    db.createObjectStore('blocks');
    db.createObjectStore('runs');
    db.createObjectStore('meta');
    db.createObjectStore('siteCounts', { keyPath: 'bucket' });
    db.createObjectStore('passages');
    db.createObjectStore('postings');
    db.createObjectStore('passageMarks');
    db.createObjectStore('rewrites');
    db.createObjectStore('rewritePostings');
    const meta = transaction.objectStore('meta');
    await Promise.all([meta.put(0, 'pageCount'), meta.put({ grouped: 0, groups: 0 }, 'groupCounts')]);
  }
  if (oldVersion < 2) {
    // Version 2: a page may keep what it says of where it comes from (lib/rows/codec.ts reads
    // records with and without it, so no record is rewritten), and each site's row counts the
    // copies that credit their source. Version 1 kept no source, so none of its copies did.
    const siteCounts = transaction.objectStore('siteCounts');
    const buckets = (await siteCounts.getAll()) as unknown[];
    await Promise.all(
      buckets.map((value) => {
        const bucket = value as { bucket?: unknown; rows?: unknown };
        if (!Array.isArray(bucket?.rows)) return undefined; // unreadable: counted afresh when its sites are next written (lib/store/tally.ts)
        const rows = bucket.rows.map((row: unknown) => (typeof row === 'object' && row !== null ? { ...row, credited: 0 } : row));
        return siteCounts.put({ ...bucket, rows } as never);
      }),
    );
  }
  // if (oldVersion < 3) { … }: version 3's step goes here.
}

/** Opens (creating or upgrading to DB_VERSION) Doppel's database. */
export function openDoppelDb(name: string = DB_NAME, options: OpenOptions = {}): Promise<Db> {
  return openVersioned(name, DB_VERSION, upgradeSchema, options);
}

let shared: Promise<Db> | undefined;

/**
 * True while `db` can still start transactions. Chromium closes a connection after an I/O error
 * (a full disk: "FILE_ERROR_NO_SPACE") and says "The database connection is closing" to every
 * later transaction, sometimes long before its `close` event comes.
 */
export function isOpen(db: Db): boolean {
  const raw = unwrap(db) as IDBDatabase;
  const name = raw.objectStoreNames[0];
  if (name === undefined) return true;
  try {
    raw.transaction(name); // no requests: it commits at once and costs nothing
    return true;
  } catch {
    return false;
  }
}

function openShared(): Promise<Db> {
  const opening: Promise<Db> = openDoppelDb(DB_NAME, {
    onClose: () => {
      if (shared === opening) shared = undefined;
    },
  });
  shared = opening;
  opening.catch(() => {
    if (shared === opening) shared = undefined;
  });
  return opening;
}

/**
 * The shared connection, opened on first use. A failed open is not kept (the next call retries),
 * and a connection that closed by itself, or is closing, is forgotten and opened again.
 */
export async function getDb(): Promise<Db> {
  const opening = shared ?? openShared();
  const db = await opening;
  if (isOpen(db)) return db;
  // Close it on our side too: Chromium keeps the failed store while a connection is left open.
  db.close();
  if (shared === opening) shared = undefined;
  return shared ?? openShared();
}

/** Closes and forgets the shared connection (tests; or before deleting the database). */
export async function resetDb(): Promise<void> {
  const previous = shared;
  shared = undefined;
  if (previous === undefined) return;
  try {
    (await previous).close();
  } catch {
    // it never opened
  }
}
