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

const secondHashOf = (hash: number, doc: number): number => hash * 3 + (doc % 5 === 0 ? 1 : 0);

/** Pairs "a-b" (a < b) of `postings` sharing a key at least `min` times, by comparing every pair, in order. */
function sharedPairs(postings: readonly { key: string; doc: number }[], min: number): string[] {
  const docsOf = new Map<string, number[]>();
  for (const { key, doc } of postings) docsOf.set(key, [...(docsOf.get(key) ?? []), doc]);
  const shared = new Map<string, number>();
  for (const docs of docsOf.values()) {
    const sorted = [...docs].sort((x, y) => x - y);
    for (let i = 0; i < sorted.length; i++) for (let j = i + 1; j < sorted.length; j++) shared.set(`${sorted[i]}-${sorted[j]}`, (shared.get(`${sorted[i]}-${sorted[j]}`) ?? 0) + 1);
  }
  return [...shared].filter(([, n]) => n >= min).map(([pair]) => pair).sort((x, y) => {
    const [a1, b1] = x.split('-').map(Number);
    const [a2, b2] = y.split('-').map(Number);
    return a1! - a2! || b1! - b2!;
  });
}

/** 400 documents with 6 hashes each from a pool of 900 (so many pairs share one, some two or more), and one hash on every 10th document (boilerplate past 30 pages). */
async function seeded(): Promise<ScanDatabase> {
  const database = await ScanDatabase.open({ memoryLimit: '256MB' });
  const random = mulberry32(48);
  const rows: string[] = [];
  const passageRows: string[] = [];
  for (let doc = 0; doc < 400; doc++) {
    const hashes = new Set<number>();
    while (hashes.size < 6) hashes.add(1 + Math.floor(random() * 900));
    if (doc % 10 === 0) hashes.add(5000);
    for (const hash of hashes) {
      rows.push(`(${hash}, ${doc})`);
      // the k-gram's second hash: every fifth document holds another k-gram under the same hashes (a chance meeting)
      passageRows.push(`(${hash}, ${secondHashOf(hash, doc)}, ${doc})`);
    }
  }
  await database.run(`INSERT INTO documents (id, path, title, words) SELECT range, CAST(range AS VARCHAR), '', 1 FROM range(400);
INSERT INTO passage_hashes VALUES ${passageRows.join(', ')};
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
    // a pair sharing two rewrite hashes is a rewrite candidate only where its passages met by chance (a fifth of the documents)
    expect(rewrites!.length).toBeGreaterThan(0);
    expect(rewrites!.filter((pair) => passages!.includes(pair))).toEqual([]);
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
    const expected = sharedPairs(rows.map((r) => ({ key: String(r.hash), doc: r.doc as number })), 2).filter((pair) => pair !== '3-17');
    expect(expected.length).toBeGreaterThan(5);
    expect(found).toEqual([expected, expected, expected]);
  });

  it('give the passage pairs sharing a hash and its second hash, not those meeting on the hash alone', async () => {
    db = await seeded();
    await db.run(`${passageBoilerplateSql(30, 20)}\n${passageCandidatesSql(['out_pairs'], 3)}`);
    const found = await pairs(db, 'passage_candidates');
    const rows = await db.rows('SELECT hash, second_hash, doc FROM passage_hashes WHERE hash <> 5000');
    const expected = sharedPairs(rows.map((r) => ({ key: `${String(r.hash)} ${String(r.second_hash)}`, doc: r.doc as number })), 1).filter((pair) => pair !== '3-17');
    const byHashAlone = sharedPairs(rows.map((r) => ({ key: String(r.hash), doc: r.doc as number })), 1);
    expect(found).toEqual(expected);
    // the chance meetings (a fifth of the documents hold other k-grams) are many, and none is a candidate
    const chanceOnly = byHashAlone.filter((pair) => !expected.includes(pair) && pair !== '3-17');
    expect(chanceOnly.length).toBeGreaterThan(200);
  });
});
