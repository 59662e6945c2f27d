// The passage fingerprints' byte format (lib/fingerprint/passage-codec.ts): exact bytes for a small page,
// round trips of real fingerprints, and every refusal with its reason.
import { describe, expect, it } from 'vitest';
import {
  MAX_PAGE_FINGERPRINTS,
  base64ToBytes,
  bytesToBase64,
  checkPassageBytes,
  decodePassageBytes,
  encodePassageBytes,
  forEachPassageHash,
  passageBytesFromVersion1,
  passageCount,
} from '../lib/fingerprint/passage-codec';
import { bitAt, packWordBits, passageFingerprints } from '../lib/fingerprint/passages';
import { mulberry32 } from '../lib/random';

const page = (words: number, positions: number[], hashes: number[]) => ({ words, positions: Int32Array.from(positions), hashes: Uint32Array.from(hashes) });

describe('encodePassageBytes', () => {
  it('writes words, count, the hashes\' Rice parameter, then Rice codes of each position step and hash', () => {
    const bytes = encodePassageBytes(page(300, [3, 20, 46], [0x01020304, 0xffffffff, 0]));
    // k 30 writes these three hashes shortest; steps 3, 16, 25 with 4 bits of remainder:
    // 0·0011 0·(30 bits of 0x01020304) · 10·1110 111·(30 ones) · 110·1001 0·(30 zeros), zeros to the byte's end
    expect([...bytes]).toEqual([0xac, 0x02, 3, 30, 24, 16, 32, 48, 72, 59, 255, 255, 255, 250, 64, 0, 0, 0, 0]);
    expect(decodePassageBytes(bytes)).toEqual(page(300, [3, 20, 46], [0x01020304, 0xffffffff, 0]));
  });

  it('turns version 1\'s bytes (a varint gap and 4 bytes of hash a fingerprint) into these, word bits and all', () => {
    const version1 = [0xac, 0x02, 3, 3, 1, 2, 3, 4, 17, 0xff, 0xff, 0xff, 0xff, 26, 0, 0, 0, 0];
    expect([...passageBytesFromVersion1(Uint8Array.from(version1))]).toEqual([...encodePassageBytes(page(300, [3, 20, 46], [0x01020304, 0xffffffff, 0]))]);
    expect(decodePassageBytes(passageBytesFromVersion1(Uint8Array.of(10, 1, 2, 1, 2, 3, 4, 0b1010_0101, 0b11)))).toEqual({ ...page(10, [2], [0x01020304]), wordBits: Uint8Array.of(0b1010_0101, 0b11) });
    expect([...passageBytesFromVersion1(Uint8Array.of(12, 0))]).toEqual([12, 0]);
  });

  it.each([
    ['bytes that end inside a hash', [10, 1, 0, 1, 2], 'the bytes end inside a hash'],
    ['two fingerprints at one position', [10, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2], 'at the position of the one before'],
    ['a position past the words', [3, 1, 3, 0, 0, 0, 1], 'past the 3 words'],
    ['a byte of word bits too many', [10, 1, 2, 1, 2, 3, 4, 0, 0, 0], '3 bytes of word bits for 10 words: they take 2'],
  ])('refuses version 1 bytes with %s', (_, bytes, why) => {
    expect(() => passageBytesFromVersion1(Uint8Array.from(bytes))).toThrow(why);
  });

  it('round-trips real fingerprints, and a page without any', () => {
    const random = mulberry32(7);
    const text = Array.from({ length: 2_000 }, () => `w${Math.floor(random() * 5_000)}`).join(' ');
    const f = passageFingerprints(text);
    expect(decodePassageBytes(encodePassageBytes(f))).toEqual({ words: f.words, hashes: f.hashes, positions: f.positions, wordBits: f.wordBits });
    // about 35 bits a fingerprint (a step of 5 or 6 bits, a hash of about 30) where version 1 took 40, then a bit a word
    const fingerprintBytes = encodePassageBytes(f).length - (2 + 2 + 1 + 2_000 / 8);
    expect(fingerprintBytes / f.hashes.length).toBeGreaterThan(4.2);
    expect(fingerprintBytes / f.hashes.length).toBeLessThan(4.6);
    expect(decodePassageBytes(encodePassageBytes({ words: f.words, hashes: f.hashes, positions: f.positions }))).toEqual({ words: f.words, hashes: f.hashes, positions: f.positions });
    expect(decodePassageBytes(encodePassageBytes(page(12, [], [])))).toEqual(page(12, [], []));
  });

  it('writes the word bits after the fingerprints, first word in the lowest bit, and reads bytes without them', () => {
    const bits = Uint8Array.of(0b1010_0101, 0b0000_0011); // 10 words
    const bytes = encodePassageBytes({ ...page(10, [2], [0x01020304]), wordBits: bits });
    // k 23; step 2 (0·0010), hash 0x01020304 (110·its low 23 bits): 31 bits, then the word bits
    expect([...bytes]).toEqual([10, 1, 23, 22, 4, 6, 8, 0b1010_0101, 0b0000_0011]);
    expect(decodePassageBytes(bytes)).toEqual({ ...page(10, [2], [0x01020304]), wordBits: bits });
    expect(decodePassageBytes(bytes.subarray(0, 7))).toEqual(page(10, [2], [0x01020304]));
    expect(packWordBits([0x8000_0000, 0, 0xffff_ffff, 0x7fff_ffff, 0x8000_0001])).toEqual(Uint8Array.of(0b1_0101));
    expect([0, 1, 2, 3, 4].map((i) => bitAt(Uint8Array.of(0b1_0101), i))).toEqual([1, 0, 1, 0, 1]);
  });

  it.each([
    ['a byte too many', [10, 1, 23, 22, 4, 6, 8, 0, 0, 0], '3 bytes of word bits for 10 words: they take 2'],
    ['a byte too few', [10, 1, 23, 22, 4, 6, 8, 0], '1 bytes of word bits for 10 words: they take 2'],
    ['a bit past the last word', [10, 1, 23, 22, 4, 6, 8, 0, 0b100], 'the word bits past the last word are not 0'],
  ])('refuses word bits with %s', (_, bytes, why) => {
    expect(() => decodePassageBytes(Uint8Array.from(bytes))).toThrow(why);
    expect(() => checkPassageBytes(Uint8Array.from(bytes))).toThrow(why);
  });

  it('forEachPassageHash gives the hashes in position order, as decoding does', () => {
    const random = mulberry32(8);
    const f = passageFingerprints(Array.from({ length: 3_000 }, () => `w${Math.floor(random() * 5_000)}`).join(' '));
    const seen: number[] = [];
    forEachPassageHash(encodePassageBytes(f), (h) => seen.push(h));
    expect(seen).toEqual([...f.hashes]);
  });

  it.each([
    ['positions that do not increase', page(50, [4, 4], [1, 2]), 'positions must increase'],
    ['a position past the words', page(5, [5], [1]), 'below the 5 words'],
    ['a negative position', page(5, [-1], [1]), 'positions must increase'],
    ['hashes and positions that differ in number', { words: 5, positions: Int32Array.of(1), hashes: new Uint32Array(0) }, '0 hashes for 1 positions'],
    ['a word count that is not whole', page(2.5, [], []), 'must be a whole number'],
  ])('refuses %s', (_, f, why) => {
    expect(() => encodePassageBytes(f)).toThrow(why);
  });

  it(`refuses more than ${MAX_PAGE_FINGERPRINTS} fingerprints`, () => {
    const n = MAX_PAGE_FINGERPRINTS + 1;
    expect(() => encodePassageBytes(page(n, Array.from({ length: n }, (_, i) => i), new Array(n).fill(1)))).toThrow(`at most ${MAX_PAGE_FINGERPRINTS} a page`);
  });
});

