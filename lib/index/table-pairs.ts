// Every pair of a set of fingerprints within k bits, through the permuted-block tables kept as
// sorted lists (Manku, Jain, Das Sarma 2007, §3: each table a list of the permuted fingerprints
// sorted, the pairs of a table sharing its top bits) rather than as maps (MemoryIndex). For the
// whole-store regroup (lib/organise/regroup.ts): one table at a time, 12 bytes a fingerprint beside
// the caller's halves, where a MemoryIndex holds a map entry a fingerprint in every table.
import { hammingDistanceHalves } from '../fingerprint/bits';
import { bucketKey } from './near';
import { release } from './posting-passes';
import { type TableDesign, keyOf } from './tables';

const TWO_32 = 2 ** 32;
const RADIX = 1 << 15;
/** What forEachNearPair holds a fingerprint beside the halves: its key, and its place in the order and in the sort's spare list. */
export const TABLE_PAIRS_BYTES_PER_FINGERPRINT = 12;
/** Fingerprints between two calls of `pause`. */
const PAUSE_EVERY = 4096;

/** The indices 0…n−1 ordered by their 30-bit keys, ties ascending: a radix sort, 15 bits a pass. */
export function sortedByKey(keys: Uint32Array): Uint32Array {
  const n = keys.length;
  let order = new Uint32Array(n);
  let spare = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const counts = new Uint32Array(RADIX + 1);
  for (const shift of [0, 15]) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((keys[i]! >>> shift) & (RADIX - 1)) + 1]!++;
    for (let d = 0; d < RADIX; d++) counts[d + 1]! += counts[d]!;
    // stable: the order of the pass before is kept among equal digits
    for (let a = 0; a < n; a++) {
      const i = order[a]!;
      spare[counts[(keys[i]! >>> shift) & (RADIX - 1)]!++] = i;
    }
    [order, spare] = [spare, order];
  }
  release(spare); // now, not when the collector finds it: a million fingerprints' table holds 4 MB
  return order;
}

/**
 * Calls `visit(i, j)` (i < j, indices into `his` and `los`, the fingerprints' 32-bit halves) for
 * every pair within k bits of each other (k ≤ design.k: then every such pair shares some table's
 * key). A pair sharing several tables' keys is visited once a table, unless `joined(i, j)` says
 * it need not be looked at (the caller already linked them). `pause(done)` is awaited every few
 * thousand fingerprints, done counting from 0 to his.length over all the tables.
 */
export async function forEachNearPair(
  design: TableDesign,
  his: Uint32Array,
  los: Uint32Array,
  k: number,
  visit: (i: number, j: number) => void,
  { joined, pause }: { joined?: (i: number, j: number) => boolean; pause?: (done: number) => Promise<void> } = {},
): Promise<void> {
  if (!Number.isInteger(k) || k < 0 || k > design.k) throw new RangeError(`k must be an integer from 0 to ${design.k}: got ${k}`);
  if (his.length !== los.length) throw new RangeError(`halves of different lengths: ${his.length} and ${los.length}`);
  const n = his.length;
  if (n >= TWO_32) throw new RangeError(`too many fingerprints: ${n}`);
  const tables = design.tables.length;
  const keys = new Uint32Array(n);
  for (let t = 0; t < tables; t++) {
    const steps = design.tables[t]!.steps;
    for (let i = 0; i < n; i++) keys[i] = bucketKey(keyOf(steps, his[i]!, los[i]!)); // folded to 30 bits, as MemoryIndex folds them
    const order = sortedByKey(keys);
    for (let start = 0; start < n; ) {
      const key = keys[order[start]!]!;
      let end = start + 1;
      while (end < n && keys[order[end]!] === key) end++;
      // indices ascend within a run: a < b gives i < j
      for (let a = start; a < end; a++) {
        const i = order[a]!;
        for (let b = a + 1; b < end; b++) {
          const j = order[b]!;
          if (joined?.(i, j) === true) continue;
          if (hammingDistanceHalves(his[i]!, los[i]!, his[j]!, los[j]!) <= k) visit(i, j);
        }
      }
      if (pause !== undefined && (end === n || Math.floor(end / PAUSE_EVERY) > Math.floor(start / PAUSE_EVERY))) await pause(Math.floor((t * n + end) / tables));
      start = end;
    }
    release(order);
  }
  release(keys);
}
