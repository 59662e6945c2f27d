// A chunk of sorted runs (lib/index/runs.ts) as the `runs` object store keeps it: bytes, where the
// runs read and write 32-bit words. A chunk's entries are sorted by their first word, so the keys
// are written as Rice-coded gaps, and each other word of an entry as its offset from the column's
// smallest value in the fewest bits that hold the largest:
//
//   varint entries · byte stride · when entries > 0: 4 bytes first key · byte k · the other keys'
//   gaps, Rice(k) · for each other column: 4 bytes smallest · byte width · entries × width bits
//   · 0 bits to a byte's end
//
// Multi-byte numbers are big-endian. A table's keys (permuted simhash bits) and the url tree's
// (URL hashes) are close to evenly spread, so a gap takes about log2(2^32 / entries in the run)
// + 2 bits where a word took 32, and page ids take the bits of the largest id.
import { RiceReader, RiceWriter, bestRiceK } from '../fingerprint/rice';
import { readVarint, varintSize, writeVarint } from '../fingerprint/varint';
import type { RunChunkKey, RunReader, RunStore } from './runs';

/** The widest entry a chunk may hold (the trees use 2 to 4 words). */
const MAX_STRIDE = 16;

/** The bytes' 32-bit words (big-endian), at any byte. */
const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The bytes of a chunk of `stride`-word entries sorted by their first word (the format above). */
export function encodeRunChunk(words: Uint32Array, stride: number): Uint8Array {
  if (!Number.isInteger(stride) || stride < 1 || stride > MAX_STRIDE) throw new RangeError(`a run chunk's entries are 1 to ${MAX_STRIDE} words: got ${stride}`);
  if (words.length % stride !== 0) throw new RangeError(`${words.length} words are not whole entries of ${stride}`);
  const entries = words.length / stride;
  const head = varintSize(entries) + 1;
  if (entries === 0) {
    const out = new Uint8Array(head);
    out[writeVarint(out, 0, 0)] = stride;
    return out;
  }
  const gaps = new Float64Array(entries - 1);
  for (let e = 1; e < entries; e++) {
    const gap = words[e * stride]! - words[(e - 1) * stride]!;
    if (gap < 0) throw new RangeError(`a run chunk's entry ${e} has a key below the one before it`);
    gaps[e - 1] = gap;
  }
  const { k, bits: gapBits } = bestRiceK(gaps, 31);
  const columns: { smallest: number; width: number }[] = [];
  let columnBits = 0;
  for (let c = 1; c < stride; c++) {
    let smallest = 0xffff_ffff;
    let largest = 0;
    for (let e = 0; e < entries; e++) {
      const w = words[e * stride + c]!;
      if (w < smallest) smallest = w;
      if (w > largest) largest = w;
    }
    const width = 32 - Math.clz32(largest - smallest);
    columns.push({ smallest, width });
    columnBits += width * entries;
  }
  const out = new Uint8Array(head + 5 + (stride - 1) * 5 + Math.ceil((gapBits + columnBits) / 8));
  const data = view(out);
  let at = writeVarint(out, 0, entries);
  out[at++] = stride;
  data.setUint32(at, words[0]!);
  out[at + 4] = k;
  at += 5;
  for (const { smallest, width } of columns) {
    data.setUint32(at, smallest);
    out[at + 4] = width;
    at += 5;
  }
  const writer = new RiceWriter(out, at * 8);
  for (let i = 0; i < gaps.length; i++) writer.write(gaps[i]!, k);
  columns.forEach(({ smallest, width }, i) => {
    for (let e = 0; e < entries; e++) writer.bits(words[e * stride + i + 1]! - smallest, width);
  });
  return out;
}

