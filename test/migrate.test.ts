// lib/organise/migrate.ts: choosing the design from the store's size, and building the tables of a
// new design from every record with every query answered exactly (vs a brute-force scan) before,
// during (after interruptions at every batch boundary of the pass) and after, and the trees kept
// exactly as the records say (test/kept-tables.ts) throughout.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { confirmsNearDuplicate } from '../lib/fingerprint/features';
import { type Fingerprint, fingerprintFromHex, fingerprintToHex, hammingDistance } from '../lib/fingerprint/bits';
import { mulberry32 } from '../lib/random';
import { randomFingerprints } from '../lib/fingerprint/bits';
import { openDoppelDb } from '../lib/store/db';
import { HEADROOM, designFor } from '../lib/index/design';
import { type MigrationProgress, keepDesignFitted, migrateDesign } from '../lib/organise/migrate';
import { PageStore } from '../lib/store/pages';
import { NO_CHECK, type NearDuplicate } from '../lib/store/records';
import type { Db, PageRecord } from '../lib/store/schema';
import { tableTree } from '../lib/index/table-runs';
import { readRunIndexValue } from '../lib/rows/run-index';
import { chooseDesign, designTables } from '../lib/index/tables';
import { flipBits } from './support/index-suite';
import { expectTablesOfRecords } from './support/kept-tables';
import { nearDuplicatesOf, recordVisit } from './support/store-queries';
import { updateMany } from '../lib/store/transfer';

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function freshDb(): Promise<Db> {
  const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
  opened.push(db);
  return db;
}

const B4 = { k: 3, b: 4 };
const B5 = { k: 3, b: 5 };

describe('designFor', () => {
  it('asks chooseDesign for the count itself: b = 4 up to 2^20 pages, b = 5 up to 2^29, then b = 6', () => {
    expect(HEADROOM).toBe(1);
    const cases: [number, number][] = [
      [0, 4],
      [1, 4],
      [3_000, 4],
      [524_289, 4],
      [1_000_000, 4], // the benchmark's million pages: 4 tables of 16-bit keys
      [1_048_576, 4], // 2^20 / 2^16 = 16 per table: still b = 4
      [1_048_577, 5],
      [536_870_912, 5], // 2^29 / 2^25 = 16 per (narrowest) table
      [536_870_913, 6],
      [2 ** 35, 6],
      [2 ** 35 + 1, 7],
    ];
    for (const [count, b] of cases) expect([count, designFor(count)]).toEqual([count, { k: 3, b }]);
  });

  it('the documented candidates per query: 2^(d − p) per table of p-bit keys at 2^d pages', () => {
    const perQuery = (b: number, d: number) => designTables({ k: 3, b }).tables.reduce((sum, t) => sum + 2 ** (d - t.keyBits), 0);
    expect(perQuery(4, 20)).toBe(64);
    expect(perQuery(5, 29)).toBe(112);
    expect(perQuery(6, 35)).toBe(176);
    // the same numbers chooseDesign reports (for the count itself, without the headroom)
    expect(chooseDesign({ k: 3, expectedSize: 2 ** 19 }).expectedCandidatesPerQuery).toBe(32);
  });
});

// ~3,000 pages: random ones, and planted groups of a base page and copies at distances 0..4
// (distance 4 is never a near-duplicate for k = 3), some with a far check, some without a check.
interface Seed {
  url: string;
  simhash: Fingerprint;
  check: Fingerprint | null;
}
const random = mulberry32(0x5eed);
const seeds: Seed[] = [];
const bases: { simhash: Fingerprint; check: Fingerprint }[] = [];
{
  const fps = randomFingerprints(0x3a7en, 2 * 2_400 + 3 * 120);
  let next = 0;
  for (let i = 0; i < 2_400; i++) seeds.push({ url: `https://r${i % 37}.example/${i}`, simhash: fps[next++]!, check: fps[next++]! });
  for (let g = 0; g < 120; g++) {
    const simhash = fps[next++]!;
    const check = fps[next++]!;
    bases.push({ simhash, check });
    const far = fps[next++]!;
    for (let d = 0; d <= 4; d++) {
      const positions = new Set<number>();
      while (positions.size < d) positions.add(Math.floor(random() * 64));
      const pageCheck = g % 10 === 0 && d === 2 ? far : g % 7 === 0 && d === 1 ? null : flipBits(check, [Math.floor(random() * 64)]);
      seeds.push({ url: `https://planted.example/${g}/${d}`, simhash: flipBits(simhash, [...positions]), check: pageCheck });
    }
  }
}

