// lib/index/table-runs.ts: the permuted-block tables as sorted runs. The pure parts table-driven;
// then PageStore driven through a seeded random mix of every write (visits, changed texts,
// imports, forgets, a forgotten site, clear) with, after each step, the trees checked against
// the records (test/kept-tables.ts) and every query against a brute-force scan.
import { FIELD_TREES, FIELD_TREE_BASE } from '../lib/rows/page-rows';
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { confirmsNearDuplicate } from '../lib/fingerprint/features';
import { type Fingerprint, asFingerprint, fingerprintFromHex, fingerprintToHex, hammingDistance } from '../lib/fingerprint/bits';
import { mulberry32 } from '../lib/random';
import { randomFingerprints } from '../lib/fingerprint/bits';
import { openDoppelDb } from '../lib/store/db';
import { MERGE_AT } from '../lib/index/runs';
import { PageStore } from '../lib/store/pages';
import { NO_CHECK } from '../lib/store/records';
import type { Db, PageRecord } from '../lib/store/schema';
import { freshStore } from './support/fresh-store';
import { TABLE_STRIDE, levelForEntries, tableEntries, tableTree } from '../lib/index/table-runs';
import { readRunIndexValue } from '../lib/rows/run-index';
import { designTables, tableKeys } from '../lib/index/tables';
import { flipBits } from './support/index-suite';
import { expectTablesOfRecords, storedPages } from './support/kept-tables';
import { recordVisit } from './support/store-queries';
import { updateMany } from '../lib/store/transfer';
import { compactTables } from '../lib/organise/migrate';
import { decodeRunChunk } from '../lib/index/run-chunks';

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

const A = asFingerprint(0x0123456789abcdefn);

describe('tree numbers, entries and levels', () => {
  it('every table of every design has a tree of its own', () => {
    const seen = new Map<number, string>();
    for (const b of [4, 5, 6, 7]) {
      for (let t = 0; t < designTables({ k: 3, b }).tables.length; t++) {
        const { tree, stride } = tableTree({ k: 3, b }, t);
        expect(stride).toBe(TABLE_STRIDE);
        expect(seen.get(tree)).toBeUndefined();
        seen.set(tree, `b${b}/${t}`);
      }
    }
    expect(() => tableTree({ k: 3, b: 4 }, 64)).toThrow('no tree number for table 64');
    expect(() => tableTree({ k: 3, b: 0 }, 0)).toThrow('no tree numbers for the design k = 3, b = 0');
  });

  it('an entry is [key (low 32 bits), simhash high, low, id]; an id past 32 bits is refused', () => {
    expect([...tableEntries({ k: 3, b: 4 }, 2, [{ id: 2 ** 32 - 1, simhash: A }])]).toEqual([0x89ab, 0x01234567, 0x89abcdef, 2 ** 32 - 1]);
    expect(() => tableEntries({ k: 3, b: 4 }, 2, [{ id: 2 ** 32, simhash: A }])).toThrow('a page id must be a whole number up to 4294967295: got 4294967296');
    // b = 6: keys of 31–33 bits; a 33-bit key keeps its low 32 bits
    const b6 = designTables({ k: 3, b: 6 });
    const keys = tableKeys(b6, A);
    const wide = b6.tables.findIndex((table) => table.keyBits === 33);
    expect(keys[wide]!).toBeGreaterThanOrEqual(0);
    expect(tableEntries({ k: 3, b: 6 }, wide, [{ id: 1, simhash: A }])[0]).toBe(keys[wide]! % 2 ** 32);
  });

  it.each([
    [1, 0],
    [MERGE_AT - 1, 0],
    [MERGE_AT, 1],
    [2_000, 3], // an import batch starts where three merges of single visits would have brought it
    [MERGE_AT ** 4, 4],
  ])('a run of %i entries starts at level %i', (n, level) => {
    expect(levelForEntries(n)).toBe(level);
  });
});

