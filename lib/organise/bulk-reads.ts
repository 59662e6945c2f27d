// Organising's bulk reads of the store (lib/organise/passage-organise.ts): every value of a store of
// bytes by number, the pending blocks' pages (and a later pass's postings from them), the pages of
// the pairs sharing passages and their fingerprints, each a few hundred a readonly transaction;
// and the whole rewrite index into memory.
import type { PassageFingerprints } from '../fingerprint/passages';
import { decodeStoredPassages, forEachPassageHash } from '../fingerprint/passage-codec';
import { CountedPostings, type PendingPlaces, type PostingBuffers, release } from '../index/posting-passes';
import { POSTING_BUCKETS } from '../index/postings';
import { PackedRewriteIndex } from '../index/packed-rewrites';
import { REWRITE_MAX_PAGES, decodeRewriteGroup } from '../index/rewrite-store';
import type { PageStore } from '../store/pages';
import { PASSAGE_GROUP_PAGES, decodePassageBlock } from '../store/passages';
import type { Claims } from '../report/original';
import { within } from '../store/within';

/** Blocks of fingerprints read a transaction. */
export const BLOCKS_PER_READ = 256;
/**
 * Pages of scattered ids whose records are read a transaction (readPairPages): each is in a block
 * of 64 records of its own or nearly, and reading one record parses its whole block.
 */
const SCATTERED_RECORDS_PER_READ = 64;

/**
 * Calls `each` with every value of a store of byte values by number (the postings' buckets, the
 * rewrite groups), in key order, `perRead` a readonly transaction, from after key `after`; an
 * `each` that answers a promise is awaited. When `stop()` says so after a value, the reading stops
 * there: the key of the last value seen is returned (undefined once every value was seen).
 */
export async function forEachValue(
  store: PageStore,
  name: 'postings' | 'rewrites',
  perRead: number,
  each: (key: number, value: Uint8Array) => void | Promise<void>,
  { after = -1, stop }: { after?: number; stop?: () => boolean } = {},
): Promise<number | undefined> {
  for (;;) {
    const range = IDBKeyRange.lowerBound(after, true);
    const tx = store.db.transaction(name, 'readonly');
    const [keys, values] = await within(tx, () => Promise.all([tx.store.getAllKeys(range, perRead), tx.store.getAll(range, perRead)]));
    for (const [i, key] of keys.entries()) {
      const answered = each(key, values[i]!);
      if (answered !== undefined) await answered;
      if (stop?.() === true) return key;
    }
    if (keys.length < perRead) return undefined;
    after = keys.at(-1)!;
  }
}

/**
 * Calls `each` with every block of fingerprints of `blocks` that is stored, as its slots (in order,
 * BLOCKS_PER_READ a readonly transaction). The slots are views of the block's value, which is let
 * go once `each` returns (release, not left to the collector: a million pages' blocks are read
 * this way): `each` copies what it keeps.
 */
async function forEachPassageBlock(store: PageStore, blocks: readonly number[], each: (block: number, slots: readonly (Uint8Array | undefined)[]) => void): Promise<void> {
  await forEachStoredBlock(store, 'passages', blocks, (block, value) => each(block, decodePassageBlock(block, value)));
}

/** Calls `each` with the value of every block of `blocks` that is stored in `name`, BLOCKS_PER_READ a readonly transaction, and lets it go once `each` returns (release). */
async function forEachStoredBlock(store: PageStore, name: 'passages' | 'rewrites', blocks: readonly number[], each: (block: number, value: Uint8Array) => void): Promise<void> {
  for (let start = 0; start < blocks.length; start += BLOCKS_PER_READ) {
    const chunk = blocks.slice(start, start + BLOCKS_PER_READ);
    const tx = store.db.transaction(name, 'readonly');
    const values = await within(tx, () => Promise.all(chunk.map((block) => tx.store.get(block))));
    chunk.forEach((block, i) => {
      const value = values[i];
      if (value === undefined) return;
      each(block, value);
      release(value);
    });
  }
}

