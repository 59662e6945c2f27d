// The rewrite index over a store of groups and a store of posting buckets (IndexedDB's, in the
// extension: lib/store/pages.ts): every page's rewrite fingerprints (a few dozen hashes of pairs
// of its rare words, cut to 20 bits: never text) and the postings that say which pages hold each
// hash. Written in the transaction that writes the page, so that a page and its fingerprints are
// whole or absent, and forgetting a page removes both.
//
// - `rewrites`, keyed by group (PASSAGE_GROUP_PAGES consecutive page ids a value, lib/index/slots.ts):
//   for each slot a varint length, then the page's bytes (lib/fingerprint/rewrite-codec.ts).
//   These are the truth: the postings can be rebuilt from them.
// - `rewritePostings`, keyed by bucket (lib/index/postings.ts): which pages hold each index hash
//   (a page's hashes below REWRITE_RULE.indexShare of its limit, rewriteIndexHashes). A hash's 20
//   kept bits are its key, whose low 16 bits choose the bucket and whose top 4 are its high there;
//   a bucket's page ids are Rice-coded (lib/index/rice-buckets.ts).
//
// A lookup reads the buckets of its page's index hashes, then the fingerprints of the candidates
// that share at least REWRITE_RULE.minIndexShared of them (lib/index/rewrite-index.ts findRewriteMatches).
import { decodeRewriteBytes, encodeRewriteBytes } from '../fingerprint/rewrite-codec';
import { REWRITE_PARAMS, REWRITE_RULE, type RewriteFingerprints, indexHashes } from '../fingerprint/rewrites';
import { type Bucket, POSTING_BUCKET_BITS, applyBucketChange, bucketOf, highOf, idsWith } from './postings';
import { decodeRiceBucket, encodeRiceBucket } from './rice-buckets';
import { MAX_REWRITE_CANDIDATES, type RewriteMatch, type RewriteSource, findRewriteMatches } from './rewrite-index';
import { type PostingReader, type PostingStore, ReadOnce, type SlotReader, type SlotStore, decodeSlots, encodeSlots, groupOf, readBucket, sameBytes, withRecords } from './slots';

/** A hash on more pages than this is left out of lookups: it names a subject, not an article (as `scan`'s REWRITE_MAX_PAGES). */
export const REWRITE_MAX_PAGES = 100;

/** The bits of a hash that are kept (REWRITE_PARAMS.sample.bits = 20), as a posting key. */
const KEY_SHIFT = 32 - REWRITE_PARAMS.sample.bits;
const keyOf = (hash: number): number => hash >>> KEY_SHIFT;
/** A key's bits past the bucket's: its high in the bucket. */
const HIGH_BITS = REWRITE_PARAMS.sample.bits - POSTING_BUCKET_BITS;

/** A bucket of `rewritePostings` as stored (lib/index/rice-buckets.ts). */
export const encodeRewriteBucket = (bucket: Bucket): Uint8Array => encodeRiceBucket(bucket, HIGH_BITS);
export const decodeRewriteBucket = (bytes: Uint8Array): Bucket => decodeRiceBucket(bytes, HIGH_BITS);

/**
 * The rewrite index within one transaction, as PassageRows is for passages: reads see the
 * transaction's own changes; flush() writes the fingerprints and the postings.
 */
export class RewriteRows implements RewriteSource {
  readonly maxPages = REWRITE_MAX_PAGES;
  readonly indexShare = REWRITE_RULE.indexShare;
  // read lazily: the arrows reach the stores only when called, after the constructor
  private readonly groups = new ReadOnce((group) => this.rewrites.get(group).then((value) => (value === undefined ? [] : decodeRewriteGroup(group, value))));
  private readonly changedGroups = new Set<number>();
  /** Each page changed so far: its bytes before the transaction's first change, and whether its new postings wait for organising. */
  private readonly changed = new Map<number, { before: Uint8Array | undefined; pending: boolean }>();
  private readonly buckets = new ReadOnce((bucket) => readBucket(this.postings, bucket, 'rewrite postings', decodeRewriteBucket));

