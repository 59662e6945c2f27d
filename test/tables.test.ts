import { describe, expect, it } from 'vitest';
import { type Fingerprint, asFingerprint, fingerprintHalves } from '../lib/fingerprint/bits';
import {
  type TableDesign,
  type TableKey,
  chooseDesign,
  describeDesign,
  designTables,
  permute,
  planBlocks,
  tableKey,
  tableKeyHex,
  tableKeys,
} from '../lib/index/tables';
import { splitmix64 } from '../lib/random';
import { randomFingerprints } from '../lib/fingerprint/bits';

const ALL_ONES = asFingerprint((1n << 64n) - 1n);

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`threw a non-Error: ${String(error)}`);
  }
  throw new Error('expected a throw');
}

describe('splitmix64', () => {
  it('matches the reference outputs for seed 0 and spans all 64 bits', () => {
    const next = splitmix64(0n);
    expect([next(), next(), next()]).toEqual([0xe220a8397b1dcdafn, 0x6e789e6aa1b965f4n, 0x06c45d188009454fn]);
    const fps = randomFingerprints(1n, 2_000);
    const or = fps.reduce((acc, fp) => acc | fp, 0n);
    const and = fps.reduce((acc, fp) => acc & fp, ALL_ONES as bigint);
    expect(or).toBe(ALL_ONES);
    expect(and).toBe(0n);
  });
});

describe('planBlocks', () => {
  it.each([
    [64, 4, [16, 16, 16, 16]],
    [64, 5, [13, 13, 13, 13, 12]],
    [64, 6, [11, 11, 11, 11, 10, 10]],
    [64, 7, [10, 9, 9, 9, 9, 9, 9]],
    [64, 1, [64]],
    [10, 3, [4, 3, 3]],
  ])('f = %i, b = %i → %j', (f, b, sizes) => {
    const blocks = planBlocks(f, b);
    expect(blocks.map((block) => block.bits)).toEqual(sizes);
    const starts = sizes.map((_, i) => sizes.slice(0, i).reduce((x, y) => x + y, 0));
    expect(blocks.map((block) => block.start)).toEqual(starts);
  });

  it.each([
    [0, 1, 'f must be a positive integer: got f = 0'],
    [64, 0, 'b must be an integer from 1 to f = 64: got b = 0'],
    [64, 65, 'b must be an integer from 1 to f = 64: got b = 65'],
    [64, 2.5, 'b must be an integer from 1 to f = 64: got b = 2.5'],
  ])('rejects f = %s, b = %s', (f, b, message) => {
    const error = thrown(() => planBlocks(f, b));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toBe(message);
  });
});

