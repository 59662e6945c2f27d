// The pages, within one transaction: the records in blocks of BLOCK_PAGES (lib/rows/blocks.ts),
// found through trees of sorted runs (lib/index/runs.ts), with no IndexedDB index.
//
// The trees beside the tables (lib/index/table-runs.ts), entries of 32-bit words:
// - url, site, group, copySite: [32-bit hash of the text, page id]. A lookup of the hash gives
//   candidates; each one's record is read and its field compared, so two texts with one hash give
//   two candidates, never a wrong page. The copySite tree holds every copy (isCopy: a
//   near-duplicate or a passage copy), under its site.
// - lastSeen: [seconds, milliseconds past them, page id]: the history newest first, and the pages
//   seen longest ago. A time before 1970 or after 2106 is clamped to the ends in this order.
// A page's id is block × BLOCK_PAGES + slot, counted up from meta `nextId` and never reused, so an
// entry can never point at a page other than the one it was written for.
//
// PageRows keeps every tree exact, as the tables are: flush() purges the old entries of each page
// the transaction changed or forgot and adds its new ones, beside the blocks it rewrites. Until
// then, reads through it see the transaction's own changes: a tree's candidates are joined by the
// pages changed so far, and every candidate is checked against its record as it is now.
import { type Fingerprint, fingerprintFromHex } from '../fingerprint/bits';
import { hash64 } from '../fingerprint/hash';
import { checkStorable } from './codec';
import { BLOCK_PAGES, BlockCache, type BlockReader, type BlockStore, type SlotSummary, blockOf } from './blocks';
import { type RunReader, type RunStore, type RunTree, appendRun, lookup, mergeDue, readAscending, readDescending } from '../index/runs';
import type { RunIndex } from '../index/runs';
import type { DesignParams as DesignMeta } from '../index/tables';
import type { PageRecord } from './record';
import { isCopy } from '../report/copies';
import { type TableChange, applyTableChanges, levelForEntries, purgeEntries } from '../index/table-runs';
import { readRunIndex, writeRunIndex } from './run-index';
import { absentFrom } from '../index/slots';
import type { UrlFilter } from './url-filter';

/** The fields with a tree of [hash, id] entries. */
export type PageField = 'url' | 'site' | 'group' | 'copySite';

/** Tree numbers of the page fields: past every table tree (tableTree gives at most 2^18 − 1). */
export const FIELD_TREE_BASE = 2 ** 20;
const FIELD_CHUNK_ENTRIES = 512;
export const FIELD_TREES: Readonly<Record<PageField | 'lastSeen', RunTree>> = {
  url: { tree: FIELD_TREE_BASE, stride: 2, chunkEntries: FIELD_CHUNK_ENTRIES },
  site: { tree: FIELD_TREE_BASE + 1, stride: 2, chunkEntries: FIELD_CHUNK_ENTRIES },
  group: { tree: FIELD_TREE_BASE + 2, stride: 2, chunkEntries: FIELD_CHUNK_ENTRIES },
  copySite: { tree: FIELD_TREE_BASE + 3, stride: 2, chunkEntries: FIELD_CHUNK_ENTRIES },
  lastSeen: { tree: FIELD_TREE_BASE + 4, stride: 3, chunkEntries: FIELD_CHUNK_ENTRIES },
};
const FIELDS: readonly PageField[] = ['url', 'site', 'group', 'copySite'];
/** Past the largest page id: ids are one word of a tree's entry, and this one is kept for a cursor past every id. */
export const MAX_PAGE_ID = 2 ** 32 - 1;

/** The word a text is entered under in its field's tree. */
export function textKey(text: string): number {
  return hash64(text).lo;
}

/** The lastSeen tree's entry of a page seen at `ms` (milliseconds since the epoch). */
export function lastSeenEntry(ms: number, id: number): [seconds: number, rest: number, id: number] {
  const seconds = Math.floor(ms / 1000);
  if (!(seconds >= 0)) return [0, 0, id];
  if (seconds > MAX_PAGE_ID) return [MAX_PAGE_ID, 999, id];
  return [seconds, Math.floor(ms - seconds * 1000), id];
}

/** A record's value in a field's tree: its field, except copySite: its site when it is a copy (isCopy). */
export function fieldValue(record: PageRecord, field: PageField): string | undefined {
  if (field === 'copySite') return isCopy(record) ? record.site : undefined;
  return record[field];
}

