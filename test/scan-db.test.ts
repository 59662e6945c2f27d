// bin/scan-db/'s parts: the SQL table keys against lib/index/tables.ts, the block-table join against
// comparing every pair, star edges past the bucket cap, connected components in rounds of SQL
// against union-find, the --out files, the dialect switch, the database folder, and that DuckDB
// stays out of lib/ and the extension's entrypoints.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asFingerprint, randomFingerprints } from '../lib/fingerprint/bits';
import { designTables, tableKeys } from '../lib/index/tables';
import { UnionFind, clustersOf } from '../lib/report/clusters';
import { mulberry32 } from '../lib/random';
import { COPY_DETECTORS, detectorNamed } from '../lib/scan/registry';
import { bruteForcePairs } from '../lib/scan/scan';
import * as sql from '../bin/scan-db/candidates';
import { firstMembers, sqlClusters } from '../bin/scan-db/components';
import { DATABASE_FILE, ScanDatabase, StreamCutError } from '../bin/scan-db/database';
import { resultLists, writeOutputs } from '../bin/scan-db/outputs';
import { OnDiskScan, judgePartRows, scanOnDisk } from '../bin/scan-db/scan-on-disk';
import { outputTables } from '../bin/scan-db/schema';
import { MemoryScan, type ReadDocument } from '../bin/scan-lists';
import { readDocument } from '../bin/scan-read';
import { KITE, SOUP } from './support/scan-texts';

