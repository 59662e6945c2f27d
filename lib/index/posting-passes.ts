// What organising (lib/organise/passage-organise.ts) keeps in memory between its reads and writes:
// postings by bucket, and the pending pages' fingerprints as places in one bit array. Pure: no IndexedDB here.
import { type Bucket, HighCursor, hashOf, highCounts, isFlagged, lowerBound } from './postings';

/**
 * Lets the memory of typed arrays go now: their buffers are detached (ArrayBuffer.transfer(0), in
 * Chromium since 114 and Firefox since 122), so a pass's hundreds of megabytes are not held until
 * the collector finds them (V8 collects array buffers with the old generation, and organising's
 * later steps allocate too little to call for that: the renderer kept 200 MB it no longer used).
 * Where buffers cannot be transferred (Node 20), nothing happens. The arrays, and every view of
 * their buffers, are empty afterwards.
 */
export function release(...arrays: readonly ArrayBufferView[]): void {
  for (const { buffer } of arrays) {
    const transferable = buffer as ArrayBufferLike & { transfer?: (length: number) => ArrayBuffer; detached?: boolean };
    // an empty buffer frees nothing, and may be shared (EMPTY_BUCKET's): it is left as it is
    if (typeof transferable.transfer === 'function' && transferable.detached !== true && buffer.byteLength > 0) transferable.transfer(0);
  }
}

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
      // the outgrown buffer let go now, not at the next collection: organising grows lists of
      // millions, and each doubling left the one before held (a view taken before a push goes with it)
      release(this.data);
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
 * A bucket's postings are sorted by high, those of one high in the order of `keys` (organising's
 * come in page order: ids increasing), so a bucket takes them without a sort of its own
 * (sortedPairs) and each hash's holders are searched once (markHeld).
 */
export function byBucket(keys: Uint32Array, ids: Uint32Array, buckets: number, places?: Uint32Array): { starts: Uint32Array; pairs: Uint32Array; placed: Uint32Array } {
  const starts = new Uint32Array(buckets + 1);
  for (let i = 0; i < keys.length; i++) starts[(keys[i]! >>> 16) + 1]!++;
  let most = 0;
  for (let j = 0; j < buckets; j++) {
    most = Math.max(most, starts[j + 1]!);
    starts[j + 1]! += starts[j]!;
  }
  const next = starts.slice(0, buckets);
  const pairs = new Uint32Array(2 * keys.length);
  const placed = new Uint32Array(places === undefined ? 0 : keys.length);
  for (let i = 0; i < keys.length; i++) {
    const at = next[keys[i]! >>> 16]!++;
    pairs[2 * at] = keys[i]! & 0xffff;
    pairs[2 * at + 1] = ids[i]!;
    if (places !== undefined) placed[at] = places[i]!;
  }
  const sorter = new HighSorter(most, places !== undefined);
  for (let j = 0; j < buckets; j++) sorter.sort(pairs, placed, starts[j]!, starts[j + 1]!);
  return { starts, pairs, placed };
}

/**
 * Sorts postings [from, to) of `pairs` (and `placed` with them) by high, stably: two counting
 * passes, the high's low byte then its high byte, through buffers of the largest bucket's size.
 */
class HighSorter {
  private readonly pairs: Uint32Array;
  private readonly placed: Uint32Array;
  private readonly counts = new Uint32Array(257);

  constructor(most: number, withPlaces: boolean) {
    this.pairs = new Uint32Array(2 * most);
    this.placed = new Uint32Array(withPlaces ? most : 0);
  }

  sort(pairs: Uint32Array, placed: Uint32Array, from: number, to: number): void {
    let sorted = true;
    for (let i = from + 1; i < to && sorted; i++) sorted = pairs[2 * i]! >= pairs[2 * i - 2]!;
    if (sorted) return;
    this.pass(pairs, placed, from, to, this.pairs, this.placed, 0, 0); // into the buffers by the low byte
    this.pass(this.pairs, this.placed, 0, to - from, pairs, placed, from, 8); // back by the high byte
  }

