// `scan --state DIR`: the on-disk scan's database kept in DIR, so that a run killed at any point and
// started again with the same inputs and options goes on where it stopped (docs/scan.md, "--state").
//
// What the state holds beside the scan's tables (schema.ts):
//   scan_state     the options (method, threshold, ...) and the paths given: a run that asks for
//                  others is refused
//   scan_inputs    the files listed, with their sizes and modification times: a changed input is refused
//   scan_progress  a checkpoint after each commit: how many documents are stored (ids 0 … n − 1),
//                  how many inputs were taken (files and documents, the unreadable ones too), the
//                  place of the last one, and whether the reading is done
//   scan_unread    the inputs that could not be read, by their number: their names were given
//   scan_steps     the steps of the join that are finished
//
// Every table's rows are appended (ingest.ts) and committed table by table; a checkpoint is appended
// only once every table before it is committed, so the rows past the last checkpoint (of documents
// whose other rows may be missing) are deleted when the run starts again, and the reading resumes
// after the checkpoint's place. A join step is recorded once its tables are full; one that is not is
// run again from empty tables.
import { stat } from 'node:fs/promises';
import type { DuckDBAppender } from '@duckdb/node-api';
import type { Detector } from '../../lib/scan/detector';
import type { ResumeFrom } from '../scan-inputs';
import type { Listed, Place } from '../scan-read';
import type { InputFile } from '../scan-sources';
import { ScanDatabase } from './database';
import { FINGERPRINT_TABLES } from './ingest';
import { DEFAULT_BUCKET_CAP, JOIN_STEPS, type JoinRecord, type JoinStep, OnDiskScan } from './scan-on-disk';
import { commitEveryFromEnv, killPoint } from './test-hooks';
import { quoted } from './outputs';

/** The state's layout: a state written by another is refused, not read wrongly. 2: passage_hashes holds each k-gram's second hash; 3: the rewrite hashes are whole (32 bits). */
export const STATE_VERSION = '3';
/** Documents between commits of the state, or seconds, whichever comes first: what a kill can cost. */
export const STATE_COMMIT_EVERY = 4096;
export const STATE_COMMIT_SECONDS = 10;

const STATE_TABLES = `
CREATE TABLE IF NOT EXISTS scan_state (key VARCHAR NOT NULL, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS scan_inputs (file UINTEGER NOT NULL, name VARCHAR NOT NULL, absolute VARCHAR NOT NULL, format VARCHAR NOT NULL, size UBIGINT NOT NULL, modified DOUBLE NOT NULL);
CREATE TABLE IF NOT EXISTS scan_progress (documents UINTEGER NOT NULL, taken UBIGINT NOT NULL, file UINTEGER, idx UBIGINT, "offset" UBIGINT, read_done BOOLEAN NOT NULL);
CREATE TABLE IF NOT EXISTS scan_unread (taken UBIGINT NOT NULL, path VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS scan_steps (step VARCHAR NOT NULL);
`;

/** A state that cannot be resumed by this run: another scan's, or other inputs or options. */
export class StateError extends Error {}

export interface StateOptions {
  dir: string;
  method: Detector;
  threshold: number;
  /** The paths as given on the command line, and the files they list. */
  inputs: readonly string[];
  files: readonly InputFile[];
  memoryLimit?: string;
}

interface Checkpoint {
  documents: number;
  taken: number;
  place: Place | null;
  readDone: boolean;
}

export class ScanState {
  private taken: number;
  private last: Place | null;
  private sinceCommit = 0;
  private lastCommit = Date.now();
  private readonly commitEvery = commitEveryFromEnv() ?? STATE_COMMIT_EVERY;
  private appenders: { progress: DuckDBAppender; unread: DuckDBAppender } | null = null;

  private constructor(
    readonly dir: string,
    readonly scan: OnDiskScan,
    /** Documents stored before this run. */
    readonly stored: number,
    private readonly checkpoint: Checkpoint,
    private readonly steps: Set<string>,
    /** Where the reading goes on, with the names already given; undefined from the start. */
    readonly resume: ResumeFrom | undefined,
  ) {
    this.taken = checkpoint.taken;
    this.last = checkpoint.place;
  }

