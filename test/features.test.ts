// Features and fingerprints: the fast 64-bit path against the generic simhash, and the
// properties fingerprintText and confirmsNearDuplicate promise.
import { describe, expect, it } from 'vitest';
import {
  CHECK_MAX_DISTANCE,
  DEFAULT_FEATURES,
  PLAIN_TF_FEATURES,
  confirmsNearDuplicate,
  countFeatures,
  fingerprintText,
  weightOf,
} from '../lib/fingerprint/features';
import {
  type Fingerprint,
  asFingerprint,
  fingerprintFromHex,
  fingerprintHalves,
  fingerprintToHex,
  hammingDistance,
} from '../lib/fingerprint/bits';
import { hash64 } from '../lib/fingerprint/hash';
import { mulberry32 } from '../lib/random';
import { Simhash64, simhash, simhashVector } from '../lib/fingerprint/simhash';
import { WORD, forEachToken, normalizeText } from '../lib/text/words';

const rng = mulberry32;

/** The 64-bit feature hash as one bigint, hi << 32 | lo. */
const hash64Big = (feature: string): bigint => {
  const { hi, lo } = hash64(feature);
  return (BigInt(hi) << 32n) | BigInt(lo);
};

/** fp with the given bit positions (0 = least significant) flipped. */
function flipBits(fp: Fingerprint, bits: readonly number[]): Fingerprint {
  let x: bigint = fp;
  for (const b of bits) x ^= 1n << BigInt(b);
  return asFingerprint(x);
}

function randomFingerprint(next: () => number): Fingerprint {
  const hi = Math.floor(next() * 2 ** 32);
  const lo = Math.floor(next() * 2 ** 32);
  return asFingerprint((BigInt(hi) << 32n) | BigInt(lo));
}

describe('Simhash64 equals the generic simhash with bits = 64 and hash = hi << 32 | lo', () => {
  it.each([
    ['integer weights', 1, (next: () => number) => 1 + Math.floor(next() * 10)],
    ['fractional weights', 2, (next: () => number) => Math.sqrt(1 + Math.floor(next() * 50))],
    ['weight 1 (a set)', 3, () => 1],
    ['few features', 4, (next: () => number) => 1 + Math.floor(next() * 3)],
  ])('%s (seed %i)', (_name, seed, weight) => {
    const next = rng(seed);
    const count = seed === 4 ? 3 : 500;
    const features: [string, number][] = [];
    for (let i = 0; i < count; i++) features.push([`f${Math.floor(next() * 1e9).toString(36)}`, weight(next)]);

    const fast = new Simhash64();
    for (const [f, w] of features) {
      const { hi, lo } = hash64(f);
      fast.add(hi, lo, w);
    }
    const options = { bits: 64, hash: hash64Big };
    // Votes agree exactly for integer weights; fractional sums are added in another order
    // (2 · set − total against ±w), so they agree to rounding.
    const generic = simhashVector(features, options);
    fast.vector().forEach((vote, i) => expect(Math.abs(vote - generic[i]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(generic[i]!))));
    if (features.every(([, w]) => Number.isInteger(w))) expect(fast.vector()).toEqual(generic);
    expect(fast.fingerprint()).toBe(simhash(features, options));
  });

  it('a tie (vote exactly 0) gives bit 0 on both paths', () => {
    // Two features whose hashes are complements cancel on every bit.
    const fast = new Simhash64();
    fast.add(0x12345678, 0x9abcdef0, 2);
    fast.add(~0x12345678 >>> 0, ~0x9abcdef0 >>> 0, 2);
    expect(fast.vector()).toEqual(new Array(64).fill(0));
    expect(fast.fingerprint()).toBe(0n);
    const hashes = new Map([
      ['a', 0x123456789abcdef0n],
      ['b', 0xedcba9876543210fn],
    ]);
    expect(simhash([['a', 2], ['b', 2]], { bits: 64, hash: (f) => hashes.get(f)! })).toBe(0n);
  });

  it('bit order: the first vote is the most significant bit', () => {
    const fast = new Simhash64();
    fast.add(0x80000000, 0x00000001, 1);
    expect(fast.fingerprint()).toBe(0x8000000000000001n);
  });

  it("fingerprintText's simhash is the generic simhash of its words' term frequencies", () => {
    const text = 'The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away, quick as ever. A B c';
    const normalized = normalizeText(text);
    const tf = new Map<string, number>();
    forEachToken(normalized, (start, end, kind) => {
      if (kind === WORD && end - start < DEFAULT_FEATURES.minWordLength) return;
      const w = normalized.slice(start, end);
      tf.set(w, (tf.get(w) ?? 0) + 1);
    });
    expect(tf.get('the')).toBe(4);
    expect(tf.has('a')).toBe(false);
    expect(fingerprintText(text).simhash).toBe(simhash(tf, { bits: 64, hash: hash64Big }));
  });
});

