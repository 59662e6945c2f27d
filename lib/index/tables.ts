// Permuted-block tables for Hamming-distance search (Manku, Jain & Das Sarma, "Detecting
// Near-Duplicates for Web Crawling", WWW 2007).
//
// Split the f fingerprint bits into b contiguous blocks. If two fingerprints differ in at most
// k bits, those bits touch at most k blocks, so at least b − k blocks are identical. One table per
// choice of b − k blocks (C(b, k) tables): the table's permutation moves the chosen blocks to the
// top, and its key is the top p bits of the permuted fingerprint (p = the chosen blocks' total
// size). Any two fingerprints within distance k share the key of at least one table, so looking
// up the query's key in every table and checking the exact distance of each candidate finds all
// near-duplicates.
//
// Example: b = 4, k = 3 → C(4, 3) = 4 tables, each keyed on one 16-bit block. Table 2 chooses
// block C and moves it to the top; A, B and D follow in their original order:
//
//   bit (from MSB)  0              16              32              48            63
//                   +---------------+---------------+---------------+---------------+
//   fingerprint     |       A       |       B       |       C       |       D       |
//                   +---------------+---------------+---------------+---------------+
//                                                           |
//                          .--------------------------------'
//                          v
//                   +---------------+---------------+---------------+---------------+
//   permuted        |       C       |       A       |       B       |       D       |
//                   +---------------+---------------+---------------+---------------+
//                   |<- key, p=16 ->|
//
// With b = 6 the blocks are 11,11,11,11,10,10 bits; C(6, 3) = 20 tables keyed on 3 blocks each
// (31–33 bits). Blocks may straddle the 32-bit boundary between the fingerprint's halves; keys
// are computed from the two unsigned 32-bit halves with mask-and-shift steps precomputed per table
// (as simhash-cpp does), so the hot path never touches a bigint.

import { type Fingerprint, FINGERPRINT_BITS, fingerprintHalves } from '../fingerprint/bits';

/** A contiguous run of fingerprint bits; `start` counts from the most significant bit. */
export interface Block {
  readonly start: number;
  readonly bits: number;
}

// A table key: an exact integer below 2^p. Branded so that it cannot be passed as a fingerprint
// (or as a key of a table with a different width by accident of type).
declare const tableKeyBrand: unique symbol;
export type TableKey = number & { readonly [tableKeyBrand]: true };

/**
 * One mask-and-shift step: take `((half >>> shift) & mask)` from the high (0) or low (1) 32-bit
 * half and append it below the key built so far (key · 2^bits + value).
 */
export interface KeyStep {
  readonly half: 0 | 1;
  readonly shift: number;
  readonly mask: number;
  readonly bits: number;
  /** 2^bits, so that appending is an exact multiply-add on doubles. */
  readonly scale: number;
}

export interface Table {
  /** Indices of the b − k chosen blocks, ascending: they form the key. */
  readonly chosen: readonly number[];
  /** All block indices in permuted order: the chosen ones first, then the rest. */
  readonly order: readonly number[];
  /** p: the key width in bits (sum of the chosen blocks' sizes). */
  readonly keyBits: number;
  readonly steps: readonly KeyStep[];
}

export interface TableDesign {
  readonly f: number;
  readonly k: number;
  readonly b: number;
  readonly blocks: readonly Block[];
  /** C(b, k) tables, in lexicographic order of their chosen block indices. */
  readonly tables: readonly Table[];
}

/** A design's parameters, as the store keeps them. */
export interface DesignParams {
  k: number;
  b: number;
}

const designs = new Map<string, TableDesign>();

/** designTables({k, b}), made once per design (a design's tables are immutable). */
export function tablesOf({ k, b }: DesignParams): TableDesign {
  const id = `${k}/${b}`;
  let design = designs.get(id);
  if (design === undefined) {
    design = designTables({ k, b });
    designs.set(id, design);
  }
  return design;
}

export interface DesignChoice {
  readonly design: TableDesign;
  /** Sum over tables of expectedSize / 2^p: random candidates examined per query. */
  readonly expectedCandidatesPerQuery: number;
}

/** Doppel's near-duplicate threshold: pages within this many bits (Manku et al.'s k for 64 bits). */
export const DEFAULT_K = 3;
/** Largest key width whose values are all exact JS numbers. */
export const MAX_KEY_BITS = 53;
/** Largest block: a block must fit in one 32-bit operation. */
export const MAX_BLOCK_BITS = 32;

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);

/**
 * Splits f bits into b contiguous blocks, block 0 holding the most significant bits. The first
 * (f mod b) blocks get ceil(f / b) bits, the rest floor(f / b).
 */
