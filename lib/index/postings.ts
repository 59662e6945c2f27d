// The passage index's postings: which pages hold each passage-fingerprint hash, split into
// POSTING_BUCKETS buckets by the hash's low 16 bits, each bucket one value (lib/store/passages.ts
// keeps them in IndexedDB, a record a bucket). A lookup of a hash reads its one bucket: no run
// index, no levels. Pure: no IndexedDB here.
//
//   hash (32 bits):  hhhhhhhhhhhhhhhh bbbbbbbbbbbbbbbb
//                    high: in the bucket  low: the bucket's number
//
// The low bits choose the bucket because winnowing keeps the minimum of each window: its hashes
// crowd toward 0 in their high bits, while their low bits are spread evenly.
//
// A bucket's entries are [high, page id], sorted by high then id, each at most once. Beside them,
// the highs whose hash is boilerplate of one site (on at least BOILERPLATE.maxSitePages pages of
// one site: lib/index/passage-index.ts), which the store works out when a hash's pages change; a hash
// on more than BOILERPLATE.maxPages pages is boilerplate by its count alone.
//
// Value bytes: varints (lib/fingerprint/varint.ts), then, when there are entries, Golomb–Rice codes
// and fixed-width ids, bits filling each byte from its highest (lib/fingerprint/rice.ts):
//   entries · flagged · flagged × (high − the flagged high before) ·
//   byte k · byte idBits · entries × Rice(high − the high before, k) · entries × id in idBits bits
// The highs are close together (a few bits a gap); the ids of a bucket are spread evenly over the
// store's, so a fixed width, the largest id's, is as short as a code, and any entry's id can be
// read without the others'. About 3.1 bytes an entry at a million pages, where varints took 4.2.
import { RiceReader, RiceWriter, bestRiceK } from '../fingerprint/rice';
import { readVarint, varintSize, writeVarint } from '../fingerprint/varint';

export const POSTING_BUCKET_BITS = 16;
export const POSTING_BUCKETS = 2 ** POSTING_BUCKET_BITS;
const LOW_MASK = POSTING_BUCKETS - 1;

/** The bucket of a hash, and its part kept in the bucket. */
export function bucketOf(hash: number): number {
  return hash & LOW_MASK;
}
export function highOf(hash: number): number {
  return hash >>> POSTING_BUCKET_BITS;
}
/** The hash of `high` in `bucket`. */
export function hashOf(bucket: number, high: number): number {
  return ((high << POSTING_BUCKET_BITS) | bucket) >>> 0;
}

export interface Bucket {
  /** Entries' highs, ascending. */
  highs: Uint16Array;
  /** Entries' page ids, ascending within a high. */
  ids: Uint32Array;
  /** The highs marked as one site's boilerplate, ascending. */
  flagged: Uint16Array;
}

export const EMPTY_BUCKET: Bucket = { highs: new Uint16Array(0), ids: new Uint32Array(0), flagged: new Uint16Array(0) };

/** The first index in `sorted` (ascending) whose value is at least `value`. */
export function lowerBound(sorted: ArrayLike<number>, value: number, from = 0, to = sorted.length): number {
  while (from < to) {
    const mid = (from + to) >>> 1;
    if (sorted[mid]! < value) from = mid + 1;
    else to = mid;
  }
  return from;
}

/** The ids of the pages holding the hash `high` of this bucket, ascending (a view into the bucket). */
export function idsWith(bucket: Bucket, high: number): Uint32Array {
  const start = lowerBound(bucket.highs, high);
  const end = lowerBound(bucket.highs, high + 1, start);
  return bucket.ids.subarray(start, end);
}

/**
 * idsWith for highs asked in ascending order, as a bucket's change lists them: each search gallops
 * from where the last one ended (a few steps when the highs asked are dense, as in an import's
 * merge) instead of halving the whole bucket. A high asked out of order is searched from the start.
 */
export class HighCursor {
  private at = 0;
  private last = -1;

  constructor(private readonly bucket: Bucket) {}

  idsWith(high: number): Uint32Array {
    const end = this.seek(high);
    return this.bucket.ids.subarray(this.at, end);
  }

  /** How many pages hold `high` (as idsWith(high).length, without making the view: organising asks for tens of millions); `first` is then the first of them. */
  countWith(high: number): number {
    return this.seek(high) - this.at;
  }

  /** The first page holding the high last asked for (if any holds it). */
  get first(): number {
    return this.bucket.ids[this.at]!;
  }

  /** Moves to `high`'s entries: they start at `at`; returns where they end. */
  private seek(high: number): number {
    const { highs } = this.bucket;
    const start = gallop(highs, high, high >= this.last ? this.at : 0);
    this.at = start;
    this.last = high;
    return gallop(highs, high + 1, start);
  }
}