  constructor(
    private readonly rewrites: SlotReader | SlotStore,
    private readonly postings: PostingReader | PostingStore,
  ) {}

  private slotsOf(group: number): Promise<(Uint8Array | undefined)[]> {
    return this.groups.get(group);
  }

  /** Page `id`'s fingerprints as bytes, as this transaction has left them; undefined if none. */
  async bytesOf(id: number): Promise<Uint8Array | undefined> {
    if (!Number.isSafeInteger(id) || id < 0) return undefined;
    const { group, slot } = groupOf(id);
    return (await this.slotsOf(group))[slot];
  }

  async fingerprintsOf(id: number): Promise<RewriteFingerprints | undefined> {
    const bytes = await this.bytesOf(id);
    if (bytes === undefined) return undefined;
    try {
      return decodeRewriteBytes(bytes);
    } catch (error) {
      throw new RangeError(`Doppel's stored rewrite fingerprints of page ${id} are damaged: ${(error as Error).message}.`);
    }
  }

  private bucket(bucket: number): Promise<Bucket> {
    return this.buckets.get(bucket);
  }

  /**
   * Starts reading the buckets a lookup of `fingerprints` reads, and returns at once: a reader
   * calls it before its other lookups, so that the store's reads overlap (a later lookup finds the
   * buckets read or on their way). A failed read fails that lookup, not this call.
   */
  prefetch(fingerprints: Pick<RewriteFingerprints, 'hashes' | 'limit'> | undefined): void {
    if (fingerprints === undefined) return;
    for (const h of rewriteIndexHashes(fingerprints)) void this.bucket(bucketOf(keyOf(h)));
  }

  async postingsOf(hashes: ArrayLike<number>): Promise<Map<number, Uint32Array>> {
    const distinct = [...new Set(Array.from(hashes))];
    const buckets = await Promise.all(distinct.map((h) => this.bucket(bucketOf(keyOf(h)))));
    const out = new Map<number, Uint32Array>();
    distinct.forEach((h, i) => {
      const ids = idsWith(buckets[i]!, highOf(keyOf(h)));
      if (ids.length > 0) out.set(h, ids);
    });
    return out;
  }

  /**
   * Keeps `fingerprints` for page `id` (undefined: none; bytes: already checked) in place of what it
   * had. At flush its old postings are removed and its new ones added, or (`pending`: an import's)
   * left for organising (lib/organise/passage-organise.ts), which adds them for the blocks flush names.
   */
  async set(id: number, fingerprints: RewriteFingerprints | Uint8Array | undefined, { pending = false }: { pending?: boolean } = {}): Promise<void> {
    const bytes = fingerprints === undefined || fingerprints instanceof Uint8Array ? fingerprints : encodeRewriteBytes(fingerprints);
    const { group, slot } = groupOf(id);
    const slots = await this.slotsOf(group);
    const entry = this.changed.get(id);
    if (entry === undefined) this.changed.set(id, { before: slots[slot], pending });
    else entry.pending = pending;
    while (slots.length <= slot) slots.push(undefined);
    slots[slot] = bytes;
    this.changedGroups.add(group);
  }

  get isChanged(): boolean {
    return this.changed.size > 0;
  }

  /** The pages whose fingerprints this transaction changed (not set again to the same bytes) and their index hashes, before and after (for RewriteWatch: lib/store/rewrite-watch.ts); call before flush. */
  async changedIndexHashes(): Promise<{ pages: number[]; hashes: number[]; damaged: boolean }> {
    const pages: number[] = [];
    const hashes: number[] = [];
    let damaged = false;
    for (const [id, { before }] of this.changed) {
      const now = await this.bytesOf(id);
      if (before === now || sameBytes(before, now)) continue; // set again as it was (or absent both times)
      pages.push(id);
      try {
        if (before !== undefined) hashes.push(...rewriteIndexHashes(decodeRewriteBytes(before)));
        if (now !== undefined) hashes.push(...rewriteIndexHashes(decodeRewriteBytes(now)));
      } catch {
        damaged = true; // bytes that do not decode: which hashes they held is unknown
      }
    }
    return { pages, hashes, damaged };
  }