export function planBlocks(f: number, b: number): Block[] {
  if (!isInt(f) || f < 1) throw new RangeError(`f must be a positive integer: got f = ${f}`);
  if (!isInt(b) || b < 1 || b > f) throw new RangeError(`b must be an integer from 1 to f = ${f}: got b = ${b}`);
  const small = Math.floor(f / b);
  const large = f % b;
  const blocks: Block[] = [];
  let start = 0;
  for (let i = 0; i < b; i++) {
    const bits = i < large ? small + 1 : small;
    blocks.push({ start, bits });
    start += bits;
  }
  return blocks;
}

/** All size-r subsets of 0..n−1, each ascending, in lexicographic order. */
function combinations(n: number, r: number): number[][] {
  const out: number[][] = [];
  const pick: number[] = [];
  const walk = (from: number): void => {
    if (pick.length === r) {
      out.push(pick.slice());
      return;
    }
    for (let i = from; i <= n - (r - pick.length); i++) {
      pick.push(i);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return out;
}

function maskOf(bits: number): number {
  return bits === 32 ? 0xffffffff : (2 ** bits) - 1;
}

/**
 * Mask-and-shift steps that concatenate the chosen blocks (top first). Adjacent chosen blocks are
 * merged into one bit range; each range is then cut at the 32-bit boundary into per-half steps.
 */
function keySteps(blocks: readonly Block[], chosen: readonly number[]): KeyStep[] {
  const ranges: { start: number; bits: number }[] = [];
  for (const i of chosen) {
    const block = blocks[i]!;
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last.start + last.bits === block.start) last.bits += block.bits;
    else ranges.push({ start: block.start, bits: block.bits });
  }
  const steps: KeyStep[] = [];
  const push = (half: 0 | 1, from: number, to: number): void => {
    // bits [from, to) counted from the MSB of that half
    const bits = to - from;
    steps.push({ half, shift: 32 - to, mask: maskOf(bits), bits, scale: 2 ** bits });
  };
  for (const { start, bits } of ranges) {
    const end = start + bits;
    if (start < 32) push(0, start, Math.min(end, 32));
    if (end > 32) push(1, Math.max(start, 32) - 32, end - 32);
  }
  return steps;
}

function checkFk(f: number, k: number): void {
  if (f !== FINGERPRINT_BITS) {
    throw new RangeError(`only 64-bit fingerprints are supported for now: got f = ${f}`);
  }
  if (!isInt(k) || k < 0 || k > f - 1) throw new RangeError(`k must be an integer from 0 to ${f - 1}: got k = ${k}`);
}

/**
 * The C(b, k) tables for finding fingerprints within Hamming distance k, with their key steps
 * precomputed. Throws a RangeError naming the offending values for an unusable design.
 */
export function designTables({ f = FINGERPRINT_BITS, k, b }: { f?: number; k: number; b: number }): TableDesign {
  checkFk(f, k);
  if (!isInt(b) || b < 1 || b > f) throw new RangeError(`b must be an integer from 1 to f = ${f}: got b = ${b}`);
  if (b <= k) throw new RangeError(`blocks must exceed k: got ${b} blocks for k = ${k}`);
  const blocks = planBlocks(f, b);
  const widest = Math.max(...blocks.map((block) => block.bits));
  if (widest > MAX_BLOCK_BITS) {
    throw new RangeError(`blocks must be at most ${MAX_BLOCK_BITS} bits: got a ${widest}-bit block for b = ${b}`);
  }
  const tables = combinations(b, b - k).map((chosen): Table => {
    const rest = blocks.map((_, i) => i).filter((i) => !chosen.includes(i));
    const keyBits = chosen.reduce((sum, i) => sum + blocks[i]!.bits, 0);
    return { chosen, order: [...chosen, ...rest], keyBits, steps: keySteps(blocks, chosen) };
  });
  const p = Math.max(...tables.map((table) => table.keyBits));
  if (p > MAX_KEY_BITS) {
    throw new RangeError(
      `table keys must be at most ${MAX_KEY_BITS} bits to be exact JS numbers: got ${p}-bit keys for b = ${b}, k = ${k}`,
    );
  }
  return { f, k, b, blocks, tables };
}

/**
 * The smallest b > k whose tables expect at most `maxCandidatesPerTable` random candidates per
 * lookup at `expectedSize` stored fingerprints: expectedSize / 2^p ≤ maxCandidatesPerTable for
 * the narrowest key p. More blocks mean longer keys but more tables (C(b, k)).
 */
export function chooseDesign({
  f = FINGERPRINT_BITS,
  k,
  expectedSize,
  maxCandidatesPerTable = 16,
}: {
  f?: number;
  k: number;
  expectedSize: number;
  maxCandidatesPerTable?: number;
}): DesignChoice {
  checkFk(f, k);
  if (!isInt(expectedSize) || expectedSize < 0) {
    throw new RangeError(`expectedSize must be a non-negative integer: got ${expectedSize}`);
  }
  if (typeof maxCandidatesPerTable !== 'number' || !(maxCandidatesPerTable > 0) || !Number.isFinite(maxCandidatesPerTable)) {
    throw new RangeError(`maxCandidatesPerTable must be a positive finite number: got ${maxCandidatesPerTable}`);
  }
  let last: TableDesign | undefined;
  for (let b = Math.max(k + 1, 2); b <= f; b++) {
    let design: TableDesign;
    try {
      design = designTables({ f, k, b });
    } catch (error) {
      // Keys only get longer as b grows: once they exceed 53 bits, no larger b works either.
      const why = error instanceof Error ? error.message : String(error);
      const best = last === undefined ? '' : ` (b = ${last.b} expects ${expectedPerTable(last, expectedSize)} per table)`;
      throw new RangeError(
        `no design for k = ${k} keeps ${expectedSize} fingerprints within ${maxCandidatesPerTable} candidates per table${best}: ${why}`,
      );
    }
    last = design;
    if (expectedPerTable(design, expectedSize) <= maxCandidatesPerTable) {
      const expectedCandidatesPerQuery = design.tables.reduce((sum, t) => sum + expectedSize / 2 ** t.keyBits, 0);
      return { design, expectedCandidatesPerQuery };
    }
  }
  throw new RangeError(`no design for k = ${k} with b ≤ f = ${f}`);
}

function expectedPerTable(design: TableDesign, expectedSize: number): number {
  return expectedSize / 2 ** Math.min(...design.tables.map((t) => t.keyBits));
}

/** Short human label, e.g. "k=3 b=4: 4 tables, 16-bit keys". */
export function describeDesign(design: TableDesign): string {
  const widths = [...new Set(design.tables.map((t) => t.keyBits))].sort((x, y) => x - y);
  return `k=${design.k} b=${design.b}: ${design.tables.length} tables, ${widths.join('/')}-bit keys`;
}

function tableAt(design: TableDesign, t: number): Table {
  const table = design.tables[t];
  if (table === undefined) {
    throw new RangeError(`table must be an integer from 0 to ${design.tables.length - 1}: got ${t}`);
  }
  return table;
}

/**
 * Table t's key: the top p bits of the permuted fingerprint, from the fingerprint's unsigned
 * 32-bit halves. Exact integer in [0, 2^p). Allocation-free.
 */
export function tableKey(design: TableDesign, t: number, hi: number, lo: number): TableKey {
  return keyOf(tableAt(design, t).steps, hi, lo);
}

/** Hot-path form of tableKey on a table's precomputed steps (no bounds check). */
export function keyOf(steps: readonly KeyStep[], hi: number, lo: number): TableKey {
  let key = 0;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    key = key * s.scale + ((((s.half === 0 ? hi : lo) >>> s.shift) & s.mask) >>> 0);
  }
  return key as TableKey;
}

