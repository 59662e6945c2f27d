// What organising (lib/store/passage-organise.ts) keeps in memory between its reads and writes:
// postings by bucket, and a slice of pages' fingerprints in bucket order. Pure: no IndexedDB here.
import { type Bucket, idsWith } from './postings';

/** A growable array of 32-bit words. */
export class Words {
  data = new Uint32Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * The postings of a pass by bucket (a counting sort on the bucket, keys[i] >>> 16): `pairs` holds
 * [high16, id] of bucket low + j at pairs[2 · starts[j]] up to pairs[2 · starts[j + 1]].
 */
export function byBucket(keys: Uint32Array, ids: Uint32Array, buckets: number): { starts: Uint32Array; pairs: Uint32Array } {
  const starts = new Uint32Array(buckets + 1);
  for (let i = 0; i < keys.length; i++) starts[(keys[i]! >>> 16) + 1]!++;
  for (let j = 0; j < buckets; j++) starts[j + 1]! += starts[j]!;
  const next = starts.slice(0, buckets);
  const pairs = new Uint32Array(2 * keys.length);
  for (let i = 0; i < keys.length; i++) {
    const at = 2 * next[keys[i]! >>> 16]!++;
    pairs[at] = keys[i]! & 0xffff;
    pairs[at + 1] = ids[i]!;
  }
  return { starts, pairs };
}

/** [high, id] pairs without those of the pages `ids`. */
export function withoutPages(pairs: Uint32Array, ids: ReadonlySet<number>): Uint32Array {
  const out = new Uint32Array(pairs.length);
  let n = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    if (ids.has(pairs[i + 1]!)) continue;
    out[n++] = pairs[i]!;
    out[n++] = pairs[i + 1]!;
  }
  return out.subarray(0, n);
}

/**
 * Pages' fingerprints, added in order, to be merged with the buckets read in order: each
 * fingerprint's place in the slice, its bucket and high, and whether another page holds it (held).
 */
export class FingerprintSlice {
  readonly ids: number[] = [];
  private readonly starts: number[] = [0];
  private readonly keys = new Words();
  /** Per place: 1 when another page holds the fingerprint's hash (set by the merge). */
  held = new Uint8Array(0);
  private order = new BigUint64Array(0);
  private next = 0;

  /** Adds page `id`, whose hashes `hashes` gives in its fingerprints' order. */
  add(id: number, hashes: (each: (hash: number) => void) => void): void {
    this.ids.push(id);
    hashes((h) => this.keys.push((((h & 0xffff) << 16) | (h >>> 16)) >>> 0));
    this.starts.push(this.keys.length);
  }

  /** Fingerprints added. */
  get size(): number {
    return this.keys.length;
  }

  /** Sorts the places by bucket and high, for merge() to take the buckets in order; held is cleared. */
  sort(): void {
    this.order = new BigUint64Array(this.keys.length);
    this.keys.view().forEach((key, place) => (this.order[place] = (BigInt(key) << 32n) | BigInt(place)));
    this.order.sort();
    this.held = new Uint8Array(this.keys.length);
    this.next = 0;
  }

  /** Whether some place is in bucket `b` (buckets asked in increasing order, after sort). */
  wants(b: number): boolean {
    while (this.next < this.order.length && Number(this.order[this.next]! >> 48n) < b) this.next++;
    return this.next < this.order.length && Number(this.order[this.next]! >> 48n) === b;
  }

  /** Marks held the places of bucket `b` whose hash `bucket` gives another page than theirs. */
  merge(b: number, bucket: Bucket): void {
    for (; this.next < this.order.length && Number(this.order[this.next]! >> 48n) === b; this.next++) {
      const place = Number(this.order[this.next]! & 0xffffffffn);
      const page = this.pageOf(place);
      if (idsWith(bucket, Number((this.order[this.next]! >> 32n) & 0xffffn)).some((id) => id !== page)) this.held[place] = 1;
    }
  }

  /** The page a place belongs to. */
  pageOf(place: number): number {
    let low = 0;
    let high = this.ids.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid]! <= place) low = mid;
      else high = mid - 1;
    }
    return this.ids[low]!;
  }

  /** Whether the i-th fingerprint of the p-th page added is held by another page. */
  heldOf(p: number): (i: number) => boolean {
    const start = this.starts[p]!;
    return (i) => this.held[start + i] === 1;
  }
}
