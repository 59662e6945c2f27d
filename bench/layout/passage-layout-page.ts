// The page side of bench/layout/passage-layout.ts, bundled by esbuild and run in Chromium: writes
// seeded synthetic pages into one IndexedDB layout of the passage index (with the store as it
// ships beside it, in the same transactions), and times lookups of stored pages' fingerprints.
// bench/layout/passage-layout.ts's header says what each layout is.
// The pages are drawn by passage-layout-synthetic.ts; the layouts' names and per-page records are
// in passage-layout-records.ts, the packed tree in passage-layout-packed.ts (its chunks' codec in
// passage-layout-codec.ts): esbuild bundles them into the page with this file.
import { type IDBPDatabase, type IDBPTransaction, openDB } from 'idb';
import { mulberry32 } from '../../lib/random';
import { BLOCK_PAGES, decodeBlock, encodeBlock } from '../../lib/rows/blocks';
import { FIELD_TREES, lastSeenEntry, textKey } from '../../lib/rows/page-rows';
import { EMPTY_RUN_INDEX, type RunStore, type RunTree, appendRun, chunkFor, mergeAll, mergeDue, parseRunIndex, sortEntries } from '../../lib/index/runs';
import type { PageRecord, RunInfo } from '../../lib/store/schema';
import { addToTables, levelForEntries, tablePagesOf, tableTree } from '../../lib/index/table-runs';
import { designFor, tablesOf } from '../../lib/index/design';
import { decodePostings } from './passage-layout-codec';
import { PASSAGE_TREE, type Tx, type WriteTx, cpu, mergePacked, mergePackedDue, readPackedIndex, timed, writePackedIndex, writePackedRun } from './passage-layout-packed';
import { type Layout, type PassagePageRecord, decodePassagePages, encodePassagePages } from './passage-layout-records';
import { FINGERPRINTS, type PageFingerprints, pageFingerprints, pageRecord } from './passage-layout-synthetic';

export { LAYOUTS, type Layout } from './passage-layout-records';

const STORES = ['blocks', 'runs', 'meta', 'passagePages', 'passageFirsts'] as const;

export interface WriteOptions {
  layout: Layout;
  pages: number;
  batch: number;
  /** Postings a chunk: raw (Uint32Array, 8 B an entry) and packed (delta + varint). */
  rawChunk: number;
  packedChunk: number;
}

export interface WriteResult {
  /** Milliseconds for the batches, and for the final merge after them. */
  batchesMs: number;
  finalMergeMs: number;
  usageBefore: number;
  /** storage.estimate().usage after the batches, and after the final merge. */
  usageBatches: number;
  usageEnd: number;
  /** The largest value of `meta`, and of `passageFirsts`, in bytes (JSON for objects, byteLength for typed arrays). */
  largestMeta: { key: string; bytes: number };
  largestFirsts: number;
  /** Runs and chunks of the passage tree at the end. */
  passageRuns: number;
  passageChunks: number;
  /** Postings (entries of the passage tree) and the bytes of their chunks as stored values. */
  postings: number;
  postingBytes: number;
  /** Bytes of the per-page fingerprint records (their values' byteLengths). */
  pageRecordBytes: number;
  planted: number;
  /** packed, packed-pos: milliseconds of the writes spent sorting, merging and coding the postings in JS (raw's happen inside lib/index/runs.ts). */
  cpu: { sort: number; merge: number; code: number };
}

export interface QueryResult {
  times: number[];
  /** Of each query, the time to read the run index (meta `runs` or the passage runs' records). */
  indexTimes: number[];
  candidates: number[];
  /** Planted pairs among the queries, and how many of them the lookup found with every shared hash. */
  plantedQueried: number;
  plantedFound: number;
  /** packed-prefix: queries whose page's postings did not give back all its hashes (a check of the layout: 0). */
  ownHashesMissing: number;
}

// ---- writing ----------------------------------------------------------------------------------

const isRaw = (layout: Layout): boolean => layout === 'raw';
const strideOf = (layout: Layout): number => (layout === 'packed-pos' ? 3 : 2);

function passageSpec(o: WriteOptions): RunTree {
  return { tree: PASSAGE_TREE, stride: strideOf(o.layout), chunkEntries: isRaw(o.layout) ? o.rawChunk : o.packedChunk };
}

let planted: { page: number; source: number; shared: number }[] = [];