describe('checkPassageBytes', () => {
  it('gives the word count, the fingerprint count and the end, as decoding does', () => {
    const bytes = encodePassageBytes(page(300, [3, 20, 46], [1, 2, 3]));
    expect(checkPassageBytes(bytes)).toEqual({ words: 300, count: 3, fingerprintsEnd: bytes.length });
    expect(passageCount(bytes)).toBe(3);
  });
});

describe('decodePassageBytes and checkPassageBytes refuse damaged bytes', () => {
  it.each([
    ['bytes that end inside a hash', [10, 1, 23, 22], 'the bytes end inside a hash'],
    ['bytes that end before the Rice parameter', [10, 1], 'the bytes end inside a hash'],
    ['no bytes at all', [], 'the bytes end inside a number'],
    ['a Rice parameter past 31', [10, 1, 32, 0], "a hash's Rice parameter 32 is past 31"],
    ['a position past the words (step 3: 0·0011, hash 0: 0)', [3, 1, 0, 0b0001_1000], 'past the 3 words'],
    ['a hash past 32 bits (k 31, quotient 2)', [10, 1, 31, 0b0000_0110, 0, 0, 0, 0], "passage fingerprint 0's hash is past 32 bits"],
    ['bits set after the last hash', [10, 1, 1, 22, 0b1000_0001], 'the bits after the last hash are not 0'],
    ['a count past the limit', [10, 0xd1, 0x86, 0x03], `at most ${MAX_PAGE_FINGERPRINTS} a page`],
  ])('%s', (_, bytes, why) => {
    expect(() => decodePassageBytes(Uint8Array.from(bytes))).toThrow(why);
    expect(() => checkPassageBytes(Uint8Array.from(bytes))).toThrow(why);
  });
});

describe('base64', () => {
  it('round-trips every byte value, and long arrays', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(base64ToBytes(bytesToBase64(all))).toEqual(all);
    const long = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) & 0xff);
    expect(base64ToBytes(bytesToBase64(long))).toEqual(long);
    expect(bytesToBase64(Uint8Array.of(1, 2, 3, 4))).toBe('AQIDBA==');
    for (let n = 0; n <= 10; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => 250 - i * 23);
      expect(base64ToBytes(bytesToBase64(bytes))).toEqual(bytes); // no padding, one '=', two
    }
  });

  it.each(['AQID!A==', 'AQI', 'AQIDBA=x', 'A===', 'AQ=D', 'AQIé'])('refuses %j', (text) => {
    expect(() => base64ToBytes(text)).toThrow('not base64');
  });
});
