// A new, empty store in its own fake IndexedDB for each call; the databases a test opened are
// closed after it.
import { IDBFactory } from 'fake-indexeddb';
import { afterEach } from 'vitest';
import { openDoppelDb } from '../../lib/store/db';
import { PageStore } from '../../lib/store/pages';
import type { Db, DesignMeta } from '../../lib/store/schema';

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

/** A new store; `design` is the table design it records (default the store's: k 3, b 4). */
export async function freshStore(design?: DesignMeta): Promise<PageStore> {
  const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
  opened.push(db);
  return PageStore.open(db, design);
}