/** lowerBound(sorted, value), given that every entry before `from` is below value: probes at from, from + 1, + 2, + 4, … then halves the last stride. */
function gallop(sorted: ArrayLike<number>, value: number, from: number): number {
  let low = from;
  let probe = from;
  for (let stride = 1; probe < sorted.length && sorted[probe]! < value; stride *= 2) {
    low = probe + 1;
    probe = from + stride;
  }
  return lowerBound(sorted, value, low, Math.min(probe, sorted.length));
}

/** Whether the holders of a hash (`ids`, each page once; none when undefined) include a page other than `own`: the rule of a page's marks. */
export function heldByAnother(ids: ArrayLike<number> | undefined, own: number): boolean {
  if (ids === undefined) return false;
  for (let i = 0; i < ids.length; i++) if (ids[i] !== own) return true;
  return false;
}

export function isFlagged(bucket: Bucket, high: number): boolean {
  const at = lowerBound(bucket.flagged, high);
  return at < bucket.flagged.length && bucket.flagged[at] === high;
}

/** Bits of a Rice code of each of `gaps` (16-bit) with parameter k. */
/** The bucket's value bytes (the format at the top of the file). */
export function encodeBucket({ highs, ids, flagged }: Bucket): Uint8Array {
  let head = varintSize(highs.length) + varintSize(flagged.length);
  for (let i = 0; i < flagged.length; i++) head += varintSize(flagged[i]! - (i === 0 ? 0 : flagged[i - 1]!));
  if (highs.length === 0) {
    const out = new Uint8Array(head);
    writeHead(out, highs.length, flagged);
    return out;
  }
  const gaps = new Uint16Array(highs.length);
  let maxId = 0;
  for (let i = 0; i < highs.length; i++) {
    gaps[i] = highs[i]! - (i === 0 ? 0 : highs[i - 1]!);
    if (ids[i]! > maxId) maxId = ids[i]!;
  }
  // the highs crowd toward 0 unevenly: the k that writes them shortest
  const { k, bits: gapBits } = bestRiceK(gaps, 16);
  const idBits = 32 - Math.clz32(maxId);
  const out = new Uint8Array(head + 2 + Math.ceil((gapBits + idBits * highs.length) / 8));
  let at = writeHead(out, highs.length, flagged);
  out[at++] = k;
  out[at++] = idBits;
  const writer = new RiceWriter(out, at * 8);
  for (let i = 0; i < gaps.length; i++) writer.write(gaps[i]!, k);
  for (let i = 0; i < ids.length; i++) writer.bits(ids[i]!, idBits);
  return out;
}

function writeHead(out: Uint8Array, entries: number, flagged: Uint16Array): number {
  let at = writeVarint(out, 0, entries);
  at = writeVarint(out, at, flagged.length);
  for (let i = 0; i < flagged.length; i++) at = writeVarint(out, at, flagged[i]! - (i === 0 ? 0 : flagged[i - 1]!));
  return at;
}

/** A bucket from its value bytes; a RangeError that says what is wrong if they are not a bucket. */
export function decodeBucket(bytes: Uint8Array): Bucket {
  const entries = readVarint(bytes, 0);
  const flaggedCount = readVarint(bytes, entries.end);
  if (entries.value > bytes.length * 8 || flaggedCount.value > bytes.length) throw new RangeError('a bucket counts more entries than its bytes can hold');
  const flagged = new Uint16Array(flaggedCount.value);
  let at = flaggedCount.end;
  let high = 0;
  for (let i = 0; i < flagged.length; i++) {
    const d = readVarint(bytes, at);
    high += d.value;
    if ((i > 0 && d.value === 0) || high >= 2 ** 16) throw new RangeError('a bucket\'s flagged hashes are not increasing 16-bit values');
    flagged[i] = high;
    at = d.end;
  }
  const highs = new Uint16Array(entries.value);
  const ids = new Uint32Array(entries.value);
  if (entries.value === 0) {
    if (at !== bytes.length) throw new RangeError(`a bucket has ${bytes.length - at} bytes past its entries`);
    return { highs, ids, flagged };
  }
  if (at + 2 > bytes.length) throw new RangeError('the bytes end inside the bucket\'s head');
  const k = bytes[at]!;
  const idBits = bytes[at + 1]!;
  if (k > 16 || idBits > 32) throw new RangeError(`a bucket's code widths ${k} and ${idBits} are out of range`);
  const reader = new RiceReader(bytes, (at + 2) * 8, () => new RangeError('the bytes end inside an entry'));
  high = 0;
  for (let i = 0; i < highs.length; i++) {
    high += reader.next(k);
    if (high >= 2 ** 16) throw new RangeError('a bucket entry\'s hash is past 16 bits');
    highs[i] = high;
  }
  for (let i = 0; i < ids.length; i++) {
    ids[i] = reader.bits(idBits);
    if (i > 0 && highs[i] === highs[i - 1] && ids[i]! <= ids[i - 1]!) throw new RangeError('a bucket\'s ids of one hash are not increasing, each once');
  }
  if (reader.end < bytes.length) throw new RangeError(`a bucket has ${bytes.length - reader.end} bytes past its entries`);
  if (!reader.paddedWithZeros()) throw new RangeError('a bucket\'s last byte has bits past its entries');
  return { highs, ids, flagged };
}

