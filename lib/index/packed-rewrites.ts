// The rewrite index of a whole store in memory, packed. PackedRewritePostings: the postings of
// the pages' index hashes in one array ordered by key (a counting sort), a posting in as few bits
// as the largest id needs (about 28 postings a page: 20 bits each at a million, where 4 bytes took
// 112 MB), and 2 bits an id for counting a lookup's holders: about 74 bytes a page. The regroup
// holds only these (lib/organise/rewrite-links.ts, which logs the keys in a PackedLog while it
// counts them). PackedRewriteIndex adds the pages' fingerprint bytes (as stored,
// lib/fingerprint/rewrite-codec.ts; PackedRewriteBytes) in one buffer, about 113 bytes a page
// (bench:browser's --store-bytes): some 190 MB for a million pages, where RewriteIndex keeps a
// decoded object and arrays a page and a map entry a hash. The copy marking of an import of many
// pages looks every page up in it, through findRewriteMatches as a visit looks a page up in the
// store: the same postings (each index hash's 20 bits are its key) and the same fingerprints, so
// the same matches.
import { decodeRewriteBytes } from '../fingerprint/rewrite-codec';
import { REWRITE_PARAMS, REWRITE_RULE, type RewriteFingerprints, indexHashes } from '../fingerprint/rewrites';
import { Words, release } from './posting-passes';
import { PackedLog } from './packed-log';
import { lowerBound } from './postings';
import { DenseHolderCounter, type RewriteSource } from './rewrite-index';

/** A stored hash is cut to this many bits (its low bits are zero): the whole of it is its key. */
const KEY_BITS = REWRITE_PARAMS.sample.bits;
const KEY_SHIFT = 32 - KEY_BITS;

/**
 * The postings of a whole store's rewrite index hashes in memory (PackedRewriteIndex's, and the
 * regroup's, which reads the fingerprints again rather than hold them: lib/organise/regroup.ts):
 * every key's holders in one array ordered by key, each in as few bits as the largest id needs.
 * Built in two steps: count each page's index hashes (ids ascending), then seal, given the same
 * hashes again page by page.
 */
export class PackedRewritePostings {
  readonly indexShare = REWRITE_RULE.indexShare;
  /** The pages counted, in id order. */
  readonly ids: Words;
  /** Before seal: index hashes a key (at key + 1); after: where each key's holders start in `holders`. */
  private readonly starts = new Uint32Array((1 << KEY_BITS) + 1);
  /** The holders of every key, each in as many bits as the largest id needs (or the log's, sealFromLog), packed end to end. */
  private holders: PackedLog | undefined;
  /** Where postingsOf unpacks its lists. */
  private unpacked = new Uint32Array(4096);
  /** A lookup's counts of holders, by id (set by seal). */
  counter: DenseHolderCounter | undefined;

  /** `maxPages`: as RewriteSource's; `expectedPages`: how many will be counted (the ids are sized once). */
  constructor(
    readonly maxPages: number,
    expectedPages = 1024,
  ) {
    this.ids = new Words(expectedPages);
  }

  /** Pages counted. */
  get size(): number {
    return this.ids.length;
  }

  /** Counts page `id` (ids ascending) with its index hashes (distinct); seal places them. */
  count(id: number, own: ArrayLike<number>): void {
    if (this.holders !== undefined) throw new Error('PackedRewritePostings: a page was counted after seal');
    if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new RangeError(`a page id must be a 32-bit count: got ${id}`);
    if (this.ids.length > 0 && id <= this.ids.data[this.ids.length - 1]!) throw new RangeError(`pages are counted in ascending id order: ${id} after ${this.ids.data[this.ids.length - 1]}`);
    this.ids.push(id);
    for (let i = 0; i < own.length; i++) this.starts[(own[i]! >>> KEY_SHIFT) + 1]!++;
  }

  /**
   * Builds the postings; call once, after the last page, before the first lookup. `hashesOf(p)`:
   * the p-th page's index hashes, as counted (p ascending from 0; each is asked once).
   */
  seal(hashesOf: (p: number) => ArrayLike<number>): void {
    const { next, ids, width } = this.startSeal();
    const holders = new PackedLog(width);
    holders.extend(this.starts[1 << KEY_BITS]!);
    // pages come in id order: each key's holders ascend, each page once
    for (let p = 0; p < ids.length; p++) {
      const own = hashesOf(p);
      for (let i = 0; i < own.length; i++) {
        const key = own[i]! >>> KEY_SHIFT;
        if (next[key]! >= this.starts[key + 1]!) throw new Error(`PackedRewritePostings: page ${ids[p]} has more index hashes than were counted`);
        holders.set(next[key]!++, ids[p]!);
      }
    }
    this.endSeal(holders, next);
  }