describe('designTables', () => {
  it('k = 3, b = 4: four tables, each keyed on one 16-bit block moved to the top', () => {
    const design = designTables({ k: 3, b: 4 });
    expect(design.f).toBe(64);
    expect(design.tables.map((t) => ({ chosen: t.chosen, order: t.order, p: t.keyBits }))).toEqual([
      { chosen: [0], order: [0, 1, 2, 3], p: 16 },
      { chosen: [1], order: [1, 0, 2, 3], p: 16 },
      { chosen: [2], order: [2, 0, 1, 3], p: 16 },
      { chosen: [3], order: [3, 0, 1, 2], p: 16 },
    ]);
    const fp = asFingerprint(0x0123456789abcdefn);
    expect(tableKeys(design, fp)).toEqual([0x0123, 0x4567, 0x89ab, 0xcdef]);
    expect(permute(design, 2, fp)).toBe(0x89ab01234567cdefn);
  });

  describe('k = 3, b = 6: 20 tables of three blocks (11,11,11,11,10,10 bits)', () => {
    const design = designTables({ k: 3, b: 6 });
    // [table, chosen blocks, key bits]
    const want: [number, number[], number][] = [
      [0, [0, 1, 2], 33],
      [1, [0, 1, 3], 33],
      [2, [0, 1, 4], 32],
      [3, [0, 1, 5], 32],
      [4, [0, 2, 3], 33],
      [5, [0, 2, 4], 32],
      [6, [0, 2, 5], 32],
      [7, [0, 3, 4], 32],
      [8, [0, 3, 5], 32],
      [9, [0, 4, 5], 31],
      [10, [1, 2, 3], 33],
      [11, [1, 2, 4], 32],
      [12, [1, 2, 5], 32],
      [13, [1, 3, 4], 32],
      [14, [1, 3, 5], 32],
      [15, [1, 4, 5], 31],
      [16, [2, 3, 4], 32],
      [17, [2, 3, 5], 32],
      [18, [2, 4, 5], 31],
      [19, [3, 4, 5], 31],
    ];

    it('has exactly the 20 tables, in lexicographic order', () => {
      expect(design.tables.map((t) => t.chosen)).toEqual(want.map(([, chosen]) => chosen));
    });

    it.each(want)('table %i keys blocks %j on %i bits; the rest follow in order', (t, chosen, p) => {
      const table = design.tables[t]!;
      expect(table.keyBits).toBe(p);
      expect(table.order).toEqual([...chosen, ...[0, 1, 2, 3, 4, 5].filter((i) => !chosen.includes(i))]);
    });

    it('table 0 keys the top 33 bits, across the 32-bit boundary', () => {
      const fp = asFingerprint(0xfedcba9876543210n);
      expect(tableKeys(design, fp)[0]).toBe(Number(0xfedcba9876543210n >> 31n));
    });
  });

  it.each([
    [{ f: 32, k: 3, b: 4 }, 'only 64-bit fingerprints are supported for now: got f = 32'],
    [{ k: -1, b: 4 }, 'k must be an integer from 0 to 63: got k = -1'],
    [{ k: 64, b: 64 }, 'k must be an integer from 0 to 63: got k = 64'],
    [{ k: 1.5, b: 4 }, 'k must be an integer from 0 to 63: got k = 1.5'],
    [{ k: 3, b: 65 }, 'b must be an integer from 1 to f = 64: got b = 65'],
    [{ k: 3, b: 4.5 }, 'b must be an integer from 1 to f = 64: got b = 4.5'],
    [{ k: 3, b: 3 }, 'blocks must exceed k: got 3 blocks for k = 3'],
    [{ k: 5, b: 2 }, 'blocks must exceed k: got 2 blocks for k = 5'],
    [{ k: 0, b: 1 }, 'blocks must be at most 32 bits: got a 64-bit block for b = 1'],
    [{ k: 0, b: 4 }, 'table keys must be at most 53 bits to be exact JS numbers: got 64-bit keys for b = 4, k = 0'],
    [{ k: 1, b: 6 }, 'table keys must be at most 53 bits to be exact JS numbers: got 54-bit keys for b = 6, k = 1'],
    [{ k: 3, b: 17 }, 'table keys must be at most 53 bits to be exact JS numbers: got 55-bit keys for b = 17, k = 3'],
  ])('rejects %j', (options, message) => {
    const error = thrown(() => designTables(options));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toBe(message);
  });

  it.each([
    [1, 5, 5, 52],
    [3, 16, 560, 52],
    [2, 3, 3, 22],
  ])('accepts k = %i, b = %i at the 53-bit limit or below: %i tables, widest key %i bits', (k, b, count, widest) => {
    const design = designTables({ k, b });
    expect(design.tables).toHaveLength(count);
    expect(Math.max(...design.tables.map((t) => t.keyBits))).toBe(widest);
  });

  it('describes itself', () => {
    expect(describeDesign(designTables({ k: 3, b: 6 }))).toBe('k=3 b=6: 20 tables, 31/32/33-bit keys');
  });
});

