// The shared near-duplicate index suite on IndexedDB (fake-indexeddb): IdbIndexBackend stores
// documents in the `pages` store and looks buckets up with IDBKeyRange.only on its `keys` index,
// the layout the extension's PageStore uses.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { asFingerprint } from '../lib/fingerprint';
import { BackendIndex, type IndexBackend } from '../lib/index';
import { openDoppelDb } from '../lib/store/db';
import { IdbIndexBackend } from '../lib/store/pages';
import { designTables, tableKeys } from '../lib/tables';
import { type IndexFactory, runIndexSuite } from './index-suite';

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

  it('stores one `${table}:${hex}` entry per table and rejects a second document with the same id', async () => {
    const db = await openDoppelDb('doppel-backend', { factory: new IDBFactory() });
    const backend = new IdbIndexBackend(db, design);
    const fp = asFingerprint(0x0123456789abcdefn);
    await backend.add('a', fp, tableKeys(design, fp));
    expect((await db.getAll('pages')).map((record) => [record.url, record.keys])).toEqual([['a', ['0:0123', '1:4567', '2:89ab', '3:cdef']]]);
    await expect(backend.add('a', fp, tableKeys(design, fp))).rejects.toThrow();
    await expect(backend.add('b', fp, [])).rejects.toThrow('expected 4 table keys: got 0');
    expect(await backend.size()).toBe(1);
    expect([...(await backend.candidates(2, tableKeys(design, fp)[2]!))]).toEqual([{ id: 'a', fp }]);
    db.close();
  });
});