  /**
   * Builds the postings from `keys`, the log of every page's index hash keys (rewriteKeyOf) as
   * counted, page after page, the p-th page's ending at `ends[p]`: the log becomes the postings,
   * so that the two are never held at once (about 70 MB each at a million pages). Each key's
   * holders are put in their places by following the permutation's cycles through the log (a bit a
   * value marks those placed), then sorted. A log too narrow for the largest id is widened first.
   * Answers the bytes it held besides the log and the postings' own: the bits and the starts'
   * copy. `pause` is called every 65,536 values placed and keys sorted (a million pages' take some
   * ten seconds): it may answer a promise, awaited, to yield.
   */
  async sealFromLog(keys: PackedLog, ends: ArrayLike<number>, pause?: () => void | Promise<void>): Promise<number> {
    const { next, ids, width } = this.startSeal();
    const total = keys.length;
    if (ends.length !== ids.length || this.starts[1 << KEY_BITS] !== total || (ids.length > 0 && ends[ids.length - 1] !== total)) {
      throw new Error(`PackedRewritePostings: a log of ${total} keys for ${this.starts[1 << KEY_BITS]} counted`);
    }
    const log = width > keys.width ? keys.widened(width) : keys;
    const { starts } = this;
    const placed = new Uint32Array(Math.ceil(total / 32) + 1);
    const isPlaced = (i: number): boolean => (placed[i >>> 5]! & (1 << (i & 31))) !== 0;
    const place = (i: number, id: number): void => {
      log.set(i, id);
      placed[i >>> 5]! |= 1 << (i & 31);
    };
    // the page whose keys hold value i of the log: the first whose end is past it, searched
    // between the pages holding values (i >> 10) << 10 and that plus 1,024
    const firstPages = new Uint32Array((total >>> 10) + 2);
    for (let b = 0, p = 0; b < firstPages.length; b++) {
      while (p < ends.length - 1 && ends[p]! <= b << 10) p++;
      firstPages[b] = p;
    }
    const pageOf = (i: number): number => {
      let low = firstPages[i >>> 10]!;
      let high = firstPages[(i >>> 10) + 1]!;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (ends[mid]! > i) high = mid;
        else low = mid + 1;
      }
      return low;
    };
    let steps = 0;
    for (let i = 0, p = 0; i < total; i++) {
      if (isPlaced(i)) continue; // its value came in a cycle before
      while (ends[p]! <= i) p++;
      // the value at i moves to its key's next place; the value there moves on in turn, until the cycle comes back to i
      let key = log.get(i);
      let id = ids[p]!;
      for (;;) {
        if ((++steps & 0xffff) === 0) {
          const answered = pause?.();
          if (answered !== undefined) await answered;
        }
        const to = next[key]!++;
        if (to >= starts[key + 1]!) throw new Error(`PackedRewritePostings: key ${key} has more holders in the log than were counted`);
        if (to === i) {
          place(i, id);
          break;
        }
        if (isPlaced(to)) throw new Error(`PackedRewritePostings: the log's keys are not those counted (place ${to} taken twice)`);
        const movedKey = log.get(to);
        const movedId = ids[pageOf(to)]!;
        place(to, id);
        key = movedKey;
        id = movedId;
      }
    }
    const held = placed.byteLength + firstPages.byteLength + next.byteLength;
    release(placed, firstPages);
    await sortEach(log, starts, pause);
    this.endSeal(log, next);
    return held;
  }

  /** The starts summed, and their copy that the placing moves along; the ids, and the width of the largest. */
  private startSeal(): { next: Uint32Array; ids: Uint32Array; width: number } {
    if (this.holders !== undefined) throw new Error('PackedRewritePostings: sealed twice');
    const keys = 1 << KEY_BITS;
    for (let key = 0; key < keys; key++) this.starts[key + 1]! += this.starts[key]!;
    const ids = this.ids.view();
    const largest = ids.length === 0 ? 0 : ids[ids.length - 1]!;
    return { next: this.starts.slice(0, keys), ids, width: Math.max(1, 32 - Math.clz32(largest)) };
  }

  private endSeal(holders: PackedLog, next: Uint32Array): void {
    release(next);
    this.holders = holders;
    const ids = this.ids.view();
    this.counter = new DenseHolderCounter(ids.length === 0 ? 0 : ids[ids.length - 1]!);
  }

  /** Bytes held in typed arrays: the ids, the starts, the postings and the counter. */
  heldBytes(): number {
    return this.ids.data.byteLength + this.starts.byteLength + (this.holders?.heldBytes() ?? 0) + (this.counter?.heldBytes() ?? 0);
  }

  /**
   * The holders of each hash asked for, unpacked into views of one buffer that the next call
   * overwrites: read them before calling again (findRewriteMatches counts them at once). A buffer
   * of their own each call, a million calls, left the collector that many to find. A hash on more
   * than maxPages pages is given by its count alone: a lookup leaves it out.
   */
  postingsOf(hashes: ArrayLike<number>): Map<number, ArrayLike<number>> {
    const holders = this.sealed();
    const { maxPages } = this;
    const out = new Map<number, ArrayLike<number>>();
    let at = 0;
    for (let i = 0; i < hashes.length; i++) {
      const h = hashes[i]!;
      if (out.has(h)) continue;
      const key = h >>> KEY_SHIFT; // as the store's postings (rewrite-store.ts keyOf)
      const start = this.starts[key]!;
      const end = this.starts[key + 1]!;
      if (end === start) continue;
      if (end - start > maxPages) {
        out.set(h, { length: end - start });
        continue;
      }
      if (at + end - start > this.unpacked.length) this.unpacked = new Uint32Array(2 * (at + end - start)); // the lists already set keep the old one
      const list = this.unpacked.subarray(at, at + end - start);
      for (let p = start; p < end; p++) list[p - start] = holders.get(p);
      at += end - start;
      out.set(h, list);
    }
    return out;
  }

  /** How many pages hold `hash` (those on more than maxPages too). */
  countOf(hash: number): number {
    this.sealed();
    const key = hash >>> KEY_SHIFT;
    return this.starts[key + 1]! - this.starts[key]!;
  }

  /** Releases the postings (release): nothing can be looked up after. */
  release(): void {
    if (this.holders !== undefined) {
      this.holders.releaseBefore(Infinity);
      release(this.starts, this.unpacked);
    }
    this.counter?.release();
  }

  private sealed(): PackedLog {
    if (this.holders === undefined) throw new Error('PackedRewritePostings: looked up before seal');
    return this.holders;
  }
}

