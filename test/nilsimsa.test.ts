import { describe, expect, it } from 'vitest';
import {
  NILSIMSA_BYTES,
  TRAN,
  compareNilsimsa,
  nilsimsa,
  nilsimsaCounts,
  nilsimsaFromHex,
  nilsimsaOfText,
  nilsimsaPairs,
  nilsimsaToHex,
  trigramCount,
} from '../lib/fingerprint/nilsimsa';
import { mulberry32 } from '../lib/random';

describe('nilsimsa', () => {
  it('TRAN is a permutation of 0..255', () => {
    expect([...TRAN].sort((a, b) => a - b)).toEqual(Array.from({ length: 256 }, (_, i) => i));
  });

  it.each([
    [0, 0],
    [1, 0],
    [2, 0],
    [3, 1],
    [4, 4],
    [5, 12],
    [100, 772],
  ])('counts trigramCount(%i) = %i trigrams, as the window fills', (n, expected) => {
    expect(trigramCount(n)).toBe(expected);
    const bytes = new Uint8Array(n).map((_, i) => (i * 37 + 11) & 255);
    expect(nilsimsaCounts(bytes).reduce((s, c) => s + c, 0)).toBe(expected);
  });

  it('sets a bit exactly for the buckets counted above the mean', () => {
    const random = mulberry32(5);
    const bytes = new Uint8Array(3000).map(() => Math.floor(random() * 256));
    const counts = nilsimsaCounts(bytes);
    const mean = Math.floor(trigramCount(bytes.length) / 256);
    const code = nilsimsa(bytes);
    for (let i = 0; i < 256; i++) {
      const bit = (code[NILSIMSA_BYTES - 1 - (i >> 3)]! >> (i & 7)) & 1;
      expect(bit).toBe(counts[i]! > mean ? 1 : 0);
    }
  });

  it('round-trips hex and rejects what is not a code', () => {
    const hex = '773e2df0a02a319ec34a0b71d54029111da90838cbc20ecd3d2d4e18c25a3025';
    expect(nilsimsaToHex(nilsimsaFromHex(hex))).toBe(hex);
    expect(() => nilsimsaFromHex('773e')).toThrow(/64 hex digits/);
    expect(() => compareNilsimsa(new Uint8Array(31), new Uint8Array(32))).toThrow(/32 bytes/);
  });

  it.each([
    ['00'.repeat(32), '00'.repeat(32), 128],
    ['00'.repeat(32), 'ff'.repeat(32), -128],
    ['00'.repeat(32), '01' + '00'.repeat(31), 127],
    ['0f'.repeat(32), 'f0'.repeat(32), -128],
    ['ff'.repeat(16) + '00'.repeat(16), '00'.repeat(32), 0],
  ])('compares %s with %s at %i', (a, b, score) => {
    expect(compareNilsimsa(nilsimsaFromHex(a), nilsimsaFromHex(b))).toBe(score);
  });

  it('finds exactly the pairs an all-pairs compare finds, for every cut-off', () => {
    const random = mulberry32(11);
    const base = Array.from({ length: 6 }, () => new Uint8Array(32).map(() => Math.floor(random() * 256)));
    // Near copies: each base code with a few bits flipped.
    const codes: (Uint8Array | null)[] = [];
    for (let i = 0; i < 40; i++) {
      const code = base[i % base.length]!.slice();
      const flips = Math.floor(random() * 60);
      for (let f = 0; f < flips; f++) {
        const bit = Math.floor(random() * 256);
        code[bit >> 3]! ^= 1 << (bit & 7);
      }
      codes.push(i % 9 === 4 ? null : code);
    }
    for (const minScore of [-128, 0, 24, 60, 100, 128]) {
      const expected = [];
      for (let a = 0; a < codes.length; a++) {
        for (let b = a + 1; b < codes.length; b++) {
          if (!codes[a] || !codes[b]) continue;
          const score = compareNilsimsa(codes[a]!, codes[b]!);
          if (score >= minScore) expected.push({ a, b, score });
        }
      }
      expect(nilsimsaPairs(codes, minScore)).toEqual(expected);
    }
  });

  it('hashes text as UTF-8', () => {
    expect(nilsimsaToHex(nilsimsaOfText('café au lait'))).toBe(nilsimsaToHex(nilsimsa(new Uint8Array(Buffer.from('café au lait', 'utf8')))));
  });
});
