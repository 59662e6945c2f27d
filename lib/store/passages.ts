// The passage index in IndexedDB: every page's passage fingerprints (hashes and word positions,
// never text) and the postings that say which pages hold each hash. Written in the transaction
// that writes the page (lib/store/pages.ts), so that a page and its fingerprints are whole or
// absent, and forgetting a page removes both.
//
// - `passages`, keyed by group (groupOf: PASSAGE_GROUP_PAGES consecutive page ids a value, as the
//   pages' blocks are): for each slot a varint length, then that many bytes of the page's
//   fingerprints (lib/fingerprint/passage-codec.ts), 0 for a page without any. These are the truth: the
//   postings can be rebuilt from them. (Groups of 256, values of about 68 kB, which Chromium keeps
//   as files outside LevelDB, imported a million pages no faster: 8,460 against 8,276 pages/s.)
// - `postings`, keyed by bucket (lib/index/postings.ts: 2^16 buckets by the hash's low 16 bits):
//   [high 16 bits, page id] entries and the hashes marked as one site's boilerplate.
//
// A visit adds its page's postings in its own transaction (about 52 buckets rewritten). An import
// writes only the fingerprints of its pages, in its batches, and lists their blocks in meta
// `passagePending`; organising adds their postings afterwards, every bucket rewritten once
// (indexPending): rewriting the buckets a batch touches would rewrite all of them every batch.
// Until then, lookups do not see those pages. Adding a posting that is there already, or removing
// one that is not, changes nothing, so a pending page that is visited or forgotten meanwhile is
// handled like any other.
import type { PassageFingerprints } from '../fingerprint/passages';
import { decodeStoredPassages as decodeSlot, encodePassageBytes, passageCount } from '../fingerprint/passage-codec';
import { BOILERPLATE, type BoilerplateRule } from '../index/passage-index';
import { MAX_PASSAGE_CANDIDATES, type PassageSource, type Posting, type SharedPassages, findSharedPassages } from '../index/passage-index';
import {
  type Bucket,
  type BucketChange,
  applyBucketChange,
  bucketOf,
  encodeBucket,
  hashOf,
  highOf,
  heldByAnother,
  HighCursor,
  idsWith,
  isFlagged,
  sortedPairs,
  withFlag,
} from '../index/postings';
import { encodeMarks, finalMarks, hashesToLookUp, marksOfCount, provisionalMarks, withHashMarked } from '../index/passage-marks';
import { type PostingReader, type PostingStore, type SlotReader as PassageBlockReader, type SlotStore as PassageBlockStore, ReadOnce, decodePassageBlock, decodeSlots, encodeSlots, groupOf, readBucket, withRecords } from '../index/slots';
import type { PageRecord } from './schema';
import type { RewriteRows } from '../index/rewrite-store';

export { PASSAGE_GROUP_PAGES, type PostingReader, type PostingStore, type SlotReader as PassageBlockReader, type SlotStore as PassageBlockStore, decodePassageBlock, encodePassageBlock, groupOf } from '../index/slots';

// ---- one transaction's passages -------------------------------------------------------------

/** Where a page's sites come from, in the transaction (for the one-site boilerplate rule). */
export type SiteOf = (id: number) => Promise<string | undefined>;

/** How a page's new fingerprints reach the postings: at once (a visit), or later, by organising (an import). */
export type Indexing = 'now' | 'pending';

/**
 * The passage index within one transaction, as PageRows (lib/rows/page-rows.ts) is for the pages:
 * reads see the transaction's own changes; flush() writes the fingerprints and the postings.
 */
export class PassageRows {
  // read lazily: the arrows reach the stores only when called, after the constructor
  private readonly blocks = new ReadOnce((block) => this.passages.get(block).then((value) => (value === undefined ? [] : decodePassageBlock(block, value))));
  private readonly changedBlocks = new Set<number>();
  /** Each page changed so far: its fingerprint bytes before the transaction's first change, and how its new ones are indexed. */
  private readonly changed = new Map<number, { before: Uint8Array | undefined; indexing: Indexing }>();
  private readonly buckets = new ReadOnce((bucket) => readBucket(this.postings, bucket, 'postings'));
  private readonly markGroups = new ReadOnce((group) => this.marks.get(group).then((value) => (value === undefined ? [] : decodeSlots(group, value, 'passage marks'))));
  private readonly changedMarkGroups = new Set<number>();

  constructor(
    private readonly passages: PassageBlockReader | PassageBlockStore,
    private readonly postings: PostingReader | PostingStore,
    private readonly marks: PassageBlockReader | PassageBlockStore,
    readonly boilerplate: BoilerplateRule = BOILERPLATE,
  ) {}

  private slotsOf(block: number): Promise<(Uint8Array | undefined)[]> {
    return this.blocks.get(block);
  }