type Answer = { url: string; distance: number }[];
function bruteForce(records: readonly PageRecord[], simhash: Fingerprint, check: Fingerprint): Answer {
  return records
    .flatMap((r) => {
      try {
        return [{ r, distance: hammingDistance(simhash, fingerprintFromHex(r.simhash)) }];
      } catch {
        return [];
      }
    })
    .filter(({ r, distance }) => distance <= 3 && (r.check === NO_CHECK || confirmsNearDuplicate(check, fingerprintFromHex(r.check))))
    .sort((x, y) => x.distance - y.distance || x.r.firstSeen - y.r.firstSeen || (x.r.url < y.r.url ? -1 : 1))
    .map(({ r, distance }) => ({ url: r.url, distance }));
}

describe('the run index', () => {
  it('is read once per change: a query after a write reads it, the next ones reuse it; a write through another connection is seen', async () => {
    const factory = new IDBFactory();
    const dbA = await openDoppelDb('doppel', { factory });
    // the other context (a history page, say) has its own copy of the modules, and of their cache
    vi.resetModules();
    const other = await import('../lib/store/pages');
    const dbB = await openDoppelDb('doppel', { factory });
    opened.push(dbA, dbB);
    const [a, b] = [await PageStore.open(dbA), await other.PageStore.open(dbB)];
    expect(other.PageStore).not.toBe(PageStore);
    const get = vi.spyOn(IDBObjectStore.prototype, 'get');
    const runsReads = (): number => get.mock.calls.filter(([key]) => key === 'runs').length;
    try {
      await recordVisit(a, { url: 'https://a.example/', title: '', site: 'a.example', simhash: A, check: A, now: 1 });
      get.mockClear();
      expect(await a.nearDuplicates(A, A)).toHaveLength(1);
      expect(await a.nearDuplicates(A, A)).toHaveLength(1);
      expect(runsReads()).toBe(0); // the index the write wrote, stamped, was kept
      await recordVisit(b, { url: 'https://b.example/', title: '', site: 'b.example', simhash: A, check: A, now: 2 });
      get.mockClear();
      expect(await a.nearDuplicates(A, A)).toHaveLength(2); // a new stamp: read again
      expect(await a.nearDuplicates(A, A)).toHaveLength(2);
      expect(runsReads()).toBe(1);
    } finally {
      get.mockRestore();
    }
  });
});

