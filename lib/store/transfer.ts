// Exporting the whole history as NDJSON (lib/protocol/ndjson.ts) and importing it back, merging with what
// is already stored.
//
// Import, decisions:
// - Merging a page with the stored page of the same canonical URL: firstSeen = the earlier,
//   lastSeen = the later, visits = the larger of the two (not the sum: max is idempotent, so
//   importing the same file twice, or an older export that overlaps this history, adds nothing;
//   a sum would count the same visits again on every import. The price: a page visited on two
//   devices shows the larger count, not the total). A date missing from the line (defaulted to
//   the import time for a new page) takes no part in a merge, for the same reason: re-importing a
//   file without dates must not move lastSeen. The stored title is kept unless it is empty.
//   The fingerprints (simhash and check; the table keys follow from the simhash) follow the later lastSeen, as recordVisit keeps
//   the fingerprints of the latest visit; on a tie the stored ones stay. A known check replaces an
//   unknown one for the same simhash.
// - A line without a check: the check fingerprint cannot be recomputed without the page's text,
//   which Doppel never keeps, so the record is stored with check = NO_CHECK (lib/store/pages.ts),
//   and nearDuplicates accepts such a page on its simhash alone ("not confirmable"). It is written
//   back as "check": null on export, and a later visit to the page fills it in.
// - Pages are written in batches, each ONE readwrite transaction of whole records (the record and
//   its table keys are one put): an import cut off half way (the file cannot be read further,
//   the extension is reloaded, the disk is full) leaves every page either fully there or not at
//   all, and importing the file again completes it without counting anything twice.
import type { Provenance } from '../text/provenance';
import { sameClaims } from '../report/original';
import { DEFAULT_K, type PageReader, type PageStore, readGroupsMeta } from './pages';
import { NO_CHECK, storedRecord } from './records';
import type { PageRecord } from './schema';
import { within } from './within';
import type { RejectedLine } from '../protocol/writer-protocol';
import { type ImportedPage, type Refusal, exportHeader, pageToLine, parseHeader, parsePageLine, readsPassages, readsRewrites } from '../protocol/ndjson';
import type { ImportedFields } from './pages';
import { type Kept, withBytes } from './passages';
import { FIELD_TREES, readNextId, textKey, treeRange } from '../rows/page-rows';
import { UrlFilter } from '../rows/url-filter';
import { runChunkWords } from '../index/run-chunks';

/**
 * Batches an import writes before it fills a UrlFilter of the store, after which it looks up only
 * the URLs that may be stored. A short import never pays for reading the whole url tree; a long
 * one skips most of its lookups.
 */
export const FILTER_AFTER_BATCHES = 4;

/**
 * Lines an import writes per transaction. 2,000 rather than 500: bench:browser imported 100,000
 * pages 1.24× as fast (medians of 6 alternating pairs, faster in 5). 4,000 rather than 2,000, with
 * passage fingerprints: a million pages at 12,042 pages/s against 8,276–9,614 (one run against
 * four, the same day): each transaction rewrites the tally's site buckets and the run index
 * whatever its size. A visit waits at most one batch for its write (about a third of a second),
 * and an import cut off loses at most one batch, which importing the file again writes.
 */
export const IMPORT_BATCH = 4_000;

/** A line that is not a page: its 1-based number and its problems, which the history page words (lib/protocol/writer-protocol.ts). */
export type Rejection = RejectedLine;

export interface ImportSummary {
  /** Pages that were not stored before. */
  added: number;
  /** Pages merged into a stored page that changed it. */
  merged: number;
  /** Pages already stored that the merge left as they were. */
  unchanged: number;
  /** Lines that are not a page, in file order. */
  rejected: Rejection[];
}

export interface ImportOptions {
  /** The import time, milliseconds since the epoch: the default firstSeen and lastSeen. */
  now: number;
  /** Lines per batch transaction (default IMPORT_BATCH). */
  batchSize?: number;
  /**
   * Called after each batch is committed, and once at the end, with the lines read so far and the
   * summary of what is committed (the live object: copy what you keep).
   */
  onProgress?: (linesRead: number, summary: Readonly<ImportSummary>) => void | Promise<void>;
}

export interface ExportOptions {
  /** The export time for the header (default Date.now()). */
  now?: number;
  /** Records read per readonly transaction (default 500). */
  chunkSize?: number;
}

/** The file cannot be imported at all (no header, not a Doppel file, a newer version): nothing was imported. */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    message: string,
    /** Why, for the page to word in the UI's language. */
    readonly refusal: Refusal,
  ) {
    super(message);
  }
}

/**
 * The import stopped part way (reading the lines failed, a write failed, onProgress threw):
 * `summary` counts the pages committed, every one of them whole (the batch being collected was
 * not written), and the rejected lines among those read. Importing the same file again completes the import.
 */