describe('fingerprint format', () => {
  it('is 16 lowercase hex digits, zero-padded', () => {
    expect(fingerprintToHex(fingerprintText('Hello there, general reader').simhash)).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprintToHex(asFingerprint(1n))).toBe('0000000000000001');
    expect(fingerprintToHex(asFingerprint((1n << 64n) - 1n))).toBe('ffffffffffffffff');
  });

  it('round-trips through hex and through 32-bit halves', () => {
    const next = rng(7);
    for (let i = 0; i < 50; i++) {
      const fp = randomFingerprint(next);
      expect(fingerprintFromHex(fingerprintToHex(fp))).toBe(fp);
      const { hi, lo } = fingerprintHalves(fp);
      expect((BigInt(hi) << 32n) | BigInt(lo)).toBe(fp);
    }
  });

  it.each(['ABCDEF0123456789', 'abc', '0x0123456789abcd', '0123456789abcdef0', ' 0123456789abcde'])(
    'rejects %j',
    (hex) => {
      expect(() => fingerprintFromHex(hex)).toThrow(SyntaxError);
    },
  );

  it('rejects values outside 64 bits', () => {
    expect(() => asFingerprint(-1n)).toThrow(RangeError);
    expect(() => asFingerprint(1n << 64n)).toThrow(RangeError);
  });
});

describe('fingerprintText', () => {
  const article =
    'The council approved the new ferry timetable on Tuesday after a long debate about costs. ' +
    'Boats will leave the harbour every ninety minutes in summer and four times a day in winter. ' +
    'Residents said the crossing would save them hours each week, while opponents worried about noise.';

  it('is deterministic', () => {
    const a = fingerprintText(article);
    const b = fingerprintText(article);
    expect(b).toEqual(a);
    expect(a.tokens).toBe(45); // 47 words, less the two single-letter 'a'
  });

  it('ignores case, NFKC variants and invisible characters', () => {
    const variant = article.toUpperCase().replace('ferry', 'fe\u00adrry').replace('harbour', 'ｈａｒｂｏｕｒ');
    expect(fingerprintText(variant)).toEqual(fingerprintText(article));
  });

  it.each(['', '   \n\n  ', '… — !!! ★ 😀'])('a text without words (%j) has 0 tokens and zero fingerprints', (text) => {
    expect(fingerprintText(text)).toEqual({ simhash: 0n, check: 0n, tokens: 0 });
  });

  it.each<[string, string, number, number]>([
    // [name, text, tokens with DEFAULT_FEATURES, tokens with PLAIN_TF_FEATURES]
    ['single-letter words and the s of "it\'s" are dropped', "a b c it's I x", 1, 7],
    ['single digits are dropped, longer numbers kept', '7 42 2024 x9', 3, 4],
    ['two-letter words are kept', 'to be or not to be', 6, 6],
    ['Chinese single characters are kept (3 characters + 2 bigrams)', '葫芦娃', 5, 5],
    ['a lone Han character is kept', '中', 1, 1],
    ['Thai words are kept whatever their length', 'สวัสดีครับ', 2, 2],
  ])('%s', (_name, text, defaultTokens, plainTokens) => {
    expect(fingerprintText(text).tokens).toBe(defaultTokens);
    expect(fingerprintText(text, PLAIN_TF_FEATURES).tokens).toBe(plainTokens);
  });

  it('plain tf options differ from the defaults only in minWordLength', () => {
    expect(PLAIN_TF_FEATURES.minWordLength).toBe(1);
    expect(DEFAULT_FEATURES.minWordLength).toBe(2);
    expect({ ...PLAIN_TF_FEATURES, minWordLength: DEFAULT_FEATURES.minWordLength }).toEqual(DEFAULT_FEATURES);
    // A text without single-character words fingerprints the same under both.
    expect(fingerprintText(article.replace(/\ba\b/g, 'one'), PLAIN_TF_FEATURES)).toEqual(
      fingerprintText(article.replace(/\ba\b/g, 'one')),
    );
    // With single-character words (two 'a'), they differ.
    expect(fingerprintText(article, PLAIN_TF_FEATURES).tokens).toBe(fingerprintText(article).tokens + 2);
    expect(fingerprintText(article, PLAIN_TF_FEATURES).simhash).not.toBe(fingerprintText(article).simhash);
  });

  it('identical texts are 0 bits apart on both fingerprints', () => {
    const a = fingerprintText(article);
    const b = fingerprintText(String(article));
    expect(hammingDistance(a.simhash, b.simhash)).toBe(0);
    expect(hammingDistance(a.check, b.check)).toBe(0);
  });

  it('appending a paragraph in an unrelated language moves both fingerprints', () => {
    const russian =
      '\n\nВ понедельник в городе прошёл сильный дождь, и многие улицы были затоплены. ' +
      'Жители просят администрацию отремонтировать старую систему водостоков до наступления осени.';
    const a = fingerprintText(article);
    const b = fingerprintText(article + russian);
    expect(b.tokens).toBe(a.tokens + 19); // 22 words, less в, и and В
    expect(hammingDistance(a.simhash, b.simhash)).toBeGreaterThan(0);
    expect(hammingDistance(a.check, b.check)).toBeGreaterThan(0);
  });
});

