import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { decodeRunChunk, encodeRunChunk, runChunkWords, runChunks } from '../lib/index/run-chunks';
import { sortEntries } from '../lib/index/runs';
import { mulberry32 } from '../lib/random';

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');

describe('run chunks as bytes', () => {
  it.each<[string, number[], number, string]>([
    ['no entries', [], 4, '00 04'],
    // 1 entry: count, stride, first key, k 0; column 1: smallest 7, width 0; no codes
    ['one entry of 2 words', [0x01020304, 7], 2, '01 02 01 02 03 04 00 00 00 00 07 00'],
    // keys 10, 11, 13: gaps 1, 2 (k 0: 10, 110); ids 5, 6, 4: smallest 4, width 2 (01, 10, 00): 10110·01·10·00, then 0s
    ['three entries of 2 words', [10, 5, 11, 6, 13, 4], 2, '03 02 00 00 00 0a 00 00 00 00 04 02 b3 00'],
    // equal keys: gaps 0, 0 with k 0 (0, 0); the second column 9, 9, 9 takes no bits
    ['equal keys, a constant column', [3, 9, 3, 9, 3, 9], 2, '03 02 00 00 00 03 00 00 00 00 09 00 00'],
  ])('%s', (_, words, stride, bytes) => {
    const encoded = encodeRunChunk(Uint32Array.from(words), stride);
    expect(hex(encoded)).toBe(bytes);
    expect([...decodeRunChunk(encoded)]).toEqual(words);
  });

  it('reads back what it writes: seeded chunks of the trees\' shapes, from spread keys to one key repeated', () => {
    const random = mulberry32(0x7ee5);
    const word = (): number => Math.floor(random() * 2 ** 32);
    for (let round = 0; round < 200; round++) {
      const stride = 2 + (round % 3);
      const entries = Math.floor(random() * 600);
      const keySpace = [2 ** 32, 2 ** 20, 1, 0x1_0000][round % 4]!;
      const words = new Uint32Array(entries * stride);
      for (let e = 0; e < entries; e++) {
        words[e * stride] = Math.floor(random() * keySpace);
        for (let c = 1; c < stride; c++) words[e * stride + c] = c === stride - 1 ? Math.floor(random() * 1_000_000) : word();
      }
      const sorted = sortEntries(words, stride);
      const bytes = encodeRunChunk(sorted, stride);
      expect(decodeRunChunk(bytes)).toEqual(sorted);
      if (entries >= 16 && keySpace === 2 ** 32) expect(bytes.length).toBeLessThan(sorted.length * 4);
    }
  });

  it('keeps the largest words: keys up to 2^32 − 1, a column from 0 to 2^32 − 1', () => {
    const words = Uint32Array.from([0, 0xffff_ffff, 0xffff_fffe, 0, 0xffff_ffff, 0x8000_0000]);
    expect(decodeRunChunk(encodeRunChunk(words, 2))).toEqual(words);
  });

  it('refuses to write what it cannot read back', () => {
    expect(() => encodeRunChunk(Uint32Array.from([2, 0, 1, 0]), 2)).toThrow('entry 1 has a key below the one before it');
    expect(() => encodeRunChunk(Uint32Array.from([1, 2, 3]), 2)).toThrow('3 words are not whole entries of 2');
    expect(() => encodeRunChunk(new Uint32Array(0), 0)).toThrow('1 to 16 words');
  });

  const good = encodeRunChunk(Uint32Array.from([10, 5, 11, 6, 13, 4]), 2);
  it.each<[string, Uint8Array, string]>([
    ['no bytes', new Uint8Array(0), 'the bytes end inside a number'],
    ['a count and no stride', Uint8Array.from([3]), 'the bytes end inside the head'],
    ['a stride of 0', Uint8Array.from([0, 0]), 'an entry of 0 words'],
    ['an empty chunk with a byte after it', Uint8Array.from([0, 2, 0]), '1 bytes past the entries'],
    ['cut inside the head', good.subarray(0, 8), 'the bytes end inside the head'],
    ['a count past the bits', Uint8Array.from([...good.subarray(0, 1).map(() => 0x7f), ...good.subarray(1)]), '127 entries in 14 bytes'],
    ['cut inside the codes', good.subarray(0, 13), 'the bytes end inside an entry'],
    ['a byte too many', Uint8Array.from([...good, 0]), '1 bytes past the entries'],
    ['a one past the last code', Uint8Array.from([...good.subarray(0, 13), 0x01]), 'the last byte has bits past the entries'],
    ['a column 33 bits wide', Uint8Array.from([...good.subarray(0, 11), 33, ...good.subarray(12)]), 'column 1 is 33 bits wide'],
    ['a Rice parameter of 32', Uint8Array.from([...good.subarray(0, 6), 32, ...good.subarray(7)]), "the keys' Rice parameter 32 is past 31"],
    ['a key past 32 bits', Uint8Array.from([2, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x80]), "entry 1's key is past 32 bits"],
  ])('a damaged chunk: %s', (_, bytes, why) => {
    expect(() => decodeRunChunk(bytes)).toThrow(why);
  });

  it('names the chunk and what is wrong when the store holds damage', async () => {
    expect(() => runChunkWords(new Uint32Array(2), [5, 0, 1, 2])).toThrow("Doppel's stored run chunk 5/0/1/2 is damaged: it is not bytes.");
    expect(() => runChunkWords(Uint8Array.from([0, 2, 0]), { tree: 5 })).toThrow("Doppel's stored run chunk of tree 5 is damaged: 1 bytes past the entries.");
    const values = new Map<string, unknown>([['5,0,1,2', Uint8Array.from([9])]]);
    const runs = runChunks({ get: async (key) => values.get(key.join(',')) });
    await expect(runs.get([5, 0, 1, 2])).rejects.toThrow("Doppel's stored run chunk 5/0/1/2 is damaged: the bytes end inside the head.");
    expect(await runs.get([5, 0, 1, 3])).toBeUndefined();
  });

  it('writes encoded chunks through the store and reads them back as words', async () => {
    const values = new Map<string, unknown>();
    const runs = runChunks({
      get: async (key) => values.get(key.join(',')),
      put: async (value, key) => values.set(key.join(','), value),
      getAll: async () => [...values.values()],
      delete: async () => values.clear(),
    });
    const words = Uint32Array.from([1, 2, 3, 100, 200, 300]);
    await runs.put(words, [1, 0, 0, 0], 3);
    expect(values.get('1,0,0,0')).toBeInstanceOf(Uint8Array);
    expect(await runs.get([1, 0, 0, 0])).toEqual(words);
    expect(await runs.getAll(IDBKeyRange.lowerBound([0]))).toEqual([words]);
  });
});
