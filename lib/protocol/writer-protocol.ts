// The writer protocol: how the history page asks the service worker, the only context that writes
// the database, to import a file, forget pages or organise the store. Each job has a port of its
// own (runtime.connect, named WRITER_PORT): the page sends requests, the worker answers with
// progress events and ends with `done` or `failed`. Both sides validate everything that arrives
// (parseWriterRequest in the worker, parseWriterEvent in the page) and refuse a malformed message
// with InvalidMessage. A port that closes before `done` or `failed` means the worker stopped.
//
//   page                                   worker
//   import/start {now}              ──▶    queues the job (one job at a time: `waiting` meanwhile)
//   import/lines {first, lines}  ×n ──▶    feeds importLines (lib/store/transfer.ts)
//                                   ◀──    import/saved {through, counts, new rejections}  (per commit)
//   import/end                      ──▶
//                                   ◀──    organise/progress …, then done
//   pages/forget {urls}             ──▶    ◀── done {forgotten}
//   store/organise                  ──▶    ◀── organise/progress …, done
//   data/clear                      ──▶    ◀── done {forgotten}
//   ping                            ──▶    ◀── pong  (at any time: a page that hears nothing asks)
//
// `import/saved` is the acknowledgement: the lines through `through` are committed. The page sends
// a batch only while fewer than IMPORT_WINDOW_LINES lines are sent but not yet saved (so at most
// the window plus one batch wait), and the worker refuses more than twice the window: neither side
// holds more than a few batches of a large file. A job that fails ends with `failed`: `refused`
// (the file is not an export: nothing was imported), `interrupted` (the import stopped part way:
// what the `import/saved` events counted stays), `grouping` (every line was saved, but bringing
// the groups up to date failed; the worker tries again when it next starts) or `failed` (anything
// else). A worker that is stopped can leave the page's end of the port open for minutes, so a page
// that has heard nothing for a while sends `ping`: a worker that still serves the port answers
// `pong` at once, and a page that hears nothing more takes the worker for stopped.
import { InvalidMessage, type Json, LIMITS, count, list, object, string } from './validation';

export const WRITER_PORT = 'doppel-writer';

export const WRITER_LIMITS = {
  /** Lines in one import/lines message. */
  linesPerMessage: 10_000,
  /** Characters of one line (a Doppel export's lines are a few hundred). */
  lineChars: 16_000_000,
  /** Characters of all the lines of one import/lines message (Chrome refuses a message over 64 MB). */
  messageChars: 24_000_000,
  /** URLs in one pages/forget message. */
  urls: 1_000_000,
  /** Rejected lines reported in one import/saved event. */
  rejections: 100_000,
} as const;

/**
 * Lines the page may have sent that the worker has not yet reported saved: two batches of
 * importLines (IMPORT_BATCH lines), so that the worker always has a batch to commit while the
 * next is parsed and the page reads the file on.
 */
export const IMPORT_WINDOW_LINES = 8_000;

export type WriterRequest =
  | { type: 'import/start'; now: number }
  /** Lines `first`, `first + 1`, … of the file (1-based, blank lines included, in order). */
  | { type: 'import/lines'; first: number; lines: string[] }
  | { type: 'import/end' }
  | { type: 'pages/forget'; urls: string[] }
  /** Brings the store up to date for the current settings' k (table design, groups). */
  | { type: 'store/organise' }
  /** Forgets every page (settings are kept). */
  | { type: 'data/clear' }
  /** Is the port still served? Answered with `pong`, at any point of a job, or before one. */
  | { type: 'ping' };

/** A job other than an import: one request, then the worker's events to `done` or `failed`. */
export type JobRequest = Exclude<WriterRequest, { type: 'import/start' | 'import/lines' | 'import/end' | 'ping' }>;

export interface ImportCounts {
  added: number;
  merged: number;
  unchanged: number;
}

export type OrganisePhase = 'design' | 'reading' | 'comparing' | 'rewrites' | 'writing' | 'passages' | 'copies';
export type WriterFailure = 'refused' | 'interrupted' | 'grouping' | 'failed';

