// The trees a store keeps in sorted runs (lib/index/table-runs.ts, lib/rows/page-rows.ts) against
// the trees built from every stored record: the brute-force reference for the `runs` store. Each
// table tree must hold exactly one entry per readable record (of a migration's new design: per
// record the pass has been through), each page-field tree one per record with that field, no chunk
// may lie outside the run index, and the index may name no missing chunk. Used by the unit tests
// over fake-indexeddb and by the e2e store check (test/e2e/consistency.ts).
import { expect } from 'vitest';
import { fingerprintFromHex } from '../../lib/fingerprint/bits';
import { type StoredDesign, parseStoredDesign, tablesOf } from '../../lib/index/design';
import { decodeBlock } from '../../lib/rows/blocks';
import { FIELD_TREES, FIELD_TREE_BASE, lastSeenEntry, textKey } from '../../lib/rows/page-rows';
import type { RunChunkKey, RunIndex } from '../../lib/store/schema';
import type { Db, PageRecord } from '../../lib/store/schema';
import { TABLE_STRIDE, tableEntries, tableTree } from '../../lib/index/table-runs';
import { decodeRunChunk } from '../../lib/index/run-chunks';
import { readRunIndexValue } from '../../lib/rows/run-index';

/** Words an entry of the tree: the page fields' trees are past every table's. */
const strideOf = (tree: number): number => (tree < FIELD_TREE_BASE ? TABLE_STRIDE : Object.values(FIELD_TREES).find((spec) => spec.tree === tree)?.stride ?? TABLE_STRIDE);
const entryText = (words: ArrayLike<number>, at: number, stride: number): string => Array.from({ length: stride }, (_, w) => words[at + w]).join(',');

/** Every page of the stored blocks (keys and values of the `blocks` store), in id order. */
export function pagesOfBlocks(blocks: readonly { key: number; value: unknown }[]): PageRecord[] {
  return blocks.flatMap(({ key, value }) => decodeBlock(key, value).filter((page): page is PageRecord => page !== undefined));
}

/** Every page of a database (fake-indexeddb in unit tests), in id order. */
export async function storedPages(db: Db): Promise<PageRecord[]> {
  const tx = db.transaction('blocks', 'readonly');
  const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
  return pagesOfBlocks(keys.map((key, i) => ({ key, value: values[i] })));
}

/** The entries every tree should hold, from the records: the tables of meta's design(s) and the page fields' trees, by tree, sorted. */
export function tablesOfRecords(stored: StoredDesign, records: readonly { id: number; simhash: string }[]): Map<number, string[]> {
  const readable = records.flatMap((record) => {
    try {
      return [{ id: record.id, simhash: fingerprintFromHex(record.simhash) }];
    } catch {
      return [];
    }
  });
  const trees = new Map<number, string[]>();
  const enter = (design: { k: number; b: number }, pages: typeof readable): void => {
    tablesOf(design).tables.forEach((_, t) => {
      const words = tableEntries(design, t, pages);
      const list: string[] = [];
      for (let e = 0; e < words.length; e += TABLE_STRIDE) list.push(entryText(words, e, TABLE_STRIDE));
      trees.set(tableTree(design, t).tree, list.sort());
    });
  };
  enter(stored, readable);
  const m = stored.migration;
  if (m !== undefined) enter(m.to, m.after === undefined ? [] : readable.filter((page) => page.id <= m.after!));
  // the page fields' trees, for records that have the fields (StoreIndex's and the tables-only tests' have only id and simhash)
  const full = records.filter((record): record is PageRecord => typeof (record as Partial<PageRecord>).url === 'string');
  if (full.length > 0) {
    // the copySite tree holds every copy under its site: a near-duplicate copy (copySite) or a passage copy
    const valueOf = (r: PageRecord, field: 'url' | 'site' | 'group' | 'copySite'): string | undefined =>
      field === 'copySite' ? (r.copySite !== undefined || r.contentCopy === true ? r.site : undefined) : r[field];
    for (const field of ['url', 'site', 'group', 'copySite'] as const) {
      const list = full.filter((r) => valueOf(r, field) !== undefined).map((r) => `${textKey(valueOf(r, field)!)},${r.id}`);
      if (list.length > 0) trees.set(FIELD_TREES[field].tree, list.sort());
    }
    trees.set(FIELD_TREES.lastSeen.tree, full.map((r) => lastSeenEntry(r.lastSeen, r.id).join(',')).sort());
  }
  return trees;
}

