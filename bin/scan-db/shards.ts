// `scan --fingerprints DIR`: the run's fingerprint tables (schema.ts INPUT_TABLES) written as one
// Parquet file each, TABLE.parquet, the shard a cluster joins with the candidate SQL
// (candidates.ts, Spark dialect; docs/scale.md). Every UBIGINT column (the simhashes, nilsimsa's
// words, the rewrite samples' limits) is written as a BIGINT with the same 64 bits, as Spark SQL has
// no unsigned 64-bit type and would read a Parquet UINT64 as a decimal.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { signedSimhash } from './candidates';
import { FINGERPRINT_TABLES } from './ingest';
import { quoted } from './outputs';
import type { ScanDatabase } from './database';

/** The fingerprint tables, each a shard's file. */
export const SHARD_TABLES = FINGERPRINT_TABLES;


/** Writes DIR/TABLE.parquet for each fingerprint table; the rows of each. */
export async function writeFingerprintShards(db: ScanDatabase, dir: string): Promise<{ table: string; rows: number }[]> {
  mkdirSync(dir, { recursive: true });
  const written: { table: string; rows: number }[] = [];
  for (const table of SHARD_TABLES) {
    const columns = await db.rows(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ${quoted(table)} ORDER BY ordinal_position`, db.main);
    const select = columns.map(({ column_name: name, data_type: type }) => (type === 'UBIGINT' ? `${signedSimhash(`"${String(name)}"`)} AS "${String(name)}"` : `"${String(name)}"`)).join(', ');
    const order = table === 'documents' ? 'id' : 'doc';
    await db.main.run(`COPY (SELECT ${select} FROM ${table} ORDER BY ${order}) TO ${quoted(join(dir, `${table}.parquet`))} (FORMAT parquet)`);
    const [row] = await db.rows(`SELECT count(*)::BIGINT AS n FROM ${table}`, db.main);
    written.push({ table, rows: Number(row!.n) });
  }
  return written;
}
