// `scan --fingerprints DIR`: the fingerprint tables as Parquet shards (bin/scan-db/shards.ts), read
// back: a file per table, every document with its simhash (written as a signed BIGINT of the same
// 64 bits, for Spark) and its passage hashes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { SHARD_TABLES } from '../bin/scan-db/shards';

const ROOT = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'doppel-shards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scan --fingerprints DIR', () => {
  it('writes each fingerprint table as Parquet, the documents and their simhashes as --json gives them', async () => {
    const shards = join(dir, 'shards');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/scan.ts', 'samples', '--fingerprints', shards, '--json'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { documents: { path: string; simhash: string | null }[] };
    expect(readdirSync(shards).sort()).toEqual(SHARD_TABLES.map((t) => `${t}.parquet`).sort());

    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const rows = async (sql: string): Promise<Record<string, unknown>[]> => (await duck.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
    const documents = await rows(`SELECT id, path, simhash FROM '${join(shards, 'documents.parquet')}' ORDER BY id`);
    const hex = (x: unknown): string | null => (x === null ? null : BigInt.asUintN(64, x as bigint).toString(16).padStart(16, '0'));
    expect(documents.map((d) => ({ path: d.path, simhash: hex(d.simhash) }))).toEqual(report.documents.map((d) => ({ path: d.path, simhash: d.simhash })));
    // Spark has no unsigned 64-bit type: the simhash is a signed BIGINT in the shard
    const types = await rows(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${join(shards, 'documents.parquet')}') WHERE column_name IN ('simhash', 'check_simhash')`);
    expect(types.map((t) => t.column_type)).toEqual(['BIGINT', 'BIGINT']);
    // every document with text has passage hashes; the default method (simhash) writes no MinHash bands
    const withText = report.documents.filter((d) => d.simhash !== null).length;
    expect(withText).toBeGreaterThan(10);
    const [passages] = await rows(`SELECT count(DISTINCT doc)::INTEGER AS docs, count(*)::INTEGER AS n FROM '${join(shards, 'passage_hashes.parquet')}'`);
    expect(passages!.docs).toBe(withText);
    expect(passages!.n).toBeGreaterThan(withText);
    const [bands] = await rows(`SELECT count(*)::INTEGER AS n FROM '${join(shards, 'minhash_bands.parquet')}'`);
    expect(bands!.n).toBe(0);
  });

  it('is refused with --in-memory', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/scan.ts', 'samples', '--fingerprints', join(dir, 'x'), '--in-memory'], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^scan: --fingerprints writes the on-disk tables: not with --in-memory or --ndjson\./);
  });
});