export interface StoredTables {
  /** Every entry of every run the index lists, by tree, sorted. */
  trees: Map<number, string[]>;
  /** Chunks in the store that no run of the index lists. */
  orphans: string[];
  /** Chunks the index lists that the store lacks. */
  missing: string[];
}

/** What the runs store holds, read through its index. */
export function tablesOfRuns(index: RunIndex, chunks: readonly { key: RunChunkKey; words: ArrayLike<number> }[]): StoredTables {
  const byKey = new Map(chunks.map((chunk) => [chunk.key.join('/'), chunk.words]));
  const listed = new Set<string>();
  const trees = new Map<number, string[]>();
  const missing: string[] = [];
  for (const run of index.runs) {
    const list = trees.get(run.tree) ?? [];
    trees.set(run.tree, list);
    run.firsts.forEach((_, c) => {
      const key = [run.tree, run.level, run.run, c].join('/');
      listed.add(key);
      const words = byKey.get(key);
      if (words === undefined) return void missing.push(key);
      const stride = strideOf(run.tree);
      for (let e = 0; e < words.length; e += stride) list.push(entryText(words, e, stride));
    });
  }
  for (const list of trees.values()) list.sort();
  return { trees, orphans: [...byKey.keys()].filter((key) => !listed.has(key)), missing };
}

/** What differs between the two, a line a problem: every tree of the records' design(s) as the records say, and nothing else stored. */
export function tableProblems(fromRecords: Map<number, string[]>, fromRuns: StoredTables, limit = 20): string[] {
  const problems = [...fromRuns.missing.map((key) => `chunk ${key} is listed in the run index but missing`), ...fromRuns.orphans.map((key) => `chunk ${key} is in no run of the index`)];
  for (const tree of new Set([...fromRecords.keys(), ...fromRuns.trees.keys()])) {
    const want = fromRecords.get(tree) ?? [];
    const have = fromRuns.trees.get(tree) ?? [];
    const wanted = new Set(want);
    const had = new Set(have);
    const lacking = want.filter((entry) => !had.has(entry));
    const extra = have.filter((entry) => !wanted.has(entry));
    if (lacking.length > 0 || extra.length > 0 || want.length !== have.length) {
      problems.push(`tree ${tree}: ${have.length} entries, the records give ${want.length}; lacking ${JSON.stringify(lacking.slice(0, 3))}, not of a record ${JSON.stringify(extra.slice(0, 3))}`);
    }
  }
  return problems.slice(0, limit);
}

export function expectSameTables(fromRecords: Map<number, string[]>, fromRuns: StoredTables): void {
  expect(tableProblems(fromRecords, fromRuns)).toEqual([]);
}

/** The check above over a database (fake-indexeddb in unit tests); `design` for one without meta's (StoreIndex's). */
export async function expectTablesOfRecords(db: Db, design?: { k: number; b: number }): Promise<void> {
  const stored = design ?? parseStoredDesign(await db.get('meta', 'design'));
  const index = readRunIndexValue(await db.get('meta', 'runs'));
  const tx = db.transaction('runs', 'readonly');
  const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
  const chunks = keys.map((key, i) => ({ key, words: decodeRunChunk(values[i]!) }));
  expectSameTables(tablesOfRecords(stored, await storedPages(db)), tablesOfRuns(index, chunks));
}