  /** Writes what this transaction changed: the groups, and the postings (old ones removed, new ones added unless pending); returns the groups with pages pending. Call once, after the last change. */
  async flush(): Promise<number[]> {
    const changes = new Map<number, { add: number[]; remove: number[] }>();
    const change = (hash: number): { add: number[]; remove: number[] } => {
      const b = bucketOf(keyOf(hash));
      let c = changes.get(b);
      if (c === undefined) changes.set(b, (c = { add: [], remove: [] }));
      return c;
    };
    const pendingGroups = new Set<number>();
    for (const [id, { before, pending }] of this.changed) {
      if (before !== undefined) for (const h of rewriteIndexHashes(decodeRewriteBytes(before))) change(h).remove.push(highOf(keyOf(h)), id);
      const now = await this.fingerprintsOf(id);
      if (now === undefined) continue;
      if (pending) pendingGroups.add(groupOf(id).group);
      else for (const h of rewriteIndexHashes(now)) change(h).add.push(highOf(keyOf(h)), id);
    }
    const rewrites = writable(this.rewrites);
    await Promise.all([
      this.applyChanges(changes),
      ...[...this.changedGroups].map(async (group) => {
        const value = encodeSlots(await this.slotsOf(group));
        return value === undefined ? rewrites.delete(group) : rewrites.put(value, group);
      }),
    ]);
    this.changed.clear();
    this.changedGroups.clear();
    return [...pendingGroups];
  }

  /** Applies changes to their buckets ([high, id] pairs: bucketAndHigh gives them for a hash) and writes the buckets. */
  async applyChanges(changes: ReadonlyMap<number, { add: ArrayLike<number>; remove: ArrayLike<number> }>): Promise<void> {
    const postings = writable(this.postings);
    await Promise.all(
      [...changes].map(async ([b, c]) => {
        const bucket = applyBucketChange(await this.bucket(b), c);
        this.buckets.set(b, bucket);
        return bucket.highs.length === 0 ? postings.delete(b) : postings.put(encodeRewriteBucket(bucket), b);
      }),
    );
  }
}

/** A value of `rewrites`: each slot's bytes; a RangeError naming the group if it is damaged. */
export function decodeRewriteGroup(group: number, value: unknown): (Uint8Array | undefined)[] {
  return decodeSlots(group, value, 'rewrite fingerprints');
}

/** The hashes of a page that `rewritePostings` holds. */
export function rewriteIndexHashes(fingerprints: Pick<RewriteFingerprints, 'hashes' | 'limit'>): Uint32Array {
  return indexHashes(fingerprints, REWRITE_RULE.indexShare);
}

/** A rewrite hash's bucket in `rewritePostings` and its high there. */
export function bucketAndHigh(hash: number): { bucket: number; high: number } {
  return { bucket: bucketOf(keyOf(hash)), high: highOf(keyOf(hash)) };
}

function writable<S extends object>(store: S): S & { put(value: Uint8Array, key: number): Promise<unknown>; delete(key: number): Promise<unknown> } {
  if (!('put' in store)) throw new TypeError('RewriteRows: the rewrite index was changed through a store that cannot be written');
  return store as S & { put(value: Uint8Array, key: number): Promise<unknown>; delete(key: number): Promise<unknown> };
}

/** The rewrites of `own` (page `ownId`) among the stored pages (`rows`, or the store's index in memory: PackedRewriteIndex), except the ids in `exclude`, each with its record (a candidate whose record is gone is dropped). */
export async function rewriteMatches<R extends { id: number }>(
  rows: RewriteSource,
  records: (id: number) => Promise<R | undefined>,
  own: RewriteFingerprints,
  ownId: number,
  exclude: ReadonlySet<number> = new Set(),
  maxCandidates = MAX_REWRITE_CANDIDATES,
): Promise<RewriteRecordMatch<R>[]> {
  return withRecords(await findRewriteMatches(rows, own, ownId, { exclude: (id) => exclude.has(id), maxCandidates }), records);
}

/** A page that rewrites or translates the one looked up, or that it rewrites, with its record. */
export interface RewriteRecordMatch<R> {
  record: R;
  match: RewriteMatch;
}