describe('PageStore keeps the trees exactly as the records say', () => {
  it('through a seeded mix of visits, changed texts, imports, forgets, a forgotten site and clear, every query exact', async () => {
    const store = await freshStore();
    const random = mulberry32(0x7ab1e5);
    const bases = randomFingerprints(0xba5e5n, 12);
    const noise = randomFingerprints(0x5eedn, 4_000);
    let next = 0;
    // a simhash near one of the bases (so that queries find something), or anywhere
    const simhashOf = (): Fingerprint => (random() < 0.6 ? flipBits(bases[Math.floor(random() * bases.length)]!, [Math.floor(random() * 64), Math.floor(random() * 64)]) : noise[next++ % noise.length]!);
    const urlOf = (): string => `https://s${Math.floor(random() * 6)}.example/${Math.floor(random() * 300)}`;
    let now = 1;
    const stepsDone = new Map<string, number>();
    for (let step = 0; step < 160; step++) {
      const roll = random();
      let kind: string;
      if (roll < 0.55) {
        kind = 'visit'; // a new page, a revisit, or a changed text (a URL drawn again with a new simhash)
        const url = urlOf();
        const simhash = random() < 0.3 ? fingerprintFromHex((await store.get(url))?.simhash ?? fingerprintToHex(simhashOf())) : simhashOf();
        await store.record({ url, title: `t${step}`, site: new URL(url).host, simhash, check: simhash, now: now++ });
      } else if (roll < 0.75) {
        kind = 'import'; // a batch of new and stored pages, some changed, one unreadable
        const urls = [...new Set(Array.from({ length: 1 + Math.floor(random() * 40) }, urlOf))];
        await updateMany(store, urls, (current) =>
          urls.map((url, i) => {
            const simhash = i === 0 && random() < 0.2 ? 'not hex' : random() < 0.5 && current.has(url) ? current.get(url)!.simhash : fingerprintToHex(simhashOf());
            return { url, title: '', site: new URL(url).host, simhash, check: NO_CHECK, firstSeen: now, lastSeen: now++, visits: 1 };
          }),
        );
      } else if (roll < 0.93) {
        kind = 'forget';
        await store.forgetMany(Array.from({ length: 1 + Math.floor(random() * 6) }, urlOf));
      } else if (roll < 0.98) {
        kind = 'forgetSite';
        await store.forgetSite(`s${Math.floor(random() * 6)}.example`);
      } else {
        kind = 'clear';
        await store.clear();
      }
      stepsDone.set(kind, (stepsDone.get(kind) ?? 0) + 1);
      await expectTablesOfRecords(store.db);
      if (step % 8 === 0) {
        const records = await storedPages(store.db);
        for (const base of bases) {
          const got = (await store.nearDuplicates(base, base)).map((m) => ({ url: m.record.url, distance: m.distance }));
          expect(got).toEqual(bruteForce(records, base, base));
        }
      }
    }
    // every kind of write happened, and merges ran (runs above level 0)
    expect([...stepsDone.keys()].sort()).toEqual(['clear', 'forget', 'forgetSite', 'import', 'visit']);
    const index = readRunIndexValue(await store.db.get('meta', 'runs'));
    expect(index.runs.some((run) => run.level > 0)).toBe(true);

    // compacted: one run a tree, the same entries, the same answers; then writes go on as before
    const answersBefore = await Promise.all(bases.map((base) => store.nearDuplicates(base, base)));
    // the 4 tables and the page fields' trees (a tree with no entry has no run)
    const trees = [...[0, 1, 2, 3].map((t) => tableTree({ k: 3, b: 4 }, t).tree), ...Object.values(FIELD_TREES).map((spec) => spec.tree)];
    const runsPerTree = (i: typeof index): number[] => trees.map((tree) => i.runs.filter((run) => run.tree === tree).length);
    const several = runsPerTree(index).filter((n) => n > 1).length;
    expect(runsPerTree(index).slice(0, 4).every((n) => n > 1)).toBe(true);
    expect(several).toBeGreaterThan(4);
    expect(await compactTables(store, 1)).toBe(several);
    expect(runsPerTree(readRunIndexValue(await store.db.get('meta', 'runs'))).every((n) => n <= 1)).toBe(true);
    await expectTablesOfRecords(store.db);
    expect(await Promise.all(bases.map((base) => store.nearDuplicates(base, base)))).toEqual(answersBefore);
    expect(await compactTables(store, 1)).toBe(0); // nothing left to merge
    await recordVisit(store, { url: 'https://after.example/', title: '', site: 'after.example', simhash: bases[0]!, check: bases[0]!, now: now++ });
    await store.forgetMany([(await storedPages(store.db))[0]!.url]);
    await expectTablesOfRecords(store.db);
  });

  it('a forgotten page leaves nothing in the runs: not its simhash, not the hash of its URL', async () => {
    const store = await freshStore();
    const others = randomFingerprints(0x0f0e7n, 50);
    for (const [i, simhash] of others.entries()) await recordVisit(store, { url: `https://o.example/${i}`, title: '', site: 'o.example', simhash, check: simhash, now: i });
    const { id } = await recordVisit(store, { url: 'https://secret.example/', title: '', site: 'secret.example', simhash: A, check: A, now: 99 });
    for (const [i, simhash] of others.entries()) await recordVisit(store, { url: `https://p.example/${i}`, title: '', site: 'p.example', simhash, check: simhash, now: 100 + i }); // merged with it
    // the simhash in any tree; the id in a table's entry (the page fields' trees are checked against the records by expectTablesOfRecords)
    const holds = async (): Promise<boolean> =>
      (await store.db.getAll('runs')).map(decodeRunChunk).some((words) => {
        for (let e = 0; e + 2 < words.length; e++) if (words[e] === 0x01234567 && words[e + 1] === 0x89abcdef) return true;
        return false;
      }) ||
      (await store.db.getAll('runs', IDBKeyRange.upperBound([FIELD_TREE_BASE], true))).map(decodeRunChunk).some((words) => {
        for (let e = 0; e < words.length; e += TABLE_STRIDE) if (words[e + 3] === id) return true;
        return false;
      });
    expect(await holds()).toBe(true);
    expect(await store.forgetSite('secret.example')).toBe(1);
    expect(await holds()).toBe(false);
    await expectTablesOfRecords(store.db);
  });
});
