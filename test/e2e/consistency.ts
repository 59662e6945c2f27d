// Is the extension's IndexedDB store whole? Reads every block of pages, the trees' sorted runs,
// the counts and meta from an extension context (the worker or an extension page: they share the
// extension's origin) in one readonly transaction, then checks in Node, with lib/'s own code, the
// invariants of the schema (lib/store/schema.ts):
// - every block decodes (lib/rows/blocks.ts) and holds a page at least; every page is whole
//   (exactly the fields of a PageRecord, readable fingerprints) and sits at block × 64 + slot;
// - page ids are unique and below meta `nextId`, and no URL is stored twice;
// - the trees' sorted runs hold exactly one entry per page in each table tree of the stored design
//   (and of the migration under way, if any), one per page in each page-field tree (url, site,
//   group, copySite, lastSeen: lib/rows/page-rows.ts), and no chunk outside their index
//   (test/kept-tables.ts);
// - every group id is held by at least two pages (a group is never half written);
// - the counts kept beside the pages (meta `pageCount` and `groupCounts`, the `siteCounts` rows:
//   lib/store/tally.ts) are those of the pages.
import type { Page, Worker } from 'playwright-core';
import { fingerprintFromHex } from '../../lib/fingerprint/bits';
import { parseStoredDesign } from '../../lib/index/design';
import { readNextId } from '../../lib/rows/page-rows';
import type { RunChunkKey } from '../../lib/store/schema';
import { DB_VERSION, OPTIONAL_RECORD_FIELDS, PAGE_RECORD_FIELDS, type PageRecord } from '../../lib/store/schema';
import { readRunIndexValue } from '../../lib/rows/run-index';
import { countsOfRecords, rowsOfBuckets } from '../support/kept-counts';
import { tableProblems, tablesOfRecords, tablesOfRuns } from '../support/kept-tables';
import { type PlainValue, decodeBlocks } from './blocks';
import { runChunkWords } from '../../lib/index/run-chunks';

export interface StoreDump {
  /** The database's version. */
  version: number;
  /** meta 'design' as stored. */
  design: unknown;
  /** The pages of the `blocks` store, decoded, in id order. */
  records: PageRecord[];
  /** The `blocks` store as read (keys, values with their bytes as plain arrays). */
  blocks: { key: number; value: PlainValue }[];
  /** Blocks that did not decode, one line each. */
  blockProblems: string[];
  /** Blocks that decode to no page (an emptied block is deleted, not kept). */
  emptyBlocks: number[];
  /** meta 'nextId' as stored. */
  nextId: unknown;
  pageCount: unknown;
  groupCounts: unknown;
  siteCounts: unknown[];
  /** meta 'runs' as stored. */
  runIndex: unknown;
  /** Every chunk of the runs store, its words as a plain array. */
  chunks: { key: RunChunkKey; words: number[] }[];
}

type RawDump = Omit<StoreDump, 'records' | 'blockProblems' | 'emptyBlocks'>;

/** Everything of database 'doppel' that the check reads, in one readonly transaction; the blocks decoded here, in Node. */
export async function dumpStore(context: Page | Worker): Promise<StoreDump> {
  const read = () =>
    new Promise<RawDump>((resolve, reject) => {
      const open = indexedDB.open('doppel');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        // (a database still at an older version has no `blocks`: the check says so; no named
        // functions in here: tsx would wrap them in a helper the browser lacks)
        const stores = db.objectStoreNames;
        const names = ['blocks', 'meta', 'siteCounts', 'runs'].filter((name) => stores.contains(name));
        const has = { blocks: stores.contains('blocks'), siteCounts: stores.contains('siteCounts'), runs: stores.contains('runs') };
        const tx = db.transaction(names, 'readonly');
        const meta = tx.objectStore('meta');
        const blockKeys = has.blocks ? tx.objectStore('blocks').getAllKeys() : null;
        const blockValues = has.blocks ? tx.objectStore('blocks').getAll() : null;
        const design = meta.get('design');
        const nextId = meta.get('nextId');
        const pageCount = meta.get('pageCount');
        const groupCounts = meta.get('groupCounts');
        const runIndex = meta.get('runs');
        const siteCounts = has.siteCounts ? tx.objectStore('siteCounts').getAll() : null;
        const chunkKeys = has.runs ? tx.objectStore('runs').getAllKeys() : null;
        const chunks = has.runs ? tx.objectStore('runs').getAll() : null;
        tx.oncomplete = () => {
          db.close();
          resolve({
            version: db.version,
            design: design.result,
            // evaluate's results are serialized: a Uint8Array would not come back as one
            blocks: ((blockKeys?.result ?? []) as number[]).map((key, i) => {
              const value = blockValues!.result[i] as unknown;
              const parts = (Array.isArray(value) ? value : [value]).map((part: unknown) => (part instanceof Uint8Array ? { bytes: Array.from(part) } : part));
              return { key, value: Array.isArray(value) ? parts : parts[0] };
            }),
            nextId: nextId.result,
            pageCount: pageCount.result,
            groupCounts: groupCounts.result,
            siteCounts: (siteCounts?.result ?? []) as unknown[],
            runIndex: runIndex.result,
            chunks: ((chunkKeys?.result ?? []) as RunChunkKey[]).map((key, i) => ({ key, words: Array.from(chunks!.result[i] as Uint8Array) })),
          });
        };
        tx.onerror = () => reject(tx.error);
      };
    });
  const raw = await (context as Page).evaluate(read);
  const { pages, problems, emptyBlocks } = decodeBlocks(raw.blocks);
  // the chunks' bytes (lib/index/run-chunks.ts) as their words; a damaged chunk is left empty, and its problem listed
  const chunkProblems: string[] = [];
  const chunks = raw.chunks.map(({ key, words }) => {
    try {
      return { key, words: Array.from(runChunkWords(Uint8Array.from(words), key)) };
    } catch (error) {
      chunkProblems.push((error as Error).message);
      return { key, words: [] };
    }
  });
  return { ...raw, chunks, records: pages, blockProblems: [...problems, ...chunkProblems], emptyBlocks };
}