export class ImportInterruptedError extends Error {
  override name = 'ImportInterruptedError';
  constructor(
    readonly linesRead: number,
    readonly summary: ImportSummary,
    cause: unknown,
  ) {
    super(`The import stopped after line ${linesRead}: ${cause instanceof Error ? cause.message : String(cause)}. The pages imported so far are kept; importing the file again completes it.`, { cause });
  }
}

/**
 * The export, one line per string (without the newline): the header, then every page in key
 * (canonical URL) order. Streams: reads `chunkSize` records per short readonly transaction, so a
 * consumer may take its time between lines without holding a transaction open (IndexedDB commits
 * an idle one) and a million pages are never in memory at once. The header's page count is the
 * count when the export starts; pages recorded or forgotten during the export may or may not be
 * in it.
 */
export async function* exportPages(store: PageReader, { now = Date.now(), chunkSize = 500 }: ExportOptions = {}): AsyncGenerator<string, void, undefined> {
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer: got ${chunkSize}`);
  yield exportHeader({ exported: now, pages: await store.count(), k: DEFAULT_K });
  let after: number | undefined;
  for (;;) {
    const chunk = await store.pagesAfter(after, chunkSize, { passages: true });
    for (const { passages, rewrites, ...record } of chunk) yield pageToLine(record, passages, rewrites);
    const last = chunk.at(-1);
    if (chunk.length < chunkSize || last === undefined) return;
    after = last.id;
  }
}

function newRecord(page: ImportedPage): ImportedFields {
  return {
    ...(page.passages === undefined ? {} : { passages: page.passages }),
    ...(page.rewrites === undefined ? {} : { rewrites: page.rewrites }),
    url: page.url,
    title: page.title,
    site: page.site,
    simhash: page.simhash,
    check: page.check ?? NO_CHECK,
    firstSeen: page.firstSeen,
    lastSeen: page.lastSeen,
    visits: page.visits,
    ...claimsOf(page),
  };
}

/** The provenance fields of a page or record, only those it has. */
function claimsOf(page: Provenance): Provenance {
  return {
    ...(page.published === undefined ? {} : { published: page.published }),
    ...(page.source === undefined || page.sourceBy === undefined ? {} : { source: page.source, sourceBy: page.sourceBy }),
  };
}

const hasClaims = (page: Provenance): boolean => page.published !== undefined || page.source !== undefined;

/** The stored record `old` with an imported page of the same URL merged in (see the top of the file). */
function merge(old: ImportedFields, page: ImportedPage): ImportedFields {
  // a date the line did not give (defaulted to the import time) takes no part in a merge
  const firstSeen = page.datesGiven.firstSeen ? Math.min(old.firstSeen, page.firstSeen) : old.firstSeen;
  const lastSeen = page.datesGiven.lastSeen ? Math.max(old.lastSeen, page.lastSeen) : old.lastSeen;
  const later = page.datesGiven.lastSeen && page.lastSeen > old.lastSeen;
  let { simhash, check } = old;
  if (page.simhash !== old.simhash) {
    if (later) {
      simhash = page.simhash;
      check = page.check ?? NO_CHECK;
    }
  } else if (page.check !== null && (check === NO_CHECK || later)) {
    check = page.check;
  }
  // the passage fingerprints follow the text, as the simhash does: the later visit's, or the only ones (bytes: kept as they are)
  const passages = later || old.passages === undefined ? page.passages ?? old.passages : old.passages;
  const rewrites = later || old.rewrites === undefined ? page.rewrites ?? old.rewrites : old.rewrites;
  // what the page says of where it comes from follows its text too (a line that says nothing keeps what was stored)
  const claims = (later || !hasClaims(old)) && hasClaims(page) ? claimsOf(page) : claimsOf(old);
  return {
    ...(passages === undefined ? {} : { passages }),
    ...(rewrites === undefined ? {} : { rewrites }),
    url: old.url,
    title: old.title !== '' ? old.title : page.title,
    site: old.site,
    simhash,
    check,
    firstSeen,
    lastSeen,
    visits: Math.max(old.visits, page.visits),
    ...claims,
  };
}

/** Same fields (the keys follow from the simhash and the design in meta), and the same passage fingerprints (merge keeps the stored ones as they are). */
function sameRecord(a: ImportedFields, b: ImportedFields): boolean {
  return (
    a.passages === b.passages &&
    a.rewrites === b.rewrites &&
    a.title === b.title &&
    a.site === b.site &&
    a.simhash === b.simhash &&
    a.check === b.check &&
    a.firstSeen === b.firstSeen &&
    a.lastSeen === b.lastSeen &&
    a.visits === b.visits &&
    sameClaims(a, b)
  );
}

/** Writes one batch in one transaction; the counts are added to `summary` only once it commits. */
async function commit(store: PageStore, batch: readonly ImportedPage[], summary: ImportSummary, filter: UrlFilter | undefined): Promise<void> {
  if (batch.length === 0) return;
  const counts = { added: 0, merged: 0, unchanged: 0 };
  await updateMany(store, [...new Set(batch.map((page) => page.url))], (stored) => {
    counts.added = counts.merged = counts.unchanged = 0;
    const current = new Map<string, ImportedFields>(stored);
    const changed = new Map<string, ImportedFields>();
    for (const page of batch) {
      const old = current.get(page.url);
      let record: ImportedFields;
      if (old === undefined) {
        record = newRecord(page);
        counts.added++;
      } else {
        record = merge(old, page);
        if (sameRecord(record, old)) {
          counts.unchanged++;
          continue;
        }
        counts.merged++;
      }
      current.set(record.url, record); // a later line of the same page (a tracking variant) merges into this
      changed.set(record.url, record);
    }
    return [...changed.values()];
  }, { filter });
  summary.added += counts.added;
  summary.merged += counts.merged;
  summary.unchanged += counts.unchanged;
}

/**
 * Imports an export, line by line (`lines` as from splitLines: the n-th string is line n, blank
 * lines skipped). The first non-blank line must be the header (parseHeader), else ImportError and
 * nothing is imported. Each bad page line is rejected with its line number and reason and the
 * import goes on. Pages are merged into the store (see the top of the file) in batches of at most
 * `batchSize` lines, each one transaction. If reading or writing fails part way, throws
 * ImportInterruptedError with the summary of the committed batches.
 */
export async function importLines(store: PageStore, lines: AsyncIterable<string> | Iterable<string>, { now, batchSize = IMPORT_BATCH, onProgress }: ImportOptions): Promise<ImportSummary> {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer: got ${batchSize}`);
  if (!Number.isFinite(now)) throw new RangeError(`now must be a time in milliseconds: got ${now}`);
  const summary: ImportSummary = { added: 0, merged: 0, unchanged: 0, rejected: [] };
  let lineNumber = 0;
  let headerRead = false;
  let withPassages: number | false = false;
  let withRewrites = false;
  let batch: ImportedPage[] = [];
  /** The lines of `batch` that are not a page: counted in the summary when the batch is. */
  let batchRejected: Rejection[] = [];
  let batchStart = 0; // the last line of the previous batch
  let reported = -1;
  let batches = 0;
  let filter: UrlFilter | undefined;
  // A batch's transaction commits while the next batch's lines are read and parsed: the worker
  // would otherwise wait for each commit (a quarter of its time at a million pages). One commit at
  // a time, in order; a failed one is thrown at the next flush or at the end, and its rejected
  // lines still count as read.
  let committing: Promise<void> = Promise.resolve();
  let inFlightRejected: Rejection[] = [];
  const flush = async (): Promise<void> => {
    await committing;
    // a long import reads which URLs may be stored once, and then looks up only those (UrlFilter)
    if (batches++ === FILTER_AFTER_BATCHES) filter = await urlFilter(store);
    const written = batch;
    const rejected = (inFlightRejected = batchRejected);
    const through = lineNumber;
    batch = [];
    batchRejected = [];
    batchStart = lineNumber;
    committing = commit(store, written, summary, filter).then(async () => {
      summary.rejected.push(...rejected);
      inFlightRejected = [];
      reported = through;
      await onProgress?.(through, summary);
    });
    committing.catch(() => undefined); // awaited at the next flush or at the end
  };

  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') continue; // trim also removes a BOM
      if (!headerRead) {
        const header = parseHeader(line);
        if (!header.ok) throw new ImportError(`Cannot import line ${lineNumber}: ${header.reason}. Nothing was imported.`, header.refusal);
        headerRead = true;
        withPassages = readsPassages(header.header);
        withRewrites = readsRewrites(header.header);
        continue;
      }
      const parsed = parsePageLine(line, lineNumber, now, withPassages, withRewrites);
      if (parsed.ok) batch.push(parsed.page);
      else batchRejected.push({ line: parsed.line, problems: parsed.problems });
      if (lineNumber - batchStart >= batchSize) await flush();
    }
    if (!headerRead) throw new ImportError('Cannot import: the file is empty, and a Doppel export starts with its header line. Nothing was imported.', { code: 'empty' });
    await committing;
    if (batch.length > 0 || reported !== lineNumber) await flush();
    await committing;
  } catch (error) {
    if (error instanceof ImportError) throw error;
    // the batch in flight may still commit: counted if it does; every line read that is not a page is listed
    await committing.catch(() => undefined);
    summary.rejected.push(...inFlightRejected, ...batchRejected);
    throw new ImportInterruptedError(lineNumber, summary, error);
  }
  return summary;
}

