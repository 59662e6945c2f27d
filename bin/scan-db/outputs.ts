// `scan --out DIR`: the lists of a big run as files, pairs, reuse, rewrites and clusters each as
// NAME.ndjson (one entry a line, the fields of `scan --json`) and NAME.parquet (DuckDB's COPY of the
// same entries, in the types below: docs/scan-schema.md). The entries come from either path (in
// memory, or streamed from the on-disk scan's tables, whose queries are then copied as they are).
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBAppender, type DuckDBConnection, DuckDBInstance, LIST, VARCHAR, listValue } from '@duckdb/node-api';
import type { ScanResult } from '../scan-lists';
import { MEASURE_TYPES } from './schema';
import { killPoint } from './test-hooks';

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
  /** A query on the connection giving the same rows in the list's columns, when there is one: its Parquet is then copied from it. */
  query?: string;
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

/** A string as an SQL literal. */
export const quoted = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * Writes each list's NDJSON, then its Parquet: copied from the list's query, or else from its entries
 * appended to a table of the list's columns (through `connection`, or an in-memory DuckDB of its
 * own). Lists are written in the order given.
 */
export async function writeOutputs(dir: string, measure: string, lists: readonly OutputList[], connection?: DuckDBConnection): Promise<WrittenList[]> {
  mkdirSync(dir, { recursive: true });
  const columns = outputColumns(measure);
  const instance = connection === undefined ? await DuckDBInstance.create(':memory:') : undefined;
  const duck = connection ?? (await instance!.connect());
  try {
    const written: WrittenList[] = [];
    for (const { name, entries, query } of lists) {
      const ndjson = join(dir, `${name}.ndjson`);
      const parquet = join(dir, `${name}.parquet`);
      let count: number;
      if (query !== undefined) {
        count = await writeLines(ndjson, entries);
        killPoint('out', name);
        await duck.run(`COPY (${query}) TO ${quoted(parquet)} (FORMAT parquet)`);
      } else {
        const table = `out_file_${name}`;
        await duck.run(`CREATE OR REPLACE TEMP TABLE ${table} (${columns[name].map(([c, t]) => `"${c}" ${t}`).join(', ')})`);
        const app = await duck.createAppender(table);
        count = await writeLines(ndjson, entries, (entry) => appendEntry(app, columns[name], entry as Record<string, unknown>));
        app.closeSync();
        await duck.run(`COPY ${table} TO ${quoted(parquet)} (FORMAT parquet); DROP TABLE ${table}`);
      }
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

/** An entry as a row of its list's columns. */
function appendEntry(app: DuckDBAppender, columns: readonly [string, string][], entry: Record<string, unknown>): void {
  for (const [column, type] of columns) {
    const value = entry[column];
    if (value === null || value === undefined) app.appendNull();
    else if (type === 'VARCHAR') app.appendVarchar(value as string);
    else if (type === 'INTEGER') app.appendInteger(value as number);
    else if (type === 'DOUBLE') app.appendDouble(value as number);
    else if (type === 'BOOLEAN') app.appendBoolean(value as boolean);
    else app.appendList(listValue(value as string[]), LIST(VARCHAR));
  }
  app.endRow();
}

/** One line per entry (JSON unless `line` says otherwise), written as they come; how many. */
export async function writeLines<T = object>(file: string, entries: AsyncIterable<T> | Iterable<T>, also?: (entry: T) => void, line: (entry: T) => string = (entry) => `${JSON.stringify(entry)}\n`): Promise<number> {
  const out = createWriteStream(file);
  let count = 0;
  try {
    for await (const entry of entries) {
      count++;
      also?.(entry);
      if (!out.write(line(entry))) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return count;
}