  private pass(pairs: Uint32Array, placed: Uint32Array, from: number, to: number, intoPairs: Uint32Array, intoPlaced: Uint32Array, at: number, shift: number): void {
    const { counts } = this;
    counts.fill(0);
    for (let i = from; i < to; i++) counts[((pairs[2 * i]! >>> shift) & 0xff) + 1]!++;
    for (let d = 0; d < 256; d++) counts[d + 1]! += counts[d]!;
    const withPlaces = intoPlaced.length > 0;
    for (let i = from; i < to; i++) {
      const digit = (pairs[2 * i]! >>> shift) & 0xff;
      const j = at + counts[digit]!++;
      intoPairs[2 * j] = pairs[2 * i]!;
      intoPairs[2 * j + 1] = pairs[2 * i + 1]!;
      if (withPlaces) intoPlaced[j] = placed[i]!;
    }
  }
}

/**
 * The postings of a pass whose buckets' counts are known (organising's first pass counts every
 * bucket's): each posting goes straight to its place in its bucket, as two words, its high and
 * its fingerprint's index on the page, and the page's index in `places`: 8 bytes a posting where
 * byBucket holds 24 (the lists as read, then sorted), so a pass holds three times the postings in
 * the same memory. A bucket's [high, id] pairs and places are made when it is asked for. A posting
 * of a page not listed in `places` (visited since the first pass), or past the fingerprints listed
 * for it, has no place: kept aside with its id, as are the postings of a bucket given more than
 * counted (a page's text new since); each bucket gets those aside at `finish`.
 */
export class CountedPostings {
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  /** high << 16 | the fingerprint's index on its page. */
  private readonly keys: Uint32Array;
  /** The page's index in places. */
  private readonly pages: Uint32Array;
  private readonly aside = { keys: new Words(16), ids: new Words(16), at: new Words(16) };
  private readonly joined = new Map<number, { pairs: Uint32Array; placed: Uint32Array }>();
  private readonly given: boolean;
  private sorter: HighSorter | undefined;

  /**
   * `counts[j]`: the postings expected in the pass's bucket j. `buffers`, if given, hold them (each
   * later pass of organising reuses one pair of buffers: a pass's own would be allocated before
   * the last one's are collected).
   */
  constructor(
    counts: ArrayLike<number>,
    private readonly places: PendingPlaces,
    buffers?: PostingBuffers,
  ) {
    this.starts = new Uint32Array(counts.length + 1);
    for (let j = 0; j < counts.length; j++) this.starts[j + 1] = this.starts[j]! + counts[j]!;
    this.ends = this.starts.slice(0, counts.length);
    const total = this.starts[counts.length]!;
    if (buffers !== undefined && buffers.keys.length < total) throw new RangeError(`buffers for ${buffers.keys.length} postings cannot hold ${total}`);
    this.given = buffers !== undefined;
    this.keys = buffers === undefined ? new Uint32Array(total) : buffers.keys;
    this.pages = buffers === undefined ? new Uint32Array(total) : buffers.pages;
  }

  /**
   * Fingerprint `index` of the p-th page listed in places (p −1: a page not listed, known by
   * `id`) has hash `high` in `bucket`. The fingerprints of a page come in order, the pages in the
   * order listed.
   */
  add(bucket: number, high: number, p: number, index: number, id: number): void {
    const at = this.ends[bucket]!;
    if (p >= 0 && index < this.places.countOf(p) && at < this.starts[bucket + 1]!) {
      this.keys[at] = (high << 16) | index;
      this.pages[at] = p;
      this.ends[bucket] = at + 1;
    } else {
      this.aside.keys.push((bucket << 16) | high);
      this.aside.ids.push(id);
      this.aside.at.push(p >= 0 && index < this.places.countOf(p) ? this.places.firstOf(p) + index : NO_PLACE);
    }
  }

  /** Gives each bucket those kept aside. */
  finish(): void {
    let most = 0;
    for (let j = 0; j < this.ends.length; j++) most = Math.max(most, this.ends[j]! - this.starts[j]!);
    this.sorter = new HighSorter(most, true);
    if (this.aside.keys.length === 0) return;
    const aside = byBucket(this.aside.keys.view(), this.aside.ids.view(), this.ends.length, this.aside.at.view());
    for (let j = 0; j < this.ends.length; j++) {
      const [from, to] = [aside.starts[j]!, aside.starts[j + 1]!];
      if (from === to) continue;
      const own = this.own(j);
      const pairs = new Uint32Array(own.pairs.length + 2 * (to - from));
      pairs.set(own.pairs);
      pairs.set(aside.pairs.subarray(2 * from, 2 * to), own.pairs.length);
      const placed = new Uint32Array(own.placed.length + (to - from));
      placed.set(own.placed);
      placed.set(aside.placed.subarray(from, to), own.placed.length);
      this.joined.set(j, { pairs, placed });
    }
  }

