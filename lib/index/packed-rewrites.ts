// The rewrite index of a whole store in memory, packed: the pages' fingerprint bytes (as stored,
// lib/fingerprint/rewrite-codec.ts) in one buffer, and the postings of their index hashes in one
// array ordered by key (a counting sort): about 113 bytes a page for the bytes (bench:browser's
// --store-bytes), a posting in as few bits as the largest id needs (about 28 postings a page: 20
// bits each at a million, where 4 bytes took 112 MB) and 2 bits an id for counting a lookup's
// holders, some 190 MB for a million pages, where RewriteIndex keeps a decoded object and arrays a
// page and a map entry a hash. Organising an import of many pages and the
// whole-store regroup look every page up here, through findRewriteMatches as a visit looks a page
// up in the store: the same postings (each index hash's 20 bits are its key) and the same
// fingerprints, so the same matches.
import { decodeRewriteBytes } from '../fingerprint/rewrite-codec';
import { REWRITE_PARAMS, REWRITE_RULE, type RewriteFingerprints, indexHashes } from '../fingerprint/rewrites';
import { Words, release } from './posting-passes';
import { lowerBound } from './postings';
import { DenseHolderCounter, type RewriteSource } from './rewrite-index';

/** A stored hash is cut to this many bits (its low bits are zero): the whole of it is its key. */
const KEY_BITS = REWRITE_PARAMS.sample.bits;
const KEY_SHIFT = 32 - KEY_BITS;

export class PackedRewriteIndex implements RewriteSource {
  readonly indexShare = REWRITE_RULE.indexShare;
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private readonly ids: Words;
  /** Where each page's bytes end in `bytes`. */
  private readonly ends: Words;
  /** Before seal: index hashes a key (at key + 1); after: where each key's holders start in `holders`. */
  private readonly starts = new Uint32Array((1 << KEY_BITS) + 1);
  /** The holders of every key, each in `width` bits (the largest id's), packed end to end. */
  private holders: Uint32Array | undefined;
  private width = 32;
  /** Where postingsOf unpacks its lists. */
  private unpacked = new Uint32Array(4096);
  /** A lookup's counts of holders, by id (set by seal). */
  counter: DenseHolderCounter | undefined;

  /**
   * A hash on more pages than `maxPages` is left out of lookups (lib/index/rewrite-store.ts
   * REWRITE_MAX_PAGES). `expectedPages`: how many will be added, so that the ids and ends are
   * sized once (each doubling leaves the smaller array to the collector).
   */
  constructor(
    readonly maxPages: number,
    expectedPages = 1024,
  ) {
    this.ids = new Words(expectedPages);
    this.ends = new Words(expectedPages);
  }

  /** Pages added. */
  get size(): number {
    return this.ids.length;
  }

  /**
   * Adds page `id` (ids ascending) with its fingerprints' bytes, copied. Bytes that are not
   * fingerprints are not added (false): a damaged page links nothing, as its lookup would fail.
   */
  add(id: number, bytes: Uint8Array): boolean {
    if (this.holders !== undefined) throw new Error('PackedRewriteIndex: a page was added after seal');
    if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new RangeError(`a page id must be a 32-bit count: got ${id}`);
    if (this.ids.length > 0 && id <= this.ids.data[this.ids.length - 1]!) throw new RangeError(`pages are added in ascending id order: ${id} after ${this.ids.data[this.ids.length - 1]}`);
    let fingerprints: RewriteFingerprints;
    try {
      fingerprints = decodeRewriteBytes(bytes);
    } catch {
      return false;
    }
    if (this.used + bytes.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, this.used + bytes.length));
      grown.set(this.bytes.subarray(0, this.used));
      release(this.bytes); // now, not when the collector finds it: a million pages' doublings leave 128 MB
      this.bytes = grown;
    }
    this.bytes.set(bytes, this.used);
    this.used += bytes.length;
    this.ids.push(id);
    this.ends.push(this.used);
    const own = indexHashes(fingerprints, this.indexShare);
    for (let i = 0; i < own.length; i++) this.starts[(own[i]! >>> KEY_SHIFT) + 1]!++;
    return true;
  }

  /** Builds the postings; call once, after the last page, before the first lookup. */
  seal(): void {
    if (this.holders !== undefined) throw new Error('PackedRewriteIndex: sealed twice');
    // the buffer grew by doubling: the spare room goes, and the buffer with it (release), before
    // the postings are allocated (a million pages: 128 MB let go, where all three were held at once)
    if (this.bytes.length > this.used) {
      const exact = this.bytes.slice(0, this.used);
      release(this.bytes);
      this.bytes = exact;
    }
    const keys = 1 << KEY_BITS;
    for (let key = 0; key < keys; key++) this.starts[key + 1]! += this.starts[key]!;
    const ids = this.ids.view();
    const largest = ids.length === 0 ? 0 : ids[ids.length - 1]!;
    const width = (this.width = Math.max(1, 32 - Math.clz32(largest)));
    const holders = new Uint32Array(Math.ceil((this.starts[keys]! * width) / 32) + 1);
    const next = this.starts.slice(0, keys);
    // each page decoded again rather than its index hashes kept since add(): they would take as much as `holders`.
    // A page's index hashes are distinct, and pages come in id order: each key's holders ascend, each page once
    for (let p = 0; p < ids.length; p++) {
      const own = indexHashes(this.decode(p), this.indexShare);
      for (let i = 0; i < own.length; i++) writeBits(holders, next[own[i]! >>> KEY_SHIFT]!++, width, ids[p]!);
    }
    release(next);
    this.holders = holders;
    this.counter = new DenseHolderCounter(ids.length === 0 ? 0 : ids[ids.length - 1]!);
  }

  /** Bytes held in typed arrays: the fingerprints' bytes, the ids and ends, the postings and the counter. */
  heldBytes(): number {
    return this.bytes.byteLength + this.ids.data.byteLength + this.ends.data.byteLength + this.starts.byteLength + (this.holders?.byteLength ?? 0) + (this.counter?.heldBytes() ?? 0);
  }

  /** Each page's id and fingerprints, in id order. */
  *pages(): Generator<[id: number, fingerprints: RewriteFingerprints]> {
    const ids = this.ids.view();
    for (let p = 0; p < ids.length; p++) yield [ids[p]!, this.decode(p)];
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

  fingerprintsOf(id: number): RewriteFingerprints | undefined {
    const ids = this.ids.view();
    const at = lowerBound(ids, id);
    return at < ids.length && ids[at] === id ? this.decode(at) : undefined;
  }

  private decode(p: number): RewriteFingerprints {
    const ends = this.ends.data;
    return decodeRewriteBytes(this.bytes.subarray(p === 0 ? 0 : ends[p - 1]!, ends[p]!));
  }

  private sealed(): Uint32Array {
    if (this.holders === undefined) throw new Error('PackedRewriteIndex: looked up before seal');
    return this.holders;
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