/**
 * Reads the records at `urls` (absent ones are not in the map), lets `update` compute the records
 * to write, and writes them, all in one readwrite transaction: every record lands whole, with
 * its tree entries, or none does. `update` is synchronous (an await outside the transaction would let
 * it commit early); if it throws, nothing is written. `update` gives records without ids or group
 * fields: a new page gets the next id, and the tables are those the design in meta requires at
 * the moment of the write (this store's `design` may be stale: another store may have migrated the
 * database, lib/organise/migrate.ts; during a migration, both designs' while the new trees are
 * being built). A record whose simhash is unchanged keeps its group fields; a new or changed one
 * is written in no group, and meta `groups` is marked incomplete: regroup (lib/organise/regroup.ts)
 * then finds its near-duplicates. With a `filter` (urlFilter), the URLs it says no page has
 * are not looked up; the URLs written are added to it once the transaction commits.
 */
export async function updateMany(store: PageStore, urls: readonly string[], update: (current: Map<string, PageRecord & Kept>) => readonly ImportedFields[], { filter }: { filter?: UrlFilter } = {}): Promise<void> {
  const asked = new Set(urls);
  const written: string[] = [];
  let throughId = 0;
  await store.write(async ({ rows, tally, passages, rewrites, meta }) => {
    const current: Map<string, PageRecord & Kept> = await rows.byUrls(urls, filter);
    // each stored page with its fingerprints' bytes: `update` keeps them (the same objects) or replaces them
    const kept = await Promise.all([...current.values()].map((record) => withBytes(record, passages, rewrites)));
    for (const record of kept) current.set(record.url, record);
    const puts: Promise<void>[] = [];
    let ungrouped = false;
    for (const fields of update(current)) {
      if (!asked.has(fields.url)) throw new Error(`updateMany: ${fields.url} was not among the URLs read`);
      const before = current.get(fields.url);
      // id first (the stored field order), and `fields` cannot move the record to another id
      const record = storedRecord({ ...fields, id: before?.id ?? rows.newId() });
      if (before !== undefined && before.simhash === record.simhash) {
        // same fingerprint: same groups
        if (before.group !== undefined) record.group = before.group;
        if (before.copySite !== undefined) record.copySite = before.copySite;
      } else {
        ungrouped = true; // a new or changed page is in no group until the next regroup
      }
      // new fingerprints are pending: organising works contentCopy out for them (until then the page is no copy by passages or rewrites)
      const newPassages = fields.passages !== undefined && fields.passages !== before?.passages;
      const newRewrites = fields.rewrites !== undefined && fields.rewrites !== before?.rewrites;
      ungrouped ||= newRewrites; // new rewrite fingerprints may link the page to others: a regroup is due
      if (before?.contentCopy === true && !newPassages && !newRewrites) record.contentCopy = true;
      if (newPassages) puts.push(passages.set(record.id, fields.passages!, 'pending'));
      if (newRewrites) puts.push(rewrites.set(record.id, fields.rewrites!, { pending: true }));
      tally.change(before, record);
      current.set(record.url, record);
      puts.push(rows.put(record));
      written.push(record.url);
    }
    if (ungrouped) {
      const groups = await readGroupsMeta(meta);
      if (groups.complete) await meta.put({ k: groups.k, complete: false }, 'groups');
    }
    await Promise.all(puts);
    throughId = rows.peekNextId;
  });
  if (filter === undefined) return;
  for (const url of written) filter.add(textKey(url));
  filter.throughId = Math.max(filter.throughId, throughId);
}

/**
 * A UrlFilter (lib/rows/page-rows.ts) of every page stored now: the url tree read in one
 * readonly transaction. An import of many pages fills one once, so that its new pages' URLs need
 * not be looked up.
 */
export async function urlFilter(store: PageStore): Promise<UrlFilter> {
  const tx = store.db.transaction(['meta', 'runs'], 'readonly');
  return within(tx, async () => {
    const filter = new UrlFilter();
    const [chunks, nextId] = await Promise.all([tx.objectStore('runs').getAll(treeRange(FIELD_TREES.url.tree)), tx.objectStore('meta').get('nextId')]);
    for (const value of chunks) {
      const chunk = runChunkWords(value, FIELD_TREES.url);
      for (let e = 0; e < chunk.length; e += FIELD_TREES.url.stride) filter.add(chunk[e]!);
    }
    filter.throughId = readNextId(nextId);
    return filter;
  });
}
