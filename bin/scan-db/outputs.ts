// `scan --out DIR`: the lists of a big run as files, pairs, reuse, rewrites and clusters each as
// NAME.ndjson (one entry a line, the fields of `scan --json`) and NAME.parquet (DuckDB's COPY of the
// same entries, in the types below: docs/scan-schema.md). The entries come from either path (in
// memory, or streamed from the on-disk scan's tables).
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { ScanResult } from '../scan-lists';
import { MEASURE_TYPES } from './schema';

export type OutputName = 'pairs' | 'reuse' | 'rewrites' | 'clusters';

/** The columns of each list's Parquet file, in the order of its entries' fields. */
export function outputColumns(measure: string): Record<OutputName, [string, string][]> {
  const type = MEASURE_TYPES[measure];
  if (type === undefined) throw new RangeError(`no column type for the measure ${JSON.stringify(measure)}`);
  const origin: [string, string][] = [['original', 'VARCHAR'], ['evidence', 'VARCHAR']];
  return {
    pairs: [['a', 'VARCHAR'], ['b', 'VARCHAR'], [measure, type], ...origin],
    reuse: [['a', 'VARCHAR'], ['b', 'VARCHAR'], ['aShare', 'DOUBLE'], ['bShare', 'DOUBLE'], ['passages', 'INTEGER'], ...origin],
    rewrites: [['a', 'VARCHAR'], ['b', 'VARCHAR'], ['share', 'DOUBLE'], ['translated', 'BOOLEAN'], ...origin],
    clusters: [['members', 'VARCHAR[]'], ...origin],
  };
}

export interface OutputList {
  name: OutputName;
  entries: AsyncIterable<object> | Iterable<object>;
}

export interface WrittenList {
  name: OutputName;
  entries: number;
  ndjson: string;
  parquet: string;
}

/** The lists of a scan held in memory, as writeOutputs takes them. */
export function resultLists(result: ScanResult): OutputList[] {
  const lists = Object.fromEntries(result.lists);
  return [
    { name: 'pairs', entries: result.pairs },
    { name: 'reuse', entries: lists.reuse ?? [] },
    { name: 'rewrites', entries: lists.rewrites ?? [] },
    { name: 'clusters', entries: result.clusters },
  ];
}

const quoted = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * Writes each list's NDJSON, then its Parquet from it (through `connection`, or an in-memory DuckDB
 * of its own). Lists are written in the order given.
 */
export async function writeOutputs(dir: string, measure: string, lists: readonly OutputList[], connection?: DuckDBConnection): Promise<WrittenList[]> {
  mkdirSync(dir, { recursive: true });
  const columns = outputColumns(measure);
  const instance = connection === undefined ? await DuckDBInstance.create(':memory:') : undefined;
  const duck = connection ?? (await instance!.connect());
  try {
    const written: WrittenList[] = [];
    for (const { name, entries } of lists) {
      const ndjson = join(dir, `${name}.ndjson`);
      const parquet = join(dir, `${name}.parquet`);
      const count = await writeLines(ndjson, entries);
      const struct = `{${columns[name].map(([c, t]) => `${quoted(c)}: ${quoted(t)}`).join(', ')}}`;
      await duck.run(`COPY (SELECT * FROM read_json(${quoted(ndjson)}, format = 'newline_delimited', columns = ${struct})) TO ${quoted(parquet)} (FORMAT parquet)`);
      written.push({ name, entries: count, ndjson, parquet });
    }
    return written;
  } finally {
    if (instance !== undefined) {
      duck.closeSync();
      instance.closeSync();
    }
  }
}

/** One JSON line per entry; how many. */
async function writeLines(file: string, entries: AsyncIterable<object> | Iterable<object>): Promise<number> {
  const out = createWriteStream(file);
  let count = 0;
  try {
    for await (const entry of entries) {
      count++;
      if (!out.write(JSON.stringify(entry) + '\n')) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return count;
}
