// What organising (lib/organise/passage-organise.ts) keeps in memory between its reads and writes:
// postings by bucket, and the pending pages' fingerprints as places in one bit array. Pure: no IndexedDB here.
import { type Bucket, hashOf, heldByAnother, highCounts, idsWith, isFlagged, lowerBound } from './postings';

/** A growable array of 32-bit words. */
export class Words {
  data: Uint32Array;
  length = 0;
  /** `capacity`: the words expected, so that a list that gets them never doubles (its spare room would be held). */
  constructor(capacity = 1024) {
    this.data = new Uint32Array(Math.max(1, Math.ceil(capacity)));
  }
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
 * [high16, id] of bucket low + j at pairs[2 · starts[j]] up to pairs[2 · starts[j + 1]], and
 * `placed` their places (given as `places`, in the order of `keys`) from starts[j] to starts[j + 1].
 */
export function byBucket(keys: Uint32Array, ids: Uint32Array, buckets: number, places?: Uint32Array): { starts: Uint32Array; pairs: Uint32Array; placed: Uint32Array } {
  const starts = new Uint32Array(buckets + 1);
  for (let i = 0; i < keys.length; i++) starts[(keys[i]! >>> 16) + 1]!++;
  for (let j = 0; j < buckets; j++) starts[j + 1]! += starts[j]!;
  const next = starts.slice(0, buckets);
  const pairs = new Uint32Array(2 * keys.length);
  const placed = new Uint32Array(places === undefined ? 0 : keys.length);
  for (let i = 0; i < keys.length; i++) {
    const at = next[keys[i]! >>> 16]!++;
    pairs[2 * at] = keys[i]! & 0xffff;
    pairs[2 * at + 1] = ids[i]!;
    if (places !== undefined) placed[at] = places[i]!;
  }
  return { starts, pairs, placed };
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

/** The place of a posting that has none (a page changed since organising listed it). */
export const NO_PLACE = 0xffffffff;

/**
 * The pending pages' fingerprints as places in one bit array, in the order organising reads them:
 * its first pass lists each page (ids increasing) with its count, every pass gives each posting
 * its place, and once the posting's bucket is merged, `markHeld` sets the place's bit when another
 * page holds the hash. 52 million fingerprints take 6.5 MB.
 */
export class PendingPlaces {
  readonly ids = new Words();
  private readonly starts = new Words();
  private held = new Uint8Array(0);

  constructor() {
    this.starts.push(0);
  }

  /** Lists page `id`, after every smaller id, with `count` fingerprints. */
  add(id: number, count: number): void {
    // placesOf searches the ids: one listed out of order would lose its places, and so its marks
    if (this.ids.length > 0 && id <= this.ids.data[this.ids.length - 1]!) throw new RangeError(`organising listed page ${id} after page ${this.ids.data[this.ids.length - 1]}: pages must come in increasing order`);
    this.ids.push(id);
    this.starts.push(this.size + count);
  }

  /** Bytes held in typed arrays. */
  heldBytes(): number {
    return this.ids.data.byteLength + this.starts.data.byteLength + this.held.byteLength;
  }

  /** Places listed. */
  get size(): number {
    return this.starts.data[this.starts.length - 1]!;
  }

  /** Page `id`'s first place and count; undefined if it was not listed. */
  placesOf(id: number): { first: number; count: number } | undefined {
    const ids = this.ids.view();
    const at = lowerBound(ids, id);
    if (ids[at] !== id) return undefined;
    return { first: this.starts.data[at]!, count: this.starts.data[at + 1]! - this.starts.data[at]! };
  }

  /** Given a bucket once merged: for each posting ([high, id] in `pairs`, its place in `places`), its place is held when another page holds the hash. */
  markHeld(bucket: Bucket, pairs: Uint32Array, places: Uint32Array): void {
    if (this.held.length * 8 < this.size) {
      const grown = new Uint8Array(Math.ceil(this.size / 8));
      grown.set(this.held);
      this.held = grown;
    }
    // the pairs come in page order: a hash's holders are searched again unless its pairs come together
    let high = -1;
    let holders: Uint32Array | undefined;
    for (let j = 0; j < places.length; j++) {
      const place = places[j]!;
      if (place === NO_PLACE || place >= this.size) continue;
      if (pairs[2 * j] !== high || holders === undefined) holders = idsWith(bucket, (high = pairs[2 * j]!));
      if (heldByAnother(holders, pairs[2 * j + 1]!)) this.held[place >>> 3]! |= 0x80 >> (place & 7);
    }
  }

  /** Whether the i-th fingerprint of the p-th page listed is held by another page. */
  heldOf(p: number): (i: number) => boolean {
    const first = this.starts.data[p]!;
    return (i) => {
      const place = first + i;
      return place < this.held.length * 8 && (this.held[place >>> 3]! & (0x80 >> (place & 7))) !== 0;
    };
  }
}

/**
 * The pairs of pages that share two passage hashes or more, one of them `involved`, from the
 * buckets given one by one (a hash on more than `maxPages` pages, or flagged as a site's
 * boilerplate, makes no pair: it is listed in `boilerplate`). Organising's step 2.
 */
export class SharedPairs {
  private readonly firsts = new Words();
  private readonly seconds = new Words();
  readonly boilerplate = new Set<number>();

  /** Bytes held in typed arrays (the pairs found). */
  heldBytes(): number {
    return this.firsts.data.byteLength + this.seconds.data.byteLength;
  }

  constructor(
    private readonly involved: (id: number) => boolean,
    private readonly maxPages: number,
  ) {}

  add(b: number, bucket: Bucket): void {
    for (const { high, start, end } of highCounts(bucket)) {
      const n = end - start;
      if (n > this.maxPages || isFlagged(bucket, high)) {
        this.boilerplate.add(hashOf(b, high));
        continue;
      }
      const ids = bucket.ids.subarray(start, end);
      for (let x = 0; x < n; x++) {
        for (let y = x + 1; y < n; y++) {
          if (!this.involved(ids[x]!) && !this.involved(ids[y]!)) continue;
          this.firsts.push(Math.min(ids[x]!, ids[y]!));
          this.seconds.push(Math.max(ids[x]!, ids[y]!));
        }
      }
    }
  }

  /** The pairs [a < b] met in two buckets' hashes or more, in order. */
  sharingTwo(): [number, number][] {
    const n = this.firsts.length;
    const keys = new BigUint64Array(n);
    const a = this.firsts.view();
    const b = this.seconds.view();
    for (let i = 0; i < n; i++) keys[i] = (BigInt(a[i]!) << 32n) | BigInt(b[i]!);
    keys.sort();
    const pairs: [number, number][] = [];
    for (let i = 0; i < n; ) {
      let j = i + 1;
      while (j < n && keys[j] === keys[i]) j++;
      if (j - i >= 2) pairs.push([Number(keys[i]! >> 32n), Number(keys[i]! & 0xffffffffn)]);
      i = j;
    }
    return pairs;
  }
}