  /** The fingerprints kept for page `id` as their bytes (lib/fingerprint/passage-codec.ts), as this transaction has left them; undefined if none. */
  async bytesOf(id: number): Promise<Uint8Array | undefined> {
    if (!Number.isSafeInteger(id) || id < 0) return undefined;
    const { group: block, slot } = groupOf(id);
    return (await this.slotsOf(block))[slot];
  }

  /** The fingerprints kept for page `id`, as this transaction has left them; undefined if none. */
  async fingerprintsOf(id: number): Promise<PassageFingerprints | undefined> {
    return decodeSlot(id, await this.bytesOf(id));
  }

  /** Page `id`'s marks (lib/index/passage-marks.ts) as this transaction has left them; undefined if none. */
  async marksOf(id: number): Promise<Uint8Array | undefined> {
    const { group, slot } = groupOf(id);
    return (await this.markGroups.get(group))[slot];
  }

  /** Stored page `id`'s fingerprints, the buckets of their marked hashes on their way (storedPassageMatches reads them). */
  async prefetchStored(id: number): Promise<PassageFingerprints | undefined> {
    const own = await this.fingerprintsOf(id);
    if (own !== undefined) this.prefetch({ hashes: hashesToLookUp(own.hashes, await this.marksOf(id)) });
    return own;
  }

  /**
   * Organising's marks of pages of pending blocks, written at once: final, fingerprint i of page
   * `id` marked when `held(i)` or marked already (by a visit since organising read the buckets).
   * `count`: the page's fingerprints as organising listed them; the caller leaves out the pages
   * visited or forgotten since (touched), so their fingerprints are not read again.
   */
  async markOrganised(pages: readonly { id: number; count: number; held: (i: number) => boolean }[]): Promise<void> {
    // every group read at once, not one round trip after another (a page's marks are its own slot:
    // setting one page's leaves what was read of the others as it was)
    const earlier = await Promise.all(pages.map(({ id }) => this.marksOf(id)));
    for (const [i, { id, count, held }] of pages.entries()) await this.setMarks(id, finalMarks(count, held, earlier[i]));
    await this.writeMarks();
  }

  private async setMarks(id: number, marks: Uint8Array | undefined): Promise<void> {
    const { group, slot } = groupOf(id);
    const slots = await this.markGroups.get(group);
    while (slots.length <= slot) slots.push(undefined);
    slots[slot] = marks;
    this.changedMarkGroups.add(group);
  }

  /** The bucket `bucket` as this transaction reads it (its own changes are written by flush). */
  bucket(bucket: number): Promise<Bucket> {
    return this.buckets.get(bucket);
  }

  /** Starts reading the buckets a lookup of `fingerprints` reads, and returns at once (as RewriteRows.prefetch). */
  prefetch(fingerprints: { hashes: ArrayLike<number> } | undefined): void {
    if (fingerprints !== undefined) for (let i = 0; i < fingerprints.hashes.length; i++) void this.bucket(bucketOf(fingerprints.hashes[i]!));
  }

  /** The postings of each distinct hash, read in parallel (hashes no page holds are absent). */
  async postingsOf(hashes: ArrayLike<number>): Promise<Map<number, Posting>> {
    const distinct = [...new Set(Array.from(hashes))];
    const buckets = await Promise.all(distinct.map((h) => this.bucket(bucketOf(h))));
    const out = new Map<number, Posting>();
    distinct.forEach((h, i) => {
      const ids = idsWith(buckets[i]!, highOf(h));
      if (ids.length > 0) out.set(h, { ids, siteBoilerplate: isFlagged(buckets[i]!, highOf(h)) });
    });
    return out;
  }

  /**
   * Keeps `fingerprints` for page `id` (undefined: keeps none; bytes: as encodePassageBytes gives
   * them, already checked), in place of what it had. Its old postings are removed at flush; its new
   * ones are added then ('now') or by organising ('pending').
   */
  async set(id: number, fingerprints: PassageFingerprints | Uint8Array | undefined, indexing: Indexing = 'now'): Promise<void> {
    const bytes = fingerprints === undefined || fingerprints instanceof Uint8Array ? fingerprints : encodePassageBytes(fingerprints);
    const { group: block, slot } = groupOf(id);
    const slots = await this.slotsOf(block);
    // the bytes before the transaction's first change, read in the same turn as the change
    const entry = this.changed.get(id);
    if (entry === undefined) this.changed.set(id, { before: slots[slot], indexing });
    else entry.indexing = indexing;
    while (slots.length <= slot) slots.push(undefined);
    slots[slot] = bytes;
    this.changedBlocks.add(block);
    // marked at flush if indexed now; by organising if pending (provisional until then)
    await this.setMarks(id, bytes === undefined || indexing === 'now' ? undefined : provisionalMarks(passageCount(bytes)));
  }

