// Is the extension's IndexedDB store whole? Reads every record and meta's table design from an
// extension context (the worker or an extension page: they share the extension's origin), then
// checks in Node, with lib/'s own code, that every record is whole: exactly the fields of a
// PageRecord and readable fingerprints; that the tables' sorted runs hold exactly one entry per
// record in each tree of the stored design (and of the migration under way, if any), and no chunk
// outside their index (test/kept-tables.ts); that every group id is held by at
// least two pages (a group is never half written); and that the counts kept beside the pages
// (meta `pageCount` and `groupCounts`, the `siteCounts` rows: lib/store/tally.ts) are those of
// the records.
import type { Page, Worker } from 'playwright-core';
import { fingerprintFromHex } from '../../lib/fingerprint';
import { parseStoredDesign } from '../../lib/store/migrate';
import type { RunChunkKey } from '../../lib/store/runs';
import { OPTIONAL_RECORD_FIELDS, PAGE_RECORD_FIELDS } from '../../lib/store/schema';
import { SLOT_PROBES, slotBase } from '../../lib/store/slots';
import { readRunIndexValue } from '../../lib/store/table-trees';
import { countsOfRecords, rowsOfBuckets } from '../kept-counts';
import { tableProblems, tablesOfRecords, tablesOfRuns } from '../kept-tables';

export interface StoreDump {
  /** meta 'design' as stored. */
  design: unknown;
  records: Record<string, unknown>[];
  pageCount: unknown;
  groupCounts: unknown;
  siteCounts: unknown[];
  /** meta 'runs' as stored. */
  runIndex: unknown;
  /** Every chunk of the runs store, its words as a plain array. */
  chunks: { key: RunChunkKey; words: number[] }[];
}

/** Every record of database 'doppel' and its meta design, read in one readonly transaction. */
export async function dumpStore(context: Page | Worker): Promise<StoreDump> {
  const read = () =>
    new Promise<StoreDump>((resolve, reject) => {
      const open = indexedDB.open('doppel');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const tx = db.transaction(['pages', 'meta', 'siteCounts', 'runs'], 'readonly');
        const records = tx.objectStore('pages').getAll();
        const design = tx.objectStore('meta').get('design');
        const pageCount = tx.objectStore('meta').get('pageCount');
        const groupCounts = tx.objectStore('meta').get('groupCounts');
        const siteCounts = tx.objectStore('siteCounts').getAll();
        const runIndex = tx.objectStore('meta').get('runs');
        const chunkKeys = tx.objectStore('runs').getAllKeys();
        const chunks = tx.objectStore('runs').getAll();
        tx.oncomplete = () => {
          db.close();
          resolve({
            design: design.result,
            records: records.result as Record<string, unknown>[],
            pageCount: pageCount.result,
            groupCounts: groupCounts.result,
            siteCounts: siteCounts.result as unknown[],
            runIndex: runIndex.result,
            chunks: (chunkKeys.result as RunChunkKey[]).map((key, i) => ({ key, words: Array.from(chunks.result[i] as Uint32Array) })),
          });
        };
        tx.onerror = () => reject(tx.error);
      };
    });
  return (context as Page).evaluate(read);
}

const REQUIRED = [...PAGE_RECORD_FIELDS].sort();
const ALLOWED = new Set<string>([...PAGE_RECORD_FIELDS, ...OPTIONAL_RECORD_FIELDS]);

/** What is wrong with the store, one line per problem (at most `limit`); [] if it is whole. */
export function storeProblems(dump: StoreDump, limit = 20): string[] {
  const problems: string[] = [];
  const add = (problem: string): void => {
    if (problems.length < limit) problems.push(problem);
  };
  let stored;
  try {
    stored = parseStoredDesign(dump.design);
  } catch (error) {
    return [`meta design: ${(error as Error).message}`];
  }
  const groups = new Map<string, number>();
  for (const record of dump.records) {
    const url = String(record['url']);
    const fields = Object.keys(record);
    const missing = REQUIRED.filter((f) => !fields.includes(f));
    const extra = fields.filter((f) => !ALLOWED.has(f));
    if (missing.length > 0 || extra.length > 0) add(`${url}: fields missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(extra)}`);
    const probe = Number(record['id']) - slotBase(url);
    if (!Number.isInteger(probe) || probe < 0 || probe >= SLOT_PROBES) add(`${url}: key ${JSON.stringify(record['id'])} is not in its URL's slot`);
    if (typeof record['title'] !== 'string' || typeof record['site'] !== 'string') add(`${url}: title or site is not a string`);
    for (const f of ['firstSeen', 'lastSeen', 'visits'] as const) if (typeof record[f] !== 'number' || !Number.isFinite(record[f])) add(`${url}: ${f} is ${JSON.stringify(record[f])}`);
    if (typeof record['check'] !== 'string' || !(record['check'] === '' || /^[0-9a-f]{16}$/.test(record['check']))) add(`${url}: check is ${JSON.stringify(record['check'])}`);
    try {
      fingerprintFromHex(String(record['simhash']));
    } catch {
      add(`${url}: simhash ${JSON.stringify(record['simhash'])} is unreadable`);
      continue;
    }
    if (typeof record['group'] === 'string') groups.set(record['group'], (groups.get(record['group']) ?? 0) + 1);
  }
  for (const [group, n] of groups) if (n < 2) add(`group ${group} is held by ${n} page`);
  try {
    const fromRecords = tablesOfRecords(stored, dump.records as unknown as { id: number; simhash: string }[]);
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