describe('countFeatures', () => {
  it('counts each distinct word once, with its frequency', () => {
    const { features, tokens } = countFeatures(normalizeText('The cat and the dog and THE bird'));
    expect(tokens).toBe(8);
    expect(features.size).toBe(5);
    expect(features.countOf(hash64('the'))).toBe(3);
    expect(features.countOf(hash64('and'))).toBe(2);
    expect(features.countOf(hash64('cat'))).toBe(1);
    expect(features.countOf(hash64('cow'))).toBe(0);
  });

  it('keeps every distinct feature as the table grows past its first capacity', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);
    const { features, tokens } = countFeatures(normalizeText(words.join(' ') + ' ' + words.slice(0, 100).join(' ')));
    expect(tokens).toBe(5100);
    expect(features.size).toBe(5000);
    expect(features.countOf(hash64(words[0]!))).toBe(2);
    expect(features.countOf(hash64(words[4999]!))).toBe(1);
    let sum = 0;
    features.visit({ feature: (_hi, _lo, count) => (sum += count) });
    expect(sum).toBe(5100);
  });
});

describe('weightOf', () => {
  it.each([
    ['tf', 4, 4],
    ['sqrt', 4, 2],
    ['log', 1, 1],
    ['log', Math.E, 2],
    ['binary', 9, 1],
  ] as const)('%s(%f) = %f', (weighting, count, expected) => {
    expect(weightOf(count, weighting)).toBeCloseTo(expected, 12);
  });
});

describe('confirmsNearDuplicate', () => {
  it('CHECK_MAX_DISTANCE is 16', () => {
    expect(CHECK_MAX_DISTANCE).toBe(16);
  });

  const next = rng(42);
  const base = randomFingerprint(next);
  // Bits spread over both halves: 0, 4, 8, …
  const spread = (n: number): number[] => Array.from({ length: n }, (_, i) => (i * 4 + (i >= 16 ? 1 : 0)) % 64);

  it.each([
    [0, true],
    [1, true],
    [CHECK_MAX_DISTANCE - 1, true],
    [CHECK_MAX_DISTANCE, true],
    [CHECK_MAX_DISTANCE + 1, false],
    [32, false],
    [64, false],
  ])('%i bits apart → %s', (distance, expected) => {
    const bits = distance === 64 ? Array.from({ length: 64 }, (_, i) => i) : spread(distance);
    const other = flipBits(base, bits);
    expect(hammingDistance(base, other)).toBe(distance);
    expect(confirmsNearDuplicate(base, other)).toBe(expected);
    expect(confirmsNearDuplicate(other, base)).toBe(expected);
  });
});