  /** Opens DIR's state: a new one, or one of the same inputs and options to go on with (else StateError). */
  static async open(options: StateOptions): Promise<ScanState> {
    const db = await openDatabase(options);
    try {
      await db.main.run(STATE_TABLES);
      const settings = settingsOf(options);
      const recorded = new Map((await db.rows('SELECT key, value FROM scan_state', db.main)).map((r) => [r.key as string, r.value as string]));
      const sizes = await sizesOf(options.files);
      if (recorded.size === 0) await begin(db, options, settings, sizes);
      else {
        checkSettings(options.dir, recorded, settings);
        await checkInputs(db, options.files, sizes);
      }
      const checkpoint = await lastCheckpoint(db);
      if (!checkpoint.readDone) await dropPastCheckpoint(db, checkpoint);
      const steps = new Set((await db.rows('SELECT step FROM scan_steps', db.main)).map((r) => r.step as string));
      const scan = await OnDiskScan.over(db, { method: options.method, threshold: options.threshold }, checkpoint.documents);
      let resume: ResumeFrom | undefined;
      if (checkpoint.place !== null) {
        // names are made unique only in a stream of containers' documents (scan-inputs.ts listedOf)
        const streamed = options.files.some((f) => f.format !== 'html' && f.format !== 'text');
        const names = streamed ? await namesGiven(db, checkpoint.taken) : [];
        resume = { after: checkpoint.place, names };
      }
      return new ScanState(options.dir, scan, checkpoint.documents, checkpoint, steps, resume);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Whether every document is stored: the run reads nothing. */
  get readDone(): boolean {
    return this.checkpoint.readDone;
  }

  /** Whether the join is finished too: the run only writes the result. */
  get finished(): boolean {
    return this.readDone && (Object.keys(JOIN_STEPS) as JoinStep[]).every((s) => this.steps.has(s));
  }

  /** A line for stderr when the run goes on from a state: what it finds there. */
  resumeLine(): string | null {
    if (this.finished) return `scan: the scan kept in ${this.dir} is finished: its result, nothing read`;
    if (this.readDone) return `scan: resuming the scan kept in ${this.dir}: ${this.stored} documents stored, all read; joining`;
    if (this.resume !== undefined) return `scan: resuming the scan kept in ${this.dir}: ${this.stored} documents stored; reading on after them`;
    return null;
  }

  /** Opens the appenders of the checkpoints: before the first input is taken. */
  async startReading(): Promise<void> {
    if (this.readDone) return;
    const connection = this.scan.db.main;
    this.appenders ??= { progress: await connection.createAppender('scan_progress'), unread: await connection.createAppender('scan_unread') };
  }

  /** A line for stderr once a resumed run has read the rest: how many documents it read (none read twice). */
  readLine(): string | null {
    if (this.resume === undefined || this.checkpoint.readDone) return null;
    return `scan: ${this.scan.documents - this.stored} documents read in this run after the ${this.stored} stored, ${this.scan.documents} in all`;
  }

  /** Records an input taken, read or not (after the scan has added it); commits every so often. */
  took(file: Listed, read: boolean): void {
    const { unread } = this.appenders!;
    if (!read) {
      unread.appendUBigInt(BigInt(this.taken));
      unread.appendVarchar(file.path);
      unread.endRow();
    }
    this.taken++;
    this.last = file.place ?? null;
    if (read) this.sinceCommit++;
    if (this.sinceCommit >= this.commitEvery || (this.sinceCommit > 0 && Date.now() - this.lastCommit >= STATE_COMMIT_SECONDS * 1000)) this.commit(false);
    if (read) killPoint('read', this.scan.documents);
  }

  /** Commits the last documents: the reading is done. */
  readAll(): void {
    if (this.readDone) return;
    this.commit(true);
    this.appenders!.progress.closeSync();
    this.appenders!.unread.closeSync();
    this.appenders = null;
  }

  /** The record of the join's steps that it reads and adds to. */
  get joinRecord(): JoinRecord {
    return {
      finished: (step) => this.steps.has(step),
      finish: async (step) => {
        await this.scan.db.main.run(`INSERT INTO scan_steps VALUES ('${step}')`);
        this.steps.add(step);
      },
    };
  }

  close(): void {
    this.scan.close();
  }

  /** Commits every table, then the checkpoint that says they hold the documents so far. */
  private commit(readDone: boolean): void {
    this.scan.flush();
    const { progress, unread } = this.appenders!;
    unread.flushSync();
    killPoint('commit', this.scan.documents);
    progress.appendUInteger(this.scan.documents);
    progress.appendUBigInt(BigInt(this.taken));
    if (this.last === null) for (let i = 0; i < 3; i++) progress.appendNull();
    else {
      progress.appendUInteger(this.last.file);
      progress.appendUBigInt(BigInt(this.last.index));
      if (this.last.offset === null) progress.appendNull();
      else progress.appendUBigInt(BigInt(this.last.offset));
    }
    progress.appendBoolean(readDone);
    progress.endRow();
    progress.flushSync();
    this.sinceCommit = 0;
    this.lastCommit = Date.now();
  }
}

/** The state's database, or a StateError when another process has it open. */
async function openDatabase({ dir, memoryLimit }: StateOptions): Promise<ScanDatabase> {
  try {
    return await ScanDatabase.open({ stateDir: dir, ...(memoryLimit === undefined ? {} : { memoryLimit }) });
  } catch (error) {
    if (/Could not set lock on file/i.test((error as Error).message)) throw new StateError(`${dir} is in use by another scan (its database is locked)`);
    throw error;
  }
}

/** What a resumed run must ask for as the first did: its options and the paths given. */
function settingsOf({ method, threshold, inputs }: StateOptions): Map<string, string> {
  return new Map([
    ['version', STATE_VERSION],
    ['method', method.name],
    ['threshold', String(threshold)],
    ['bucket_cap', String(DEFAULT_BUCKET_CAP)],
    ['inputs', JSON.stringify(inputs)],
  ]);
}

function checkSettings(dir: string, recorded: ReadonlyMap<string, string>, settings: ReadonlyMap<string, string>): void {
  if (recorded.get('version') !== STATE_VERSION) throw new StateError(`${dir} holds a scan's state of another version (${recorded.get('version') ?? 'none'}; this scan writes ${STATE_VERSION}): give another --state folder`);
  const differ = [...settings].filter(([key, value]) => recorded.get(key) !== value);
  if (differ.length === 0) return;
  const says = (key: string, value: string | undefined): string => (key === 'inputs' && value !== undefined ? (JSON.parse(value) as string[]).join(' ') : String(value));
  const what = differ.map(([key, value]) => `${key.replace('_', ' ')}: ${says(key, recorded.get(key))} there, ${says(key, value)} here`).join('; ');
  throw new StateError(`${dir} holds a scan begun with other inputs or options (${what}): run it as it was begun, or give another --state folder`);
}

interface Sized {
  size: number;
  modified: number;
}

async function sizesOf(files: readonly InputFile[]): Promise<Sized[]> {
  const sizes: Sized[] = [];
  for (const file of files) {
    const s = await stat(file.absolute);
    sizes.push({ size: s.size, modified: s.mtimeMs });
  }
  return sizes;
}

/** Records the options and the inputs of a new state, in one transaction: a kill leaves none of it. */
async function begin(db: ScanDatabase, options: StateOptions, settings: ReadonlyMap<string, string>, sizes: readonly Sized[]): Promise<void> {
  const [row] = await db.rows('SELECT count(*)::INTEGER AS n FROM documents', db.main);
  if (row!.n !== 0) throw new StateError(`${options.dir} holds a scan's database without its state: give another --state folder`);
  await db.main.run('BEGIN TRANSACTION');
  const app = await db.main.createAppender('scan_inputs');
  options.files.forEach((file, n) => {
    app.appendUInteger(n);
    app.appendVarchar(file.name);
    app.appendVarchar(file.absolute);
    app.appendVarchar(file.format);
    app.appendUBigInt(BigInt(sizes[n]!.size));
    app.appendDouble(sizes[n]!.modified);
    app.endRow();
  });
  app.closeSync();
  const values = [...settings].map(([key, value]) => `(${quoted(key)}, ${quoted(value)})`).join(', ');
  await db.main.run(`INSERT INTO scan_state VALUES ${values}; COMMIT`);
}

/** Refuses a run whose files are not those the state began with, or have changed since. */
async function checkInputs(db: ScanDatabase, files: readonly InputFile[], sizes: readonly Sized[]): Promise<void> {
  const rows = await db.rows('SELECT name, absolute, format, size, modified FROM scan_inputs ORDER BY file', db.main);
  const dir = db.dir;
  for (let n = 0; n < Math.max(rows.length, files.length); n++) {
    const row = rows[n];
    const file = files[n];
    if (row === undefined) throw new StateError(`the inputs are not those of the scan kept in ${dir}: ${file!.name} is new`);
    if (file === undefined || file.absolute !== row.absolute || file.name !== row.name) throw new StateError(`the inputs are not those of the scan kept in ${dir}: ${row.name as string} is missing`);
    if (Number(row.size) !== sizes[n]!.size || row.modified !== sizes[n]!.modified) throw new StateError(`${file.name} has changed since the scan kept in ${dir} began: give another --state folder`);
  }
}

async function lastCheckpoint(db: ScanDatabase): Promise<Checkpoint> {
  const [row] = await db.rows('SELECT documents, taken, file, idx, "offset", read_done FROM scan_progress ORDER BY taken DESC, documents DESC LIMIT 1', db.main);
  if (row === undefined) return { documents: 0, taken: 0, place: null, readDone: false };
  const place = row.file === null ? null : { file: row.file as number, index: Number(row.idx), offset: row.offset === null ? null : Number(row.offset) };
  return { documents: row.documents as number, taken: Number(row.taken), place, readDone: row.read_done as boolean };
}

/** Deletes the rows past the checkpoint: documents whose rows may be in some tables and not in others. */
async function dropPastCheckpoint(db: ScanDatabase, { documents, taken }: Checkpoint): Promise<void> {
  const deletes = FINGERPRINT_TABLES.map((t) => `DELETE FROM ${t} WHERE ${t === 'documents' ? 'id' : 'doc'} >= ${documents};`);
  await db.main.run(`${deletes.join('\n')}\nDELETE FROM scan_unread WHERE taken >= ${taken};`);
}

/** The names the inputs taken so far were given: the documents stored, and those that could not be read. */
async function namesGiven(db: ScanDatabase, taken: number): Promise<string[]> {
  const rows = await db.rows(`SELECT path FROM documents UNION ALL SELECT path FROM scan_unread WHERE taken < ${taken}`, db.main);
  return rows.map((r) => r.path as string);
}


const DISK_FULL = /No space left on device|File too large|ENOSPC|EFBIG|disk is full/i;

/**
 * The one line `scan` says when the disk fills while it writes (DuckDB's "Could not write file
 * …: No space left on device", or "File too large" past a file size limit), or null for another error.
 */
export function diskFullLine(error: unknown, dir: string): string | null {
  const message = error instanceof Error ? error.message : String(error);
  if (!DISK_FULL.test(message)) return null;
  const file = /Could not write file "([^"]+)": ([^\n]+)/.exec(message);
  const what = file === null ? (message.split('\n')[0] ?? '') : `writing ${file[1]}: ${file[2]}`;
  return `scan: the disk is full (${what}). The scan kept in ${dir} resumes where it stopped when the same command is run again with --state ${dir} once there is room`;
}
