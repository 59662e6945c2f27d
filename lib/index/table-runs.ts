// The permuted-block tables (lib/index/tables.ts), kept as sorted runs (lib/index/runs.ts): one
// tree per table of a design. The store keeps them in its `runs` object store, and every
// near-duplicate lookup goes through them as lib/index/near.ts's backend (TableRuns).
//
// An entry is 4 words: [key, simhash high, simhash low, page id] (page ids are below 2^32:
// MAX_PAGE_ID, lib/rows/page-rows.ts). The key is the low 32 bits of the table's key
// (lib/index/tables.ts): for keys of up to 32 bits, the key itself; a longer key shares its word with a
// few other keys, whose pages the distance then rules out. The simhash in the entry lets a lookup
// rule out candidates by their distance before it reads a single record.
//
// Entries are written with the record, in its transaction: a new page adds one per table, a page
// whose simhash changed has its old entries purged and new ones added, a forgotten page has its
// entries purged. So a tree holds exactly the entries of the stored pages (tested against the
// records in test/table-trees.test.ts), and nothing of a forgotten page stays behind: its
// simhash and the hash of its URL would otherwise be readable on disk. Readers check each
// candidate against its record all the same (a record is the truth).
import { type Fingerprint, fingerprintFromHex, fingerprintHalves } from '../fingerprint/bits';
import { BackendIndex, type Candidate, type IndexBackend } from './near';
import { type DesignParams as DesignMeta, type TableDesign, type TableKey, keyOf, tablesOf } from './tables';
import { type RunIndex, type RunReader, type RunStore, type RunTree, MERGE_AT, appendRun, chunkFor, lookup, mergeDue } from './runs';

/** Words an entry: the key, the simhash's halves, the page id. */
export const TABLE_STRIDE = 4;
/** Entries a chunk: a lookup reads one chunk (4 kB) a run. */
export const TABLE_CHUNK_ENTRIES = 256;
/** Tables a design can have in the tree numbering (tableTree). */
const TREES_PER_DESIGN = 64;

/** The tree of table t of a design: designs never share a tree number, so a migration builds its new trees beside the old. */
export function tableTree(design: DesignMeta, t: number): RunTree {
  if (!Number.isInteger(design.k) || design.k < 0 || design.k > 63 || !Number.isInteger(design.b) || design.b < 1 || design.b > 63) {
    throw new RangeError(`no tree numbers for the design k = ${design.k}, b = ${design.b}`);
  }
  if (!Number.isInteger(t) || t < 0 || t >= TREES_PER_DESIGN) throw new RangeError(`no tree number for table ${t}`);
  return { tree: (design.k * 64 + design.b) * TREES_PER_DESIGN + t, stride: TABLE_STRIDE, chunkEntries: TABLE_CHUNK_ENTRIES };
}

/** A page as the tables see it. */
export interface TablePage {
  id: number;
  simhash: Fingerprint;
}

/** The records as the tables see them; a record whose simhash is unreadable matches nothing, and is in no table. */
export function tablePagesOf(records: readonly { id: number; simhash: string }[]): TablePage[] {
  const pages: TablePage[] = [];
  for (const record of records) {
    try {
      pages.push({ id: record.id, simhash: fingerprintFromHex(record.simhash) });
    } catch {
      // unreadable: in no table
    }
  }
  return pages;
}

/** Writes one entry of `page` for table `t` at `at` in `words`. */
function putEntry(words: Uint32Array, at: number, design: TableDesign, t: number, page: TablePage): void {
  const { hi, lo } = fingerprintHalves(page.simhash);
  words[at] = keyOf(design.tables[t]!.steps, hi, lo) % 2 ** 32;
  words[at + 1] = hi;
  words[at + 2] = lo;
  if (!Number.isInteger(page.id) || page.id < 0 || page.id >= 2 ** 32) throw new RangeError(`a page id must be a whole number up to ${2 ** 32 - 1}: got ${page.id}`);
  words[at + 3] = page.id;
}

/** The entries of `pages` in table t's tree, in their order (not sorted). */
export function tableEntries(design: DesignMeta, t: number, pages: readonly TablePage[]): Uint32Array {
  const tables = tablesOf(design);
  const words = new Uint32Array(pages.length * TABLE_STRIDE);
  pages.forEach((page, i) => putEntry(words, i * TABLE_STRIDE, tables, t, page));
  return words;
}

/** The level a new run of n entries starts at: the level that merges would have brought it to, so that a batch of thousands is not merged with runs of one entry. */
export function levelForEntries(n: number): number {
  let level = 0;
  for (let size = MERGE_AT; size <= n; size *= MERGE_AT) level++;
  return level;
}

/** Adds `pages` to every table of the design, one run a table, then merges what is due; returns the index to write. */
export async function addToTables(runs: RunStore, index: RunIndex, design: DesignMeta, pages: readonly TablePage[]): Promise<RunIndex> {
  if (pages.length === 0) return index;
  const tables = tablesOf(design);
  for (let t = 0; t < tables.tables.length; t++) {
    const tree = tableTree(design, t);
    index = await appendRun(runs, index, tree, tableEntries(design, t, pages), levelForEntries(pages.length));
    index = await mergeDue(runs, index, tree);
  }
  return index;
}

