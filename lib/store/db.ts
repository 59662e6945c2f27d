// Opening Doppel's IndexedDB database. The background opens it once per service-worker life
// (getDb) and every store shares that connection.
import { unwrap, wrap } from 'idb';
import { buildBlocks, readBuild } from './build';
import { type MoveProgress, moveLegacyPages } from './move';
import { type Db, type UpgradeTransaction, DB_NAME, DB_VERSION, upgradeSchema } from './schema';

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
  /** Called after each batch while the pages of an upgraded database are moved (lib/store/move.ts) or entered in the tables (lib/store/build.ts). */
  onMoveProgress?: (progress: MoveProgress) => void;
}

export type Upgrade = (db: Db, oldVersion: number, transaction: UpgradeTransaction) => void | Promise<void>;

const describe = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));
/** describe, without a final full stop: for the middle of a sentence. */
const clause = (error: unknown): string => describe(error).replace(/\.$/, '');

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
 * Opens (creating or upgrading to DB_VERSION) Doppel's database, and resolves once the pages of a
 * database upgraded from version 1–4 are all moved to their new keys (lib/store/move.ts), and the
 * pages of one upgraded from version 1–6 are all in blocks and trees (lib/store/build.ts): until
 * then the store would look empty, or miss near-duplicates. Either cut off (the worker stopped)
 * resumes at the next open.
 */
export async function openDoppelDb(name: string = DB_NAME, options: OpenOptions = {}): Promise<Db> {
  const db = await openVersioned(name, DB_VERSION, upgradeSchema, options);
  try {
    await moveLegacyPages(db, { onProgress: options.onMoveProgress });
  } catch (error) {
    const moved = await db.get('meta', 'move').then((move) => (move as { moved?: unknown } | undefined)?.moved ?? 0, () => '?');
    db.close();
    throw new Error(
      `Could not finish moving Doppel's pages to the layout of version ${DB_VERSION} (${String(moved)} moved so far): ${clause(error)}. ` +
        'Every page is kept, moved or not; the move goes on the next time Doppel opens its database.',
      { cause: error },
    );
  }
  try {
    await buildBlocks(db, { onProgress: options.onMoveProgress });
  } catch (error) {
    const built = await db.get('meta', 'toBlocks').then((build) => readBuild(build).built, () => '?');
    db.close();
    throw new Error(
      `Could not finish moving Doppel's pages into the blocks of version ${DB_VERSION} (${String(built)} pages so far): ${clause(error)}. ` +
        'Every page is kept, moved or not; the move goes on the next time Doppel opens its database.',
      { cause: error },
    );
  }
  return db;
}

const moveListeners = new Set<(progress: MoveProgress) => void>();

/** Calls `listener` on each batch of a move (see openDoppelDb) that the shared connection makes; returns the unsubscribe. */
export function onMoveProgress(listener: (progress: MoveProgress) => void): () => void {
  moveListeners.add(listener);
  return () => moveListeners.delete(listener);
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
    onMoveProgress: (progress) => moveListeners.forEach((listener) => listener(progress)),
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