/** A record's entry in each tree it is in (a page without a group is in no group tree). */
function entriesOf(record: PageRecord): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const field of FIELDS) {
    const value = fieldValue(record, field);
    if (value !== undefined) out.set(FIELD_TREES[field].tree, [textKey(value), record.id]);
  }
  out.set(FIELD_TREES.lastSeen.tree, lastSeenEntry(record.lastSeen, record.id));
  return out;
}

/** A record's simhash; undefined if it is unreadable (such a record is in no table). */
export function readableSimhash(record: PageRecord): Fingerprint | undefined {
  try {
    return fingerprintFromHex(record.simhash);
  } catch {
    return undefined;
  }
}

/** The change to the tables when `before` (absent: a new page) becomes `after` (absent: forgotten). */
export function tableChange(id: number, before: PageRecord | undefined, after: PageRecord | undefined): TableChange {
  const change: TableChange = { id };
  const old = before === undefined ? undefined : readableSimhash(before);
  const next = after === undefined ? undefined : readableSimhash(after);
  if (old !== undefined) change.before = old;
  if (next !== undefined) change.after = next;
  return change;
}

/**
 * The runs store as one transaction reads it: each chunk read once (an import's URL lookups
 * read the same few chunks thousands of times), and a chunk written here read back as written.
 */
class ChunkMemo implements RunStore {
  private readonly kept = new Map<string, Promise<Uint32Array | undefined>>();

  constructor(private readonly store: RunReader | RunStore) {}

  get(key: Parameters<RunReader['get']>[0]): Promise<Uint32Array | undefined> {
    const name = key.join('/');
    let words = this.kept.get(name);
    if (words === undefined) {
      this.kept.set(name, (words = handled(this.store.get(key)))); // kept for later readers: a transaction that aborts rejects it, unread
    }
    return words;
  }

  private writable(): RunStore {
    if (!('put' in this.store)) throw new TypeError('PageRows: the runs were changed through a store that cannot be written');
    return this.store;
  }

  put(value: Uint32Array, key: Parameters<RunStore['put']>[1], stride: number): Promise<unknown> {
    this.kept.set(key.join('/'), Promise.resolve(value));
    return this.writable().put(value, key, stride);
  }

  getAll(range: IDBKeyRange): Promise<Uint32Array[]> {
    return this.writable().getAll(range);
  }

  delete(range: IDBKeyRange): Promise<unknown> {
    // only whole runs are deleted (a merge), and a merged run is never read again: its index entry is gone
    return this.writable().delete(range);
  }
}

/** What PageRows needs of meta, in the caller's transaction: to read, and to write. */
export interface PageRowsMeta {
  get(key: 'nextId' | 'runs' | 'runsStamp'): Promise<unknown>;
}
/** What PageRows needs of the `blocks` store (idb's has it, readonly or not). */
export type PageBlocks = (BlockReader | BlockStore) & { getAllKeys(range: IDBKeyRange | null, count?: number): Promise<number[]> };
export interface PageRowsMetaWriter {
  get(key: 'runs' | 'runsStamp' | 'nextId'): Promise<unknown>;
  put(value: RunIndex | number, key: 'runs' | 'runsStamp' | 'nextId'): Promise<unknown>;
}

/** meta `nextId`: the id the next new page gets (0 in a new store). */
export function readNextId(value: unknown): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new RangeError(`Doppel's next page id is unreadable: ${JSON.stringify(value)}.`);
  return value as number;
}

/**
 * The pages of one transaction (see the top of the file). Reads work in any transaction over
 * `blocks`, `runs` and `meta`; writes need a readwrite one, and flush() before it ends.
 */
export class PageRows {
  private readonly cache: BlockCache;
  private readonly runs: ChunkMemo;
  /** Each page changed so far, as it was before the transaction's first change to it. */
  private readonly before = new Map<number, Promise<PageRecord | undefined>>();
  /** The ids written so far under each value of each field: where() joins them to the tree's candidates. */
  private readonly written = new Map<PageField, Map<string, Set<number>>>();
  private nextIdRead: number;

  private constructor(
    private readonly blocks: PageBlocks,
    runs: RunReader | RunStore,
    private index: RunIndex,
    private nextId: number,
  ) {
    // the blocks no page can be in yet are not read (lib/index/slots.ts absentFrom); a store that
    // has given out no id is read as ever (nextId 0 is also what a lost meta reads as)
    this.cache = new BlockCache(absentFrom(blocks, nextId > 0 ? Math.ceil(nextId / BLOCK_PAGES) : Infinity));
    this.runs = new ChunkMemo(runs);
    this.nextIdRead = nextId;
  }

