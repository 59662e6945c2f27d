import { describe, expect, it } from 'vitest';
import { MinHasher, estimateJaccard, minhashOfText, wordShingleHashes } from '../lib/fingerprint/minhash';
import { jaccard } from './support/shingles';
import { uint32s } from '../lib/random';

describe('word shingles', () => {
  it('are runs of 3 words, distinct and sorted, the same whatever the case, spacing and punctuation', () => {
    const a = wordShingleHashes('The cat sat on the mat.');
    expect(a.length).toBe(4); // the cat sat · cat sat on · sat on the · on the mat
    expect([...a]).toEqual([...a].sort((x, y) => x - y));
    expect([...wordShingleHashes('the  CAT sat,on the\nmat')]).toEqual([...a]);
    expect([...wordShingleHashes('the cat sat on the mat the cat sat')].length).toBe(6);
  });

  it('order matters within a shingle', () => {
    expect([...wordShingleHashes('cat the sat')]).not.toEqual([...wordShingleHashes('the cat sat')]);
  });

  it('a short text is one shingle; a text without words has none', () => {
    expect(wordShingleHashes('hello world').length).toBe(1);
    expect(wordShingleHashes(' ,; ').length).toBe(0);
    expect(wordShingleHashes('one two three four', 1).length).toBe(4);
    expect(() => wordShingleHashes('x', 0)).toThrow(/positive integer/);
  });
});

describe('MinHasher', () => {
  it('is reproducible: the same seed gives the same functions and signatures', () => {
    const values = Uint32Array.from([1, 2, 3, 400000, 0xffffffff]);
    expect([...new MinHasher(16, 9).signature(values)!]).toEqual([...new MinHasher(16, 9).signature(values)!]);
    expect([...new MinHasher(16, 9).signature(values)!]).not.toEqual([...new MinHasher(16, 10).signature(values)!]);
  });

  it('row i is the least h_i over the set, and each h_i is odd-multiplied', () => {
    const hasher = new MinHasher(8, 3);
    const values = [5, 77, 123456, 42];
    const signature = hasher.signature(values)!;
    for (let i = 0; i < 8; i++) {
      expect(signature[i]).toBe(Math.min(...values.map((v) => hasher.hash(i, v))));
      expect(hasher.multipliers[i]! & 1).toBe(1);
    }
  });

  it('h_i is a permutation: distinct inputs never collide (checked on 2^16 inputs)', () => {
    const hasher = new MinHasher(2, 1);
    const seen = new Set<number>();
    for (let x = 0; x < 1 << 16; x++) seen.add(hasher.hash(1, x * 65537));
    expect(seen.size).toBe(1 << 16);
  });

  it('the empty set has no signature; bad sizes are refused', () => {
    expect(new MinHasher(4).signature([])).toBeNull();
    expect(() => new MinHasher(0)).toThrow(/1 to 4096 rows/);
    expect(() => estimateJaccard(new Uint32Array(2), new Uint32Array(3))).toThrow(/different lengths/);
  });

  it('estimates Jaccard within 3.5 standard errors on seeded sets (256 rows)', () => {
    const next = uint32s(77);
    const hasher = new MinHasher(256, 4);
    for (const [shared, only] of [[0, 50], [10, 45], [50, 25], [90, 5], [100, 0]] as const) {
      const common = Array.from({ length: shared }, next);
      const a = new Set([...common, ...Array.from({ length: only }, next)]);
      const b = new Set([...common, ...Array.from({ length: only }, next)]);
      const exact = jaccard(a, b);
      const estimate = estimateJaccard(hasher.signature([...a])!, hasher.signature([...b])!);
      const standardError = Math.sqrt((exact * (1 - exact)) / 256);
      expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(3.5 * standardError + 1e-9);
    }
  });

  it('minhashOfText: the same words give the same signature, no words give none', () => {
    expect([...minhashOfText('One small step for a man.')!]).toEqual([...minhashOfText('one small STEP for a man')!]);
    expect(minhashOfText('!!!')).toBeNull();
  });
});