const REQUIRED = [...PAGE_RECORD_FIELDS].sort();
const ALLOWED = new Set<string>([...PAGE_RECORD_FIELDS, ...OPTIONAL_RECORD_FIELDS]);

/** What is wrong with the store, one line per problem (at most `limit`); [] if it is whole. */
export function storeProblems(dump: StoreDump, limit = 20): string[] {
  const problems: string[] = [];
  const add = (problem: string): void => {
    if (problems.length < limit) problems.push(problem);
  };
  if (dump.version !== DB_VERSION) add(`the database is at version ${dump.version}, not ${DB_VERSION}`);
  for (const problem of dump.blockProblems) add(problem);
  for (const block of dump.emptyBlocks) add(`block ${block} holds no page: it should have been deleted`);
  let stored;
  try {
    stored = parseStoredDesign(dump.design);
  } catch (error) {
    return [...problems, `meta design: ${(error as Error).message}`];
  }
  let nextId: number | undefined;
  try {
    nextId = readNextId(dump.nextId);
  } catch (error) {
    add(`meta nextId: ${(error as Error).message}`);
  }

  const groups = new Map<string, number>();
  const ids = new Set<number>();
  const urls = new Map<string, string>();
  const seenUrl = (url: string, where: string): void => {
    const before = urls.get(url);
    if (before !== undefined) add(`${url} is stored twice: ${before} and ${where}`);
    else urls.set(url, where);
  };
  for (const record of dump.records) {
    const url = String(record.url);
    const fields = Object.keys(record);
    const missing = REQUIRED.filter((f) => !fields.includes(f));
    const extra = fields.filter((f) => !ALLOWED.has(f));
    if (missing.length > 0 || extra.length > 0) add(`${url}: fields missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(extra)}`);
    const id = record.id;
    if (!Number.isSafeInteger(id) || id < 0) add(`${url}: id ${JSON.stringify(id)} is not a page id`);
    if (ids.has(id)) add(`${url}: id ${id} is held by two pages`);
    ids.add(id);
    if (nextId !== undefined && !(id < nextId)) add(`${url}: id ${id} is not below meta nextId ${nextId}`);
    seenUrl(url, `page ${id}`);
    if (typeof record.title !== 'string' || typeof record.site !== 'string') add(`${url}: title or site is not a string`);
    for (const f of ['firstSeen', 'lastSeen', 'visits'] as const) if (typeof record[f] !== 'number' || !Number.isFinite(record[f])) add(`${url}: ${f} is ${JSON.stringify(record[f])}`);
    if (typeof record.check !== 'string' || !(record.check === '' || /^[0-9a-f]{16}$/.test(record.check))) add(`${url}: check is ${JSON.stringify(record.check)}`);
    try {
      fingerprintFromHex(String(record.simhash));
    } catch {
      add(`${url}: simhash ${JSON.stringify(record.simhash)} is unreadable`);
      continue;
    }
    if (typeof record.group === 'string') groups.set(record.group, (groups.get(record.group) ?? 0) + 1);
  }

  for (const [group, n] of groups) if (n < 2) add(`group ${group} is held by ${n} page`);
  try {
    const fromRecords = tablesOfRecords(stored, dump.records);
    for (const problem of tableProblems(fromRecords, tablesOfRuns(readRunIndexValue(dump.runIndex), dump.chunks), limit)) add(problem);
  } catch (error) {
    add(`meta runs: ${(error as Error).message}`);
  }

  const counted = countsOfRecords(dump.records as unknown as Parameters<typeof countsOfRecords>[0]);
  if (dump.pageCount !== counted.pageCount) add(`meta pageCount is ${JSON.stringify(dump.pageCount)}, the store holds ${counted.pageCount} pages`);
  if (JSON.stringify(dump.groupCounts) !== JSON.stringify(counted.groupCounts)) {
    add(`meta groupCounts is ${JSON.stringify(dump.groupCounts)}, the records give ${JSON.stringify(counted.groupCounts)}`);
  }
  const kept = JSON.stringify(rowsOfBuckets(dump.siteCounts as Parameters<typeof rowsOfBuckets>[0]));
  if (kept !== JSON.stringify(counted.siteCounts)) add(`siteCounts rows are ${kept}, the records give ${JSON.stringify(counted.siteCounts)}`);
  return problems;
}