async function openLayout(layout: Layout): Promise<IDBPDatabase> {
  return openDB(layout, 1, {
    upgrade(db) {
      for (const name of STORES) db.createObjectStore(name);
    },
  });
}

/** Keeps a block record whose first slots an earlier batch wrote: read it back, as an import would. */
async function blockStart<T>(tx: WriteTx, store: string, from: number, decode: (value: unknown) => T[]): Promise<T[]> {
  if (from % BLOCK_PAGES === 0) return [];
  const value = await tx.objectStore(store).get(Math.floor(from / BLOCK_PAGES));
  return value === undefined ? [] : decode(value);
}

async function usage(): Promise<number> {
  return (await navigator.storage.estimate()).usage ?? 0;
}

export async function write(o: WriteOptions): Promise<WriteResult> {
  const usageBefore = await usage();
  const db = await openLayout(o.layout);
  const design = designFor(o.pages);
  const tableCount = tablesOf(design).tables.length;
  const spec = passageSpec(o);
  const withPassages = o.layout !== 'baseline';
  planted = [];
  Object.assign(cpu, { sort: 0, merge: 0, code: 0 });
  const started = performance.now();
  for (let from = 0; from < o.pages; from += o.batch) {
    const to = Math.min(o.pages, from + o.batch);
    const records: PageRecord[] = [];
    const fingerprints: PageFingerprints[] = [];
    for (let i = from; i < to; i++) {
      records.push(pageRecord(i));
      if (!withPassages) continue;
      const f = pageFingerprints(i);
      fingerprints.push(f);
      if (f.source) planted.push({ page: i, source: f.source.page, shared: f.source.shared });
    }
    const tx = db.transaction([...STORES], 'readwrite') as unknown as WriteTx;
    const meta = tx.objectStore('meta');
    const runs = tx.objectStore('runs') as unknown as RunStore;
    // the store as it ships: blocks, the table trees, the url, site and lastSeen trees, meta
    const blockPages = [...(await blockStart(tx, 'blocks', from, (v) => decodeBlock(Math.floor(from / BLOCK_PAGES), v))), ...records];
    const firstBlock = Math.floor(from / BLOCK_PAGES);
    for (let at = 0; at < blockPages.length; at += BLOCK_PAGES) void tx.objectStore('blocks').put(encodeBlock(firstBlock + at / BLOCK_PAGES, blockPages.slice(at, at + BLOCK_PAGES)), firstBlock + at / BLOCK_PAGES);
    let index = parseRunIndex((await meta.get('runs')) ?? EMPTY_RUN_INDEX);
    index = await addToTables(runs, index, design, tablePagesOf(records));
    const fields: [RunTree, number[]][] = [
      [FIELD_TREES.url, records.flatMap((r) => [textKey(r.url), r.id])],
      [FIELD_TREES.site, records.flatMap((r) => [textKey(r.site), r.id])],
      [FIELD_TREES.lastSeen, records.flatMap((r) => lastSeenEntry(r.lastSeen, r.id))],
    ];
    for (const [tree, entries] of fields) {
      index = await appendRun(runs, index, tree, Uint32Array.from(entries), levelForEntries(entries.length / tree.stride));
      index = await mergeDue(runs, index, tree);
    }
    if (withPassages) {
      // the per-page fingerprints, 64 pages a record, beside the blocks
      const passagePages = [...(await blockStart(tx, 'passagePages', from, (v) => decodePassagePages(v as PassagePageRecord))), ...fingerprints];
      for (let at = 0; at < passagePages.length; at += BLOCK_PAGES) void tx.objectStore('passagePages').put(encodePassagePages(passagePages.slice(at, at + BLOCK_PAGES), o.layout), firstBlock + at / BLOCK_PAGES);
      // the postings
      const entries = new Uint32Array(fingerprints.length * FINGERPRINTS * spec.stride);
      let e = 0;
      fingerprints.forEach((f, n) => {
        for (let h = 0; h < f.hashes.length; h++) {
          entries[e++] = f.hashes[h]!;
          entries[e++] = from + n;
          if (spec.stride === 3) entries[e++] = f.positions[h]!;
        }
      });
      const level = levelForEntries(entries.length / spec.stride);
      if (isRaw(o.layout)) {
        index = await appendRun(runs, index, spec, entries, level);
        index = await mergeDue(runs, index, spec);
      } else {
        const before = await readPackedIndex(tx);
        let packed = await writePackedRun(tx, before, spec, level, timed('sort', () => sortEntries(entries, spec.stride)));
        packed = await mergePackedDue(tx, packed, spec);
        await writePackedIndex(tx, before, packed);
      }
    }
    await Promise.all([meta.put(index, 'runs'), meta.put(Math.floor(Math.random() * 2 ** 52), 'runsStamp'), meta.put(to, 'pageCount'), meta.put(to, 'nextId')]);
    await tx.done;
    if (to % Math.max(o.batch, Math.floor(o.pages / 10)) < o.batch) console.log(`${o.layout}: ${to} pages, ${Math.round(to / ((performance.now() - started) / 1000))} pages/s so far`);
  }
  const batchesMs = performance.now() - started;
  const usageBatches = await usage();
  // the final merge of every tree, a transaction a tree, as the import's organise step (PageStore.compactTables)
  const mergeStarted = performance.now();
  const trees: RunTree[] = [...Array.from({ length: tableCount }, (_, t) => tableTree(design, t)), FIELD_TREES.url, FIELD_TREES.site, FIELD_TREES.lastSeen];
  if (isRaw(o.layout)) trees.push(spec);
  for (const tree of trees) {
    const tx = db.transaction(['meta', 'runs'], 'readwrite') as unknown as WriteTx;
    const meta = tx.objectStore('meta');
    const index = parseRunIndex(await meta.get('runs'));
    await meta.put(await mergeAll(tx.objectStore('runs') as unknown as RunStore, index, tree), 'runs');
    await tx.done;
  }
  if (withPassages && !isRaw(o.layout)) {
    const tx = db.transaction(['meta', 'runs', 'passageFirsts'], 'readwrite') as unknown as WriteTx;
    const before = await readPackedIndex(tx);
    const old = before.runs;
    if (old.length > 1) await writePackedIndex(tx, before, await mergePacked(tx, before, spec, old, Math.max(...old.map((r) => r.level))));
    await tx.done;
  }
  const finalMergeMs = performance.now() - mergeStarted;
  const usageEnd = await usage();
  // what the layout holds, value by value
  const tx = db.transaction([...STORES], 'readonly');
  let largestMeta = { key: '', bytes: 0 };
  for (const key of await tx.objectStore('meta').getAllKeys()) {
    const bytes = JSON.stringify(await tx.objectStore('meta').get(key)).length;
    if (bytes > largestMeta.bytes) largestMeta = { key: String(key), bytes };
  }
  let largestFirsts = 0;
  for (const firsts of (await tx.objectStore('passageFirsts').getAll()) as Uint32Array[]) largestFirsts = Math.max(largestFirsts, firsts.byteLength);
  let passageRuns = 0;
  let passageChunks = 0;
  let postings = 0;
  let postingBytes = 0;
  if (withPassages) {
    const index = isRaw(o.layout) ? parseRunIndex(await tx.objectStore('meta').get('runs')) : await readPackedIndex(tx as unknown as Tx);
    for (const r of index.runs) {
      if (r.tree !== PASSAGE_TREE) continue;
      passageRuns++;
      passageChunks += r.firsts.length;
      postings += r.entries;
    }
    postingBytes = await valueBytes(tx, 'runs', [PASSAGE_TREE], [PASSAGE_TREE, Infinity], (v) => (v as ArrayBufferView).byteLength);
  }
  const pageRecordBytes = await valueBytes(tx, 'passagePages', 0, Infinity, (v) => (v as PassagePageRecord).reduce((n, part) => n + (part?.byteLength ?? 0), 0));
  db.close();
  return { batchesMs, finalMergeMs, usageBefore, usageBatches, usageEnd, largestMeta, largestFirsts, passageRuns, passageChunks, postings, postingBytes, pageRecordBytes, planted: planted.length, cpu: { ...cpu } };
}