describe('chooseDesign', () => {
  it.each([
    [3, 1_000, 4],
    [3, 1_000_000, 4],
    [3, 1_048_576, 4],
    [3, 1_048_577, 5],
    [3, 10_000_000, 5],
    [3, 536_870_912, 5],
    [3, 536_870_913, 6],
    [2, 1_000_000, 3],
    [1, 1_000_000, 2],
    [3, 0, 4],
  ])('k = %i, %i pages → b = %i', (k, expectedSize, b) => {
    expect(chooseDesign({ k, expectedSize }).design.b).toBe(b);
  });

  it('reports the expected candidates per query', () => {
    expect(chooseDesign({ k: 3, expectedSize: 1_048_576 }).expectedCandidatesPerQuery).toBe(64);
    // b = 5: six tables keyed on two 13-bit blocks, four on a 13- and the 12-bit block
    const { design, expectedCandidatesPerQuery } = chooseDesign({ k: 3, expectedSize: 1_048_577 });
    expect(design.tables.map((t) => t.keyBits).sort()).toEqual([25, 25, 25, 25, 26, 26, 26, 26, 26, 26]);
    expect(expectedCandidatesPerQuery).toBeCloseTo((1_048_577 * 6) / 2 ** 26 + (1_048_577 * 4) / 2 ** 25, 12);
  });

  it('honours maxCandidatesPerTable', () => {
    // 1000 / 2^16 ≈ 0.015 > 0.01, 1000 / 2^25 ≈ 0.00003 ≤ 0.01
    expect(chooseDesign({ k: 3, expectedSize: 1_000, maxCandidatesPerTable: 0.01 }).design.b).toBe(5);
    expect(chooseDesign({ k: 3, expectedSize: 1_000, maxCandidatesPerTable: 0.02 }).design.b).toBe(4);
  });

  it.each([
    [{ k: 3, expectedSize: -1 }, 'expectedSize must be a non-negative integer: got -1'],
    [{ k: 3, expectedSize: 1.5 }, 'expectedSize must be a non-negative integer: got 1.5'],
    [{ k: 3, expectedSize: 10, maxCandidatesPerTable: 0 }, 'maxCandidatesPerTable must be a positive finite number: got 0'],
    [{ k: 3, expectedSize: 10, maxCandidatesPerTable: Number.NaN }, 'maxCandidatesPerTable must be a positive finite number: got NaN'],
    [{ k: 64, expectedSize: 10 }, 'k must be an integer from 0 to 63: got k = 64'],
    [{ f: 128, k: 3, expectedSize: 10 }, 'only 64-bit fingerprints are supported for now: got f = 128'],
    [
      { k: 0, expectedSize: 10 },
      'no design for k = 0 keeps 10 fingerprints within 16 candidates per table: ' +
        'table keys must be at most 53 bits to be exact JS numbers: got 64-bit keys for b = 2, k = 0',
    ],
    [
      { k: 3, expectedSize: 2 ** 60 },
      'no design for k = 3 keeps 1152921504606847000 fingerprints within 16 candidates per table (b = 16 expects 256 per table): ' +
        'table keys must be at most 53 bits to be exact JS numbers: got 55-bit keys for b = 17, k = 3',
    ],
  ])('rejects %j', (options, message) => {
    const error = thrown(() => chooseDesign(options));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toBe(message);
  });
});