/** The words of a chunk's bytes (encodeRunChunk); a RangeError saying what is wrong if they are damaged. */
export function decodeRunChunk(bytes: Uint8Array): Uint32Array {
  const count = readVarint(bytes, 0, 5);
  const entries = count.value;
  if (count.end >= bytes.length) throw new RangeError('the bytes end inside the head');
  const stride = bytes[count.end]!;
  if (stride < 1 || stride > MAX_STRIDE) throw new RangeError(`an entry of ${stride} words`);
  let at = count.end + 1;
  if (entries === 0) {
    if (at !== bytes.length) throw new RangeError(`${bytes.length - at} bytes past the entries`);
    return new Uint32Array(0);
  }
  const heads = 5 * stride;
  if (at + heads > bytes.length) throw new RangeError('the bytes end inside the head');
  // every key after the first takes a bit at least: a count past the bits is damage, not a size to allocate
  if (entries - 1 > (bytes.length - at - heads) * 8) throw new RangeError(`${entries} entries in ${bytes.length} bytes`);
  const words = new Uint32Array(entries * stride);
  const k = bytes[at + 4]!;
  if (k > 31) throw new RangeError(`the keys' Rice parameter ${k} is past 31`);
  const data = view(bytes);
  let key = data.getUint32(at);
  words[0] = key;
  at += 5;
  const columns: { smallest: number; width: number }[] = [];
  for (let c = 1; c < stride; c++, at += 5) {
    const width = bytes[at + 4]!;
    if (width > 32) throw new RangeError(`column ${c} is ${width} bits wide`);
    columns.push({ smallest: data.getUint32(at), width });
  }
  const reader = new RiceReader(bytes, at * 8, () => new RangeError('the bytes end inside an entry'));
  for (let e = 1; e < entries; e++) {
    key += reader.next(k);
    if (key > 0xffff_ffff) throw new RangeError(`entry ${e}'s key is past 32 bits`);
    words[e * stride] = key;
  }
  columns.forEach(({ smallest, width }, i) => {
    for (let e = 0; e < entries; e++) {
      const w = smallest + reader.bits(width);
      if (w > 0xffff_ffff) throw new RangeError(`entry ${e}'s word ${i + 1} is past 32 bits`);
      words[e * stride + i + 1] = w;
    }
  });
  if (reader.end < bytes.length) throw new RangeError(`${bytes.length - reader.end} bytes past the entries`);
  if (!reader.paddedWithZeros()) throw new RangeError('the last byte has bits past the entries');
  return words;
}

/** The error for a damaged chunk: its key, or the tree read whole, and what is wrong. */
function damaged(chunk: RunChunkKey | { tree: number }, why: string): RangeError {
  return new RangeError(`Doppel's stored run chunk ${Array.isArray(chunk) ? chunk.join('/') : `of tree ${chunk.tree}`} is damaged: ${why}.`);
}

/** A chunk value as read from the store, decoded; a RangeError naming the chunk (its key, or the tree read whole) if it is damaged. */
export function runChunkWords(value: unknown, chunk: RunChunkKey | { tree: number }): Uint32Array {
  if (!(value instanceof Uint8Array)) throw damaged(chunk, 'it is not bytes');
  try {
    return decodeRunChunk(value);
  } catch (error) {
    throw damaged(chunk, (error as Error).message);
  }
}

/** What reading the `runs` object store needs, in any transaction: its values are the chunks' bytes. */
export interface RunChunkReader {
  get(key: RunChunkKey): Promise<unknown>;
}

/** What writing and merging need of it too, in a readwrite transaction. */
export interface RunChunkStore extends RunChunkReader {
  put(value: Uint8Array, key: RunChunkKey): Promise<unknown>;
  getAll(range: IDBKeyRange): Promise<unknown[]>;
  delete(range: IDBKeyRange): Promise<unknown>;
}

/** The runs over the `runs` object store: chunks encoded as they are written and decoded as they are read. */
export function runChunks(store: RunChunkStore): RunStore;
export function runChunks(store: RunChunkReader): RunReader;
export function runChunks(store: RunChunkReader | RunChunkStore): RunReader | RunStore {
  const get = async (key: RunChunkKey): Promise<Uint32Array | undefined> => {
    const value = await store.get(key);
    return value === undefined ? undefined : runChunkWords(value, key);
  };
  if (!('put' in store)) return { get };
  return {
    get,
    put: (words, key, stride) => store.put(encodeRunChunk(words, stride), key),
    getAll: async (range) => (await store.getAll(range)).map((value) => runChunkWords(value, { tree: (range.lower as RunChunkKey)[0] })),
    delete: (range) => store.delete(range),
  };
}