/** The sum of size(value) over a key range of a store, read 2,000 values at a time (all at once would be the whole tree in memory). */
async function valueBytes(tx: IDBPTransaction<unknown, string[], 'readonly'>, store: string, lower: IDBValidKey, upper: IDBValidKey, size: (value: unknown) => number): Promise<number> {
  let bytes = 0;
  let range = IDBKeyRange.bound(lower, upper);
  for (;;) {
    const [keys, values] = await Promise.all([tx.objectStore(store).getAllKeys(range, 2000), tx.objectStore(store).getAll(range, 2000)]);
    for (const value of values) bytes += size(value);
    if (keys.length < 2000) return bytes;
    range = IDBKeyRange.bound(keys[keys.length - 1]!, upper, true);
  }
}

// ---- querying ---------------------------------------------------------------------------------

/**
 * For `queries` stored pages (every other one a page planted with a shared run, the rest uniform),
 * each in a readonly transaction of its own: reads the page's fingerprints, the passage tree's run
 * index (not cached: as a worker that has just started), then the one chunk a run that can hold
 * each hash, and counts the hashes each other page shares. Returns each query's time.
 */
export async function query(o: WriteOptions & { queries: number }): Promise<QueryResult> {
  const db = await openLayout(o.layout);
  const spec = passageSpec(o);
  const random = mulberry32(2026);
  // the planted pages, found again from the seeds (the page may have been reloaded since the writes)
  if (planted.length === 0) {
    for (let i = 0; i < o.pages; i++) {
      const f = pageFingerprints(i);
      if (f.source) planted.push({ page: i, source: f.source.page, shared: f.source.shared });
    }
  }
  const result: QueryResult = { times: [], indexTimes: [], candidates: [], plantedQueried: 0, plantedFound: 0, ownHashesMissing: 0 };
  for (let q = 0; q < o.queries; q++) {
    const plant = q % 2 === 0 && planted.length > 0 ? planted[Math.floor(random() * planted.length)]! : undefined;
    const id = plant ? plant.page : Math.floor(random() * o.pages);
    const started = performance.now();
    const tx = db.transaction([...STORES], 'readonly') as unknown as Tx;
    const [record, index] = await Promise.all([
      tx.objectStore('passagePages').get(Math.floor(id / BLOCK_PAGES)) as Promise<PassagePageRecord>,
      isRaw(o.layout) ? tx.objectStore('meta').get('runs').then(parseRunIndex) : readPackedIndex(tx),
    ]);
    const indexRead = performance.now();
    const { hashes } = decodePassagePages(record)[id % BLOCK_PAGES]!;
    const prefixed = o.layout === 'packed-prefix';
    const runs = index.runs.filter((r) => r.tree === PASSAGE_TREE);
    // the chunks to read: one a run for each hash (packed-prefix: those that can hold a hash of the prefix), each read once
    const wanted = new Map<string, { run: RunInfo; chunk: number }>();
    for (const r of runs) {
      for (const h of hashes) {
        const last = chunkFor(r.firsts, prefixed ? h + 0xffff : h);
        for (let chunk = prefixed ? Math.max(0, chunkFor(r.firsts, h)) : last; chunk >= 0 && chunk <= last; chunk++) wanted.set(`${r.run}:${chunk}`, { run: r, chunk });
      }
    }
    const chunks = await Promise.all(
      [...wanted.values()].map(async ({ run, chunk }) => {
        const value = await tx.objectStore('runs').get([PASSAGE_TREE, run.level, run.run, chunk]);
        return isRaw(o.layout) ? (value as Uint32Array) : decodePostings(value as Uint8Array, spec.stride, run.firsts[chunk]!);
      }),
    );
    // packed-prefix: the page's own postings give its whole hashes
    let hashSet = new Set(hashes);
    if (prefixed) {
      const prefixes = new Set(Array.from(hashes, (h) => h >>> 16));
      hashSet = new Set();
      for (const words of chunks) for (let e = 0; e < words.length; e += spec.stride) if (words[e + 1] === id && prefixes.has(words[e]! >>> 16)) hashSet.add(words[e]!);
      if (hashSet.size !== hashes.length) result.ownHashesMissing++;
    }
    const shared = new Map<number, number>();
    for (const words of chunks) {
      for (let e = 0; e < words.length; e += spec.stride) {
        const other = words[e + 1]!;
        if (other !== id && hashSet.has(words[e]!)) shared.set(other, (shared.get(other) ?? 0) + 1);
      }
    }
    const ended = performance.now();
    result.times.push(ended - started);
    result.indexTimes.push(indexRead - started);
    result.candidates.push(shared.size);
    if (plant) {
      result.plantedQueried++;
      if ((shared.get(plant.source) ?? 0) >= plant.shared) result.plantedFound++;
    }
  }
  db.close();
  return result;
}

/** Opens the layout's database (after a restart, so that LevelDB opens it) and returns the origin's usage. */
export async function reopen(layout: Layout): Promise<number> {
  const db = await openLayout(layout);
  db.close();
  return usage();
}

export { usage };
