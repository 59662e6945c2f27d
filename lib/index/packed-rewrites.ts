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
  /** The holders of every key, each in `width` bits (the largest id's), packed end to end. */
  private holders: Uint32Array | undefined;
  private width = 32;
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
    if (this.holders !== undefined) throw new Error('PackedRewritePostings: sealed twice');
    const keys = 1 << KEY_BITS;
    for (let key = 0; key < keys; key++) this.starts[key + 1]! += this.starts[key]!;
    const ids = this.ids.view();
    const largest = ids.length === 0 ? 0 : ids[ids.length - 1]!;
    const width = (this.width = Math.max(1, 32 - Math.clz32(largest)));
    const holders = new Uint32Array(Math.ceil((this.starts[keys]! * width) / 32) + 1);
    const next = this.starts.slice(0, keys);
    // pages come in id order: each key's holders ascend, each page once
    for (let p = 0; p < ids.length; p++) {
      const own = hashesOf(p);
      for (let i = 0; i < own.length; i++) {
        const key = own[i]! >>> KEY_SHIFT;
        if (next[key]! >= this.starts[key + 1]!) throw new Error(`PackedRewritePostings: page ${ids[p]} has more index hashes than were counted`);
        writeBits(holders, next[key]!++, width, ids[p]!);
      }
    }
    release(next);
    this.holders = holders;
    this.counter = new DenseHolderCounter(largest);
  }

  /** Bytes held in typed arrays: the ids, the starts, the postings and the counter. */
  heldBytes(): number {
    return this.ids.data.byteLength + this.starts.byteLength + (this.holders?.byteLength ?? 0) + (this.counter?.heldBytes() ?? 0);
  }

  /**
   * The holders of each hash asked for, unpacked into views of one buffer that the next call
   * overwrites: read them before calling again (findRewriteMatches counts them at once). A buffer
   * of their own each call, a million calls, left the collector that many to find. A hash on more
   * than maxPages pages is given by its count alone: a lookup leaves it out.
   */
  postingsOf(hashes: ArrayLike<number>): Map<number, ArrayLike<number>> {
    const holders = this.sealed();
    const { width, maxPages } = this;
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
      for (let p = start; p < end; p++) list[p - start] = readBits(holders, p, width);
      at += end - start;
      out.set(h, list);
    }
    return out;
  }

  /** Bytes of the starts (2^20 + 1 words), which seal copies while it places the postings. */
  startsBytes(): number {
    return this.starts.byteLength;
  }

  /** How many pages hold `hash` (those on more than maxPages too). */
  countOf(hash: number): number {
    this.sealed();
    const key = hash >>> KEY_SHIFT;
    return this.starts[key + 1]! - this.starts[key]!;
  }

  /** Releases the postings (release): nothing can be looked up after. */
  release(): void {
    if (this.holders !== undefined) release(this.holders, this.starts, this.unpacked);
    this.counter?.release();
  }

  private sealed(): Uint32Array {
    if (this.holders === undefined) throw new Error('PackedRewritePostings: looked up before seal');
    return this.holders;
  }
}

/**
 * Values a PackedLog chunk holds (a multiple of 32, so that a chunk ends at a word's end): 2^21,
 * 5 MB of 20-bit keys, an allocation mapped on its own and given back to the system when let go.
 */
export const PACKED_LOG_CHUNK = 32 << 16;

/**
 * Values of `width` bits (1–32) appended and read back in order, packed in chunks of
 * PACKED_LOG_CHUNK values that are never copied (an array that doubles holds its spare room, and both arrays while
 * it grows): the regroup's log of every page's index hash keys (20 bits each) between counting
 * and placing them, let go chunk by chunk as they are placed.
 */
export class PackedLog {
  private readonly chunks: (Uint32Array | undefined)[] = [];
  private readonly perChunk = PACKED_LOG_CHUNK;
  length = 0;

  constructor(readonly width: number) {
    if (!(Number.isInteger(width) && width >= 1 && width <= 32)) throw new RangeError(`a width is 1 to 32 bits: got ${width}`);
  }

  push(value: number): void {
    const chunk = Math.floor(this.length / this.perChunk);
    if (chunk === this.chunks.length) this.chunks.push(new Uint32Array((this.perChunk / 32) * this.width));
    writeBits(this.chunks[chunk]!, this.length - chunk * this.perChunk, this.width, value);
    this.length++;
  }

  get(index: number): number {
    const chunk = this.chunks[Math.floor(index / this.perChunk)];
    if (chunk === undefined || index < 0 || index >= this.length) throw new RangeError(`PackedLog: value ${index} is not held (${this.length} pushed)`);
    return readBits(chunk, index % this.perChunk, this.width);
  }

  /** Lets go (release) the chunks holding only values before `index`: they can no longer be read. */
  releaseBefore(index: number): void {
    const whole = Math.floor(index / this.perChunk);
    for (let c = 0; c < Math.min(whole, this.chunks.length); c++) {
      const chunk = this.chunks[c];
      if (chunk === undefined) continue;
      release(chunk);
      this.chunks[c] = undefined;
    }
  }

  heldBytes(): number {
    let bytes = 0;
    for (const chunk of this.chunks) bytes += chunk?.byteLength ?? 0;
    return bytes;
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

/** Puts `value` (below 2^width) as the `index`-th of `words`' packed values of `width` bits (1–32); the words start at zero. */
export function writeBits(words: Uint32Array, index: number, width: number, value: number): void {
  const bit = index * width;
  const word = Math.floor(bit / 32);
  const offset = bit % 32;
  words[word]! |= value << offset;
  if (offset + width > 32) words[word + 1]! |= value >>> (32 - offset);
}

/** The `index`-th of `words`' packed values of `width` bits (1–32). */
export function readBits(words: Uint32Array, index: number, width: number): number {
  const bit = index * width;
  const word = Math.floor(bit / 32);
  const offset = bit % 32;
  let value = words[word]! >>> offset;
  if (offset + width > 32) value |= words[word + 1]! << (32 - offset);
  return width === 32 ? value >>> 0 : value & ((1 << width) - 1);
}
