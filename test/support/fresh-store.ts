// A new, empty store in its own fake IndexedDB for each call; the databases a test opened are
// closed after it.
import { IDBFactory } from 'fake-indexeddb';
import { afterEach } from 'vitest';
import { openDoppelDb } from '../../lib/store/db';
import { PageStore } from '../../lib/store/pages';
import type { Db } from '../../lib/store/schema';

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

export async function freshStore(): Promise<PageStore> {
  const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
  opened.push(db);
  return PageStore.open(db);
}
