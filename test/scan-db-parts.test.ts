// The shared-hash self-joins of the on-disk scan split in parts by the first document's id
// (bin/scan-db/candidates.ts partedSelfJoin): the same candidates as in one part, on a seeded
// set where pairs share one hash, two, or a boilerplate hash.
import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../lib/random';
import { POSTINGS_PER_PART, joinParts, passageBoilerplateSql, passageCandidatesSql, rewriteCandidatesSql, rewriteFrequentSql } from '../bin/scan-db/candidates';
import { ScanDatabase } from '../bin/scan-db/database';
import { outputTables } from '../bin/scan-db/schema';

let db: ScanDatabase | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

/** 400 documents with 6 hashes each from a pool of 900 (so many pairs share one, some two or more), and one hash on every 10th document (boilerplate past 30 pages). */
async function seeded(): Promise<ScanDatabase> {
  const database = await ScanDatabase.open({ memoryLimit: '256MB' });
  const random = mulberry32(48);
  const rows: string[] = [];
  for (let doc = 0; doc < 400; doc++) {
    const hashes = new Set<number>();
    while (hashes.size < 6) hashes.add(1 + Math.floor(random() * 900));
    if (doc % 10 === 0) hashes.add(5000);
    for (const hash of hashes) rows.push(`(${hash}, ${doc})`);
  }
  await database.run(`INSERT INTO documents (id, path, title, words) SELECT range, CAST(range AS VARCHAR), '', 1 FROM range(400);
INSERT INTO passage_hashes VALUES ${rows.join(', ')};
INSERT INTO rewrite_index VALUES ${rows.join(', ')};
${outputTables({ name: 'distance', type: 'INTEGER' })}
INSERT INTO out_pairs VALUES (3, 17, 1, NULL, NULL);`);
  return database;
}

const pairs = async (database: ScanDatabase, table: string): Promise<string[]> => (await database.rows(`SELECT a, b FROM ${table} ORDER BY a, b`)).map((r) => `${String(r.a)}-${String(r.b)}`);

describe('shared-hash self-joins in parts', () => {
  it('split a join into a part for each POSTINGS_PER_PART postings', () => {
    expect([0, 1, POSTINGS_PER_PART, POSTINGS_PER_PART + 1, 370_000_000].map(joinParts)).toEqual([1, 1, 1, 2, Math.ceil(370_000_000 / POSTINGS_PER_PART)]);
  });

  it('give the same passage and rewrite candidates in 1, 2, 7 and 400 parts', async () => {
    db = await seeded();
    const found: Record<number, string[][]> = {};
    for (const parts of [1, 2, 7, 400]) {
      await db.run(`${passageBoilerplateSql(30, 20)}\n${passageCandidatesSql(['out_pairs'], parts)}`);
      await db.run(`${rewriteFrequentSql(30)}\n${rewriteCandidatesSql(2, ['out_pairs', 'passage_candidates'], parts)}`);
      found[parts] = [await pairs(db, 'passage_candidates'), await pairs(db, 'rewrite_candidates')];
    }
    const [passages, rewrites] = found[1]!;
    // a real set: many pairs share a hash, fewer two; the pair reported already and the boilerplate hash's pairs are left out
    expect(passages!.length).toBeGreaterThan(1000);
    expect(rewrites!.length).toBe(0); // every pair sharing two hashes shares one, so passages took it
    expect(passages).not.toContain('3-17');
    expect(passages).not.toContain('0-10');
    for (const parts of [2, 7, 400]) expect(found[parts]).toEqual(found[1]);
  });

  it('find the rewrite pairs sharing two hashes, in any number of parts', async () => {
    db = await seeded();
    const found: string[][] = [];
    for (const parts of [1, 3, 50]) {
      await db.run(`${rewriteFrequentSql(30)}\n${rewriteCandidatesSql(2, ['out_pairs'], parts)}`);
      found.push(await pairs(db, 'rewrite_candidates'));
    }
    // the pairs sharing two or more non-frequent hashes, counted here in JS
    const rows = await db.rows('SELECT hash, doc FROM rewrite_index WHERE hash <> 5000');
    const docsOf = new Map<number, number[]>();
    for (const r of rows) docsOf.set(r.hash as number, [...(docsOf.get(r.hash as number) ?? []), r.doc as number]);
    const shared = new Map<string, number>();
    for (const docs of docsOf.values()) {
      const sorted = [...docs].sort((x, y) => x - y);
      for (let i = 0; i < sorted.length; i++) for (let j = i + 1; j < sorted.length; j++) shared.set(`${sorted[i]}-${sorted[j]}`, (shared.get(`${sorted[i]}-${sorted[j]}`) ?? 0) + 1);
    }
    const expected = [...shared].filter(([pair, n]) => n >= 2 && pair !== '3-17').map(([pair]) => pair).sort((x, y) => {
      const [a1, b1] = x.split('-').map(Number);
      const [a2, b2] = y.split('-').map(Number);
      return a1! - a2! || b1! - b2!;
    });
    expect(expected.length).toBeGreaterThan(5);
    expect(found).toEqual([expected, expected, expected]);
  });
});