  /** Whether this transaction changed any page's fingerprints. */
  get isChanged(): boolean {
    return this.changed.size > 0;
  }

  /**
   * Writes what this transaction changed: the fingerprints' blocks, and the postings (old ones
   * removed, new ones added unless pending, the one-site boilerplate marks of the hashes whose
   * pages changed reconsidered with `siteOf`). Returns the blocks with pages left pending, and
   * how many fingerprints they hold. Call once, after the last change, before the transaction ends.
   */
  async flush(siteOf: SiteOf): Promise<{ pendingBlocks: number[]; pendingFingerprints: number; changedNow: number[] }> {
    const changes = new Map<number, { add: number[]; remove: number[] }>();
    const change = (h: number): { add: number[]; remove: number[] } => {
      const b = bucketOf(h);
      let c = changes.get(b);
      if (c === undefined) changes.set(b, (c = { add: [], remove: [] }));
      return c;
    };
    const pendingBlocks = new Set<number>();
    let pendingFingerprints = 0;
    const changedNow: number[] = [];
    const indexedNow: [number, PassageFingerprints][] = [];
    for (const [id, { before, indexing }] of this.changed) {
      const old = decodeSlot(id, before);
      if (old !== undefined) for (const h of new Set(old.hashes)) change(h).remove.push(highOf(h), id);
      if (indexing === 'now') changedNow.push(id);
      const bytes = await this.bytesOf(id);
      if (bytes === undefined) continue;
      if (indexing === 'pending') {
        pendingBlocks.add(groupOf(id).group);
        pendingFingerprints += passageCount(bytes);
      } else {
        const own = decodeSlot(id, bytes)!;
        indexedNow.push([id, own]);
        for (const h of new Set(own.hashes)) change(h).add.push(highOf(h), id);
      }
    }
    await this.applyChanges(changes, siteOf);
    // the pages indexed now: each hash marked when another page holds it, as the buckets now say
    for (const [id, own] of indexedNow) {
      const postings = await this.postingsOf(own.hashes);
      await this.setMarks(id, encodeMarks(own.hashes.length, (i) => heldByAnother(postings.get(own.hashes[i]!)?.ids, id)));
    }
    await this.writeMarks();
    await this.writeBlocks();
    this.changed.clear();
    return { pendingBlocks: [...pendingBlocks], pendingFingerprints, changedNow };
  }

  /**
   * Applies the changes to their buckets, reconsiders the boilerplate flags of the hashes they
   * touch, and writes the buckets; a page that held a hash alone and now shares it gets it marked
   * (those that shared it already have it marked; the pages added mark theirs at flush).
   */
  async applyChanges(changes: ReadonlyMap<number, BucketChange>, siteOf: SiteOf): Promise<void> {
    const store = this.writable(this.postings);
    const nowShared: [number, number][] = []; // [page, hash]
    await Promise.all(
      [...changes].map(async ([b, c]) => {
        const before = await this.bucket(b);
        // the additions sorted by hash (organising's come sorted: byBucket): each hash is looked at
        // once, and each search picks up where the last ended
        const adding = sortedPairs(c.add);
        let bucket = applyBucketChange(before, c, adding);
        const touched = new Set<number>();
        const beforeCursor = new HighCursor(before);
        const afterCursor = new HighCursor(bucket);
        for (let i = 0; i < adding.highs.length; i++) {
          const high = adding.highs[i]!;
          if (i > 0 && high === adding.highs[i - 1]) continue;
          touched.add(high);
          if (beforeCursor.countWith(high) === 1 && afterCursor.countWith(high) > 1) nowShared.push([beforeCursor.first, hashOf(b, high)]);
        }
        for (let i = 0; i < c.remove.length; i += 2) touched.add(c.remove[i]!);
        const flagCursor = new HighCursor(bucket); // withFlag changes only the flags: the highs and ids stay
        for (const high of touched) {
          // most hashes are held by too few pages, or too many, for a site's boilerplate: no sites read, no await
          const flagged = this.maySiteBoilerplate(flagCursor.countWith(high)) && (await this.isSiteBoilerplate(flagCursor.idsWith(high), siteOf));
          bucket = withFlag(bucket, high, flagged);
        }
        this.buckets.set(b, bucket);
        return bucket.highs.length === 0 && bucket.flagged.length === 0 ? store.delete(b) : store.put(encodeBucket(bucket), b);
      }),
    );
    for (const [id, hash] of nowShared) {
      const [marks, own] = await Promise.all([this.marksOf(id), this.fingerprintsOf(id)]);
      if (marks === undefined || own === undefined || !marksOfCount(marks, own.hashes.length)) continue; // no marks: every hash is looked up
      const marked = withHashMarked(marks, own.hashes, hash);
      if (marked !== marks) await this.setMarks(id, marked);
    }
    await this.writeMarks();
  }