async function seed(store: PageStore): Promise<void> {
  for (let i = 0; i < seeds.length; i += 500) {
    const batch = seeds.slice(i, i + 500);
    await updateMany(store, 
      batch.map((s) => s.url),
      () =>
        batch.map((s, j) => ({
          url: s.url,
          title: `page ${i + j}`,
          site: new URL(s.url).host,
          simhash: fingerprintToHex(s.simhash),
          check: s.check === null ? NO_CHECK : fingerprintToHex(s.check),
          firstSeen: i + j,
          lastSeen: 10_000 + i + j,
          visits: 1 + ((i + j) % 5),
        })),
    );
  }
}

async function allRecords(store: PageStore): Promise<PageRecord[]> {
  const out: PageRecord[] = [];
  for (let after: number | undefined; ; ) {
    const chunk = await store.pagesAfter(after, 1000);
    out.push(...chunk);
    if (chunk.length < 1000) return out;
    after = chunk[chunk.length - 1]!.id;
  }
}

type Answer = { url: string; distance: number }[];
const shape = (found: NearDuplicate[]): Answer => found.map((m) => ({ url: m.record.url, distance: m.distance }));

function bruteForce(records: readonly PageRecord[], simhash: Fingerprint, check: Fingerprint | null, excludeUrl?: string): Answer {
  return records
    .map((r) => ({ r, distance: hammingDistance(simhash, fingerprintFromHex(r.simhash)) }))
    .filter(({ r, distance }) => distance <= 3 && r.url !== excludeUrl && (check === null || r.check === NO_CHECK || confirmsNearDuplicate(check, fingerprintFromHex(r.check))))
    .sort((x, y) => x.distance - y.distance || x.r.firstSeen - y.r.firstSeen || (x.r.url < y.r.url ? -1 : 1))
    .map(({ r, distance }) => ({ url: r.url, distance }));
}

/** Every query's answer, each checked against a brute-force scan of the records stored now. */
async function answers(store: PageStore): Promise<Answer[]> {
  const records = await allRecords(store);
  const out: Answer[] = [];
  for (const base of bases) {
    const got = shape(await store.nearDuplicates(base.simhash, base.check));
    expect(got).toEqual(bruteForce(records, base.simhash, base.check));
    out.push(got);
  }
  // stored pages as queries (NO_CHECK ones on the simhash alone), and perturbed random pages
  for (const r of records.filter((_, i) => i % 40 === 0 || r0(records[i]!))) {
    const check = r.check === NO_CHECK ? null : fingerprintFromHex(r.check);
    const got = shape(await nearDuplicatesOf(store, r));
    expect(got).toEqual(bruteForce(records, fingerprintFromHex(r.simhash), check, r.url));
    out.push(got);
  }
  return out;
}
const r0 = (r: PageRecord): boolean => r.url.endsWith('/0') && r.url.startsWith('https://planted.example/');

/** The trees meta's run index lists, by design: which designs have tables stored. */
async function designsWithTrees(db: Db): Promise<string[]> {
  const trees = new Set(readRunIndexValue(await db.get('meta', 'runs')).runs.map((run) => run.tree));
  return [B4, B5, { k: 3, b: 6 }].filter((design) => trees.has(tableTree(design, 0).tree)).map((design) => `b${design.b}`);
}

