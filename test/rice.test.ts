import { describe, expect, it } from 'vitest';
import { RiceReader, RiceWriter, bestRiceK, riceSize } from '../lib/fingerprint/rice';
import { mulberry32 } from '../lib/random';

function encode(codes: readonly [number, number][]): Uint8Array {
  const out = new Uint8Array(Math.ceil(codes.reduce((sum, [value, k]) => sum + riceSize(value, k), 0) / 8));
  const writer = new RiceWriter(out, 0);
  for (const [value, k] of codes) writer.write(value, k);
  return out;
}

const cut = (): Error => new RangeError('cut');

describe('Rice codes', () => {
  it.each<[string, [number, number][], string]>([
    ['0 with k 0: a zero', [[0, 0]], '00000000'],
    ['3 with k 0: three ones, a zero', [[3, 0]], '11100000'],
    ['5 with k 2: quotient 1, remainder 01', [[5, 2]], '10010000'],
    ['two codes across a byte: 0·110, then 10·001', [[6, 3], [9, 3]], '01101000 10000000'],
    ['a quotient of 9 across bytes', [[9, 0]], '11111111 10000000'],
    ['a remainder of 20 bits', [[0xabcde, 20]], '01010101 11100110 11110000'],
  ])('%s', (_, codes, bits) => {
    const bytes = encode(codes);
    expect([...bytes].map((b) => b.toString(2).padStart(8, '0')).join(' ')).toBe(bits);
    const reader = new RiceReader(bytes, 0, cut);
    expect(codes.map(([, k]) => reader.next(k))).toEqual(codes.map(([value]) => value));
  });

  it.each<[string, number[], number, number, boolean]>([
    // bytes, bits read, then: the byte after them, and whether the rest of their last byte is 0
    ['nothing read', [0b1000_0000], 0, 0, true],
    ['a whole byte read', [0xff, 0x01], 8, 1, true],
    ['3 bits read, the other 5 zero', [0b1010_0000], 3, 1, true],
    ['3 bits read, a one after them', [0b1010_0100], 3, 1, false],
    ['11 bits read, the last of the byte one', [0xff, 0b1110_0001], 11, 2, false],
    ['11 bits read, the rest zero; a byte after', [0xff, 0b1110_0000, 0xff], 11, 2, true],
  ])('where the codes end: %s', (_, bytes, bit, end, padded) => {
    const reader = new RiceReader(Uint8Array.from(bytes), bit, cut);
    expect(reader.end).toBe(end);
    expect(reader.paddedWithZeros()).toBe(padded);
  });

  it.each<[string, number[], number, { k: number; bits: number }]>([
    ['nothing to write', [], 31, { k: 0, bits: 0 }],
    ['1 and 2: k 0 (10, 110) and k 1 (0·1, 10·0) tie at 5 bits; the smaller k', [1, 2], 16, { k: 0, bits: 5 }],
    ['1000 twice: k 9 takes 11 bits each, as k 10 does; k 8 takes 12', [1000, 1000], 31, { k: 9, bits: 22 }],
    ['2^20 with k at most 4: a quotient of 2^16', [2 ** 20], 4, { k: 4, bits: 2 ** 16 + 5 }],
    ['a full 32-bit value', [0xffff_ffff], 31, { k: 31, bits: 33 }],
  ])('the best parameter: %s', (_, values, maxK, best) => {
    expect(bestRiceK(values, maxK)).toEqual(best);
    expect(values.reduce((sum, v) => sum + riceSize(v, best.k), 0)).toBe(best.bits);
  });

  it('the best parameter equals trying every k, on seeded lists of every spread (the walk from an estimate relies on the bits being convex in k)', () => {
    const tryEvery = (values: readonly number[], maxK: number): { k: number; bits: number } => {
      let best = { k: 0, bits: Infinity };
      for (let k = 0; k <= maxK; k++) {
        const bits = values.reduce((sum, v) => sum + riceSize(v, k), 0);
        if (bits < best.bits) best = { k, bits };
      }
      return values.length === 0 ? { k: 0, bits: 0 } : best;
    };
    const random = mulberry32(36);
    let tried = 0;
    for (let list = 0; list < 3000; list++) {
      const top = Math.floor(random() * 33); // values below 2^top: from all zeros to full 32-bit words
      const length = 1 + Math.floor(random() * (random() < 0.5 ? 4 : 200));
      // uniform, crowded toward 0 (a product of uniforms), or a few large among small ones
      const shape = list % 3;
      const values = Array.from({ length }, () => {
        const u = shape === 0 ? random() : shape === 1 ? random() * random() * random() : random() < 0.1 ? random() : random() / 4096;
        return Math.min(2 ** 32 - 1, Math.floor(u * 2 ** top));
      });
      const maxK = [31, 16, 4, Math.floor(random() * 32)][list % 4]!;
      expect(bestRiceK(values, maxK)).toEqual(tryEvery(values, maxK));
      tried++;
    }
    expect(tried).toBe(3000);
    // and every list of one to three values below 32, where ties between two k are common
    const small: number[][] = [];
    for (let a = 0; a < 32; a++) {
      small.push([a]);
      for (let b = 0; b < 32; b++) {
        small.push([a, b]);
        for (let c = 0; c < 32; c++) small.push([a, b, c]);
      }
    }
    for (const values of small) for (const maxK of [1, 3, 31]) expect(bestRiceK(values, maxK)).toEqual(tryEvery(values, maxK));
  });

  it('reads back what it writes, for every k from 0 to 31, from any starting bit (seeded)', () => {
    const random = mulberry32(35);
    for (let k = 0; k <= 31; k++) {
      const codes: [number, number][] = Array.from({ length: 50 }, () => [Math.floor(random() * 2 ** Math.min(k + 3, 32)), k]);
      const start = Math.floor(random() * 8);
      const size = codes.reduce((sum, [value]) => sum + riceSize(value, k), 0);
      const out = new Uint8Array(Math.ceil((start + size) / 8));
      const writer = new RiceWriter(out, start);
      for (const [value] of codes) writer.write(value, k);
      expect(writer.bit).toBe(start + size);
      const reader = new RiceReader(out, start, cut);
      expect(codes.map(() => reader.next(k))).toEqual(codes.map(([value]) => value));
      expect(reader.bit).toBe(start + size);
    }
  });

  it.each<[string, number[], number]>([
    ['inside a quotient', [0b1111_1111], 0],
    ['inside a remainder', [0b0101_0101], 8],
    ['no bytes', [], 0],
  ])('says where the bytes end: %s', (_, bytes, k) => {
    expect(() => new RiceReader(Uint8Array.from(bytes), 0, () => new RangeError('the bytes end inside a code')).next(k)).toThrow(new RangeError('the bytes end inside a code'));
  });
});
