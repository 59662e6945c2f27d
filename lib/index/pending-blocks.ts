// The pages an import left for organising to index (meta `passagePending`: lib/store/passages.ts,
// lib/organise/passage-organise.ts), as ranges of block numbers. Pure: no IndexedDB here.
import { groupOf } from './slots';

/**
 * The blocks whose pages' passage or rewrite fingerprints are kept but not yet in the postings (an
 * import's: lib/store/passages.ts, lib/index/rewrite-store.ts), as increasing, apart, inclusive
 * ranges of block numbers, and how many passage fingerprints they hold (for organising to size
 * its passes).
 */
export interface PendingPassages {
  blocks: [from: number, to: number][];
  fingerprints: number;
  /**
   * Pages of those blocks whose fingerprints a visit or a forgetting changed since they were listed:
   * their postings are already as they should be, so organising adds none for them.
   */
  touched: number[];
}

export const NO_PENDING: PendingPassages = { blocks: [], fingerprints: 0, touched: [] };

/** meta `passagePending` read back, checked; NO_PENDING if absent. */
export function parsePending(value: unknown): PendingPassages {
  if (value === undefined) return NO_PENDING;
  const fail = (why: string): never => {
    throw new RangeError(`Doppel's list of passage fingerprints still to index is damaged: ${why}.`);
  };
  const v = value as Partial<PendingPassages> | null;
  if (typeof v !== 'object' || v === null || !Array.isArray(v.blocks)) return fail('it is not a list of blocks');
  if (!Number.isSafeInteger(v.fingerprints) || v.fingerprints! < 0) return fail('its count is not a count');
  const touched = v.touched ?? [];
  if (!Array.isArray(touched) || !touched.every((id) => Number.isSafeInteger(id) && id >= 0)) return fail('its touched pages are not page ids');
  let last = -2;
  for (const range of v.blocks as unknown[]) {
    if (!Array.isArray(range) || range.length !== 2 || !range.every((b) => Number.isSafeInteger(b) && b >= 0)) return fail('a range is not two block numbers');
    const [from, to] = range as [number, number];
    if (from > to || from <= last + 1) return fail('its ranges are not increasing and apart');
    last = to;
  }
  return { blocks: (v.blocks as [number, number][]).map(([a, b]) => [a, b]), fingerprints: v.fingerprints!, touched: [...touched] };
}

/** The ranges with `blocks` added, merged (the ranges format of PendingPassages). */
export function addPendingBlocks(ranges: readonly [number, number][], blocks: Iterable<number>): [number, number][] {
  const all = new Set<number>();
  for (const [from, to] of ranges) for (let b = from; b <= to; b++) all.add(b);
  for (const b of blocks) all.add(b);
  const sorted = [...all].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const b of sorted) {
    const last = out.at(-1);
    if (last !== undefined && last[1] + 1 === b) last[1] = b;
    else out.push([b, b]);
  }
  return out;
}

export function* pendingBlocks(pending: Pick<PendingPassages, 'blocks'>): Generator<number> {
  for (const [from, to] of pending.blocks) for (let b = from; b <= to; b++) yield b;
}

/** Whether block `block` is among the ranges. */
export function inRanges(ranges: readonly [number, number][], block: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [from, to] = ranges[mid]!;
    if (block < from) high = mid - 1;
    else if (block > to) low = mid + 1;
    else return true;
  }
  return false;
}

/**
 * meta `passagePending` after a write that left `blocks` pending (an import's batch) and changed
 * the fingerprints of the pages `changedNow` otherwise (a visit, a forgetting).
 */
export function pendingAfter(pending: PendingPassages, write: { pendingBlocks: readonly number[]; pendingFingerprints: number; changedNow: readonly number[] }): PendingPassages {
  const blocks = write.pendingBlocks.length === 0 ? pending.blocks : addPendingBlocks(pending.blocks, write.pendingBlocks);
  const touched = new Set(pending.touched);
  for (const id of write.changedNow) if (inRanges(blocks, groupOf(id).group)) touched.add(id);
  return { blocks, fingerprints: pending.fingerprints + write.pendingFingerprints, touched: [...touched].sort((a, b) => a - b) };
}