describe('keys and permutations', () => {
  const designs = [
    { k: 3, b: 4 },
    { k: 3, b: 5 },
    { k: 3, b: 6 },
    { k: 3, b: 7 },
    { k: 3, b: 16 },
    { k: 2, b: 3 },
    { k: 1, b: 2 },
    { k: 1, b: 5 },
    { k: 6, b: 10 },
  ].map((options) => designTables(options));
  const fps = randomFingerprints(0x7ab1e5n, 10_000);
  const label = (design: TableDesign): string => `k = ${design.k}, b = ${design.b}`;

  it.each(designs.map((design) => [label(design), design] as const))(
    '%s: every table key is the top p bits of the permuted fingerprint',
    (_, design) => {
      // ~20,000 (fingerprint, table) checks per design; mismatches are collected, then compared.
      const sample = fps.slice(0, Math.ceil(20_000 / design.tables.length));
      const mismatches: string[] = [];
      let checked = 0;
      for (const fp of sample) {
        const { hi, lo } = fingerprintHalves(fp);
        const keys = tableKeys(design, fp);
        design.tables.forEach((table, t) => {
          const key = tableKey(design, t, hi, lo);
          const top = Number(permute(design, t, fp) >> BigInt(64 - table.keyBits));
          if (!Number.isSafeInteger(key) || key !== top || keys[t] !== key) {
            mismatches.push(`table ${t}, ${fp.toString(16)}: key ${key}, tableKeys ${keys[t]}, top bits ${top}`);
          }
          checked++;
        });
      }
      expect(mismatches).toEqual([]);
      expect(checked).toBeGreaterThanOrEqual(20_000);
    },
  );

  it.each(designs.map((design) => [label(design), design] as const))(
    '%s: permute moves each single bit to its block’s new place; 0 and all-ones are fixed',
    (_, design) => {
      const bit = (n: number): Fingerprint => asFingerprint(1n << BigInt(63 - n));
      const mismatches: string[] = [];
      design.tables.forEach((table, t) => {
        expect(permute(design, t, asFingerprint(0n))).toBe(0n);
        expect(permute(design, t, ALL_ONES)).toBe(ALL_ONES);
        expect(tableKey(design, t, 0xffffffff, 0xffffffff)).toBe(2 ** table.keyBits - 1);
        expect(tableKey(design, t, 0, 0)).toBe(0);
        // New start of each block: the sizes of the blocks placed before it.
        const newStart = new Map<number, number>();
        let at = 0;
        for (const i of table.order) {
          newStart.set(i, at);
          at += design.blocks[i]!.bits;
        }
        for (let pos = 0; pos < 64; pos++) {
          const i = design.blocks.findIndex((block) => pos >= block.start && pos < block.start + block.bits);
          const moved = newStart.get(i)! + pos - design.blocks[i]!.start;
          const { hi, lo } = fingerprintHalves(bit(pos));
          const wantKey = moved < table.keyBits ? 2 ** (table.keyBits - 1 - moved) : 0;
          const permuted = permute(design, t, bit(pos));
          const key = tableKey(design, t, hi, lo);
          if (permuted !== bit(moved) || key !== wantKey) {
            mismatches.push(`table ${t}, bit ${pos}: permuted ${permuted.toString(16)}, key ${key}; want bit ${moved}, key ${wantKey}`);
          }
        }
      });
      expect(mismatches).toEqual([]);
    },
  );

  it('rejects a table index out of range', () => {
    const design = designTables({ k: 3, b: 4 });
    expect(thrown(() => tableKey(design, 4, 0, 0)).message).toBe('table must be an integer from 0 to 3: got 4');
  });
});

describe('tableKeyHex', () => {
  const design = designTables({ k: 3, b: 6 });

  it.each([
    [0, 0, '000000000'], // 33 bits → 9 digits
    [0, 2 ** 33 - 1, '1ffffffff'],
    [2, 2 ** 32 - 1, 'ffffffff'], // 32 bits → 8
    [19, 0x1234abc, '01234abc'], // 31 bits → 8
    [19, 2 ** 31 - 1, '7fffffff'],
  ])('table %i, key %i → %s', (t, key, hex) => {
    expect(tableKeyHex(design, t, key)).toBe(hex);
  });

  it('has ceil(p / 4) digits, for k = 3 b = 4 too', () => {
    expect(tableKeyHex(designTables({ k: 3, b: 4 }), 1, 0xab)).toBe('00ab');
  });

  it.each([
    [0, 2 ** 33],
    [19, 2 ** 31],
    [0, -1],
    [0, 1.5],
  ])('rejects table %i key %s', (t, key) => {
    const p = design.tables[t]!.keyBits;
    expect(thrown(() => tableKeyHex(design, t, key)).message).toBe(
      `table ${t} keys are integers from 0 to 2^${p} − 1: got ${key}`,
    );
  });

  it.each([0, 2, 9, 19])('table %i: hex order equals numeric order', (t) => {
    const keys: TableKey[] = randomFingerprints(BigInt(t) + 99n, 400).map((fp) => tableKeys(design, fp)[t]!);
    const p = design.tables[t]!.keyBits;
    for (const edge of [0, 1, 2 ** p - 1, 2 ** (p - 1), 2 ** (p - 1) - 1, 2 ** 28, 2 ** 28 - 1]) keys.push(edge as TableKey);
    const numeric = [...keys].sort((x, y) => x - y);
    const byHex = [...keys].sort((x, y) => {
      const a = tableKeyHex(design, t, x);
      const b = tableKeyHex(design, t, y);
      return a < b ? -1 : a > b ? 1 : 0;
    });
    expect(byHex).toEqual(numeric);
    expect(new Set(keys.map((key) => tableKeyHex(design, t, key).length))).toEqual(new Set([Math.ceil(p / 4)]));
  });
});
