// Sorted runs (lib/index/runs.ts): the pure parts table-driven, and the tree in fake-indexeddb
// against a brute-force reference, a list of every entry ever appended.
import 'fake-indexeddb/auto';
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../lib/random';
import {
  EMPTY_RUN_INDEX,
  MERGE_AT,
  type RunTree,
  appendRun,
  chunkFor,
  levelRuns,
  levelToMerge,
  lookup,
  mergeDue,
  mergeRuns,
  parseRunIndex,
  readAscending,
  readDescending,
  sortEntries,
  splitChunks,
} from '../lib/index/runs';
import type { RunChunkKey, RunIndex } from '../lib/store/schema';
import { within } from '../lib/store/within';

interface RunsDB extends DBSchema {
  runs: { key: RunChunkKey; value: Uint32Array };
  meta: { key: string; value: RunIndex };
}

const opened: IDBPDatabase<RunsDB>[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

let databases = 0;
/** A database of its own: every test starts empty. */
async function freshDb(): Promise<IDBPDatabase<RunsDB>> {
  const db = await openDB<RunsDB>(`runs-${databases++}`, 1, {
    upgrade(d) {
      d.createObjectStore('runs');
      d.createObjectStore('meta');
    },
  });
  opened.push(db);
  return db;
}

/** Appends the entries as a run and merges what is due, index and chunks in one transaction, as a schema would. */
async function write(db: IDBPDatabase<RunsDB>, spec: RunTree, entries: Uint32Array, fail = false): Promise<void> {
  const tx = db.transaction(['runs', 'meta'], 'readwrite');
  await within(tx, async () => {
    const runs = tx.objectStore('runs');
    const meta = tx.objectStore('meta');
    let index = parseRunIndex((await meta.get('runs')) ?? EMPTY_RUN_INDEX);
    index = await appendRun(runs, index, spec, entries);
    index = await mergeDue(runs, index, spec);
    await meta.put(index, 'runs');
    if (fail) throw new Error('cut off');
  });
}

async function readIndex(db: IDBPDatabase<RunsDB>): Promise<RunIndex> {
  return parseRunIndex((await db.get('meta', 'runs')) ?? EMPTY_RUN_INDEX);
}

async function find(db: IDBPDatabase<RunsDB>, spec: RunTree, key: number): Promise<number[][]> {
  const tx = db.transaction(['runs', 'meta'], 'readonly');
  const index = parseRunIndex((await tx.objectStore('meta').get('runs')) ?? EMPTY_RUN_INDEX);
  const found = await lookup(tx.objectStore('runs'), index, spec, key);
  await tx.done;
  return found.map((entry) => [...entry]);
}

const byWords = (a: number[], b: number[]): number => a.reduce((d, x, i) => d || x - b[i]!, 0);
const words = (entries: number[][]): Uint32Array => Uint32Array.from(entries.flat());
const entriesOf = (flat: Uint32Array, stride: number): number[][] => Array.from({ length: flat.length / stride }, (_, e) => [...flat.subarray(e * stride, e * stride + stride)]);

describe('the pure parts', () => {
  it('sortEntries sorts by the first word, then by the next', () => {
    const sorted = sortEntries(words([[5, 3], [2, 2], [5, 1], [0, 4], [2, 5], [2, 0]]), 2);
    expect(entriesOf(sorted, 2)).toEqual([[0, 4], [2, 0], [2, 2], [2, 5], [5, 1], [5, 3]]);
    expect(() => sortEntries(Uint32Array.from([1, 2, 3]), 2)).toThrow('3 words are not whole entries of 2');
  });

  it('sortEntries sorts keys past 2^31 as unsigned', () => {
    expect(entriesOf(sortEntries(words([[0xffffffff, 1], [0x80000000, 2], [7, 3]]), 2), 2)).toEqual([[7, 3], [0x80000000, 2], [0xffffffff, 1]]);
  });

  it('mergeRuns merges sorted runs into the same order', () => {
    const merged = mergeRuns([words([[1, 20], [4, 11], [9, 31]]), words([]), words([[1, 10], [4, 21]]), words([[0, 30], [9, 12]])], 2);
    expect(entriesOf(merged, 2)).toEqual([[0, 30], [1, 10], [1, 20], [4, 11], [4, 21], [9, 12], [9, 31]]);
    expect(mergeRuns([], 3)).toEqual(new Uint32Array(0));
  });

  it.each([
    { name: 'even cuts', keys: [1, 2, 3, 4, 5, 6], chunkEntries: 2, chunks: [[1, 2], [3, 4], [5, 6]] },
    { name: 'a key run across a cut is kept whole', keys: [1, 2, 2, 2, 3, 4], chunkEntries: 2, chunks: [[1, 2, 2, 2], [3, 4]] },
    { name: 'one key throughout: one chunk', keys: [7, 7, 7, 7, 7], chunkEntries: 2, chunks: [[7, 7, 7, 7, 7]] },
    { name: 'a last short chunk', keys: [1, 2, 3], chunkEntries: 2, chunks: [[1, 2], [3]] },
    { name: 'empty', keys: [], chunkEntries: 2, chunks: [] },
  ])('splitChunks: $name', ({ keys, chunkEntries, chunks }) => {
    const split = splitChunks(Uint32Array.from(keys), { tree: 0, stride: 1, chunkEntries });
    expect(split.chunks.map((c) => [...c])).toEqual(chunks);
    expect(split.firsts).toEqual(chunks.map((c) => c[0]));
  });

  it.each([
    { key: 0, chunk: -1 },
    { key: 3, chunk: 0 },
    { key: 4, chunk: 0 },
    { key: 5, chunk: 1 },
    { key: 8, chunk: 1 },
    { key: 9, chunk: 2 },
    { key: 0xffffffff, chunk: 2 },
  ])('chunkFor(firsts [3, 5, 9], $key) is $chunk', ({ key, chunk }) => {
    expect(chunkFor([3, 5, 9], key)).toBe(chunk);
  });

  it('chunkFor of a run with no chunks is -1', () => {
    expect(chunkFor([], 5)).toBe(-1);
  });

  it('levelToMerge: the lowest level with MERGE_AT runs of the tree', () => {
    const run = (tree: number, level: number, n: number) => ({ tree, level, run: n, entries: 1, firsts: [0] });
    const runs = [...Array.from({ length: MERGE_AT }, (_, i) => run(0, 2, i)), ...Array.from({ length: MERGE_AT - 1 }, (_, i) => run(0, 0, 10 + i)), ...Array.from({ length: MERGE_AT }, (_, i) => run(1, 0, 20 + i))];
    const index = { nextRun: 40, runs };
    expect(levelToMerge(index, 0)).toBe(2);
    expect(levelToMerge(index, 1)).toBe(0);
    expect(levelToMerge(index, 2)).toBe(-1);
    expect(levelRuns(index, 0, 0).map((r) => r.run)).toEqual([10, 11, 12, 13, 14, 15, 16]);
  });

  const good = { nextRun: 2, runs: [{ tree: 0, level: 0, run: 1, entries: 3, firsts: [1, 4] }] };
  it.each([
    { name: 'not an object', value: 'runs', why: 'it is not an object' },
    { name: 'no nextRun', value: { runs: [] }, why: 'nextRun is not a count' },
    { name: 'runs not a list', value: { nextRun: 0, runs: {} }, why: 'runs is not a list' },
    { name: 'a run not an object', value: { nextRun: 1, runs: [null] }, why: 'a run is not an object' },
    { name: 'a negative level', value: { nextRun: 2, runs: [{ ...good.runs[0], level: -1 }] }, why: 'a field that is not a count' },
    { name: 'a run past nextRun', value: { nextRun: 1, runs: good.runs }, why: 'run 1 is numbered twice or past nextRun' },
    { name: 'a run twice', value: { nextRun: 2, runs: [good.runs[0], good.runs[0]] }, why: 'run 1 is numbered twice' },
    { name: 'a first key past 32 bits', value: { nextRun: 2, runs: [{ ...good.runs[0], firsts: [2 ** 32] }] }, why: 'not 32-bit words' },
    { name: 'first keys out of order', value: { nextRun: 2, runs: [{ ...good.runs[0], firsts: [4, 4] }] }, why: 'not increasing' },
    { name: 'entries without chunks', value: { nextRun: 2, runs: [{ ...good.runs[0], firsts: [] }] }, why: 'entries and chunks disagree' },
  ])('parseRunIndex refuses $name', ({ value, why }) => {
    expect(() => parseRunIndex(value)).toThrow(why);
    expect(() => parseRunIndex(value)).toThrow("The index of Doppel's sorted runs is damaged");
  });

  it('parseRunIndex returns a copy of a good index', () => {
    const parsed = parseRunIndex(good);
    expect(parsed).toEqual(good);
    expect(parsed.runs[0]!.firsts).not.toBe(good.runs[0]!.firsts);
  });
});

describe('a tree in IndexedDB, against every entry ever appended', () => {
  const spec: RunTree = { tree: 3, stride: 3, chunkEntries: 4 };

  it('finds exactly the entries of each key after every batch, through merges up to level 3 (8^3 = 512 batches)', async () => {
    const db = await freshDb();
    const random = mulberry32(41);
    const all: number[][] = [];
    let maxLevel = 0;
    for (let batch = 0; batch < 600; batch++) {
      const entries = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, e) => [Math.floor(random() * 60), batch, e]);
      all.push(...entries);
      await write(db, spec, words(entries));
      if (batch % 50 !== 49 && batch !== 0) continue;
      const index = await readIndex(db);
      maxLevel = Math.max(maxLevel, ...index.runs.map((r) => r.level));
      for (let level = 0; level <= maxLevel; level++) expect(levelRuns(index, 3, level).length).toBeLessThan(MERGE_AT);
      expect(index.runs.reduce((n, r) => n + r.entries, 0)).toBe(all.length);
      for (let key = 0; key <= 60; key++) {
        const expected = all.filter((e) => e[0] === key).sort(byWords);
        expect((await find(db, spec, key)).sort(byWords)).toEqual(expected);
      }
    }
    expect(maxLevel).toBe(3);
    // the store holds exactly the chunks the index lists: merged runs' chunks are deleted
    const index = await readIndex(db);
    const listed = index.runs.flatMap((r) => r.firsts.map((_, c) => JSON.stringify([r.tree, r.level, r.run, c]))).sort();
    expect((await db.getAllKeys('runs')).map((k) => JSON.stringify(k)).sort()).toEqual(listed);
  });

  it.each([
    ['readDescending', true],
    ['readAscending', false],
  ] as const)('%s pages through the whole tree in order, after every batch', async (_, descending) => {
    const db = await freshDb();
    const random = mulberry32(7);
    const all: number[][] = [];
    const pageThrough = async (limit: number): Promise<number[][]> => {
      const seen: number[][] = [];
      for (let before: number[] | undefined; ; ) {
        const tx = db.transaction(['runs', 'meta'], 'readonly');
        const index = parseRunIndex((await tx.objectStore('meta').get('runs')) ?? EMPTY_RUN_INDEX);
        const page = descending
          ? await readDescending(tx.objectStore('runs'), index, spec, { before, limit })
          : await readAscending(tx.objectStore('runs'), index, spec, { after: before, limit });
        await tx.done;
        expect(page.length).toBeLessThanOrEqual(limit);
        seen.push(...page.map((e) => [...e]));
        if (page.length < limit) return seen;
        before = [...page.at(-1)!];
      }
    };
    for (let batch = 0; batch < 140; batch++) {
      // keys from a narrow range, so that equal keys meet at chunk and page boundaries; the second word makes every entry unique
      const entries = Array.from({ length: 1 + Math.floor(random() * 9) }, (_, i) => [Math.floor(random() * 40), all.length + i, batch]);
      all.push(...entries);
      await write(db, spec, words(entries));
      if (batch % 20 !== 19) continue;
      const expected = descending ? [...all].sort(byWords).reverse() : [...all].sort(byWords);
      for (const limit of [1, 7, 50, 10_000]) expect(await pageThrough(limit)).toEqual(expected);
    }
    expect(Math.max(...(await readIndex(db)).runs.map((r) => r.level))).toBe(2);
  });

  it('readDescending starts strictly before its cursor, which need not be an entry', async () => {
    const db = await freshDb();
    await write(db, spec, words([[5, 1, 0], [5, 2, 0], [9, 1, 0], [1, 1, 0]]));
    await write(db, spec, words([[5, 3, 0], [7, 1, 0]]));
    const read = async (before: number[] | undefined, limit: number): Promise<number[][]> => {
      const tx = db.transaction(['runs', 'meta'], 'readonly');
      const index = parseRunIndex(await tx.objectStore('meta').get('runs'));
      return (await readDescending(tx.objectStore('runs'), index, spec, { before, limit })).map((e) => [...e]);
    };
    expect(await read(undefined, 3)).toEqual([[9, 1, 0], [7, 1, 0], [5, 3, 0]]);
    expect(await read([5, 3, 0], 10)).toEqual([[5, 2, 0], [5, 1, 0], [1, 1, 0]]);
    expect(await read([6, 0, 0], 2)).toEqual([[5, 3, 0], [5, 2, 0]]);
    expect(await read([1, 1, 0], 5)).toEqual([]);
    expect(await read([0xffffffff, 0, 0], 1)).toEqual([[9, 1, 0]]);
    await expect(read([5, 3], 1)).rejects.toThrow('a cursor of 2 words for entries of 3');
  });

  it('readAscending starts strictly after its cursor, which need not be an entry', async () => {
    const db = await freshDb();
    await write(db, spec, words([[5, 1, 0], [5, 2, 0], [9, 1, 0], [1, 1, 0]]));
    await write(db, spec, words([[5, 3, 0], [7, 1, 0]]));
    const read = async (after: number[] | undefined, limit: number): Promise<number[][]> => {
      const tx = db.transaction(['runs', 'meta'], 'readonly');
      const index = parseRunIndex(await tx.objectStore('meta').get('runs'));
      return (await readAscending(tx.objectStore('runs'), index, spec, { after, limit })).map((e) => [...e]);
    };
    expect(await read(undefined, 3)).toEqual([[1, 1, 0], [5, 1, 0], [5, 2, 0]]);
    expect(await read([5, 1, 0], 10)).toEqual([[5, 2, 0], [5, 3, 0], [7, 1, 0], [9, 1, 0]]);
    expect(await read([6, 0, 0], 1)).toEqual([[7, 1, 0]]);
    expect(await read([0, 0, 0], 1)).toEqual([[1, 1, 0]]);
    expect(await read([9, 1, 0], 5)).toEqual([]);
  });

  it('keeps trees apart', async () => {
    const db = await freshDb();
    const other: RunTree = { tree: 4, stride: 2, chunkEntries: 4 };
    for (let batch = 0; batch < 20; batch++) {
      await write(db, spec, words([[batch % 5, batch, 0]]));
      await write(db, other, words([[batch % 5, batch]]));
    }
    expect((await find(db, spec, 2)).sort(byWords)).toEqual([[2, 2, 0], [2, 7, 0], [2, 12, 0], [2, 17, 0]]);
    expect((await find(db, other, 2)).sort(byWords)).toEqual([[2, 2], [2, 7], [2, 12], [2, 17]]);
  });

  it('an empty batch adds no run', async () => {
    const db = await freshDb();
    await write(db, spec, new Uint32Array(0));
    expect(await readIndex(db)).toEqual(EMPTY_RUN_INDEX);
    expect(await find(db, spec, 0)).toEqual([]);
  });

  it('a transaction cut off after its append and merge leaves the index and the chunks as they were', async () => {
    const db = await freshDb();
    for (let batch = 0; batch < MERGE_AT - 1; batch++) await write(db, spec, words([[1, batch, 0], [2, batch, 1]]));
    const before = { index: await readIndex(db), keys: await db.getAllKeys('runs') };
    // the eighth run would merge level 0 into level 1
    await expect(write(db, spec, words([[1, 99, 0]]), true)).rejects.toThrow('cut off');
    expect(await readIndex(db)).toEqual(before.index);
    expect(await db.getAllKeys('runs')).toEqual(before.keys);
    expect((await find(db, spec, 1)).map((e) => e[1]).sort((a, b) => a! - b!)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('says so when a chunk the index lists is missing', async () => {
    const db = await freshDb();
    await write(db, spec, words([[1, 0, 0], [2, 0, 1]]));
    const [run] = (await readIndex(db)).runs;
    await db.delete('runs', [3, 0, run!.run, 0]);
    await expect(find(db, spec, 1)).rejects.toThrow(`Chunk 0 of run ${run!.run} is missing`);
    expect(await find(db, spec, 0)).toEqual([]);
  });
});