describe('migrateDesign', () => {
  it('b = 4 → b = 5 on ~3,000 pages: the same exact answers before, after every interruption, and after', async () => {
    const db = await freshDb();
    const store = await PageStore.open(db);
    await seed(store);
    expect(await store.count()).toBe(seeds.length);
    expect(await store.needsMigration()).toBe(false);
    const before = await answers(store);
    expect(before.filter((a) => a.some((m) => m.distance > 0)).length).toBeGreaterThan(100);
    const recordsBefore = await allRecords(store);

    // Interrupt after every batch (onProgress throws): each run commits one batch more. After
    // each interruption, this store (and, every third time, a store opened afresh) answers exactly.
    const batchSize = 500;
    const seen: MigrationProgress[] = [];
    let interruptions = 0;
    for (;;) {
      let batches = 0;
      const run = migrateDesign(store, B5, {
        batchSize,
        onProgress: (progress) => {
          seen.push(progress);
          if (++batches === 1) throw new Error('interrupted');
        },
      });
      const error = await run.then(
        () => null,
        (e: unknown) => e,
      );
      if (error === null) break;
      expect((error as Error).message).toBe('interrupted');
      interruptions++;
      expect(await answers(store)).toEqual(before);
      if (interruptions % 3 === 1) expect(await answers(await PageStore.open(db))).toEqual(before); // a store opened now
      expect(await store.needsMigration()).toBe(true); // a migration under way is unfinished
      await expectTablesOfRecords(db); // b = 4's trees whole, b = 5's holding exactly the pages up to the cursor
      // (stopped after the batch that ended the pass: b = 4's trees are gone with it)
      expect(await designsWithTrees(db)).toEqual(store.migration === undefined ? ['b5'] : ['b4', 'b5']);
    }
    const batches = Math.ceil(seeds.length / batchSize) + 1; // the last batch finds no record, and ends the pass
    expect(interruptions).toBe(batches);
    expect(seen.every((p) => p.phase === 'adding' && p.total === seeds.length && p.from.b === 4 && p.to.b === 5)).toBe(true);
    expect(seen.map((p) => p.done)).toEqual([...Array.from({ length: batches - 2 }, (_, i) => (i + 1) * batchSize), seeds.length, seeds.length]);

    // after: meta at b = 5, only b = 5's trees, exactly as the records say; the records unchanged
    expect(await db.get('meta', 'design')).toEqual(B5);
    expect([store.design.b, store.migration]).toEqual([5, undefined]);
    const recordsAfter = await allRecords(store);
    expect(recordsAfter).toEqual(recordsBefore);
    await expectTablesOfRecords(db);
    expect(await designsWithTrees(db)).toEqual(['b5']);
    expect(await answers(store)).toEqual(before);

    // re-running is a no-op
    const again = await migrateDesign(store, B5, { batchSize });
    expect(again).toMatchObject({ rewritten: 0, migrated: false });
    expect(await allRecords(store)).toEqual(recordsAfter);
    // 3,000 pages want b = 4: a b = 5 store would be migrated back (far below the threshold)
    expect(await store.needsMigration()).toBe(true);
  });

  it('an uninterrupted migration, and a re-run of a finished one, end in the same store', async () => {
    const db = await freshDb();
    const store = await PageStore.open(db);
    await seed(store);
    const before = await answers(store);
    const result = await migrateDesign(store, B5);
    expect(result).toEqual({ from: B4, to: B5, rewritten: seeds.length, migrated: true });
    expect(await answers(store)).toEqual(before);
    const records = await allRecords(store);
    expect((await migrateDesign(store, B5)).migrated).toBe(false);
    expect(await allRecords(store)).toEqual(records);
    // and back to b = 4
    expect((await migrateDesign(store, B4, { batchSize: 700 })).migrated).toBe(true);
    expect(await answers(store)).toEqual(before);
    await expectTablesOfRecords(db);
    expect(await designsWithTrees(db)).toEqual(['b4']);
  });

  it('pages recorded or imported during a migration, through any store, are found during and after it', async () => {
    const db = await freshDb();
    const store = await PageStore.open(db);
    await seed(store);
    const stale = await PageStore.open(db); // opened before the migration: it reads meta in each transaction
    const writes: Promise<unknown>[] = [];
    let n = 0;
    const write = async (): Promise<void> => {
      const base = bases[n % bases.length]!;
      const i = n++;
      const simhash = flipBits(base.simhash, [i % 64, (i * 7 + 3) % 64]);
      // by visit and by updateMany
      const url = `https://${i % 2 === 0 ? 'a' : 'z'}-during.example/${i}`;
      if (i % 3 === 0) {
        await updateMany(stale, [url], () => [
          { url, title: '', site: new URL(url).host, simhash: fingerprintToHex(simhash), check: NO_CHECK, firstSeen: 50_000 + i, lastSeen: 50_000 + i, visits: 1 },
        ]);
      } else {
        await recordVisit(stale, { url, title: '', site: new URL(url).host, simhash, check: base.check, now: 50_000 + i });
      }
    };
    let stops = 0;
    for (;;) {
      let batches = 0;
      const error = await migrateDesign(store, B5, {
        batchSize: 250,
        onProgress: async () => {
          // new pages take the next ids, past the cursor: the pass reaches each of them, and ends
          // once the writes stop
          if (n < 60) {
            writes.push(write()); // concurrently with the next batch
            await write();
          }
          if (++batches === 2) throw new Error('stop');
        },
      }).then(
        () => null,
        (e: unknown) => e,
      );
      await Promise.all(writes);
      await answers(store); // each checked against brute force over what is stored now
      await expectTablesOfRecords(db); // no page entered twice in the new trees, none missed
      if (error === null) break;
      stops++;
    }
    expect(stops).toBeGreaterThan(2);
    expect(n).toBeGreaterThan(20);
    expect(await store.count()).toBe(seeds.length + n);
    expect(await db.get('meta', 'design')).toEqual(B5);
    await expectTablesOfRecords(db);
    await answers(stale);
  }, 180_000); // 43 s on an idle 2-core machine: more than the default's margin when the cores are shared

  it('a migration redirected to another target ends at the new target, and the partial trees are deleted', async () => {
    const db = await freshDb();
    const store = await PageStore.open(db);
    await seed(store);
    const before = await answers(store);
    await expect(
      migrateDesign(store, { k: 3, b: 6 }, {
        batchSize: 1000,
        onProgress: () => {
          throw new Error('stop');
        },
      }),
    ).rejects.toThrow('stop');
    expect(store.migration).toMatchObject({ phase: 'adding', to: { k: 3, b: 6 } });
    expect(await designsWithTrees(db)).toEqual(['b4', 'b6']);
    await expectTablesOfRecords(db);
    await migrateDesign(store, B5);
    expect(await db.get('meta', 'design')).toEqual(B5);
    await expectTablesOfRecords(db);
    expect(await designsWithTrees(db)).toEqual(['b5']);
    expect(await answers(store)).toEqual(before);
  });

  it('rejects an unusable target before writing anything', async () => {
    const db = await freshDb();
    const store = await PageStore.open(db);
    await expect(migrateDesign(store, { k: 3, b: 3 })).rejects.toThrow('blocks must exceed k');
    expect(await db.get('meta', 'design')).toEqual(B4);
  });
});

describe('keepDesignFitted', () => {
  it('does nothing to a store whose design fits its size', async () => {
    const store = await PageStore.open(await freshDb(), B4);
    await seed(store);
    expect(await keepDesignFitted(store)).toBeNull();
    expect(store.design.b).toBe(4);
  });

  it('moves a store to the design its size calls for, keeping every answer', async () => {
    // A store opened with 10 tables holds a few thousand pages: 4 tables are enough.
    const store = await PageStore.open(await freshDb(), B5);
    await seed(store);
    const before = await answers(store);
    const moved = await keepDesignFitted(store);
    expect(moved).toMatchObject({ from: B5, to: B4 });
    expect(store.design.b).toBe(4);
    expect(await answers(store)).toEqual(before);
    expect(await keepDesignFitted(store)).toBeNull();
  });
});
