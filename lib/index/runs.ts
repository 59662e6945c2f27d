// Sorted runs (an LSM tree) over a store of chunks keyed [tree, level, run, chunk], ranges being
// IDBKeyRange values (in the extension, one IndexedDB object store): the permuted-block tables
// (lib/index/table-runs.ts) and the page fields' trees (lib/rows/page-rows.ts) are kept so. Of
// the layouts bench:layout compares, it is the one near the write and size targets.
//
// A tree holds fixed-width entries of `stride` 32-bit words, the first word the entry's key. Each
// write adds one run: its entries sorted by key, then by their other words. When a level holds MERGE_AT runs they are merged
// into one run of the next level, so a tree of n entries written in batches of b has about
// log8(n / b) levels of at most 7 runs each, and a lookup reads one chunk per run. A run is stored
// in chunks of about `chunkEntries` entries, each keyed [tree, level, run, chunk], and equal keys
// never straddle two chunks: a key's entries in a run are all in the last chunk whose first key is
// at most the key. Where the runs and their chunks' first keys are is the RunIndex, which the
// caller keeps (in meta) and writes in the same transaction as the chunks, so a transaction that
// aborts leaves both as they were.
//
// An entry is removed by rewriting the chunk that holds it (purgeEntries, lib/index/table-runs.ts),
// in the transaction that changes its page; a merge keeps every entry.

/** The key of a chunk: [tree, level, run, chunk]. */
export type RunChunkKey = [tree: number, level: number, run: number, chunk: number];

/** A run of a tree: where it is, how many entries it holds, and the first key of each of its chunks. */
export interface RunInfo {
  tree: number;
  level: number;
  run: number;
  entries: number;
  /** The first key of each chunk, in order. */
  firsts: number[];
}

/** Where every tree's runs are (the store keeps it in meta `runs`). */
export interface RunIndex {
  /** The number the next run gets: run numbers are never reused. */
  nextRun: number;
  runs: RunInfo[];
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** What a lookup needs of the runs' object store (idb's IDBPObjectStore has it, readonly or not). */
export interface RunReader {
  get(key: RunChunkKey): Promise<Uint32Array | undefined>;
}

/** What writing and merging runs need of the object store, whose keys are out-of-line. */
export interface RunStore extends RunReader {
  /** `stride`: the words of an entry of the chunk's tree (a store that encodes chunks needs it). */
  put(value: Uint32Array, key: RunChunkKey, stride: number): Promise<unknown>;
  getAll(range: IDBKeyRange): Promise<Uint32Array[]>;
  delete(range: IDBKeyRange): Promise<unknown>;
}

/** A tree's shape: its number (the first part of every chunk key), its entry width, its chunk size. */
export interface RunTree {
  tree: number;
  /** 32-bit words an entry, the key first. */
  stride: number;
  /** Entries a chunk, about (a chunk grows past it rather than split a key). */
  chunkEntries: number;
}

/** How many runs of a level are merged into one of the next. */
export const MERGE_AT = 8;

export const EMPTY_RUN_INDEX: RunIndex = { nextRun: 0, runs: [] };

const isWord = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;

/** A RunIndex read back from storage, checked; throws a RangeError that says what is wrong. */
export function parseRunIndex(value: unknown): RunIndex {
  const fail = (why: string): never => {
    throw new RangeError(`The index of Doppel's sorted runs is damaged: ${why}.`);
  };
  if (typeof value !== 'object' || value === null) return fail('it is not an object');
  const { nextRun, runs } = value as Partial<RunIndex>;
  if (!isCount(nextRun)) return fail('nextRun is not a count');
  if (!Array.isArray(runs)) return fail('runs is not a list');
  const seen = new Set<number>();
  for (const info of runs as unknown[]) {
    const r = info as Partial<RunInfo> | null;
    if (typeof r !== 'object' || r === null) return fail('a run is not an object');
    if (!isCount(r.tree) || !isCount(r.level) || !isCount(r.run) || !isCount(r.entries)) return fail('a run has a field that is not a count');
    if (r.run >= nextRun || seen.has(r.run)) return fail(`run ${r.run} is numbered twice or past nextRun`);
    seen.add(r.run);
    if (!Array.isArray(r.firsts) || !r.firsts.every(isWord)) return fail(`run ${r.run}'s first keys are not 32-bit words`);
    if (r.firsts.some((key, i) => i > 0 && key <= r.firsts![i - 1]!)) return fail(`run ${r.run}'s first keys are not increasing`);
    if ((r.entries === 0) !== (r.firsts.length === 0)) return fail(`run ${r.run}'s entries and chunks disagree`);
  }
  return { nextRun, runs: runs.map(({ tree, level, run, entries, firsts }) => ({ tree, level, run, entries, firsts: [...firsts] })) };
}