/** The key (its 20 bits) of a stored index hash, and the hash of a key: a stored hash's low bits are zero. */
export const rewriteKeyOf = (hash: number): number => hash >>> KEY_SHIFT;
export const rewriteHashOf = (key: number): number => (key << KEY_SHIFT) >>> 0;
export const REWRITE_KEY_BITS = KEY_BITS;

/**
 * Bytes a PackedRewriteBytes chunk holds at most (2 MB): the first holds 64 KB, each next one
 * twice the last. A page's bytes are never split between two; a place is chunk × BYTES_CHUNK +
 * offset.
 */
export const BYTES_CHUNK = 1 << 21;
export const FIRST_BYTES_CHUNK = 1 << 16;

/**
 * Pages' rewrite fingerprints as stored (their bytes, copied), read back by id: PackedRewriteIndex's,
 * and the regroup's fingerprints of the pages it judges. The bytes are kept in chunks that are never
 * copied (a buffer that doubles holds its spare room, and both buffers while it grows: a million
 * pages' 113 MB held 241 MB for a moment), most of them 2 MB: allocations that large are mapped
 * on their own, and given back to the system when let go, where smaller ones may stay with the
 * allocator.
 */
export class PackedRewriteBytes {
  private readonly chunks: Uint8Array[] = [];
  /** Bytes used in the last chunk. */
  private used = 0;
  readonly ids: Words;
  /** Where each page's bytes start and end: chunk × BYTES_CHUNK + offset. */
  private readonly starts: Words;
  private readonly ends: Words;

  /** `expectedPages`: how many will be added, so that the ids, starts and ends are sized once. */
  constructor(expectedPages = 1024) {
    this.ids = new Words(expectedPages);
    this.starts = new Words(expectedPages);
    this.ends = new Words(expectedPages);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Adds page `id` (ids ascending) with its bytes, copied. */
  add(id: number, bytes: Uint8Array): void {
    if (this.ids.length > 0 && id <= this.ids.data[this.ids.length - 1]!) throw new RangeError(`pages are added in ascending id order: ${id} after ${this.ids.data[this.ids.length - 1]}`);
    if (bytes.length > BYTES_CHUNK) throw new RangeError(`a page's rewrite fingerprints take at most ${BYTES_CHUNK} bytes: got ${bytes.length}`);
    const last = this.chunks.at(-1);
    if (last === undefined || this.used + bytes.length > last.length) {
      this.chunks.push(new Uint8Array(Math.max(bytes.length, last === undefined ? FIRST_BYTES_CHUNK : Math.min(BYTES_CHUNK, 2 * last.length))));
      this.used = 0;
    }
    const at = (this.chunks.length - 1) * BYTES_CHUNK + this.used;
    this.chunks[this.chunks.length - 1]!.set(bytes, this.used);
    this.used += bytes.length;
    this.ids.push(id);
    this.starts.push(at);
    this.ends.push(at + bytes.length);
  }

  /** The p-th page's fingerprints (its bytes decoded); undefined if they are not fingerprints. */
  decode(p: number): RewriteFingerprints | undefined {
    const start = this.starts.data[p]!;
    const offset = start % BYTES_CHUNK;
    try {
      return decodeRewriteBytes(this.chunks[Math.floor(start / BYTES_CHUNK)]!.subarray(offset, offset + this.ends.data[p]! - start));
    } catch {
      return undefined;
    }
  }

  fingerprintsOf(id: number): RewriteFingerprints | undefined {
    const ids = this.ids.view();
    const at = lowerBound(ids, id);
    return at < ids.length && ids[at] === id ? this.decode(at) : undefined;
  }

  heldBytes(): number {
    let chunks = 0;
    for (const chunk of this.chunks) chunks += chunk.byteLength;
    return chunks + this.ids.data.byteLength + this.starts.data.byteLength + this.ends.data.byteLength;
  }

  release(): void {
    release(...this.chunks, this.ids.data, this.starts.data, this.ends.data);
    this.chunks.length = 0;
  }
}

export class PackedRewriteIndex implements RewriteSource {
  readonly indexShare = REWRITE_RULE.indexShare;
  private readonly bytes: PackedRewriteBytes;
  private readonly postings: PackedRewritePostings;

