// The page side of bench/layout/passage-layout.ts, bundled by esbuild and run in Chromium: writes
// seeded synthetic pages into one IndexedDB layout of the passage index (with the store as it
// ships beside it, in the same transactions), and times lookups of stored pages' fingerprints.
// bench/layout/passage-layout.ts's header says what each layout is.
import { type IDBPDatabase, type IDBPTransaction, openDB } from 'idb';
import { mulberry32 } from '../../lib/random';
import { BLOCK_PAGES, decodeBlock, encodeBlock } from '../../lib/rows/blocks';
import { FIELD_TREES, lastSeenEntry, textKey } from '../../lib/rows/page-rows';
import { EMPTY_RUN_INDEX, type RunStore, type RunTree, appendRun, chunkFor, levelRuns, levelToMerge, mergeAll, mergeDue, mergeRuns, parseRunIndex, sortEntries, splitChunks } from '../../lib/index/runs';
import type { PageRecord, RunIndex, RunInfo } from '../../lib/store/schema';
import { addToTables, levelForEntries, tablePagesOf, tableTree } from '../../lib/index/table-runs';
import { designFor, tablesOf } from '../../lib/index/design';

export const LAYOUTS = ['baseline', 'raw', 'packed', 'packed-pos', 'packed-prefix'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** Fingerprints a page: 7.3 per 100 words of a 700-word article. */
export const FINGERPRINTS = 52;
/** The passage tree's number in the runs store: past every table tree and field tree. */
const PASSAGE_TREE = 2 ** 21;
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

// ---- synthetic pages -------------------------------------------------------------------------

const WORDS = 'harbour river council budget school vote winter summer market price energy grid train ferry bridge museum library garden forest coast island storm flood drought harvest farmer bakery festival concert election minister court judge'.split(' ');

/** Page i's record, as the import would store it (seeded by i alone). */
function pageRecord(i: number): PageRecord {
  const random = mulberry32(0x5eed0000 ^ i);
  const word = (): string => WORDS[Math.floor(random() * WORDS.length)]!;
  const hex = (): string => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0') + Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  const site = `www.${word()}-${word()}${Math.floor(random() * 3000)}.com`;
  let slug = '';
  while (slug.length < 30 + random() * 30) slug += `${word()}-`;
  const url = `https://${site}/${word()}/2025/${String(1 + Math.floor(random() * 12)).padStart(2, '0')}/${slug}${i.toString(36)}`;
  let title = '';
  while (title.length < 40 + random() * 40) title += `${word()} `;
  const lastSeen = 1.7e12 + Math.floor(random() * 6e10);
  return { id: i, url, title: title.trim(), site, simhash: hex(), check: hex(), firstSeen: lastSeen, lastSeen, visits: 1 };
}

export interface PageFingerprints {
  hashes: Uint32Array;
  /** Word position of each, increasing: gaps of 1 to 26 words (winnowing's w), about 700 words in all. */
  positions: Uint16Array;
  /** The earlier page it shares a run of fingerprints with (1% of pages), and how many; else undefined. */
  source?: { page: number; shared: number };
}

/** Page i's passage fingerprints: 52 uniform random hashes, 1% of pages sharing a run of 10–30 with an earlier page. */
export function pageFingerprints(i: number): PageFingerprints {
  const random = mulberry32(0xf1a9e000 ^ Math.imul(i, 0x9e3779b1));
  const hashes = new Uint32Array(FINGERPRINTS);
  const positions = new Uint16Array(FINGERPRINTS);
  let at = Math.floor(random() * 13);
  for (let f = 0; f < FINGERPRINTS; f++) {
    hashes[f] = Math.floor(random() * 2 ** 32);
    positions[f] = at;
    at += 1 + Math.floor(random() * 26);
  }
  if (i > 0 && random() < 0.01) {
    const page = Math.floor(random() * i);
    const shared = 10 + Math.floor(random() * 21);
    const from = pageFingerprints(page).hashes;
    const src = Math.floor(random() * (FINGERPRINTS - shared + 1));
    const dst = Math.floor(random() * (FINGERPRINTS - shared + 1));
    hashes.set(from.subarray(src, src + shared), dst);
    return { hashes, positions, source: { page, shared } };
  }
  return { hashes, positions };
}

/** packed, packed-pos: the JS time of the postings' sorts, merges and codec during write(). */
const cpu = { sort: 0, merge: 0, code: 0 };
function timed<T>(what: keyof typeof cpu, f: () => T): T {
  const started = performance.now();
  try {
    return f();
  } finally {
    cpu[what] += performance.now() - started;
  }
}

// ---- the packed codec: delta + varint ---------------------------------------------------------

class ByteWriter {
  bytes = new Uint8Array(1024);
  length = 0;
  varint(n: number): void {
    if (this.length + 5 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    while (n >= 0x80) {
      this.bytes[this.length++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.bytes[this.length++] = n;
  }
  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/**
 * A chunk of sorted entries [hash, id(, position)] as bytes: the count, then per entry the hash's
 * difference from the one before (the first from the chunk's first key, so 0), the id, and the
 * position, each an unsigned LEB128 varint.
 */
export function encodePostings(entries: Uint32Array, stride: number): Uint8Array {
  const out = new ByteWriter();
  const n = entries.length / stride;
  out.varint(n);
  let prev = entries[0] ?? 0;
  for (let e = 0; e < entries.length; e += stride) {
    out.varint(entries[e]! - prev);
    prev = entries[e]!;
    for (let w = 1; w < stride; w++) out.varint(entries[e + w]!);
  }
  return out.done();
}

export function decodePostings(bytes: Uint8Array, stride: number, firstKey: number): Uint32Array {
  let at = 0;
  // the varints inline, without a closure: this loop is most of a packed lookup's time
  let n = 0;
  for (let shift = 0; ; shift += 7) {
    const b = bytes[at++]!;
    n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  const out = new Uint32Array(n * stride);
  let hash = firstKey;
  for (let w = 0; w < out.length; w++) {
    let value = 0;
    let b = bytes[at++]!;
    value = b & 0x7f;
    if (b >= 0x80) {
      b = bytes[at++]!;
      value |= (b & 0x7f) << 7;
      if (b >= 0x80) {
        b = bytes[at++]!;
        value |= (b & 0x7f) << 14;
        if (b >= 0x80) {
          b = bytes[at++]!;
          value |= (b & 0x7f) << 21;
          if (b >= 0x80) value = (value >>> 0) + bytes[at++]! * 2 ** 28;
        }
      }
    }
    if (w % stride === 0) {
      hash += value >>> 0;
      out[w] = hash;
    } else out[w] = value;
  }
  return out;
}

// ---- the per-page fingerprint records, 64 pages a record beside the blocks ---------------------

/**
 * [hashes a slot (0: no page), hashes, positions]:
 * - raw, packed: the hashes as u32, the positions as u16;
 * - packed-pos: the hashes as u32 only;
 * - packed-prefix: the high 16 bits of each hash as u16 (enough to find the chunks that hold the
 *   page's postings, whose ids then say which are its own), and each position's gap from the one
 *   before (the first from 0) as u8: winnowing keeps one k-gram in every w = 26, so a gap is at most 26.
 */
type PassagePageRecord = [counts: Uint8Array, hashes: Uint32Array | Uint16Array, positions?: Uint16Array | Uint8Array];

function encodePassagePages(pages: readonly PageFingerprints[], layout: Layout): PassagePageRecord {
  const counts = Uint8Array.from(pages, (p) => p.hashes.length);
  const total = pages.reduce((n, p) => n + p.hashes.length, 0);
  if (layout === 'packed-prefix') {
    const prefixes = new Uint16Array(total);
    const gaps = new Uint8Array(total);
    let at = 0;
    for (const p of pages) {
      let previous = 0;
      for (let f = 0; f < p.hashes.length; f++, at++) {
        prefixes[at] = p.hashes[f]! >>> 16;
        const gap = p.positions[f]! - previous;
        if (gap < 0 || gap > 255) throw new RangeError(`a position gap of ${gap} words does not fit a byte`);
        gaps[at] = gap;
        previous = p.positions[f]!;
      }
    }
    return [counts, prefixes, gaps];
  }
  const hashes = new Uint32Array(total);
  const positions = new Uint16Array(total);
  let at = 0;
  for (const p of pages) {
    hashes.set(p.hashes, at);
    positions.set(p.positions, at);
    at += p.hashes.length;
  }
  return layout === 'packed-pos' ? [counts, hashes] : [counts, hashes, positions];
}

/** The pages of a record; packed-prefix's hashes come back as their prefix << 16 (what encodePassagePages keeps of them). */
function decodePassagePages(value: PassagePageRecord): PageFingerprints[] {
  const [counts, stored, positions] = value;
  const prefixed = stored instanceof Uint16Array;
  const pages: PageFingerprints[] = [];
  let at = 0;
  for (const n of counts) {
    const hashes = prefixed ? Uint32Array.from(stored.subarray(at, at + n), (p) => p * 65536) : (stored as Uint32Array).subarray(at, at + n);
    let pos: Uint16Array;
    if (positions instanceof Uint8Array) {
      pos = new Uint16Array(n);
      let sum = 0;
      for (let f = 0; f < n; f++) pos[f] = sum += positions[at + f]!;
    } else pos = positions?.subarray(at, at + n) ?? new Uint16Array(n);
    pages.push({ hashes, positions: pos });
    at += n;
  }
  return pages;
}

// ---- the packed passage tree: runs as in lib/index/runs.ts, chunks packed, first keys in a record a run -----

/** meta `passageRuns`: where the passage tree's runs are; each run's first keys are in `passageFirsts`, keyed by its run number. */
interface PackedRuns {
  nextRun: number;
  runs: { level: number; run: number; entries: number; chunks: number }[];
}

type Tx = IDBPTransaction<unknown, string[], 'readwrite' | 'readonly'>;
type WriteTx = IDBPTransaction<unknown, string[], 'readwrite'>;

/** The packed tree's runs as a RunIndex (firsts included), so that lib/index/runs.ts's level logic applies. */
async function readPackedIndex(tx: Tx): Promise<RunIndex> {
  const stored = (await tx.objectStore('meta').get('passageRuns')) as PackedRuns | undefined;
  if (stored === undefined) return EMPTY_RUN_INDEX;
  const firsts = await Promise.all(stored.runs.map((r) => tx.objectStore('passageFirsts').get(r.run) as Promise<Uint32Array>));
  return { nextRun: stored.nextRun, runs: stored.runs.map((r, n) => ({ tree: PASSAGE_TREE, level: r.level, run: r.run, entries: r.entries, firsts: Array.from(firsts[n]!) })) };
}

async function writePackedIndex(tx: WriteTx, before: RunIndex, after: RunIndex): Promise<void> {
  const kept = new Set(after.runs.map((r) => r.run));
  const old = new Set(before.runs.map((r) => r.run));
  const firsts = tx.objectStore('passageFirsts');
  const puts: Promise<unknown>[] = [];
  for (const r of before.runs) if (!kept.has(r.run)) puts.push(firsts.delete(r.run));
  for (const r of after.runs) if (!old.has(r.run)) puts.push(firsts.put(Uint32Array.from(r.firsts), r.run));
  const stored: PackedRuns = { nextRun: after.nextRun, runs: after.runs.map((r) => ({ level: r.level, run: r.run, entries: r.entries, chunks: r.firsts.length })) };
  puts.push(tx.objectStore('meta').put(stored, 'passageRuns'));
  await Promise.all(puts);
}

const runRange = (tree: number, level: number, run: number): IDBKeyRange => IDBKeyRange.bound([tree, level, run], [tree, level, run, Infinity]);

async function writePackedRun(tx: WriteTx, index: RunIndex, spec: RunTree, level: number, sorted: Uint32Array): Promise<RunIndex> {
  if (sorted.length === 0) return index;
  const run = index.nextRun;
  const { firsts, chunks } = splitChunks(sorted, spec);
  const store = tx.objectStore('runs');
  const encoded = timed('code', () => chunks.map((chunk) => encodePostings(chunk, spec.stride)));
  await Promise.all(encoded.map((bytes, c) => store.put(bytes, [spec.tree, level, run, c])));
  return { nextRun: run + 1, runs: [...index.runs, { tree: spec.tree, level, run, entries: sorted.length / spec.stride, firsts }] };
}

async function readPackedRun(tx: Tx, spec: RunTree, r: RunInfo): Promise<Uint32Array> {
  // 4,096 chunks a getAll: a run of a million pages' postings is 50,000 chunks, 230 MB
  const chunks: Uint8Array[] = [];
  for (let c = 0; c < r.firsts.length; c += 4096) {
    chunks.push(...((await tx.objectStore('runs').getAll(IDBKeyRange.bound([spec.tree, r.level, r.run, c], [spec.tree, r.level, r.run, c + 4095]))) as Uint8Array[]));
  }
  const decoded = timed('code', () => chunks.map((bytes, c) => decodePostings(bytes, spec.stride, r.firsts[c]!)));
  const all = new Uint32Array(decoded.reduce((n, d) => n + d.length, 0));
  let at = 0;
  for (const d of decoded) {
    all.set(d, at);
    at += d.length;
  }
  return all;
}

/** Merges runs into one of `level` (runs.ts's mergeDue and mergeAll, over packed chunks). */
async function mergePacked(tx: WriteTx, index: RunIndex, spec: RunTree, old: RunInfo[], level: number): Promise<RunIndex> {
  const runs = await Promise.all(old.map((r) => readPackedRun(tx, spec, r)));
  await Promise.all(old.map((r) => tx.objectStore('runs').delete(runRange(spec.tree, r.level, r.run))));
  const merged = new Set(old.map((r) => r.run));
  return writePackedRun(tx, { ...index, runs: index.runs.filter((r) => !merged.has(r.run)) }, spec, level, timed('merge', () => mergeRuns(runs, spec.stride)));
}

async function mergePackedDue(tx: WriteTx, index: RunIndex, spec: RunTree): Promise<RunIndex> {
  for (let level = levelToMerge(index, spec.tree); level >= 0; level = levelToMerge(index, spec.tree)) {
    index = await mergePacked(tx, index, spec, levelRuns(index, spec.tree, level), level + 1);
  }
  return index;
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
