// The shared near-duplicate index suite on the extension's store (fake-indexeddb): the documents are
// page records written through the store's write path, and every query is the store's own lookup,
// lib/index/near.ts's BackendIndex over the table runs (lib/index/table-runs.ts TableRuns), the
// code that answers the popup. test/support/store-index.ts only opens the transactions.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { asFingerprint, fingerprintHalves } from '../lib/fingerprint/bits';
import { openDoppelDb } from '../lib/store/db';
import { designTables, tableKeys } from '../lib/index/tables';
import { TableRuns } from '../lib/index/table-runs';
import { readRunIndexValue } from '../lib/rows/run-index';
import { StoreIndex, indexUrl } from './support/store-index';
import { type IndexFactory, flipBits, runIndexSuite } from './support/index-suite';
import { expectTablesOfRecords, storedPages } from './support/kept-tables';
import { freshStore } from './support/fresh-store';
import { recordVisit } from './support/store-queries';
import { decodeRunChunk, runChunks } from '../lib/index/run-chunks';

const factories: IndexFactory[] = [
  {
    name: "the store's lookup: BackendIndex over TableRuns (fake-indexeddb)",
    make: async (design) => new StoreIndex(await openDoppelDb('doppel-suite', { factory: new IDBFactory() }), design),
    size: 5_000,
  },
];

runIndexSuite(factories);

describe('StoreIndex', () => {
  const design = designTables({ k: 3, b: 4 });

  it('enters a document in one tree per table and rejects a second document with the same id', async () => {
    const db = await openDoppelDb('doppel-backend', { factory: new IDBFactory() });
    const index = new StoreIndex(db, design);
    const fp = asFingerprint(0x0123456789abcdefn);
    await index.add(7, fp);
    expect((await storedPages(db)).map((record) => [record.url, record.simhash])).toEqual([[indexUrl(7), '0123456789abcdef']]);
    await expectTablesOfRecords(db, design);
    await expect(index.add(7, fp)).rejects.toThrow();
    expect(await index.size()).toBe(1);
    expect(await index.query(fp)).toEqual([{ id: 7, distance: 0 }]);
    expect(await index.remove(7)).toBe(true);
    expect(await index.remove(7)).toBe(false);
    await expectTablesOfRecords(db, design); // its entries purged
    expect((await db.getAll('runs')).every((value) => decodeRunChunk(value).length === 0)).toBe(true);
    expect(await index.query(fp)).toEqual([]);
    db.close();
  });
});

describe('TableRuns', () => {
  const A = asFingerprint(0x0123456789abcdefn);

  it("a table's candidates are the entries with exactly its key, each with the simhash it was entered with", async () => {
    const store = await freshStore({ k: 3, b: 6 }); // 20 tables, keys wider than 32 bits among them
    const near = flipBits(A, [0, 17, 40]);
    const shares = asFingerprint(A ^ 0xffn); // 8 bits away: differs in the last block only
    for (const [url, simhash] of [['https://near.example/', near], ['https://shares.example/', shares]] as const) {
      await recordVisit(store, { url, title: '', site: new URL(url).host, simhash, check: simhash, now: 1 });
    }
    const [nearId, sharesId] = [(await store.get('https://near.example/'))!.id, (await store.get('https://shares.example/'))!.id];
    const tx = store.db.transaction(['meta', 'runs']);
    const runs = new TableRuns(runChunks(tx.objectStore('runs')), readRunIndexValue(await tx.objectStore('meta').get('runs')), { k: 3, b: 6 }, async () => 2);
    const tables = designTables({ k: 3, b: 6 });
    const keys = tableKeys(tables, A);
    const found = await Promise.all(keys.map((key, t) => runs.candidates(t, key)));
    // `shares` differs from A in its last block only: it shares A's key in every table not keyed on that block
    const lastBlock = tables.b - 1;
    tables.tables.forEach((table, t) => {
      const want = [
        ...(table.chosen.some((b) => [0, 1, 3].includes(b)) ? [] : [{ id: nearId, ...fingerprintHalves(near) }]),
        ...(table.chosen.includes(lastBlock) ? [] : [{ id: sharesId, ...fingerprintHalves(shares) }]),
      ];
      expect([...found[t]!].sort((x, y) => x.id - y.id)).toEqual(want.sort((x, y) => x.id - y.id));
    });
    expect(await runs.size()).toBe(2);
  });
});
