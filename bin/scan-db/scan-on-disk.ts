// `scan --on-disk`: the scan with its fingerprints in a DuckDB database rather than in memory.
// Documents are appended as they are read (ingest.ts); then the method's pairs, the clusters, the
// shared passages and the rewrites are each found by a join in SQL (candidates.ts), streamed out in
// order and judged in batches by the same lib/ code as in memory (verify.ts). What it reports is
// what MemoryScan reports (bin/scan-lists.ts): the same lists, fields and order.
import { type JS, listValue } from '@duckdb/node-api';
import { chooseDesign } from '../../lib/index/tables';
import { BOILERPLATE } from '../../lib/index/passage-index';
import { REWRITE_RULE } from '../../lib/fingerprint/rewrites';
import { REWRITE_MAX_PAGES } from '../../lib/scan/detectors/rewrites';
import { checkThreshold, type CopyDetector, type Detector } from '../../lib/scan/detector';
import { withOriginals } from '../../lib/scan/original';
import { COPY_DETECTORS } from '../../lib/scan/registry';
import type { ScannedDocument } from '../../lib/scan/scan';
import type { ScanPairEntry, ScanResult } from '../scan-lists';
import * as sql from './candidates';
import { DOCUMENT_COLUMNS, documentOfRow } from './codec';
import { sqlClusters, unionFindClusters } from './components';
import { type DatabaseOptions, ScanDatabase } from './database';
import { FingerprintWriter, type OnDiskDocument } from './ingest';
import { type OutputList, type WrittenList, writeOutputs } from './outputs';
import { MEASURE_TYPES, outputTables } from './schema';
import { killPoint } from './test-hooks';
import { type Entry, type Judge, methodJudge, passagesJudge, rewritesJudge } from './verify';

export type { OnDiskDocument } from './ingest';

/**
 * A bucket (documents sharing a block key or a band key) larger than this gives star edges, not every
 * pair (candidates.ts): at most 500,000 candidates from one bucket. The simhash design keeps random
 * buckets to 16 documents on average (chooseDesign), so a bucket of a thousand holds copies of a page.
 */
export const DEFAULT_BUCKET_CAP = 1000;

export interface OnDiskOptions extends DatabaseOptions {
  method: Detector;
  /** The method's cut-off (default: its default). */
  threshold?: number;
  bucketCap?: number;
  /** How clusters are found: union-find over the ids (default), or connected components in rounds of SQL. */
  components?: 'union-find' | 'sql';
}

/** The steps of join(), by name: the out_ tables each fills, cleared before it runs again. */
export const JOIN_STEPS = { tables: [], pairs: ['out_pairs'], clusters: ['cluster_members', 'out_clusters'], reuse: ['out_reuse'], rewrites: ['out_rewrites'] } as const;
export type JoinStep = keyof typeof JOIN_STEPS;

/** Which steps of the join a database has finished (a resumed run's, bin/scan-db/state.ts): they are not run again. */
export interface JoinRecord {
  finished(step: JoinStep): boolean;
  /** Called once the step's tables are complete. */
  finish(step: JoinStep): Promise<void>;
}

const NO_RECORD: JoinRecord = { finished: () => false, finish: async () => {} };

/** A list of the report: its table, and its fields after a and b with their types. */
interface ListTable {
  table: string;
  fields: [string, 'INTEGER' | 'DOUBLE' | 'BOOLEAN'][];
}

const REUSE: ListTable = { table: 'out_reuse', fields: [['aShare', 'DOUBLE'], ['bShare', 'DOUBLE'], ['passages', 'INTEGER']] };
const REWRITES: ListTable = { table: 'out_rewrites', fields: [['share', 'DOUBLE'], ['translated', 'BOOLEAN']] };

export class OnDiskScan {
  /** Wall-clock milliseconds of each step of join(). */
  readonly steps: [string, number][] = [];
  private readonly pairs: ListTable;
  private joined = false;

  private constructor(
    readonly db: ScanDatabase,
    private readonly writer: FingerprintWriter,
    readonly method: Detector,
    readonly threshold: number,
    private readonly bucketCap: number,
    private readonly components: 'union-find' | 'sql',
  ) {
    this.pairs = { table: 'out_pairs', fields: [[method.measure, MEASURE_TYPES[method.measure]!]] };
  }