/** A change to one bucket: entries [high, id] to add and to remove (a removal of an absent entry, or an addition of a present one, changes nothing). */
export interface BucketChange {
  add: ArrayLike<number>;
  remove: ArrayLike<number>;
}

/** Sorts [high, id] pairs (flat) and drops repeats; returns them as two arrays. */
export function sortedPairs(flat: ArrayLike<number>): { highs: Uint16Array; ids: Uint32Array } {
  const n = flat.length / 2;
  // pairs that come sorted (a visit's, a hash a bucket; organising's, byBucket sorts them), a repeat
  // next to its first, are taken as they are without the sort, the repeats dropped
  let ordered = true;
  for (let i = 1; i < n && ordered; i++) ordered = flat[2 * i]! > flat[2 * i - 2]! || (flat[2 * i] === flat[2 * i - 2] && flat[2 * i + 1]! >= flat[2 * i - 1]!);
  if (ordered) {
    const highs = new Uint16Array(n);
    const ids = new Uint32Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0 && flat[2 * i] === flat[2 * i - 2] && flat[2 * i + 1] === flat[2 * i - 1]) continue;
      highs[m] = flat[2 * i]!;
      ids[m] = flat[2 * i + 1]!;
      m++;
    }
    return m === n ? { highs, ids } : { highs: highs.subarray(0, m), ids: ids.subarray(0, m) };
  }
  // high (16 bits) × 2^32 + id is below 2^48: exact as a double, so one numeric sort orders both
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = flat[2 * i]! * 2 ** 32 + flat[2 * i + 1]!;
  keys.sort();
  const highs = new Uint16Array(n);
  const ids = new Uint32Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && keys[i] === keys[i - 1]) continue;
    highs[m] = Math.floor(keys[i]! / 2 ** 32);
    ids[m] = keys[i]! % 2 ** 32;
    m++;
  }
  return { highs: highs.subarray(0, m), ids: ids.subarray(0, m) };
}

/**
 * The bucket with `change` applied: removals first, then additions, the result sorted with each
 * entry once. The flags are kept (the store reconsiders the highs whose pages changed). `adding`:
 * the additions as sortedPairs gives them, when the caller has sorted them already.
 */
export function applyBucketChange(bucket: Bucket, { add, remove }: BucketChange, adding = sortedPairs(add)): Bucket {
  const removing = sortedPairs(remove);
  const total = bucket.highs.length + adding.highs.length;
  const highs = new Uint16Array(total);
  const ids = new Uint32Array(total);
  let n = 0;
  let r = 0;
  let a = 0;
  const cmp = (h1: number, i1: number, h2: number, i2: number): number => h1 - h2 || i1 - i2;
  const take = (high: number, id: number): void => {
    if (n > 0 && highs[n - 1] === high && ids[n - 1] === id) return;
    highs[n] = high;
    ids[n] = id;
    n++;
  };
  for (let e = 0; e < bucket.highs.length; e++) {
    const high = bucket.highs[e]!;
    const id = bucket.ids[e]!;
    while (a < adding.highs.length && cmp(adding.highs[a]!, adding.ids[a]!, high, id) < 0) take(adding.highs[a]!, adding.ids[a++]!);
    while (r < removing.highs.length && cmp(removing.highs[r]!, removing.ids[r]!, high, id) < 0) r++;
    if (r < removing.highs.length && removing.highs[r] === high && removing.ids[r] === id) continue;
    take(high, id);
  }
  while (a < adding.highs.length) take(adding.highs[a]!, adding.ids[a++]!);
  return { highs: highs.slice(0, n), ids: ids.slice(0, n), flagged: bucket.flagged };
}

/** The bucket with `high` flagged as one site's boilerplate (true) or not (false). */
export function withFlag(bucket: Bucket, high: number, flagged: boolean): Bucket {
  if (isFlagged(bucket, high) === flagged) return bucket;
  const list = [...bucket.flagged];
  if (flagged) list.splice(lowerBound(bucket.flagged, high), 0, high);
  else list.splice(lowerBound(bucket.flagged, high), 1);
  return { ...bucket, flagged: Uint16Array.from(list) };
}

/** The distinct highs of a bucket, each with how many pages hold it. */
export function* highCounts(bucket: Bucket): Generator<{ high: number; start: number; end: number }> {
  for (let start = 0; start < bucket.highs.length; ) {
    const high = bucket.highs[start]!;
    let end = start + 1;
    while (end < bucket.highs.length && bucket.highs[end] === high) end++;
    yield { high, start, end };
    start = end;
  }
}