  /** The pages over the transaction's stores: with `index`, or the run index meta holds (read beside meta `nextId`). */
  static async open(blocks: PageBlocks, runs: RunReader | RunStore, meta: PageRowsMeta, index?: RunIndex): Promise<PageRows> {
    const [runIndex, nextId] = await Promise.all([index ?? readRunIndex(meta), meta.get('nextId')]);
    return new PageRows(blocks, runs, runIndex, readNextId(nextId));
  }

  /** The run index as this transaction's writes left it (the tables' lookups read through it). */
  get runIndex(): RunIndex {
    return this.index;
  }

  /** The runs store, read through this transaction's memo. */
  get runStore(): RunStore {
    return this.runs;
  }

  /**
   * In a readonly transaction, once the pages wanted are read: lets the blocks read go at once
   * (BlockCache.releaseRead). Pages read stay; summaries read do not.
   */
  releaseRead(): Promise<void> {
    return this.cache.releaseRead();
  }

  /** The page stored as `id`, as this transaction has left it. */
  get(id: number): Promise<PageRecord | undefined> {
    return id >= 0 && Number.isSafeInteger(id) ? this.cache.get(id) : Promise.resolve(undefined);
  }

  /** The pages whose `field` is `value`, in id order (at most `limit`). */
  async where(field: PageField, value: string, limit = Infinity): Promise<PageRecord[]> {
    const pages = await Promise.all((await this.idsWhere(field, value)).map((id) => this.cache.get(id)));
    const out: PageRecord[] = [];
    for (const page of pages) {
      if (page !== undefined && fieldValue(page, field) === value) out.push(page);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * The ids of the pages whose `field` may be `value`, in order: the tree's entries under its key
   * (a key can be shared) and this transaction's writes. where() reads and checks their records.
   */
  async idsWhere(field: PageField, value: string): Promise<number[]> {
    const entries = await lookup(this.runs, this.index, FIELD_TREES[field], textKey(value));
    const ids = new Set(entries.map((entry) => entry[1]!));
    for (const id of this.written.get(field)?.get(value) ?? []) ids.add(id);
    return [...ids].sort((a, b) => a - b);
  }

  /** Calls `early` with the id of the one page the url tree names for `url` (not if it names none or several): work that needs only the id starts before the record is read. */
  onUrlId(url: string, early: (id: number) => void): void {
    void this.idsWhere('url', url).then((ids) => ids.length === 1 && early(ids[0]!), () => undefined);
  }

  /** The page at `url`, or undefined. */
  async byUrl(url: string): Promise<PageRecord | undefined> {
    return (await this.where('url', url, 1))[0];
  }

  /**
   * The pages at `urls` (absent ones are not in the map). With a filter, a URL it says no page
   * has is not looked up; pages added since the filter was filled are added to it first.
   */
  async byUrls(urls: readonly string[], filter?: UrlFilter): Promise<Map<string, PageRecord>> {
    const unique = [...new Set(urls)];
    if (filter !== undefined) await this.catchUp(filter);
    const looked = filter === undefined ? unique : unique.filter((url) => filter.mayHold(textKey(url)));
    const found = await Promise.all(looked.map((url) => this.byUrl(url)));
    const out = new Map<string, PageRecord>();
    found.forEach((page) => page !== undefined && out.set(page.url, page));
    return out;
  }

  /** Adds to `filter` the URLs of the pages stored since it was filled (ids from its throughId on). */
  private async catchUp(filter: UrlFilter): Promise<void> {
    const from = filter.throughId;
    const to = this.nextIdRead;
    if (from >= to) return;
    const pages = await Promise.all(Array.from({ length: to - from }, (_, i) => this.cache.get(from + i)));
    for (const page of pages) if (page !== undefined) filter.add(textKey(page.url));
    filter.throughId = to;
  }

  /** A new page's id: the next one. */
  newId(): number {
    if (this.nextId >= MAX_PAGE_ID) throw new RangeError(`Doppel has given out all ${MAX_PAGE_ID} page ids`);
    return this.nextId++;
  }

  /** The first group of `pagesPerGroup` pages no page can be in yet, as this transaction began (Infinity if it had given out no id: read everything). */
  firstAbsentGroup(pagesPerGroup: number): number {
    return this.nextIdRead > 0 ? Math.ceil(this.nextIdRead / pagesPerGroup) : Infinity;
  }

  /** The id the next new page would get. */
  get peekNextId(): number {
    return this.nextId;
  }

  // put and delete ask the cache synchronously, so that the changes to one page land in the
  // order they were made, and the read of the page as it was comes before the first of them
  private remember(id: number): void {
    if (this.before.has(id)) return;
    this.before.set(id, handled(this.cache.get(id))); // read by flush, which an aborted transaction never reaches
  }

  /**
   * Stores `record` as its id (from byUrl, or newId for a new page), in place of what was there.
   * Throws at once (not through the promise) for an id not given out or a record that could not
   * be stored (checkStorable), so that nothing of it is changed.
   */
  put(record: PageRecord): Promise<void> {
    if (!Number.isSafeInteger(record.id) || record.id < 0 || record.id >= this.nextId) throw new RangeError(`page id ${record.id} was not given out`);
    checkStorable(record);
    this.remember(record.id);
    for (const field of FIELDS) {
      const value = fieldValue(record, field);
      if (value === undefined) continue;
      let byValue = this.written.get(field);
      if (byValue === undefined) this.written.set(field, (byValue = new Map()));
      let ids = byValue.get(value);
      if (ids === undefined) byValue.set(value, (ids = new Set()));
      ids.add(record.id);
    }
    return handled(this.cache.set(record));
  }

  /** Forgets the page stored as `id`; false if there was none. */
  delete(id: number): Promise<boolean> {
    if (!Number.isSafeInteger(id) || id < 0) return Promise.resolve(false);
    this.remember(id);
    return handled(this.cache.delete(id));
  }

  /**
   * Writes what this transaction changed: the blocks, every tree's entries of the pages changed
   * (old ones purged, new ones added; the tables of the designs `designsOf` gives), meta `nextId`
   * and the run index. Call once, after the last change, before the transaction ends.
   */
  async flush(meta: PageRowsMetaWriter, designsOf: (id: number) => readonly DesignMeta[]): Promise<void> {
    if (this.before.size === 0 && this.nextId === this.nextIdRead) return;
    const gone = new Map<number, number[]>();
    const added = new Map<number, number[]>();
    const tables: TableChange[] = [];
    for (const [id, read] of this.before) {
      const [before, after] = await Promise.all([read, this.cache.get(id)]);
      if (before === undefined && after === undefined) continue;
      const old = before === undefined ? new Map<number, number[]>() : entriesOf(before);
      const next = after === undefined ? new Map<number, number[]>() : entriesOf(after);
      for (const tree of new Set([...old.keys(), ...next.keys()])) {
        const a = old.get(tree);
        const b = next.get(tree);
        if (a !== undefined && b !== undefined && a.every((word, w) => word === b[w])) continue;
        if (a !== undefined) push(gone, tree, a);
        if (b !== undefined) push(added, tree, b);
      }
      if (before?.simhash !== after?.simhash) tables.push(tableChange(id, before, after));
    }
    await this.cache.flush();
    let index = this.index;
    for (const spec of Object.values(FIELD_TREES)) {
      const out = gone.get(spec.tree);
      if (out !== undefined) await purgeEntries(this.runs, index, spec, Uint32Array.from(out));
      const entries = added.get(spec.tree);
      if (entries === undefined) continue;
      index = await appendRun(this.runs, index, spec, Uint32Array.from(entries), levelForEntries(entries.length / spec.stride));
      index = await mergeDue(this.runs, index, spec);
    }
    index = await applyTableChanges(this.runs, index, designsOf, tables);
    const writes: Promise<unknown>[] = [writeRunIndex(meta, index)];
    if (this.nextId !== this.nextIdRead) writes.push(meta.put(this.nextId, 'nextId'));
    await Promise.all(writes);
    this.index = index;
    this.before.clear();
    this.written.clear();
    this.nextIdRead = this.nextId;
  }

  /** Up to `limit` pages by lastSeen, oldest first, strictly after the entry `after` (lastSeenEntry) if given. */
  async oldestFirst(limit: number, after?: readonly number[]): Promise<PageRecord[]> {
    return this.byLastSeen(await readAscending(this.runs, this.index, FIELD_TREES.lastSeen, { after, limit }));
  }

  /**
   * Up to `limit` pages by lastSeen, newest first, strictly before the entry `before`
   * (lastSeenEntry) if given, and the entry to go on before: null once the tree has no more.
   */
  async newestFirst(limit: number, before?: readonly number[]): Promise<{ pages: PageRecord[]; next: number[] | null }> {
    const entries = await readDescending(this.runs, this.index, FIELD_TREES.lastSeen, { before, limit });
    return { pages: await this.byLastSeen(entries), next: entries.length < limit ? null : [...entries[entries.length - 1]!] };
  }

  private async byLastSeen(entries: readonly Uint32Array[]): Promise<PageRecord[]> {
    // read only: a transaction that wrote has its tree entries in flush()
    const pages = await Promise.all(entries.map((entry) => this.cache.get(entry[2]!)));
    return pages.filter((page): page is PageRecord => page !== undefined);
  }

  /** How many pages have `field` = `value` (the tree's candidates, checked against the records). */
  async countWhere(field: PageField, value: string): Promise<number> {
    return (await this.where(field, value)).length;
  }

  /** Whether a page has `group` now. */
  async hasGroup(group: string): Promise<boolean> {
    return (await this.where('group', group, 1)).length > 0;
  }

  /** Whether a page had `group` before this transaction's first change to it (the trees are not flushed yet). */
  async hadGroup(group: string): Promise<boolean> {
    const entries = await lookup(this.runs, this.index, FIELD_TREES.group, textKey(group));
    const pages = await Promise.all(entries.map((entry) => this.before.get(entry[1]!) ?? this.cache.get(entry[1]!)));
    return pages.some((page) => page?.group === group);
  }

  /** The ids of a tree's entries (the id is an entry's last word), and of every page changed so far. */
  private async idsOfTree(spec: RunTree): Promise<Set<number>> {
    const ids = new Set<number>(this.before.keys());
    for (const chunk of await this.runs.getAll(treeRange(spec.tree))) for (let e = spec.stride - 1; e < chunk.length; e += spec.stride) ids.add(chunk[e]!);
    return ids;
  }

  /** How many pages there are: a walk over the url tree (meta `pageCount` is kept: this is for a lost one). */
  async countAll(): Promise<number> {
    const pages = await Promise.all([...(await this.idsOfTree(FIELD_TREES.url))].map((id) => this.cache.get(id)));
    return pages.filter((page) => page !== undefined).length;
  }

  /** The group counts walked from the group tree: pages in a group, and distinct groups. */
  async countGroups(): Promise<{ grouped: number; groups: number }> {
    const groups = new Set<string>();
    let grouped = 0;
    for (const page of await Promise.all([...(await this.idsOfTree(FIELD_TREES.group))].map((id) => this.cache.get(id)))) {
      if (page?.group === undefined) continue;
      grouped++;
      groups.add(page.group);
    }
    return { grouped, groups: groups.size };
  }

  /** Up to `limit` pages with an id past `after` (from the first if undefined), in id order: reading every page a chunk at a time. */
  async pagesAfter(after: number | undefined, limit: number): Promise<PageRecord[]> {
    return this.slotsAfter(after, limit, (id) => this.cache.get(id));
  }

  /** As pagesAfter, each page's fingerprints and marks only (lib/rows/blocks.ts SlotSummary): no block's text is inflated for them. */
  async summariesAfter(after: number | undefined, limit: number): Promise<(SlotSummary & { id: number })[]> {
    return this.slotsAfter(after, limit, async (id) => {
      const summary = await this.cache.summary(id);
      return summary === undefined ? undefined : { id, ...summary };
    });
  }

  private async slotsAfter<T extends { id: number }>(after: number | undefined, limit: number, read: (id: number) => Promise<T | undefined>): Promise<T[]> {
    const first = after === undefined ? 0 : after + 1;
    const out: T[] = [];
    let block = blockOf(first).block;
    while (out.length < limit) {
      const keys = await this.blocks.getAllKeys(IDBKeyRange.lowerBound(block), Math.ceil((limit - out.length) / BLOCK_PAGES) + 1);
      if (keys.length === 0) break;
      const pages = await Promise.all(keys.flatMap((b) => Array.from({ length: BLOCK_PAGES }, (_, slot) => read(b * BLOCK_PAGES + slot))));
      for (const page of pages) if (page !== undefined && page.id >= first && out.length < limit) out.push(page);
      block = keys[keys.length - 1]! + 1;
    }
    return out;
  }
}

/**
 * `promise`, marked as handled: a caller that stops before awaiting it (an error thrown in its
 * loop, which aborts the transaction) must not leave an unhandled rejection behind. A caller that
 * awaits it still gets its rejection.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Every chunk key of one tree. */
export function treeRange(tree: number): IDBKeyRange {
  return IDBKeyRange.bound([tree], [tree, Infinity]);
}

function push(map: Map<number, number[]>, tree: number, entry: readonly number[]): void {
  const list = map.get(tree);
  if (list === undefined) map.set(tree, [...entry]);
  else list.push(...entry);
}