/** Why a file is refused as a whole (lib/protocol/ndjson.ts parseHeader): what the history page words in the UI's language. */
export type Refusal = { code: 'not-export' } | { code: 'bad-version' } | { code: 'newer-version'; version: number; newest: number } | { code: 'empty' };

/** A field of a page line. */
export type LineField = 'url' | 'title' | 'simhash' | 'check' | 'firstSeen' | 'lastSeen' | 'visits' | 'passages' | 'rewrites' | 'published' | 'source' | 'sourceBy';

/** What is wrong with a page line (lib/protocol/ndjson.ts parsePageLine): what the history page words in the UI's language. */
export type LineProblem =
  | { code: 'not-json' }
  | { code: 'not-object' }
  | { code: 'second-header' }
  | { code: 'missing'; field: LineField }
  | { code: 'not-string'; field: LineField }
  | { code: 'too-long'; field: LineField; max: number }
  | { code: 'not-http'; field: LineField }
  | { code: 'not-hex'; field: LineField }
  | { code: 'not-date'; field: LineField }
  | { code: 'dates-order' }
  | { code: 'not-visits' }
  | { code: 'unreadable'; field: LineField };

/** A line of the file that is not a page: its 1-based number and every problem it has. */
export interface RejectedLine {
  line: number;
  problems: LineProblem[];
}

export type WriterEvent =
  /** The job waits for another one (an import, or the organising the worker does when it starts). */
  | { type: 'waiting' }
  /** Committed through line `through`: the totals so far, and the lines rejected since the previous event. */
  | ({ type: 'import/saved'; through: number; rejected: RejectedLine[] } & ImportCounts)
  | { type: 'organise/progress'; phase: OrganisePhase; done: number; total: number }
  | { type: 'done'; forgotten?: number }
  | { type: 'failed'; failure: WriterFailure; error: string; refusal?: Refusal }
  /** The answer to `ping`: the worker still serves this port. */
  | { type: 'pong' };

export type WriterRequestType = WriterRequest['type'];
export type WriterEventType = WriterEvent['type'];

function lineNumber(o: Json, key: string): number {
  const v = count(o, key);
  if (v < 1) throw new InvalidMessage(`${key} must be a line number, 1 or more`);
  return v;
}

function strings(o: Json, key: string, max: number, maxChars: number): string[] {
  return list(o, key, max).map((item, i) => {
    if (typeof item !== 'string') throw new InvalidMessage(`${key}[${i}] must be a string`);
    if (item.length > maxChars) throw new InvalidMessage(`${key}[${i}] is too long: ${item.length} characters (at most ${maxChars})`);
    return item;
  });
}

function oneOf<T extends string>(o: Json, key: string, values: readonly T[]): T {
  const v = o[key];
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw new InvalidMessage(`${key} must be one of ${values.join(', ')}: got ${JSON.stringify(typeof v === 'string' ? v.slice(0, 60) : v) ?? 'nothing'}`);
  }
  return v as T;
}

const REQUEST_TYPES: readonly WriterRequestType[] = ['import/start', 'import/lines', 'import/end', 'pages/forget', 'store/organise', 'data/clear', 'ping'];
const EVENT_TYPES: readonly WriterEventType[] = ['waiting', 'import/saved', 'organise/progress', 'done', 'failed', 'pong'];
const PHASES: readonly OrganisePhase[] = ['design', 'reading', 'comparing', 'rewrites', 'writing', 'passages', 'copies'];
const FAILURES: readonly WriterFailure[] = ['refused', 'interrupted', 'grouping', 'failed'];