/** Compares entry a (at word ai) with entry b (at word bi) word by word: the key, then the rest. */
function compareAt(a: Uint32Array, ai: number, b: ArrayLike<number>, bi: number, stride: number): number {
  for (let w = 0; w < stride; w++) {
    const d = a[ai + w]! - b[bi + w]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** The entries sorted by key, and entries of equal keys by their next words, so that any entry can be a cursor. */
export function sortEntries(entries: Uint32Array, stride: number): Uint32Array {
  if (entries.length % stride !== 0) throw new RangeError(`${entries.length} words are not whole entries of ${stride}`);
  const n = entries.length / stride;
  const order = Array.from({ length: n }, (_, e) => e);
  order.sort((a, b) => compareAt(entries, a * stride, entries, b * stride, stride));
  const sorted = new Uint32Array(entries.length);
  order.forEach((from, to) => sorted.set(entries.subarray(from * stride, from * stride + stride), to * stride));
  return sorted;
}

/** Sorted runs (sortEntries' order) merged into one sorted run. */
export function mergeRuns(runs: readonly Uint32Array[], stride: number): Uint32Array {
  const merged = new Uint32Array(runs.reduce((words, run) => words + run.length, 0));
  const at = runs.map(() => 0);
  for (let out = 0; out < merged.length; out += stride) {
    let best = -1;
    for (let r = 0; r < runs.length; r++) {
      if (at[r]! >= runs[r]!.length) continue;
      if (best < 0 || compareAt(runs[r]!, at[r]!, runs[best]!, at[best]!, stride) < 0) best = r;
    }
    merged.set(runs[best]!.subarray(at[best]!, at[best]! + stride), out);
    at[best]! += stride;
  }
  return merged;
}

/** A sorted run cut into chunks of about chunkEntries entries, never between two equal keys. */
export function splitChunks(sorted: Uint32Array, { stride, chunkEntries }: RunTree): { firsts: number[]; chunks: Uint32Array[] } {
  const n = sorted.length / stride;
  const firsts: number[] = [];
  const chunks: Uint32Array[] = [];
  for (let start = 0; start < n; ) {
    let end = Math.min(n, start + chunkEntries);
    while (end < n && sorted[end * stride] === sorted[(end - 1) * stride]) end++;
    firsts.push(sorted[start * stride]!);
    chunks.push(sorted.slice(start * stride, end * stride));
    start = end;
  }
  return { firsts, chunks };
}

/** The chunk of a run that holds every entry with this key, if any can: the last whose first key is at most key; -1 if none. */
export function chunkFor(firsts: readonly number[], key: number): number {
  let low = 0;
  let high = firsts.length - 1;
  if (high < 0 || firsts[0]! > key) return -1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (firsts[mid]! <= key) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The runs of a tree's level, oldest first. */
export function levelRuns(index: RunIndex, tree: number, level: number): RunInfo[] {
  return index.runs.filter((r) => r.tree === tree && r.level === level).sort((a, b) => a.run - b.run);
}

/** The lowest level of the tree holding MERGE_AT runs or more, or -1. */
export function levelToMerge(index: RunIndex, tree: number): number {
  const levels = new Map<number, number>();
  for (const r of index.runs) if (r.tree === tree) levels.set(r.level, (levels.get(r.level) ?? 0) + 1);
  const due = [...levels].filter(([, runs]) => runs >= MERGE_AT).map(([level]) => level);
  return due.length === 0 ? -1 : Math.min(...due);
}

async function writeRun(store: RunStore, index: RunIndex, spec: RunTree, level: number, sorted: Uint32Array): Promise<RunIndex> {
  if (sorted.length === 0) return index;
  const run = index.nextRun;
  const { firsts, chunks } = splitChunks(sorted, spec);
  await Promise.all(chunks.map((chunk, c) => store.put(chunk, [spec.tree, level, run, c], spec.stride)));
  return { nextRun: run + 1, runs: [...index.runs, { tree: spec.tree, level, run, entries: sorted.length / spec.stride, firsts }] };
}

/**
 * Adds the entries (any order) as a run of `level` (0 by default; a big batch may start higher, as
 * if merged: lib/index/table-runs.ts levelForEntries); returns the index to write beside it.
 */
export function appendRun(store: RunStore, index: RunIndex, spec: RunTree, entries: Uint32Array, level = 0): Promise<RunIndex> {
  if (!Number.isInteger(level) || level < 0) throw new RangeError(`a run's level is a whole number: got ${level}`);
  return writeRun(store, index, spec, level, sortEntries(entries, spec.stride));
}

/** A run's chunks (in chunk order) as one array. */
function concat(chunks: readonly Uint32Array[]): Uint32Array {
  const all = new Uint32Array(chunks.reduce((words, chunk) => words + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

const runRange = (tree: number, level: number, run: number): IDBKeyRange => IDBKeyRange.bound([tree, level, run], [tree, level, run, Infinity]);

/**
 * Merges every level of the tree that holds MERGE_AT runs into one run of the next level, lowest
 * first (a merge can fill the next level); returns the index to write beside the new runs.
 */
export async function mergeDue(store: RunStore, index: RunIndex, spec: RunTree): Promise<RunIndex> {
  for (let level = levelToMerge(index, spec.tree); level >= 0; level = levelToMerge(index, spec.tree)) {
    const old = levelRuns(index, spec.tree, level);
    const runs = await Promise.all(old.map(async (r) => concat(await store.getAll(runRange(spec.tree, level, r.run)))));
    await Promise.all(old.map((r) => store.delete(runRange(spec.tree, level, r.run))));
    const merged = old.map((r) => r.run);
    index = await writeRun(store, { ...index, runs: index.runs.filter((r) => !(r.tree === spec.tree && merged.includes(r.run))) }, spec, level + 1, mergeRuns(runs, spec.stride));
  }
  return index;
}

/**
 * Merges every run of the tree into one, at the highest level among them (a store at rest: a lookup
 * then reads one chunk for the tree instead of one a run); returns the index to write beside it.
 */
export async function mergeAll(store: RunStore, index: RunIndex, spec: RunTree): Promise<RunIndex> {
  const old = index.runs.filter((r) => r.tree === spec.tree).sort((a, b) => a.run - b.run);
  if (old.length < 2) return index;
  const runs = await Promise.all(old.map(async (r) => concat(await store.getAll(runRange(spec.tree, r.level, r.run)))));
  await Promise.all(old.map((r) => store.delete(runRange(spec.tree, r.level, r.run))));
  const merged = new Set(old.map((r) => r.run));
  const rest = { ...index, runs: index.runs.filter((r) => !(r.tree === spec.tree && merged.has(r.run))) };
  return writeRun(store, rest, spec, Math.max(...old.map((r) => r.level)), mergeRuns(runs, spec.stride));
}

/** A chunk the run index lists; a RangeError if the store lacks it (the index and the chunks are written together, so it is damage). */
async function readChunk(store: RunReader, run: RunInfo, chunk: number): Promise<Uint32Array> {
  const words = await store.get([run.tree, run.level, run.run, chunk]);
  if (words === undefined) throw new RangeError(`Chunk ${chunk} of run ${run.run} is missing from Doppel's sorted runs, though their index lists it.`);
  return words;
}

/** Every entry of the tree whose key is `key`, one chunk read a run, in parallel; oldest run first. */
export async function lookup(store: RunReader, index: RunIndex, spec: RunTree, key: number): Promise<Uint32Array[]> {
  const runs = index.runs.filter((r) => r.tree === spec.tree).sort((a, b) => a.run - b.run);
  const chunks = await Promise.all(
    runs.map((r) => {
      const c = chunkFor(r.firsts, key);
      return c < 0 ? undefined : readChunk(store, r, c);
    }),
  );
  const found: Uint32Array[] = [];
  for (const chunk of chunks) {
    if (chunk === undefined) continue;
    for (let e = 0; e < chunk.length; e += spec.stride) if (chunk[e] === key) found.push(chunk.slice(e, e + spec.stride));
  }
  return found;
}

/**
 * Up to `limit` entries of the tree in descending order (sortEntries' order, reversed), those
 * strictly before `before` if given: the last entry of one page is the `before` of the next.
 */
export function readDescending(store: RunReader, index: RunIndex, spec: RunTree, { before, limit }: { before?: ArrayLike<number>; limit: number }): Promise<Uint32Array[]> {
  return readInOrder(store, index, spec, { past: before, limit, descending: true });
}

/** Up to `limit` entries of the tree in ascending order (sortEntries' order), those strictly after `after` if given. */
export function readAscending(store: RunReader, index: RunIndex, spec: RunTree, { after, limit }: { after?: ArrayLike<number>; limit: number }): Promise<Uint32Array[]> {
  return readInOrder(store, index, spec, { past: after, limit, descending: false });
}

/**
 * The entries of the tree in order (or reversed), strictly past the cursor `past` if given. Reads
 * each run a chunk at a time in that direction, as the k-way merge needs it. Two identical entries
 * (the same words) at the boundary of two pages come out once.
 */
async function readInOrder(store: RunReader, index: RunIndex, spec: RunTree, { past, limit, descending }: { past?: ArrayLike<number>; limit: number; descending: boolean }): Promise<Uint32Array[]> {
  const { stride } = spec;
  if (past !== undefined && past.length !== stride) throw new RangeError(`a cursor of ${past.length} words for entries of ${stride}`);
  const sign = descending ? -1 : 1;
  interface Cursor {
    run: RunInfo;
    chunk: number;
    words: Uint32Array;
    /** The word at which the current entry starts; outside the chunk once it is used up. */
    at: number;
  }
  const usedUp = (c: Cursor): boolean => c.at < 0 || c.at >= c.words.length;
  const firstAt = (words: Uint32Array): number => (descending ? words.length - stride : 0);
  const runs = index.runs.filter((r) => r.tree === spec.tree);
  const cursors: Cursor[] = [];
  await Promise.all(
    runs.map(async (run) => {
      let chunk: number;
      if (past === undefined) chunk = descending ? run.firsts.length - 1 : 0;
      else chunk = Math.max(chunkFor(run.firsts, past[0]!), descending ? -1 : 0);
      if (chunk < 0 || chunk >= run.firsts.length) return;
      const words = await readChunk(store, run, chunk);
      const cursor: Cursor = { run, chunk, words, at: firstAt(words) };
      // an entry equal to `past` in key may also end the chunk before this one (descending); that chunk is read when this one is used up
      if (past !== undefined) while (!usedUp(cursor) && sign * compareAt(words, cursor.at, past, 0, stride) <= 0) cursor.at += sign * stride;
      cursors.push(cursor);
    }),
  );
  const out: Uint32Array[] = [];
  while (out.length < limit) {
    for (const cursor of cursors) {
      while (usedUp(cursor) && (descending ? cursor.chunk > 0 : cursor.chunk < cursor.run.firsts.length - 1)) {
        cursor.chunk += sign;
        cursor.words = await readChunk(store, cursor.run, cursor.chunk);
        cursor.at = firstAt(cursor.words);
      }
    }
    let best: Cursor | undefined;
    for (const cursor of cursors) {
      if (usedUp(cursor)) continue;
      if (best === undefined || sign * compareAt(cursor.words, cursor.at, best.words, best.at, stride) < 0) best = cursor;
    }
    if (best === undefined) break;
    out.push(best.words.slice(best.at, best.at + stride));
    best.at += sign * stride;
  }
  return out;
}
