// The packed passage tree of bench:passage-layout (bench/layout/passage-layout-page.ts): runs as in
// lib/index/runs.ts, their chunks coded by passage-layout-codec.ts, the runs listed in meta
// `passageRuns` and each run's chunk first keys in a `passageFirsts` record of its own; and the
// JS time the packed layouts spend sorting, merging and coding their postings.
import type { IDBPTransaction } from 'idb';
import { EMPTY_RUN_INDEX, type RunTree, levelRuns, levelToMerge, mergeRuns, splitChunks } from '../../lib/index/runs';
import type { RunIndex, RunInfo } from '../../lib/store/schema';
import { decodePostings, encodePostings } from './passage-layout-codec';

/** The passage tree's number in the runs store: past every table tree and field tree. */
export const PASSAGE_TREE = 2 ** 21;

/** packed, packed-pos: the JS time of the postings' sorts, merges and codec during write(). */
export const cpu = { sort: 0, merge: 0, code: 0 };
export function timed<T>(what: keyof typeof cpu, f: () => T): T {
  const started = performance.now();
  try {
    return f();
  } finally {
    cpu[what] += performance.now() - started;
  }
}

/** meta `passageRuns`: where the passage tree's runs are; each run's first keys are in `passageFirsts`, keyed by its run number. */
interface PackedRuns {
  nextRun: number;
  runs: { level: number; run: number; entries: number; chunks: number }[];
}

export type Tx = IDBPTransaction<unknown, string[], 'readwrite' | 'readonly'>;
export type WriteTx = IDBPTransaction<unknown, string[], 'readwrite'>;

/** The packed tree's runs as a RunIndex (firsts included), so that lib/index/runs.ts's level logic applies. */
export async function readPackedIndex(tx: Tx): Promise<RunIndex> {
  const stored = (await tx.objectStore('meta').get('passageRuns')) as PackedRuns | undefined;
  if (stored === undefined) return EMPTY_RUN_INDEX;
  const firsts = await Promise.all(stored.runs.map((r) => tx.objectStore('passageFirsts').get(r.run) as Promise<Uint32Array>));
  return { nextRun: stored.nextRun, runs: stored.runs.map((r, n) => ({ tree: PASSAGE_TREE, level: r.level, run: r.run, entries: r.entries, firsts: Array.from(firsts[n]!) })) };
}

export async function writePackedIndex(tx: WriteTx, before: RunIndex, after: RunIndex): Promise<void> {
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

export async function writePackedRun(tx: WriteTx, index: RunIndex, spec: RunTree, level: number, sorted: Uint32Array): Promise<RunIndex> {
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
export async function mergePacked(tx: WriteTx, index: RunIndex, spec: RunTree, old: RunInfo[], level: number): Promise<RunIndex> {
  const runs = await Promise.all(old.map((r) => readPackedRun(tx, spec, r)));
  await Promise.all(old.map((r) => tx.objectStore('runs').delete(runRange(spec.tree, r.level, r.run))));
  const merged = new Set(old.map((r) => r.run));
  return writePackedRun(tx, { ...index, runs: index.runs.filter((r) => !merged.has(r.run)) }, spec, level, timed('merge', () => mergeRuns(runs, spec.stride)));
}

export async function mergePackedDue(tx: WriteTx, index: RunIndex, spec: RunTree): Promise<RunIndex> {
  for (let level = levelToMerge(index, spec.tree); level >= 0; level = levelToMerge(index, spec.tree)) {
    index = await mergePacked(tx, index, spec, levelRuns(index, spec.tree, level), level + 1);
  }
  return index;
}
