// The on-disk scan's DuckDB database: a file in the run's state folder (or in a temporary folder,
// removed when the scan is closed), with a memory limit past which DuckDB spills to a temporary
// directory beside it. Three connections: one streams a query's rows while another looks up
// documents (a connection's next query would end the stream it is reading) and a third appends the
// lists found.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance, type JS } from '@duckdb/node-api';
import { INPUT_TABLES } from './schema';

export interface DatabaseOptions {
  /** The folder to keep the database in (made if missing); a temporary one, removed at close, when absent. */
  stateDir?: string;
  /** DuckDB's memory_limit, e.g. '768MB' (default), '1GB'. */
  memoryLimit?: string;
  /** DuckDB's threads (default: its own, the number of cores). */
  threads?: number;
}

/**
 * DuckDB's memory_limit unless --memory-limit says another. Its buffer pool fills to the limit while
 * the judges read the big tables, on top of the reading threads' heaps: at a million documents
 * (bench:scan-scale) 1GB peaked at 1,929–2,015 MiB for the process, 768MB at 1,433–1,660 MiB in
 * four runs (docs/scale.md).
 */
export const DEFAULT_MEMORY_LIMIT = '768MB';
export const DATABASE_FILE = 'scan.duckdb';
/** The write-ahead log's size that makes DuckDB checkpoint (its default: 16 MB). */
export const CHECKPOINT_THRESHOLD = '256MB';

/** What memory_limit accepts here: a number and a unit. */
const MEMORY_LIMIT = /^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

export class ScanDatabase {
  /** The most DuckDB's buffer manager held and spilled, in bytes, at any sample() so far. */
  peakMemory = 0;
  peakSpilled = 0;

  private constructor(
    private readonly instance: DuckDBInstance,
    /** Runs statements and streams candidates. */
    readonly main: DuckDBConnection,
    /** Looks up documents while main streams. */
    readonly side: DuckDBConnection,
    /** Appends the lists found. */
    readonly output: DuckDBConnection,
    readonly dir: string,
    private readonly temporary: boolean,
  ) {}

  static async open({ stateDir, memoryLimit = DEFAULT_MEMORY_LIMIT, threads }: DatabaseOptions = {}): Promise<ScanDatabase> {
    if (!MEMORY_LIMIT.test(memoryLimit)) throw new RangeError(`the memory limit is a number and a unit (KB, MB, GB, TB, KiB, MiB, GiB, TiB): got ${JSON.stringify(memoryLimit)}`);
    if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) throw new RangeError(`threads must be a positive integer: got ${threads}`);
    const dir = stateDir ?? mkdtempSync(join(tmpdir(), 'doppel-scan-'));
    mkdirSync(join(dir, 'tmp'), { recursive: true });
    const config: Record<string, string> = {
      memory_limit: memoryLimit,
      temp_directory: join(dir, 'tmp'),
      // every query that needs an order says it: DuckDB may then stream inserts and joins in less memory
      preserve_insertion_order: 'false',
      // DuckDB checkpoints its write-ahead log every 16 MB by default, and each checkpoint cost more
      // as the tables grew: a million documents' rows appended in 198 s that way, 112 s at 256 MB
      // (and a lower peak); at 1 GB 88 s, but 280 MB more memory
      checkpoint_threshold: CHECKPOINT_THRESHOLD,
    };
    if (threads !== undefined) config.threads = String(threads);
    const instance = await DuckDBInstance.create(join(dir, DATABASE_FILE), config);
    const main = await instance.connect();
    const side = await instance.connect();
    const output = await instance.connect();
    await main.run(INPUT_TABLES);
    return new ScanDatabase(instance, main, side, output, dir, stateDir === undefined);
  }

  /** Rows of a query as objects of plain JS values (bigints for 64-bit integers, Uint8Array for BLOBs). */
  async rows(sql: string, on: DuckDBConnection = this.side): Promise<Record<string, JS>[]> {
    return (await on.runAndReadAll(sql)).getRowObjectsJS();
  }

  /** Runs statements on the main connection, then samples the memory. */
  async run(sql: string): Promise<void> {
    await this.main.run(sql);
    await this.sample();
  }

  /**
   * Streams a query's rows, a chunk (up to 2,048 rows) at a time, and throws a StreamCutError when
   * they are not the `expected` many: DuckDB 1.5 can end a streamed result early with no error
   * when a join's build side spills (a million documents' passage texts joined under 1 GB gave
   * 6,000 to 13,000 of 1.5 million rows: scan-on-disk.ts judgeInto), so every stream says how many
   * rows it must give.
   */
  async *stream(sql: string, expected: number, on: DuckDBConnection = this.main): AsyncGenerator<JS[][]> {
    const result = await on.stream(sql);
    let seen = 0;
    for await (const rows of result.yieldRowsJs()) {
      seen += rows.length;
      yield rows;
    }
    if (seen !== expected) throw new StreamCutError(seen, expected);
  }

  /** The rows a query gives (counted by DuckDB, which reads only the columns it needs). */
  async count(sql: string): Promise<number> {
    const [row] = await this.rows(`SELECT count(*)::BIGINT AS n FROM (${sql})`);
    return Number(row!.n);
  }

  /** Notes DuckDB's memory and spill now (duckdb_memory()). */
  async sample(): Promise<void> {
    const [row] = await this.rows('SELECT sum(memory_usage_bytes)::BIGINT AS memory, sum(temporary_storage_bytes)::BIGINT AS spilled FROM duckdb_memory()');
    this.peakMemory = Math.max(this.peakMemory, Number(row?.memory ?? 0));
    this.peakSpilled = Math.max(this.peakSpilled, Number(row?.spilled ?? 0));
  }

  /** Closes the connections; removes the folder when it was a temporary one. */
  close(): void {
    this.output.closeSync();
    this.side.closeSync();
    this.main.closeSync();
    this.instance.closeSync();
    if (this.temporary) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A streamed result that gave other than the rows it must: the scan stops rather than write short lists. */
export class StreamCutError extends Error {
  constructor(
    readonly seen: number,
    readonly expected: number,
  ) {
    super(`DuckDB ended a result after ${seen} of its ${expected} rows, giving no reason (it may have run short of memory): run again with a larger --memory-limit; with --state the joined steps already done are kept`);
    this.name = 'StreamCutError';
  }
}
