// The index of the sorted runs (lib/index/runs.ts RunIndex) as the store keeps it in meta `runs`,
// with a stamp that lets a reader reuse the index it read last, and the deletion of a design's
// table trees.
import { type RunIndex, type RunStore, EMPTY_RUN_INDEX, parseRunIndex } from '../index/runs';
import { tableTree } from '../index/table-runs';
import { tablesOf } from '../index/tables';
import type { DesignParams as DesignMeta } from '../index/tables';

/** The RunIndex kept in meta `runs` (none yet: empty), checked. */
export function readRunIndexValue(value: unknown): RunIndex {
  return value === undefined ? EMPTY_RUN_INDEX : parseRunIndex(value);
}

/** What reading and writing the run index need of the meta store, in the caller's transaction. */
export interface RunIndexMeta {
  get(key: 'runs' | 'runsStamp'): Promise<unknown>;
  put(value: RunIndex | number, key: 'runs' | 'runsStamp'): Promise<unknown>;
}

// The run index is about 90 kB at a million pages (the first key of every chunk), and a query
// read it in 2 ms (median; p99 23 ms, in Chromium 156). Every write of it also writes a new random
// stamp, and a reader that finds the stamp of the index it read last reuses that, unparsed: in
// the same transaction, so it is the index the chunks it then reads belong to.
let cached: { stamp: number; index: RunIndex } | undefined;

/** The run index, in the caller's transaction: the one read last if meta's stamp still names it. */
export async function readRunIndex(meta: Pick<RunIndexMeta, 'get'>): Promise<RunIndex> {
  const stamp = await meta.get('runsStamp');
  if (cached !== undefined && stamp === cached.stamp) return cached.index;
  const index = readRunIndexValue(await meta.get('runs'));
  if (typeof stamp === 'number') cached = { stamp, index };
  return index;
}

/** Writes the run index and a new stamp for it, in the caller's transaction. */
export async function writeRunIndex(meta: RunIndexMeta, index: RunIndex): Promise<void> {
  const stamp = Math.floor(Math.random() * 2 ** 52);
  await Promise.all([meta.put(index, 'runs'), meta.put(stamp, 'runsStamp')]);
  // kept for the next read: if this transaction aborts, meta keeps the old stamp, which this one never matches
  cached = { stamp, index };
}

/** Deletes every tree of the design (a migration away from it has finished); returns the index without them. */
export async function dropTables(runs: RunStore, index: RunIndex, design: DesignMeta): Promise<RunIndex> {
  const trees = new Set(tablesOf(design).tables.map((_, t) => tableTree(design, t).tree));
  await Promise.all([...trees].map((tree) => runs.delete(IDBKeyRange.bound([tree], [tree, Infinity]))));
  return { nextRun: index.nextRun, runs: index.runs.filter((run) => !trees.has(run.tree)) };
}