  /** Bucket j's postings ([high, id] pairs) and their places, made now: sorted by high (as byBucket sorts), unless some were kept aside (after finish). */
  bucket(j: number): { pairs: Uint32Array; placed: Uint32Array } {
    return this.joined.get(j) ?? this.own(j);
  }

  /** Bucket j's postings that went to their places, sorted by high, those of one high in the order given. */
  private own(j: number): { pairs: Uint32Array; placed: Uint32Array } {
    const from = this.starts[j]!;
    const n = this.ends[j]! - from;
    const pairs = new Uint32Array(2 * n);
    const placed = new Uint32Array(n);
    const ids = this.places.ids.data;
    for (let i = 0; i < n; i++) {
      const key = this.keys[from + i]!;
      const p = this.pages[from + i]!;
      pairs[2 * i] = key >>> 16;
      pairs[2 * i + 1] = ids[p]!;
      placed[i] = this.places.firstOf(p) + (key & 0xffff);
    }
    if (this.sorter === undefined) throw new Error('CountedPostings: finish() comes before bucket()');
    this.sorter.sort(pairs, placed, 0, n);
    return { pairs, placed };
  }

  /** Lets go the arrays of its own (release); the buffers it was given are the giver's to let go. */
  release(): void {
    release(this.starts, this.ends, ...[...this.joined.values()].flatMap(({ pairs, placed }) => [pairs, placed]), this.aside.keys.data, this.aside.ids.data, this.aside.at.data);
    if (!this.given) release(this.keys, this.pages);
  }

  /** Bytes held in typed arrays. */
  heldBytes(): number {
    let joined = 0;
    for (const { pairs, placed } of this.joined.values()) joined += pairs.byteLength + placed.byteLength;
    const { keys, ids, at } = this.aside;
    return this.starts.byteLength + this.ends.byteLength + this.keys.byteLength + this.pages.byteLength + keys.data.byteLength + ids.data.byteLength + at.data.byteLength + joined;
  }
}

/** The later passes' shared buffers (CountedPostings). */
export interface PostingBuffers {
  keys: Uint32Array;
  pages: Uint32Array;
}

/** Buffers for `postings` postings. */
export function postingBuffers(postings: number): PostingBuffers {
  return { keys: new Uint32Array(postings), pages: new Uint32Array(postings) };
}

/**
 * The passes after a first one over buckets [0, from): consecutive ranges of buckets, each of at
 * most `most` postings by `counts` (a bucket of more is a pass alone), as few as can be, and of
 * them the ranges whose largest is least: the buffers a pass holds are sized by it (a million
 * pages: four passes of 12, 12, 12 and 7 million postings became four of about 11 million).
 * Returns the ranges' ends.
 */
export function laterPasses(counts: ArrayLike<number>, from: number, most: number): number[] {
  const fewest = rangesOf(counts, from, most);
  // the least cap that keeps as few passes: a cap is too low exactly when its ranges are more
  let [low, high] = [0, most];
  while (high - low > 1) {
    const cap = Math.floor((low + high) / 2);
    if (rangesOf(counts, from, cap).length > fewest.length) low = cap;
    else high = cap;
  }
  return rangesOf(counts, from, high);
}

