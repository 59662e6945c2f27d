// The rewrite index's posting buckets as bytes: the same entries as lib/index/postings.ts's
// buckets ([high, page id], sorted), with a few highs to a bucket and no flags, written as
// Golomb–Rice codes of the gaps between a high's page ids.
//
//   varint entries · [byte k · 2^highBits × varint entries of that high · Rice codes of the gaps]
//
// A rewrite hash is on a few dozen of a million pages, so a high's ids are far apart: about
// 2^20 / 27 at a million pages, which a varint writes in 3 bytes and a Rice code in about 17 bits
// (the rewrite fingerprints' own codes: lib/fingerprint/rewrite-codec.ts; both read and written by
// lib/fingerprint/rice.ts).
import { type Bucket, EMPTY_BUCKET } from './postings';
import { RiceReader, RiceWriter, riceSize } from '../fingerprint/rice';
import { readVarint, varintSize, writeVarint } from '../fingerprint/varint';

const MAX_ID = 0xffff_ffff;

/** The Rice parameter for `entries` ids up to `maxId` spread over `highs` highs: log2 of the mean gap × ln 2. */
function riceBits(entries: number, maxId: number, highs: number): number {
  const meanGap = ((maxId + 1) * highs) / entries;
  return Math.max(0, Math.min(31, Math.floor(Math.log2(meanGap * Math.LN2))));
}

/** The bucket's bytes (the format above); a RangeError if its highs do not fit `highBits` bits. */
export function encodeRiceBucket({ highs, ids, flagged }: Bucket, highBits: number): Uint8Array {
  if (flagged.length > 0) throw new RangeError('a rewrite bucket has no flagged hashes');
  const entries = highs.length;
  if (entries === 0) return Uint8Array.of(0);
  const slots = 2 ** highBits;
  const counts = new Array<number>(slots).fill(0);
  let maxId = 0;
  for (let i = 0; i < entries; i++) {
    const high = highs[i]!;
    if (high >= slots) throw new RangeError(`a rewrite bucket's high ${high} does not fit ${highBits} bits`);
    counts[high]!++;
    maxId = Math.max(maxId, ids[i]!);
  }
  const k = riceBits(entries, maxId, slots);
  const gapAt = (i: number): number => (i > 0 && highs[i] === highs[i - 1] ? ids[i]! - ids[i - 1]! - 1 : ids[i]!);
  let bitCount = 0;
  for (let i = 0; i < entries; i++) {
    const gap = gapAt(i);
    if (gap < 0 || (i > 0 && highs[i]! < highs[i - 1]!)) throw new RangeError(`a rewrite bucket's entries are not sorted, each once (entry ${i})`);
    bitCount += riceSize(gap, k);
  }
  let headSize = varintSize(entries) + 1;
  for (const c of counts) headSize += varintSize(c);
  const out = new Uint8Array(headSize + Math.ceil(bitCount / 8));
  let at = writeVarint(out, 0, entries);
  out[at++] = k;
  for (const c of counts) at = writeVarint(out, at, c);
  const writer = new RiceWriter(out, at * 8);
  for (let i = 0; i < entries; i++) writer.write(gapAt(i), k);
  return out;
}

/** A bucket from its bytes; a RangeError that says what is wrong if they are not one. */
export function decodeRiceBucket(bytes: Uint8Array, highBits: number): Bucket {
  const { value: entries, end } = readVarint(bytes, 0);
  if (entries === 0) {
    if (end !== bytes.length) throw new RangeError(`an empty bucket has ${bytes.length - end} bytes past its count`);
    return EMPTY_BUCKET;
  }
  if (entries > bytes.length * 8) throw new RangeError('a bucket counts more entries than its bytes can hold');
  if (end >= bytes.length) throw new RangeError('the bytes end inside the bucket\'s head');
  const k = bytes[end]!;
  if (k > 31) throw new RangeError(`a bucket's Rice parameter ${k} is past 31`);
  let at = end + 1;
  const slots = 2 ** highBits;
  const highs = new Uint16Array(entries);
  let filled = 0;
  for (let high = 0; high < slots; high++) {
    const c = readVarint(bytes, at);
    at = c.end;
    if (filled + c.value > entries) throw new RangeError('a bucket\'s highs hold more entries than it counts');
    highs.fill(high, filled, filled + c.value);
    filled += c.value;
  }
  if (filled !== entries) throw new RangeError(`a bucket's highs hold ${filled} entries, not the ${entries} it counts`);
  const ids = new Uint32Array(entries);
  const reader = new RiceReader(bytes, at * 8, () => new RangeError('the bytes end inside an entry'));
  for (let i = 0; i < entries; i++) {
    const gap = reader.next(k);
    const id = i > 0 && highs[i] === highs[i - 1] ? ids[i - 1]! + 1 + gap : gap;
    if (id > MAX_ID) throw new RangeError('a bucket entry\'s page id is past 32 bits');
    ids[i] = id;
  }
  if (reader.end < bytes.length) throw new RangeError(`a bucket has ${bytes.length - reader.end} bytes past its entries`);
  if (!reader.paddedWithZeros()) throw new RangeError('a bucket\'s last byte has bits past its entries');
  return { highs, ids, flagged: EMPTY_BUCKET.flagged };
}