const ROOT = new URL('..', import.meta.url).pathname;
let duck: DuckDBConnection;
let instance: DuckDBInstance;
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'doppel-scan-db-'));
  dirs.push(dir);
  return dir;
};
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  duck = await instance.connect();
});
afterAll(() => {
  duck.closeSync();
  instance.closeSync();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const rows = async (query: string): Promise<Record<string, unknown>[]> => (await duck.runAndReadAll(query)).getRowObjectsJS();

/** Seeded fingerprints, every third one within 1 to 4 bits of an earlier one. */
function plantedFingerprints(seed: number, count: number): bigint[] {
  const random = mulberry32(seed);
  const base = randomFingerprints(BigInt(seed), count);
  return base.map((fp, i) => {
    if (i % 3 !== 2) return fp;
    let near: bigint = base[Math.floor(random() * i)]!;
    const flips = 1 + Math.floor(random() * 4);
    for (let f = 0; f < flips; f++) near ^= 1n << BigInt(Math.floor(random() * 64));
    return near;
  });
}

async function loadDocuments(fps: readonly bigint[]): Promise<void> {
  await duck.run('CREATE OR REPLACE TABLE documents (id UINTEGER, simhash UBIGINT)');
  await duck.run(`INSERT INTO documents VALUES ${fps.map((fp, i) => `(${i}, ${fp}::UBIGINT)`).join(', ')}`);
}

describe('simhash in SQL', () => {
  it.each([4, 5, 6])('table keys by SQL equal tableKeys (k = 3, b = %i), on every bit of 300 random fingerprints', async (b) => {
    const design = designTables({ k: 3, b });
    const fps = randomFingerprints(BigInt(b), 300);
    await loadDocuments(fps);
    const columns = design.tables.map((_, t) => `${sql.simhashKeySql(design, t, 'simhash')} AS t${t}`).join(', ');
    const got = await rows(`SELECT ${columns} FROM documents ORDER BY id`);
    expect(got.map((row) => design.tables.map((_, t) => Number(row[`t${t}`])))).toEqual(fps.map((fp) => tableKeys(design, fp)));
  });

  it.each([[3, 4], [3, 6], [2, 5]])('block tables (k = %i, b = %i) give every pair within k exactly once, as comparing every pair does', async (k, b) => {
    const fps = plantedFingerprints(10 * k + b, 600);
    await loadDocuments(fps);
    await duck.run(`${sql.simhashBlocksSql(designTables({ k: 3, b }))}\n${sql.simhashCandidatesSql(k, 1000)}`);
    const viaTables = await rows('SELECT a, b, distance FROM simhash_candidates ORDER BY a, b');
    await duck.run(sql.simhashAllPairsSql(k));
    const viaAll = await rows('SELECT a, b, distance FROM simhash_candidates ORDER BY a, b');
    const expected = bruteForcePairs(fps.map(asFingerprint), k);
    expect(expected.length).toBeGreaterThan(50);
    expect(viaTables).toEqual(expected);
    expect(viaAll).toEqual(expected);
  });
});

describe('star edges past the bucket cap', () => {
  it('a bucket of at most the cap gives every pair, a larger one an edge from its least id to each other member', async () => {
    await duck.run('CREATE OR REPLACE TABLE minhash_bands (band USMALLINT, key BIGINT, doc UINTEGER)');
    // band 0 key 7: documents 2, 4, 6, 8, 9, 11 (six); band 1 key 7: 1, 3, 5 (three); band 1 key 8: 10 alone
    const members: [number, number, number[]][] = [[0, 7, [9, 2, 11, 4, 8, 6]], [1, 7, [5, 1, 3]], [1, 8, [10]]];
    await duck.run(`INSERT INTO minhash_bands VALUES ${members.flatMap(([band, key, docs]) => docs.map((d) => `(${band}, ${key}, ${d})`)).join(', ')}`);
    await duck.run(sql.minhashCandidatesSql(3));
    expect((await rows('SELECT a, b FROM minhash_candidates ORDER BY a, b')).map((r) => [r.a, r.b])).toEqual([
      [1, 3], [1, 5], [2, 4], [2, 6], [2, 8], [2, 9], [2, 11], [3, 5],
    ]);
    await duck.run(sql.minhashCandidatesSql(6));
    expect(await rows('SELECT count(*)::INTEGER AS n FROM minhash_candidates')).toEqual([{ n: 15 + 3 }]);
  });

  it('on disk by minhash, five copies of a text past a cap of 2 give four star pairs where memory gives ten, and the same cluster', async () => {
    const dir = tempDir();
    const texts = [...Array(5).fill(KITE.join('\n\n')), SOUP.join('\n\n'), `${KITE[0]}\n\n${SOUP[1]}`];
    const documents: ReadDocument[] = [];
    for (const [i, text] of texts.entries()) {
      writeFileSync(join(dir, `d${i}.txt`), text);
      const read = await readDocument({ path: `d${i}.txt`, absolute: join(dir, `d${i}.txt`), kind: 'text' }, 'minhash', OnDiskScan.copies);
      if (read.ok) documents.push(read);
    }
    const method = detectorNamed('minhash');
    const memory = new MemoryScan(method, method.defaultThreshold, COPY_DETECTORS);
    for (const d of documents) memory.add(structuredClone(d));
    const expected = await memory.result();
    const scan = await scanOnDisk(documents.map((d) => structuredClone(d)), { method, bucketCap: 2 });
    const got = await scan.result();
    scan.close();
    expect(expected.pairs.map((p) => `${p.a}~${p.b}`)).toEqual(['d0.txt~d1.txt', 'd0.txt~d2.txt', 'd0.txt~d3.txt', 'd0.txt~d4.txt', 'd1.txt~d2.txt', 'd1.txt~d3.txt', 'd1.txt~d4.txt', 'd2.txt~d3.txt', 'd2.txt~d4.txt', 'd3.txt~d4.txt']);
    expect(got.pairs).toEqual(expected.pairs.filter((p) => p.a === 'd0.txt'));
    expect(got.clusters).toEqual(expected.clusters);
  });
});

describe('connected components in rounds of SQL', () => {
  const random = mulberry32(77);
  const shuffled = <T>(items: T[]): T[] => items.map((x) => [random(), x] as const).sort((p, q) => p[0] - q[0]).map(([, x]) => x);
  // a long path numbered out of order (the rounds' worst case), a star, and a random sparse graph
  const order = shuffled(Array.from({ length: 40 }, (_, i) => i));
  const path = order.slice(1).map((v, i) => [Math.min(order[i]!, v), Math.max(order[i]!, v)] as [number, number]);
  const star = Array.from({ length: 30 }, (_, i) => [50, 51 + i] as [number, number]);
  const sparse: [number, number][] = [];
  for (let e = 0; e < 120; e++) {
    const a = 100 + Math.floor(random() * 200);
    const b = 100 + Math.floor(random() * 200);
    if (a !== b) sparse.push([Math.min(a, b), Math.max(a, b)]);
  }
  const graphs: [string, [number, number][]][] = [['a path of 40 nodes numbered at random', path], ['a star', star], ['120 random edges', sparse], ['all three', [...path, ...star, ...sparse]]];

  it.each(graphs)('%s: the same clusters as union-find', async (_, edges) => {
    const db = await ScanDatabase.open({ memoryLimit: '128MB', threads: 1 });
    try {
      await db.run(`${outputTables({ name: 'distance', type: 'INTEGER' })}\nCREATE TABLE edges (a UINTEGER, b UINTEGER)`);
      await db.run(`INSERT INTO edges VALUES ${edges.map(([a, b]) => `(${a}, ${b})`).join(', ')}`);
      const rounds = await sqlClusters(db, 'edges');
      const got = await db.rows('SELECT doc, cluster FROM cluster_members ORDER BY doc');
      const sets = new UnionFind(300);
      for (const [a, b] of edges) sets.union(a, b);
      const first = firstMembers(sets);
      expect(got.map((r) => [r.doc, r.cluster])).toEqual([...first].flatMap((f, doc) => (f === -1 ? [] : [[doc, f]])));
      // and the clusters as clustersOf groups them
      const grouped = new Map<number, number[]>();
      for (const r of got) grouped.set(r.cluster as number, [...(grouped.get(r.cluster as number) ?? []), r.doc as number]);
      expect([...grouped.values()]).toEqual(clustersOf(300, edges));
      // each round's jump to the label's label: fewer rounds than the 39 steps of the path that plain label propagation takes
      expect(rounds).toBeLessThan(39);
    } finally {
      db.close();
    }
  });
});

describe('--out files', () => {
  it('each list as NDJSON (one --json entry a line) and as Parquet of the same rows and the documented types, from either path', async () => {
    const method = detectorNamed('simhash');
    const documents: ReadDocument[] = [];
    const samples = join(ROOT, 'samples');
    const { listFiles } = await import('../bin/scan-files');
    for (const file of (await listFiles(samples)).files) {
      const read = await readDocument(file, 'simhash', OnDiskScan.copies);
      if (read.ok) documents.push(read);
    }
    const memory = new MemoryScan(method, 3, COPY_DETECTORS);
    for (const d of documents) memory.add(structuredClone(d));
    const result = await memory.result();
    const fromMemory = tempDir();
    const written = await writeOutputs(fromMemory, 'distance', resultLists(result));
    const scan = await scanOnDisk(documents.map((d) => structuredClone(d)), { method });
    const fromDisk = tempDir();
    await scan.writeOutputs(fromDisk);
    scan.close();

    const lists: Record<string, unknown[]> = { pairs: result.pairs, clusters: result.clusters, ...Object.fromEntries(result.lists) };
    expect(written.map((w) => [w.name, w.entries])).toEqual([['pairs', 6], ['reuse', 4], ['rewrites', 21], ['clusters', 1]]);
    expect(readdirSync(fromDisk).sort()).toEqual(['clusters.ndjson', 'clusters.parquet', 'pairs.ndjson', 'pairs.parquet', 'reuse.ndjson', 'reuse.parquet', 'rewrites.ndjson', 'rewrites.parquet']);
    for (const { name, ndjson, parquet } of written) {
      const lines = readFileSync(ndjson, 'utf8');
      expect(lines).toBe(lists[name]!.map((entry) => JSON.stringify(entry) + '\n').join(''));
      expect(readFileSync(join(fromDisk, `${name}.ndjson`), 'utf8')).toBe(lines);
      expect(await rows(`SELECT * FROM '${parquet}'`)).toEqual(lists[name]);
      expect(await rows(`SELECT * FROM '${join(fromDisk, `${name}.parquet`)}'`)).toEqual(lists[name]);
    }
    const types = async (name: string): Promise<string[]> => (await rows(`DESCRIBE SELECT * FROM '${join(fromDisk, `${name}.parquet`)}'`)).map((r) => `${r.column_name} ${r.column_type}`);
    expect(await types('pairs')).toEqual(['a VARCHAR', 'b VARCHAR', 'distance INTEGER', 'original VARCHAR', 'evidence VARCHAR']);
    expect(await types('reuse')).toEqual(['a VARCHAR', 'b VARCHAR', 'aShare DOUBLE', 'bShare DOUBLE', 'passages INTEGER', 'original VARCHAR', 'evidence VARCHAR']);
    expect(await types('rewrites')).toEqual(['a VARCHAR', 'b VARCHAR', 'share DOUBLE', 'translated BOOLEAN', 'original VARCHAR', 'evidence VARCHAR']);
    expect(await types('clusters')).toEqual(['members VARCHAR[]', 'original VARCHAR', 'evidence VARCHAR']);
  }, 60_000);
});

describe('the dialect switch', () => {
  it('Spark SQL gets ^ and shiftrightunsigned where DuckDB gets xor() and >>, and nothing else differs', () => {
    const design = designTables({ k: 3, b: 6 });
    const pairs: [string, string][] = [
      [sql.simhashBlocksSql(design, sql.DUCKDB), sql.simhashBlocksSql(design, sql.SPARK)],
      [sql.simhashCandidatesSql(3, 1000, sql.DUCKDB), sql.simhashCandidatesSql(3, 1000, sql.SPARK)],
      [sql.nilsimsaCandidatesSql(28, sql.DUCKDB), sql.nilsimsaCandidatesSql(28, sql.SPARK)],
    ];
    for (const [duckdb, spark] of pairs) {
      expect(spark).not.toMatch(/xor\(|>>/);
      expect(spark).toMatch(/ \^ |shiftrightunsigned/);
      const asDuck = spark.replace(/\(([\w.]+) \^ ([\w.]+)\)/g, 'xor($1, $2)').replace(/shiftrightunsigned\((\w+), (\d+)\)/g, '($1 >> $2)');
      expect(asDuck).toBe(duckdb);
    }
  });

  it('signedSimhash gives Spark the same 64 bits as a BIGINT', async () => {
    const values = [0n, 1n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n, 0x8000000000000001n, 0xdeadbeefcafef00dn];
    const got = await rows(`SELECT ${sql.signedSimhash('v')} AS s FROM (VALUES ${values.map((v) => `(${v}::UBIGINT)`).join(', ')}) t(v)`);
    expect(got.map((r) => r.s)).toEqual(values.map((v) => BigInt.asIntN(64, v)));
  });
});

describe('the database', () => {
  it('stays in a given folder after the scan is closed; the folder of a scan already run is refused, naming its documents', async () => {
    const dir = tempDir();
    const method = detectorNamed('simhash');
    const file = { path: 'kite.txt', absolute: join(dir, 'kite.txt'), kind: 'text' as const };
    writeFileSync(file.absolute, KITE.join('\n\n'));
    const read = await readDocument(file, 'simhash', OnDiskScan.copies);
    if (!read.ok) throw new Error(read.reason);
    const scan = await scanOnDisk([read], { method, stateDir: join(dir, 'state') });
    scan.close();
    expect(existsSync(join(dir, 'state', DATABASE_FILE))).toBe(true);
    await expect(OnDiskScan.open({ method, stateDir: join(dir, 'state') })).rejects.toThrow('the database holds 1 documents: this scan appends after 0');
  });

  it('a temporary folder is removed at close; a memory limit without a unit is refused', async () => {
    const scan = await OnDiskScan.open({ method: detectorNamed('minhash') });
    const { dir } = scan.db;
    expect(existsSync(join(dir, DATABASE_FILE))).toBe(true);
    scan.close();
    expect(existsSync(dir)).toBe(false);
    await expect(ScanDatabase.open({ memoryLimit: '512' })).rejects.toThrow('the memory limit is a number and a unit');
  });

  it('a stream gives every row it must, and fails naming both counts when it gives other than those', async () => {
    const db = await ScanDatabase.open();
    try {
      const read = async (expected: number): Promise<number> => {
        let n = 0;
        for await (const rows of db.stream('SELECT range AS i FROM range(5000)', expected)) n += rows.length;
        return n;
      };
      expect(await db.count('SELECT range AS i FROM range(5000)')).toBe(5000);
      expect(await read(5000)).toBe(5000);
      await expect(read(5001)).rejects.toThrow(new StreamCutError(5000, 5001));
      await expect(read(4999)).rejects.toThrow('DuckDB ended a result after 5000 of its 4999 rows');
    } finally {
      db.close();
    }
  });

  it.each([
    [1, 1],
    [3, 1],
    [292, 146],
    [100_000, 50_000],
    [500_000, 250_000],
    [1_000_000, 250_000],
  ])('among %i documents the judges take candidates %i at a time', (documents, rows) => {
    expect(judgePartRows(documents)).toBe(rows);
  });
});

describe('DuckDB stays at the edge', () => {
  it('no module of lib/ or entrypoints/ imports @duckdb or bin/', () => {
    const files = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
    const all = [...files('lib'), ...files('entrypoints')];
    expect(all.length).toBeGreaterThan(50);
    const offending = all.filter((f) => /from\s+['"](@duckdb\/|(\.\.\/)+bin\/)/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(offending).toEqual([]);
  });
});