  private writeMarks(): Promise<void> {
    return this.writeGroups(this.marks, this.changedMarkGroups, (group) => this.markGroups.get(group));
  }

  /** Whether a hash held by `holders` pages can be one site's boilerplate: from maxSitePages to maxPages holders (past it the count decides alone). */
  private maySiteBoilerplate(holders: number): boolean {
    return holders >= this.boilerplate.maxSitePages && holders <= this.boilerplate.maxPages;
  }

  /**
   * Whether pages `ids` (the holders of one hash) make it one site's boilerplate: at least
   * maxSitePages of them on one site. Past maxPages the count decides alone, and no site is read.
   */
  private async isSiteBoilerplate(ids: ArrayLike<number>, siteOf: SiteOf): Promise<boolean> {
    if (!this.maySiteBoilerplate(ids.length)) return false;
    const sites = await Promise.all(Array.from(ids, (id) => siteOf(id)));
    const counts = new Map<string, number>();
    for (const site of sites) {
      if (site === undefined) continue;
      const n = (counts.get(site) ?? 0) + 1;
      if (n >= this.boilerplate.maxSitePages) return true;
      counts.set(site, n);
    }
    return false;
  }

  private writeBlocks(): Promise<void> {
    return this.writeGroups(this.passages, this.changedBlocks, (block) => this.slotsOf(block));
  }

  /** Writes the groups `changed` of `into` (a group without slots is deleted), and forgets them. */
  private async writeGroups(into: PassageBlockReader | PassageBlockStore, changed: Set<number>, slotsOf: (group: number) => Promise<(Uint8Array | undefined)[]>): Promise<void> {
    const store = this.writable(into);
    const groups = [...changed];
    changed.clear();
    await Promise.all(
      groups.map(async (group) => {
        const value = encodeSlots(await slotsOf(group));
        return value === undefined ? store.delete(group) : store.put(value, group);
      }),
    );
  }

  private writable<S extends object>(store: S): S & { put(value: Uint8Array, key: number): Promise<unknown>; delete(key: number): Promise<unknown> } {
    if (!('put' in store)) throw new TypeError('PassageRows: the passage index was changed through a store that cannot be written');
    return store as S & { put(value: Uint8Array, key: number): Promise<unknown>; delete(key: number): Promise<unknown> };
  }
}

/** A page's fingerprints as the store keeps them (bytes), beside its record: what an export writes and an import reads. */
export type Kept = { passages?: Uint8Array; rewrites?: Uint8Array };

/** A record with the bytes of its passage and rewrite fingerprints, those it has. */
export async function withBytes<R extends PageRecord>(record: R, passages: PassageRows, rewrites: RewriteRows): Promise<R & Kept> {
  const [p, r] = await Promise.all([passages.bytesOf(record.id), rewrites.bytesOf(record.id)]);
  return { ...record, ...(p === undefined ? {} : { passages: p }), ...(r === undefined ? {} : { rewrites: r }) };
}

// ---- matches of a stored page ------------------------------------------------------------------

/** A page sharing passages with the one looked up, with its record. */
export interface RecordMatch {
  record: PageRecord;
  match: SharedPassages;
}

/**
 * The pages sharing passages with `own` (page `ownId`, whose fingerprints they are), except the
 * ids in `exclude`: read through the transaction's postings, fingerprints and records (a
 * candidate whose record is gone is dropped), the largest share of own first.
 */
export async function passageMatches(
  passages: PassageRows,
  records: (id: number) => Promise<PageRecord | undefined>,
  own: PassageFingerprints,
  ownId: number,
  exclude: ReadonlySet<number> = new Set(),
  maxCandidates = MAX_PASSAGE_CANDIDATES,
): Promise<RecordMatch[]> {
  return withRecords(await findSharedPassages(passages, own, ownId, { exclude: (id) => exclude.has(id), maxCandidates }), records);
}

/**
 * passageMatches of the stored page `id`, `own` being its fingerprints as stored: only the buckets
 * of the hashes its marks say another page holds are read (a hash no other page holds names no
 * candidate, and is not boilerplate).
 */
export async function storedPassageMatches(passages: PassageRows, records: (id: number) => Promise<PageRecord | undefined>, own: PassageFingerprints, id: number, exclude: ReadonlySet<number>): Promise<RecordMatch[]> {
  const marked = hashesToLookUp(own.hashes, await passages.marksOf(id));
  const source: PassageSource = { boilerplate: passages.boilerplate, postingsOf: () => passages.postingsOf(marked), fingerprintsOf: (other) => passages.fingerprintsOf(other) };
  return withRecords(await findSharedPassages(source, own, id, { exclude: (other) => exclude.has(other), maxCandidates: MAX_PASSAGE_CANDIDATES }), records);
}