  /**
   * A hash on more pages than `maxPages` is left out of lookups (lib/index/rewrite-store.ts
   * REWRITE_MAX_PAGES). `expectedPages`: how many will be added, so that the ids and ends are
   * sized once (each doubling leaves the smaller array to the collector).
   */
  constructor(
    readonly maxPages: number,
    expectedPages = 1024,
  ) {
    this.bytes = new PackedRewriteBytes(expectedPages);
    this.postings = new PackedRewritePostings(maxPages, expectedPages);
  }

  /** Pages added. */
  get size(): number {
    return this.postings.size;
  }

  /** A lookup's counts of holders, by id (set by seal). */
  get counter(): DenseHolderCounter | undefined {
    return this.postings.counter;
  }

  /**
   * Adds page `id` (ids ascending) with its fingerprints' bytes, copied. Bytes that are not
   * fingerprints are not added (false): a damaged page links nothing, as its lookup would fail.
   */
  add(id: number, bytes: Uint8Array): boolean {
    if (this.postings.counter !== undefined) throw new Error('PackedRewriteIndex: a page was added after seal');
    let fingerprints: RewriteFingerprints;
    try {
      fingerprints = decodeRewriteBytes(bytes);
    } catch {
      return false;
    }
    this.postings.count(id, indexHashes(fingerprints, this.indexShare));
    this.bytes.add(id, bytes);
    return true;
  }

  /** Builds the postings; call once, after the last page, before the first lookup. */
  seal(): void {
    if (this.postings.counter !== undefined) throw new Error('PackedRewriteIndex: sealed twice');
    // each page decoded again rather than its index hashes kept since add(): they would take as much as the postings
    this.postings.seal((p) => indexHashes(this.bytes.decode(p)!, this.indexShare));
  }

  /** Bytes held in typed arrays: the fingerprints' bytes, ids and ends, and the postings'. */
  heldBytes(): number {
    return this.bytes.heldBytes() + this.postings.heldBytes();
  }

  /** Each page's id and fingerprints, in id order. */
  *pages(): Generator<[id: number, fingerprints: RewriteFingerprints]> {
    const ids = this.bytes.ids.view();
    for (let p = 0; p < ids.length; p++) yield [ids[p]!, this.bytes.decode(p)!];
  }

  /** As PackedRewritePostings.postingsOf: views of one buffer that the next call overwrites. */
  postingsOf(hashes: ArrayLike<number>): Map<number, ArrayLike<number>> {
    return this.postings.postingsOf(hashes);
  }

  fingerprintsOf(id: number): RewriteFingerprints | undefined {
    return this.bytes.fingerprintsOf(id);
  }
}

/** Sorts each key's holders in `log` (those of key k from starts[k] to starts[k + 1]), ascending. */
async function sortEach(log: PackedLog, starts: Uint32Array, pause: (() => void | Promise<void>) | undefined): Promise<void> {
  let buffer = new Uint32Array(64);
  for (let key = 0; key + 1 < starts.length; key++) {
    if ((key & 0xffff) === 0xffff) {
      const answered = pause?.();
      if (answered !== undefined) await answered;
    }
    const start = starts[key]!;
    const count = starts[key + 1]! - start;
    if (count < 2) continue;
    if (count > buffer.length) buffer = new Uint32Array(2 * count);
    const list = buffer.subarray(0, count);
    let sorted = true;
    for (let i = 0; i < count; i++) {
      list[i] = log.get(start + i);
      if (i > 0 && list[i]! < list[i - 1]!) sorted = false;
    }
    if (sorted) continue;
    list.sort();
    for (let i = 0; i < count; i++) log.set(start + i, list[i]!);
  }
}
