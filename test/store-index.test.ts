// The shared near-duplicate index suite on IndexedDB (fake-indexeddb): IdbIndexBackend stores
// documents in the `pages` store and looks buckets up with IDBKeyRange.only on its `keys` index,
// the layout the extension's PageStore uses.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { asFingerprint } from '../lib/fingerprint/bits';
import { BackendIndex, type IndexBackend } from '../lib/index/near';
import { openDoppelDb } from '../lib/store/db';
import { IdbIndexBackend } from './support/idb-index-backend';
import { designTables, tableKeys } from '../lib/index/tables';
import { type IndexFactory, runIndexSuite } from './support/index-suite';
import { expectTablesOfRecords, storedPages } from './support/kept-tables';

/** IdbIndexBackend keys documents by string (URLs); the suite's ids are numbers. */
function numberIds(inner: IndexBackend<string>): IndexBackend<number> {
  return {
    add: (id, fp, keys) => inner.add(String(id), fp, keys),
    remove: (id) => inner.remove!(String(id)),
    candidates: async (table, key) => [...(await inner.candidates(table, key))].map(({ id, fp }) => ({ id: Number(id), fp })),
    size: () => inner.size(),
  };
}

const factories: IndexFactory[] = [
  {
    name: 'BackendIndex over IdbIndexBackend (fake-indexeddb)',
    make: async (design) => {
      const db = await openDoppelDb('doppel-suite', { factory: new IDBFactory() });
      return new BackendIndex(design, numberIds(new IdbIndexBackend(db, design)));
    },
    size: 5_000,
  },
];

runIndexSuite(factories);

describe('IdbIndexBackend', () => {
  const design = designTables({ k: 3, b: 4 });

  it('enters a document in one tree per table and rejects a second document with the same id', async () => {
    const db = await openDoppelDb('doppel-backend', { factory: new IDBFactory() });
    const backend = new IdbIndexBackend(db, design);
    const fp = asFingerprint(0x0123456789abcdefn);
    await backend.add('a', fp, tableKeys(design, fp));
    expect((await storedPages(db)).map((record) => [record.url, record.simhash])).toEqual([['https://index.invalid/a', '0123456789abcdef']]);
    await expectTablesOfRecords(db, design);
    await expect(backend.add('a', fp, tableKeys(design, fp))).rejects.toThrow();
    await expect(backend.add('b', fp, [])).rejects.toThrow('expected 4 table keys: got 0');
    expect(await backend.size()).toBe(1);
    expect(await backend.remove('a')).toBe(true);
    expect(await backend.remove('a')).toBe(false);
    await expectTablesOfRecords(db, design); // its entries purged
    expect((await db.getAll('runs')).every((words) => words.length === 0)).toBe(true);
    await backend.add('a', fp, tableKeys(design, fp));
    expect([...(await backend.candidates(2, tableKeys(design, fp)[2]!))]).toEqual([{ id: 'a', fp }]);
    db.close();
  });
});