/** Validates what the history page sent the worker. Throws InvalidMessage with the reason. */
export function parseWriterRequest(message: unknown): WriterRequest {
  const o = object(message, 'the writer request');
  const type = oneOf(o, 'type', REQUEST_TYPES);
  switch (type) {
    case 'import/start': {
      const now = o['now'];
      if (typeof now !== 'number' || !Number.isFinite(now) || now < 0) throw new InvalidMessage('now must be a time in milliseconds');
      return { type, now };
    }
    case 'import/lines': {
      const lines = strings(o, 'lines', WRITER_LIMITS.linesPerMessage, WRITER_LIMITS.lineChars);
      const chars = lines.reduce((sum, line) => sum + line.length, 0);
      if (chars > WRITER_LIMITS.messageChars) throw new InvalidMessage(`lines are too long together: ${chars} characters (at most ${WRITER_LIMITS.messageChars})`);
      return { type, first: lineNumber(o, 'first'), lines };
    }
    case 'pages/forget':
      return { type, urls: strings(o, 'urls', WRITER_LIMITS.urls, LIMITS.urlChars) };
    case 'import/end':
    case 'store/organise':
    case 'data/clear':
    case 'ping':
      return { type };
  }
}

/** Validates what the worker sent the history page. Throws InvalidMessage with the reason. */
export function parseWriterEvent(message: unknown): WriterEvent {
  const o = object(message, 'the writer event');
  const type = oneOf(o, 'type', EVENT_TYPES);
  switch (type) {
    case 'waiting':
    case 'pong':
      return { type };
    case 'import/saved': {
      const rejected = list(o, 'rejected', WRITER_LIMITS.rejections).map((item): RejectedLine => {
        const r = object(item, 'a rejected line');
        return { line: lineNumber(r, 'line'), problems: list(r, 'problems', MAX_LINE_PROBLEMS).map((p) => parseLineProblem(object(p, 'a problem'))) };
      });
      return { type, through: count(o, 'through'), added: count(o, 'added'), merged: count(o, 'merged'), unchanged: count(o, 'unchanged'), rejected };
    }
    case 'organise/progress':
      return { type, phase: oneOf(o, 'phase', PHASES), done: count(o, 'done'), total: count(o, 'total') };
    case 'done':
      return o['forgotten'] === undefined ? { type } : { type, forgotten: count(o, 'forgotten') };
    case 'failed': {
      const failed: WriterEvent = { type, failure: oneOf(o, 'failure', FAILURES), error: string(o, 'error', LIMITS.messageChars) };
      return o['refusal'] === undefined ? failed : { ...failed, refusal: parseRefusal(object(o['refusal'], 'refusal')) };
    }
  }
}

const REFUSALS: readonly Refusal['code'][] = ['not-export', 'bad-version', 'newer-version', 'empty'];
const LINE_FIELDS: readonly LineField[] = ['url', 'title', 'simhash', 'check', 'firstSeen', 'lastSeen', 'visits', 'passages', 'rewrites', 'published', 'source', 'sourceBy'];
/** At most one problem a field, and one for the order of the dates. */
const MAX_LINE_PROBLEMS = LINE_FIELDS.length + 1;
const PROBLEMS: readonly LineProblem['code'][] = ['not-json', 'not-object', 'second-header', 'missing', 'not-string', 'too-long', 'not-http', 'not-hex', 'not-date', 'dates-order', 'not-visits', 'unreadable'];

function parseLineProblem(o: Json): LineProblem {
  const code = oneOf(o, 'code', PROBLEMS);
  switch (code) {
    case 'not-json':
    case 'not-object':
    case 'second-header':
    case 'dates-order':
    case 'not-visits':
      return { code };
    case 'too-long':
      return { code, field: oneOf(o, 'field', LINE_FIELDS), max: count(o, 'max') };
    default:
      return { code, field: oneOf(o, 'field', LINE_FIELDS) };
  }
}

function parseRefusal(o: Json): Refusal {
  const code = oneOf(o, 'code', REFUSALS);
  return code === 'newer-version' ? { code, version: count(o, 'version'), newest: count(o, 'newest') } : { code };
}

/** What the worker and the page each hold of a runtime.Port (webextension-polyfill's fits). */
export interface PortLike {
  postMessage(message: unknown): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: () => void): void };
  disconnect(): void;
}