/** Calls `each` with every page of the blocks (in order, BLOCKS_PER_READ a readonly transaction) that has fingerprints, as their bytes (let go once `each` returns). */
export async function forEachPendingPage(store: PageStore, blocks: readonly number[], each: (id: number, bytes: Uint8Array) => void): Promise<void> {
  await forEachPassageBlock(store, blocks, (block, slots) =>
    slots.forEach((bytes, slot) => {
      if (bytes !== undefined) each(block * PASSAGE_GROUP_PAGES + slot, bytes);
    }),
  );
}

/**
 * Calls `each` with the fingerprint bytes of every page of `ids` (ascending) that has them (let go
 * once `each` returns), each block read once for all its pages: a million-page import's pairs are
 * scattered, a block of 64 pages read for one or two of them.
 */
async function forEachPageBytes(store: PageStore, ids: readonly number[], each: (id: number, bytes: Uint8Array) => void): Promise<void> {
  const byBlock = new Map<number, number[]>();
  for (const id of ids) {
    if (!Number.isSafeInteger(id) || id < 0) continue;
    const block = Math.floor(id / PASSAGE_GROUP_PAGES);
    const list = byBlock.get(block);
    if (list === undefined) byBlock.set(block, [id]);
    else list.push(id);
  }
  await forEachPassageBlock(store, [...byBlock.keys()], (block, slots) => {
    for (const id of byBlock.get(block)!) {
      const bytes = slots[id - block * PASSAGE_GROUP_PAGES];
      if (bytes !== undefined) each(id, bytes);
    }
  });
}

/** What the copy marking keeps of a page in a pair: its claims (lib/report/original.ts) and whether it was a copy. */
export interface PairPage extends Claims {
  id: number;
  contentCopy: boolean;
}

/**
 * The pages `ids` (ascending) that have a record, as PairPage: their records,
 * SCATTERED_RECORDS_PER_READ a readonly transaction, in id order, each block of records read and
 * inflated once (read pair by pair, a million pages' pairs read their blocks three times over). Whether they still have
 * passage fingerprints is not read here: their blocks are read once, for the pairs that may be
 * copies (readFingerprints), not twice.
 */
export async function readPairPages(store: PageStore, ids: readonly number[]): Promise<Map<number, PairPage>> {
  const out = new Map<number, PairPage>();
  for (let start = 0; start < ids.length; start += SCATTERED_RECORDS_PER_READ) {
    const chunk = ids.slice(start, start + SCATTERED_RECORDS_PER_READ);
    await store.read(async (rows) => {
      for (const record of await Promise.all(chunk.map((id) => rows.get(id)))) {
        if (record === undefined) continue;
        const page: PairPage = { id: record.id, url: record.url, site: record.site, firstSeen: record.firstSeen, contentCopy: record.contentCopy === true };
        if (record.published !== undefined) page.published = record.published;
        if (record.source !== undefined) page.source = record.source;
        if (record.sourceBy !== undefined) page.sourceBy = record.sourceBy;
        out.set(record.id, page);
      }
      await rows.releaseRead();
    });
  }
  return out;
}

/** The passage fingerprints of `ids` (ascending), BLOCKS_PER_READ blocks a readonly transaction; pages without are left out. */
export async function readFingerprints(store: PageStore, ids: readonly number[]): Promise<Map<number, PassageFingerprints>> {
  const out = new Map<number, PassageFingerprints>();
  // decoded into arrays of their own (decodeStoredPassages copies), so the blocks can go
  await forEachPageBytes(store, ids, (id, bytes) => out.set(id, decodeStoredPassages(id, bytes)!));
  return out;
}

/**
 * A pass's postings of buckets [low, high) (CountedPostings, sized by `counts`, which countPending
 * counted, in `buffers`), each with its fingerprint's place in `places`.
 */
export async function readCountedPostings(store: PageStore, blocks: readonly number[], places: PendingPlaces, counts: Uint32Array, low: number, high: number, buffers: PostingBuffers): Promise<CountedPostings> {
  const counted = new CountedPostings(counts.subarray(low, high), places, buffers);
  await forEachPendingPage(store, blocks, (id, bytes) => {
    // a page changed since it was counted (a visit: touched, its marks left to it) may be unlisted (−1), or hold more fingerprints than listed: those have no place
    const p = places.indexOf(id);
    let i = 0;
    forEachPassageHash(bytes, (h) => {
      const index = i++;
      const b = h & (POSTING_BUCKETS - 1);
      if (b >= low && b < high) counted.add(b - low, h >>> 16, p, index, id);
    });
  });
  counted.finish();
  return counted;
}

