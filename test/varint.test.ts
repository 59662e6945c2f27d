// Varints (lib/fingerprint/varint.ts), the numbers of every byte format: exact bytes, sizes, and
// the two refusals.
import { describe, expect, it } from 'vitest';
import { readVarint, varintSize, writeVarint } from '../lib/fingerprint/varint';

describe('varints', () => {
  it.each([
    [0, [0x00]],
    [1, [0x01]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [16_383, [0xff, 0x7f]],
    [16_384, [0x80, 0x80, 0x01]],
    [2 ** 32 - 1, [0xff, 0xff, 0xff, 0xff, 0x0f]],
    [2 ** 53 - 1, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]],
  ])('%i is %j', (value, bytes) => {
    const out = new Uint8Array(10);
    expect(varintSize(value)).toBe(bytes.length);
    expect(writeVarint(out, 0, value)).toBe(bytes.length);
    expect([...out.subarray(0, bytes.length)]).toEqual(bytes);
    expect(readVarint(out, 0)).toEqual({ value, end: bytes.length });
  });

  it('reads and writes from the middle of the bytes', () => {
    const out = Uint8Array.of(9, 9, 0, 0, 9);
    expect(writeVarint(out, 2, 300)).toBe(4);
    expect([...out]).toEqual([9, 9, 0xac, 0x02, 9]);
    expect(readVarint(out, 2)).toEqual({ value: 300, end: 4 });
  });

  it('refuses bytes that end inside a number', () => {
    expect(() => readVarint(Uint8Array.of(0x80), 0)).toThrow('the bytes end inside a number');
    expect(() => readVarint(Uint8Array.of(), 0)).toThrow('the bytes end inside a number');
  });

  it('refuses a number longer than its format allows', () => {
    const nine = Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    expect(() => readVarint(nine, 0)).toThrow('a number is too long');
    const seven = Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    expect(readVarint(seven, 0)).toEqual({ value: 2 ** 42, end: 7 });
    expect(() => readVarint(seven, 0, 6)).toThrow('a number is too long');
    expect(readVarint(seven.subarray(1), 0, 6)).toEqual({ value: 2 ** 35, end: 6 });
  });
});