  static async open({ method, threshold, bucketCap, components, ...database }: OnDiskOptions): Promise<OnDiskScan> {
    checkThreshold(method, threshold ?? method.defaultThreshold);
    const db = await ScanDatabase.open(database);
    try {
      return await OnDiskScan.over(db, { method, threshold, bucketCap, components });
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** A scan over a database already open that holds `firstId` documents (0: an empty one); closing the scan closes it. */
  static async over(db: ScanDatabase, { method, threshold = method.defaultThreshold, bucketCap = DEFAULT_BUCKET_CAP, components = 'union-find' }: OnDiskOptions, firstId = 0): Promise<OnDiskScan> {
    checkThreshold(method, threshold);
    if (!(Number.isInteger(bucketCap) && bucketCap >= 2)) throw new RangeError(`the bucket cap must be an integer of at least 2: got ${bucketCap}`);
    const writer = await FingerprintWriter.open(db.main, method.name, threshold, COPY_DETECTORS, firstId);
    return new OnDiskScan(db, writer, method, threshold, bucketCap, components);
  }

  /** The copy detectors whose codes a document must carry (readDocument's `copies`). */
  static readonly copies: readonly string[] = COPY_DETECTORS.map((d: CopyDetector) => d.name);

  /** Appends the next document (its id is its place in the input); its report entry. */
  add(document: OnDiskDocument): ScannedDocument {
    if (this.joined) throw new Error('documents are added before the join');
    return this.writer.add(document);
  }

  get documents(): number {
    return this.writer.count;
  }

  /** Commits the documents appended so far (a state's checkpoint follows). */
  flush(): void {
    this.writer.flush();
  }

  /**
   * Finds every list into the database's out_ tables; `begin` is told each step as it begins, `lap`
   * as it ends. Steps the record says are finished are passed over; another is run from empty tables.
   */
  async join(lap: (step: string) => void = () => {}, record: JoinRecord = NO_RECORD, begin: (step: string) => void = () => {}): Promise<void> {
    if (this.joined) throw new Error('the scan is joined already');
    this.joined = true;
    this.writer.close();
    let last = performance.now();
    const steps: [JoinStep, string, () => Promise<void>][] = [
      ['tables', 'append the last fingerprints', () => this.db.run(outputTables({ name: this.method.measure, type: MEASURE_TYPES[this.method.measure]! }))],
      ['pairs', `${this.method.name} pairs`, async () => {
        await this.db.run(await this.methodCandidatesSql());
        await this.judgeInto(`${this.method.name}_candidates`, methodJudge(this.method.name, this.threshold), this.pairs);
      }],
      ['clusters', 'clusters', async () => {
        if (this.components === 'sql') await sqlClusters(this.db, 'out_pairs');
        else await unionFindClusters(this.db, 'out_pairs', this.documents);
        await this.clusterEntries();
      }],
      ['reuse', 'passages pairs', async () => {
        const parts = sql.joinParts(await this.rowCount('passage_hashes'));
        await this.db.run(`${sql.passageBoilerplateSql(BOILERPLATE.maxPages, BOILERPLATE.maxSitePages)}\n${sql.passageCandidatesSql(['out_pairs'], parts)}`);
        await this.judgeInto('passage_candidates', passagesJudge, REUSE);
      }],
      ['rewrites', 'rewrites pairs', async () => {
        const parts = sql.joinParts(await this.rowCount('rewrite_index'));
        await this.db.run(`${sql.rewriteFrequentSql(REWRITE_MAX_PAGES)}\n${sql.rewriteCandidatesSql(REWRITE_RULE.minIndexShared, ['out_pairs', 'out_reuse'], parts)}`);
        await this.judgeInto('rewrite_candidates', rewritesJudge(this.documents), REWRITES);
      }],
    ];
    for (const [key, name, run] of steps) {
      if (record.finished(key)) continue;
      begin(name);
      for (const table of JOIN_STEPS[key]) await this.db.run(`DELETE FROM ${table}`);
      await run();
      killPoint('join', key);
      await record.finish(key);
      const now = performance.now();
      this.steps.push([name, now - last]);
      last = now;
      lap(name);
    }
  }

  /** The rows of a table. */
  private rowCount(table: string): Promise<number> {
    return this.db.count(`SELECT * FROM ${table}`);
  }

  /** The statements that fill the method's candidates table. */
  private async methodCandidatesSql(): Promise<string> {
    const { name } = this.method;
    if (name === 'minhash') return sql.minhashCandidatesSql(this.bucketCap);
    if (name === 'nilsimsa') return sql.nilsimsaCandidatesSql(128 - this.threshold);
    const [row] = await this.db.rows('SELECT count(simhash)::INTEGER AS present FROM documents');
    const present = row!.present as number;
    // as findNearPairs (lib/scan/scan.ts) chooses: the tables unless comparing every pair costs less
    let design;
    try {
      design = chooseDesign({ k: this.threshold, expectedSize: present }).design;
    } catch {
      return sql.simhashAllPairsSql(this.threshold);
    }
    const indexCost = present * design.tables.reduce((sum, t) => sum + 1 + present / 2 ** t.keyBits, 0);
    if ((present * (present - 1)) / 2 <= indexCost) return sql.simhashAllPairsSql(this.threshold);
    return `${sql.simhashBlocksSql(design)}\n${sql.simhashCandidatesSql(this.threshold, this.bucketCap)}`;
  }

  /**
   * Streams a candidates table joined with its two documents' report columns and the judge's rows
   * (each table read once a part, in no particular order: the lists are read back in order), judges
   * each candidate, and appends what is kept (with its original) to `list`. The candidates go in
   * parts of at most half the documents (judgePartRows): with more candidates than documents DuckDB
   * builds its hash tables on the documents' rows (3 GB of passage texts at a million), spills, and
   * its streamed result ended after some thousands of rows with no error (1.5.6); with fewer it builds
   * on the part's candidates and reads the big tables once a part. Every candidate of a part must
   * come back: each has both documents' rows.
   */
  private async judgeInto(candidates: string, judge: Judge, list: ListTable): Promise<void> {
    await judge.prepare?.(this.db);
    const app = await this.db.output.createAppender(list.table);
    const documentColumns = DOCUMENT_COLUMNS.split(', ');
    const side = (doc: string, rows: string, prefix: string): [string, string][] => [
      ...documentColumns.map((c): [string, string] => [`${doc}.${c}`, `${prefix}d_${c}`]),
      ...judge.columns.map((c): [string, string] => [`${rows}.${c}`, `${prefix}j_${c}`]),
    ];
    const selected = [...side('da', 'ja', 'a'), ...side('db', 'jb', 'b')];
    const query = (part: string): string => `WITH judged AS (${judge.rows}), part AS (${part})
SELECT c.a, c.b, ${selected.map(([column, name]) => `${column} AS ${name}`).join(', ')}
FROM part c JOIN documents da ON da.id = c.a JOIN documents db ON db.id = c.b JOIN judged ja ON ja.doc = c.a JOIN judged jb ON jb.doc = c.b`;
    const names = ['a', 'b', ...selected.map(([, name]) => name)];
    const pick = (row: JS[], prefix: string): [Record<string, JS>, Record<string, JS>] => {
      const document: Record<string, JS> = {};
      const judged: Record<string, JS> = {};
      names.forEach((name, i) => {
        if (name.startsWith(`${prefix}d_`)) document[name.slice(prefix.length + 2)] = row[i]!;
        else if (name.startsWith(`${prefix}j_`)) judged[name.slice(prefix.length + 2)] = row[i]!;
      });
      return [document, judged];
    };
    const [span] = await this.db.rows(`SELECT min(rowid)::BIGINT AS first, max(rowid)::BIGINT AS last FROM ${candidates}`);
    const perPart = judgePartRows(this.documents);
    for (let from = Number(span!.first ?? 0); span!.last !== null && from <= Number(span!.last); from += perPart) {
      // by row id, which DuckDB reads from the row groups it names rather than the whole table
      const part = `SELECT a, b FROM ${candidates} WHERE rowid >= ${from} AND rowid < ${from + perPart}`;
      for await (const rows of this.db.stream(query(part), await this.db.count(part))) {
        for (const row of rows) {
          const [docA, rowA] = pick(row, 'a');
          const [docB, rowB] = pick(row, 'b');
          const a = documentOfRow(docA);
          const b = documentOfRow(docB);
          const entry = judge.judge(rowA, rowB, a.path, b.path);
          if (entry === null) continue;
          const { original, evidence } = withOriginals([a, b]).pair(entry);
          app.appendUInteger(row[0] as number);
          app.appendUInteger(row[1] as number);
          for (const [field, type] of list.fields) {
            const value = (entry as Entry & Record<string, unknown>)[field];
            if (type === 'INTEGER') app.appendInteger(value as number);
            else if (type === 'DOUBLE') app.appendDouble(value as number);
            else app.appendBoolean(value as boolean);
          }
          for (const text of [original, evidence]) {
            if (text === null) app.appendNull();
            else app.appendVarchar(text);
          }
          app.endRow();
        }
      }
    }
    app.closeSync();
    await this.db.sample();
  }

  /** out_clusters from cluster_members: each cluster's members' paths in id order, and its original. */
  private async clusterEntries(): Promise<void> {
    const app = await this.db.output.createAppender('out_clusters');
    let cluster = -1;
    let members: ScannedDocument[] = [];
    const emit = (): void => {
      if (members.length === 0) return;
      const entry = withOriginals(members).cluster(members.map((d) => d.path));
      app.appendUInteger(cluster);
      app.appendList(listValue(entry.members));
      for (const text of [entry.original, entry.evidence]) {
        if (text === null) app.appendNull();
        else app.appendVarchar(text);
      }
      app.endRow();
    };
    const columns = DOCUMENT_COLUMNS.split(', ').map((c) => `d.${c}`).join(', ');
    for await (const rows of this.db.stream(`SELECT m.cluster, ${columns} FROM cluster_members m JOIN documents d ON d.id = m.doc ORDER BY m.cluster, d.id`, await this.rowCount('cluster_members'))) {
      for (const row of rows) {
        const at = row[0] as number;
        if (at !== cluster) {
          emit();
          cluster = at;
          members = [];
        }
        const named = Object.fromEntries(DOCUMENT_COLUMNS.split(', ').map((c, i) => [c, row[i + 1] as JS]));
        members.push(documentOfRow(named));
      }
    }
    emit();
    app.closeSync();
  }

  /** Each list's entries as `scan --json` gives them, streamed in order, and the query that gives them. */
  listEntries(): OutputList[] {
    const origin = 'p.original, p.evidence';
    const paths = (table: string, fields: string): string =>
      `SELECT da.path AS a, db.path AS b, ${fields}, ${origin} FROM ${table} p JOIN documents da ON da.id = p.a JOIN documents db ON db.id = p.b ORDER BY p.a, p.b`;
    const quote = (fields: ListTable['fields']): string => fields.map(([f]) => `p."${f}"`).join(', ');
    const queries: [OutputList['name'], string, string][] = [
      ['pairs', 'out_pairs', paths('out_pairs', quote(this.pairs.fields))],
      ['reuse', 'out_reuse', paths('out_reuse', quote(REUSE.fields))],
      ['rewrites', 'out_rewrites', paths('out_rewrites', quote(REWRITES.fields))],
      ['clusters', 'out_clusters', `SELECT members, ${origin} FROM out_clusters p ORDER BY cluster`],
    ];
    return queries.map(([name, table, query]) => ({ name, entries: this.objects(query, table), query }));
  }

  /** The rows of a query over a list's table (one row each) as objects with its columns' names, in order. */
  private async *objects(query: string, table: string): AsyncGenerator<Record<string, JS>> {
    const prepared = await this.db.side.prepare(query);
    const names = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnName(i));
    for await (const rows of this.db.stream(query, await this.rowCount(table), this.db.side)) {
      for (const row of rows) yield Object.fromEntries(names.map((n, i) => [n, row[i]!]));
    }
  }

  /** Everything read back into memory: for the text report, `--json`, and the tests. */
  async result(): Promise<ScanResult> {
    const documents = (await this.db.rows(`SELECT ${DOCUMENT_COLUMNS} FROM documents ORDER BY id`)).map(documentOfRow);
    const lists: Record<string, object[]> = {};
    for (const { name, entries } of this.listEntries()) {
      lists[name] = [];
      for await (const entry of entries) lists[name].push(entry);
    }
    return {
      head: this.method.head(this.threshold),
      documents,
      pairs: lists.pairs as ScanPairEntry[],
      clusters: lists.clusters as ScanResult['clusters'],
      lists: COPY_DETECTORS.map((d) => [d.key, lists[d.key] as ScanResult['lists'][number][1]]),
    };
  }

  /** Writes NAME.ndjson and NAME.parquet of each list into `dir`. */
  async writeOutputs(dir: string): Promise<WrittenList[]> {
    return writeOutputs(dir, this.method.measure, this.listEntries(), this.db.main);
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Candidates judged in one streamed join (judgeInto): at most half the documents, so that DuckDB
 * builds on the part's candidates rather than on the documents' rows, and at most 250,000, the
 * part bench:scan-scale streamed whole at a million documents under 1 GB.
 */
export function judgePartRows(documents: number): number {
  return Math.max(1, Math.min(250_000, Math.floor(documents / 2)));
}

/**
 * Scans fingerprinted documents (readDocument's results, with the copies OnDiskScan.copies) on disk:
 * appends them as they come, then joins. The caller reads result() or writes the outputs, then closes it.
 */
export async function scanOnDisk(documents: AsyncIterable<OnDiskDocument> | Iterable<OnDiskDocument>, options: OnDiskOptions): Promise<OnDiskScan> {
  const scan = await OnDiskScan.open(options);
  try {
    for await (const document of documents) scan.add(document);
    await scan.join();
    return scan;
  } catch (error) {
    scan.close();
    throw error;
  }
}