/** A pass's postings: bucket j of the pass's range, as [high, id] pairs and their places. */
export interface PassPostings {
  bucket(j: number): { pairs: Uint32Array; placed: Uint32Array };
  /** Lets the postings' arrays go (release): once they are written. */
  release(): void;
}

/**
 * Organising's first read of the pending pages, which keeps no postings: lists every pending page
 * in `places` and counts every bucket's postings in `counts`, so that each pass after it puts its
 * postings straight in their places (CountedPostings, 8 bytes a posting, in buffers sized once).
 */
export async function countPending(store: PageStore, blocks: readonly number[], places: PendingPlaces, counts: Uint32Array): Promise<{ pages: number; fingerprints: number }> {
  let pages = 0;
  let fingerprints = 0;
  await forEachPendingPage(store, blocks, (id, bytes) => {
    let i = 0;
    forEachPassageHash(bytes, (h) => {
      counts[h & (POSTING_BUCKETS - 1)]!++;
      i++;
    });
    pages++;
    fingerprints += i;
    places.add(id, i);
  });
  return { pages, fingerprints };
}

/** Groups of rewrite fingerprints read a transaction when the index is read into memory. */
const REWRITE_GROUPS_PER_READ = 512;

/**
 * Calls `each` with every page's rewrite fingerprints as stored, in id order,
 * REWRITE_GROUPS_PER_READ groups a readonly transaction, from the group after `afterGroup`; an
 * `each` that answers a promise is awaited. The bytes are views of their group's value, which is
 * let go once `each` has seen its pages (release): `each` copies what it keeps. When `stop()` says
 * so after a group, the reading stops there: that group is returned, to start after it again
 * (undefined once every group was read).
 */
export async function forEachRewritePage(
  store: PageStore,
  each: (id: number, bytes: Uint8Array) => void | Promise<void>,
  { afterGroup = -1, stop }: { afterGroup?: number; stop?: () => boolean } = {},
): Promise<number | undefined> {
  return forEachValue(
    store,
    'rewrites',
    REWRITE_GROUPS_PER_READ,
    async (group, value) => {
      let slots: (Uint8Array | undefined)[];
      try {
        slots = decodeRewriteGroup(group, value);
      } catch {
        return; // a damaged group: its pages link nothing, as their lookups in the store would fail
      }
      for (const [slot, bytes] of slots.entries()) {
        if (bytes === undefined) continue;
        const answered = each(group * PASSAGE_GROUP_PAGES + slot, bytes);
        if (answered !== undefined) await answered;
      }
      release(value);
    },
    { after: afterGroup, stop },
  );
}

/**
 * Calls `each` with the rewrite fingerprints of every page of `ids` (ascending) that has them, in
 * id order, each group read once for all its pages (BLOCKS_PER_READ groups a readonly
 * transaction); the bytes are views of their group's value, let go once `each` returns.
 */
export async function forEachRewritePageOf(store: PageStore, ids: ArrayLike<number>, each: (id: number, bytes: Uint8Array) => void): Promise<void> {
  const groups: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    const group = Math.floor(ids[i]! / PASSAGE_GROUP_PAGES);
    if (groups.length === 0 || groups[groups.length - 1] !== group) groups.push(group);
  }
  let next = 0;
  await forEachStoredBlock(store, 'rewrites', groups, (group, value) => {
    let slots: (Uint8Array | undefined)[] = [];
    try {
      slots = decodeRewriteGroup(group, value);
    } catch {
      // a damaged group: its pages link nothing
    }
    for (; next < ids.length && Math.floor(ids[next]! / PASSAGE_GROUP_PAGES) <= group; next++) {
      const bytes = slots[ids[next]! - group * PASSAGE_GROUP_PAGES];
      if (bytes !== undefined) each(ids[next]!, bytes);
    }
  });
}

/** The store's whole rewrite index in memory: every page's fingerprints. */
export async function packedRewriteIndex(store: PageStore): Promise<PackedRewriteIndex> {
  const index = new PackedRewriteIndex(REWRITE_MAX_PAGES);
  await forEachRewritePage(store, (id, bytes) => void index.add(id, bytes));
  index.seal();
  return index;
}