/**
 * Removes the entries of `pages` (each with the simhash it was entered with) from every table of
 * the design (purgeEntries).
 */
export async function removeFromTables(runs: RunStore, index: RunIndex, design: DesignMeta, pages: readonly TablePage[]): Promise<void> {
  if (pages.length === 0) return;
  const tables = tablesOf(design);
  await Promise.all(tables.tables.map((_, t) => purgeEntries(runs, index, tableTree(design, t), tableEntries(design, t, pages))));
}

/**
 * Removes `entries` (stride words each, any order) from the tree: each chunk that can hold one
 * (one a run, found by the chunks' first keys) is read, and written back without it. The run
 * index does not change (a chunk's first key still bounds what it holds, even emptied).
 */
export async function purgeEntries(runs: RunStore, index: RunIndex, spec: RunTree, entries: Uint32Array): Promise<void> {
  const { tree, stride } = spec;
  if (entries.length === 0) return;
  const byChunk = new Map<string, { key: [number, number, number, number]; gone: Set<string> }>();
  for (const run of index.runs) {
    if (run.tree !== tree) continue;
    for (let e = 0; e < entries.length; e += stride) {
      const c = chunkFor(run.firsts, entries[e]!);
      if (c < 0) continue;
      const id = `${run.level}/${run.run}/${c}`;
      let chunk = byChunk.get(id);
      if (chunk === undefined) byChunk.set(id, (chunk = { key: [tree, run.level, run.run, c], gone: new Set() }));
      chunk.gone.add(entries.subarray(e, e + stride).join(','));
    }
  }
  await Promise.all(
    [...byChunk.values()].map(async ({ key, gone }) => {
      const words = await runs.get(key);
      if (words === undefined) return; // an index that names a missing chunk: lookup reports it
      const kept: number[] = [];
      for (let e = 0; e < words.length; e += stride) {
        const entry = words.subarray(e, e + stride);
        if (!gone.has(entry.join(','))) kept.push(...entry);
      }
      if (kept.length < words.length) await runs.put(Uint32Array.from(kept), key, stride);
    }),
  );
}

/**
 * The tables of one design, as the runs of one transaction hold them: the backend of
 * lib/index/near.ts's BackendIndex, through which every near-duplicate lookup of the store goes
 * (nearIndex). It is written with the pages (applyTableChanges), never document by document.
 */
export class TableRuns implements IndexBackend<number> {
  private readonly tables: TableDesign;

  constructor(
    private readonly runs: RunReader,
    private readonly index: RunIndex,
    private readonly design: DesignMeta,
    private readonly pageCount: () => Promise<number>,
  ) {
    this.tables = tablesOf(design);
  }

  /** The pages whose key in table t is `key`: the entries under its low 32 bits whose whole key is `key`, each with the simhash it was entered with. */
  async candidates(t: number, key: TableKey): Promise<Candidate<number>[]> {
    const steps = this.tables.tables[t]!.steps;
    const entries = await lookup(this.runs, this.index, tableTree(this.design, t), key % 2 ** 32);
    const out: Candidate<number>[] = [];
    for (const entry of entries) {
      if (keyOf(steps, entry[1]!, entry[2]!) === key) out.push({ id: entry[3]!, hi: entry[1]!, lo: entry[2]! });
    }
    return out;
  }

  size(): Promise<number> {
    return this.pageCount();
  }
}

/** The near-duplicate index over the tables of `design` in these runs (TableRuns). */
export function nearIndex(runs: RunReader, index: RunIndex, design: DesignMeta, pageCount: () => Promise<number>): BackendIndex<number> {
  return new BackendIndex(tablesOf(design), new TableRuns(runs, index, design, pageCount));
}

/** A page's change as the tables see it: its simhash before (none: new, or unreadable) and after (none: forgotten, or unreadable). */
export interface TableChange {
  id: number;
  before?: Fingerprint;
  after?: Fingerprint;
}

/**
 * Keeps the tables of the designs `designsOf(id)` gives each page (lib/organise/migrate.ts
 * writeDesigns) in step with `changes`: a page whose simhash is unchanged is left as it is, others
 * have their old entries purged and their new ones added. Returns the index to write.
 */
export async function applyTableChanges(runs: RunStore, index: RunIndex, designsOf: (id: number) => readonly DesignMeta[], changes: readonly TableChange[]): Promise<RunIndex> {
  const work = new Map<string, { design: DesignMeta; gone: TablePage[]; added: TablePage[] }>();
  for (const { id, before, after } of changes) {
    if (before === after) continue;
    for (const design of designsOf(id)) {
      const name = `${design.k}/${design.b}`;
      let w = work.get(name);
      if (w === undefined) work.set(name, (w = { design, gone: [], added: [] }));
      if (before !== undefined) w.gone.push({ id, simhash: before });
      if (after !== undefined) w.added.push({ id, simhash: after });
    }
  }
  for (const { design, gone, added } of work.values()) {
    await removeFromTables(runs, index, design, gone);
    index = await addToTables(runs, index, design, added);
  }
  return index;
}