/** Consecutive ranges from `from`, each of at most `most` postings (a bucket of more alone): their ends. */
function rangesOf(counts: ArrayLike<number>, from: number, most: number): number[] {
  const ends: number[] = [];
  for (let start = from; start < counts.length; ) {
    let end = start;
    let held = 0;
    while (end < counts.length && (end === start || held + counts[end]! <= most)) held += counts[end++]!;
    ends.push(end);
    start = end;
  }
  return ends;
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
    // indexOf searches the ids: one listed out of order would lose its places, and so its marks
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

  /** The index of page `id` in the list; −1 if it was not listed. */
  indexOf(id: number): number {
    const ids = this.ids.view();
    const at = lowerBound(ids, id);
    return ids[at] === id ? at : -1;
  }

  /** The first place of the p-th page listed. */
  firstOf(p: number): number {
    return this.starts.data[p]!;
  }

  /** The fingerprints listed for the p-th page. */
  countOf(p: number): number {
    return this.starts.data[p + 1]! - this.starts.data[p]!;
  }

  /** Given a bucket once merged: for each posting ([high, id] in `pairs`, its place in `places`), its place is held when another page holds the hash. */
  markHeld(bucket: Bucket, pairs: Uint32Array, places: Uint32Array): void {
    if (this.held.length * 8 < this.size) {
      const grown = new Uint8Array(Math.ceil(this.size / 8));
      grown.set(this.held);
      this.held = grown;
    }
    // the pairs come sorted by high (byBucket): each hash's holders are searched once, each search
    // from where the last ended
    const cursor = new HighCursor(bucket);
    let high = -1;
    let holders = 0;
    let first = 0;
    for (let j = 0; j < places.length; j++) {
      const place = places[j]!;
      if (place === NO_PLACE || place >= this.size) continue;
      if (pairs[2 * j] !== high) {
        holders = cursor.countWith((high = pairs[2 * j]!));
        first = cursor.first;
      }
      // held by another page (a bucket holds each page once a hash; heldByAnother without the view)
      if (holders > 1 || (holders === 1 && first !== pairs[2 * j + 1])) this.held[place >>> 3]! |= 0x80 >> (place & 7);
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
  private firsts = new Words();
  private seconds = new Words();
  readonly boilerplate = new Set<number>();
  private mostBytes = 0;

  /** Bytes held in typed arrays at the most (the pairs met, let go by sharingTwo). */
  heldBytes(): number {
    return Math.max(this.mostBytes, this.firsts.data.byteLength + this.seconds.data.byteLength);
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

  /**
   * The pairs [a < b] met in two buckets' hashes or more, in order. The pairs met are sorted where
   * they are (once: this is the last call), then let go: a million-page organising meets
   * millions, and a 64-bit key each beside them was a spike of a hundred megabytes or more.
   */
  sharingTwo(): [number, number][] {
    const n = this.firsts.length;
    const a = this.firsts.view();
    const b = this.seconds.view();
    sortPairsInPlace(a, b);
    const pairs: [number, number][] = [];
    for (let i = 0; i < n; ) {
      let j = i + 1;
      while (j < n && a[j] === a[i] && b[j] === b[i]) j++;
      if (j - i >= 2) pairs.push([a[i]!, b[i]!]);
      i = j;
    }
    // held until organising ends otherwise (the copy marking reads records after this, and keeps the boilerplate)
    this.mostBytes = this.heldBytes();
    release(this.firsts.data, this.seconds.data);
    this.firsts = new Words(1);
    this.seconds = new Words(1);
    return pairs;
  }
}

/** Sorts the pairs (a[i], b[i]) by a, then b, in place: a quicksort (median of three, the smaller side first), short ranges by insertion. */
export function sortPairsInPlace(a: Uint32Array, b: Uint32Array): void {
  const swap = (i: number, j: number): void => {
    const x = a[i]!;
    a[i] = a[j]!;
    a[j] = x;
    const y = b[i]!;
    b[i] = b[j]!;
    b[j] = y;
  };
  const less = (i: number, j: number): boolean => a[i]! < a[j]! || (a[i] === a[j] && b[i]! < b[j]!);
  const ranges = [0, a.length - 1];
  while (ranges.length > 0) {
    let hi = ranges.pop()!;
    let lo = ranges.pop()!;
    while (hi - lo > 16) {
      const mid = (lo + hi) >>> 1;
      if (less(mid, lo)) swap(mid, lo);
      if (less(hi, lo)) swap(hi, lo);
      if (less(hi, mid)) swap(hi, mid);
      const pa = a[mid]!;
      const pb = b[mid]!;
      let i = lo;
      let j = hi;
      while (i <= j) {
        while (a[i]! < pa || (a[i] === pa && b[i]! < pb)) i++;
        while (a[j]! > pa || (a[j] === pa && b[j]! > pb)) j--;
        if (i <= j) swap(i++, j--);
      }
      // the larger side waits, so that at most log2(n) ranges do
      if (j - lo < hi - i) {
        ranges.push(i, hi);
        hi = j;
      } else {
        ranges.push(lo, j);
        lo = i;
      }
    }
    for (let i = lo + 1; i <= hi; i++) {
      const x = a[i]!;
      const y = b[i]!;
      let j = i - 1;
      for (; j >= lo && (a[j]! > x || (a[j] === x && b[j]! > y)); j--) {
        a[j + 1] = a[j]!;
        b[j + 1] = b[j]!;
      }
      a[j + 1] = x;
      b[j + 1] = y;
    }
  }
}