/** Every table's key for one fingerprint, indexed by table. */
export function tableKeys(design: TableDesign, fp: Fingerprint): TableKey[] {
  const { hi, lo } = fingerprintHalves(fp);
  return design.tables.map((table) => keyOf(table.steps, hi, lo));
}

/**
 * Fixed-width lowercase hex of a key: ceil(p / 4) digits, so that string order (IndexedDB key
 * order) equals numeric order.
 */
export function tableKeyHex(design: TableDesign, t: number, key: TableKey | number): string {
  const p = tableAt(design, t).keyBits;
  if (!isInt(key) || key < 0 || key >= 2 ** p) {
    throw new RangeError(`table ${t} keys are integers from 0 to 2^${p} − 1: got ${key}`);
  }
  return key.toString(16).padStart(Math.ceil(p / 4), '0');
}

/**
 * The whole fingerprint under table t's permutation (chosen blocks first, then the rest, each in
 * original order). Computed on bigints independently of the key steps; the key is its top p bits.
 */
export function permute(design: TableDesign, t: number, fp: Fingerprint): Fingerprint {
  const table = tableAt(design, t);
  const f = BigInt(design.f);
  let out = 0n;
  for (const i of table.order) {
    const { start, bits } = design.blocks[i]!;
    const width = BigInt(bits);
    const value = (fp >> (f - BigInt(start) - width)) & ((1n << width) - 1n);
    out = (out << width) | value;
  }
  return out as Fingerprint;
}
