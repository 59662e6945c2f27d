// Organising the passage index after an import (lib/store/passages.ts): the postings of the pages
// an import left pending are added, every bucket rewritten at most once a pass, and then which of
// them are passage copies (and which pages they make copies) is worked out.
//
// 1. Postings. The pending blocks' fingerprints are read, the postings of a range of buckets kept
//    in memory (a million-page import takes several passes, each reading the pending fingerprints
//    again, rather than holding 52 million postings: a first read counts every bucket's, then each
//    pass takes at most POSTINGS_PER_PASS, each put in its place at once in buffers sized once),
//    and each bucket of the range gets them in one change: read, merged, written. The pages a visit or a
//    forgetting changed since they were listed (meta `passagePending`.touched) already have their
//    postings as they should be and are left out, so a posting of a page's old text, or of a
//    forgotten page, is never added. Each posting carries its fingerprint's place in a bit array
//    of all the pending fingerprints, and each merged bucket sets the bits of those another page
//    holds: the pending pages' marks, written after the passes (writeMarks).
//    The pending pages' rewrite fingerprints get their postings the same way (indexPendingRewrites).
// 2. Copies. One pass over every bucket finds the pairs of pages that hold two or more of the same
//    hashes (not boilerplate), one of them pending: only those can share a passage of 30 words
//    (lib/index/passage-index.ts). Each pair is compared from both sides, as a lookup of either page
//    would. Then each pending page with rewrite fingerprints is looked up in the rewrite index, as
//    a visit would (a rewrite key is on dozens of pages, too many for pairs), and so is each later
//    page of another site that one of them finds. A pending page is a content copy exactly when
//    its pairs or its lookup say so, and a page stored before becomes one when a pending page it
//    shares with, or rewrites, was seen before it on another site. A page looked up joins the
//    groups of the pages it finds, as a visit would (page-groups.ts), where the whole-store regroup
//    has not joined them. An import of more than MAX_REWRITE_LOOKUPS pages is looked up in the
//    store's rewrite index read into memory (PackedRewriteIndex), not bucket by bucket. After a
//    whole-store regroup (organise), its lookups are used instead (RewriteLinks): only the pages a
//    rewrite change since can have reached are looked up again, and a record is read only for a
//    lookup that found something (or a page the regroup read as a copy): copy-lookups.ts. The
//    history page shows this step in four parts ('copies' progress: the pairs found, compared,
//    the rewrite lookups, the copies saved).
// 3. The blocks are taken off the pending list.
import { BOILERPLATE, comparePassages } from '../index/passage-index';
import type { PassageFingerprints } from '../fingerprint/passages';
import { isPassageCopyOf, mayCopy } from '../report/copies';
import { POSTING_BUCKETS, type BucketChange, decodeBucket } from '../index/postings';
import { decodeRewriteBytes } from '../fingerprint/rewrite-codec';
import { bucketAndHigh, decodeRewriteGroup, rewriteIndexHashes } from '../index/rewrite-store';
import { tablesOf } from '../index/design';
import type { PageStore } from '../store/pages';
import { regroupAround } from '../store/page-groups';
import { storedRecord } from '../store/records';
import { PASSAGE_GROUP_PAGES } from '../store/passages';
import { addPendingBlocks, inRanges, parsePending, pendingBlocks } from '../index/pending-blocks';
import { PendingPlaces, SharedPairs, Words, byBucket, laterPasses, postingBuffers, release, withoutPages } from '../index/posting-passes';
import type { PageRecord, PendingPassages } from '../store/schema';
import type { RewriteLinks } from '../store/rewrite-watch';
import { type HeldMemory, POSTINGS_PER_PASS } from './budget';
import { within } from '../store/within';
import { type RewriteLookup, handedLookups, reachedByChanges, rewriteLookups } from './copy-lookups';
import { BLOCKS_PER_READ, type PassPostings, countPending, forEachValue, packedRewriteIndex, readCountedPostings, readFingerprints, readPairPages } from './bulk-reads';

/**
 * The rewrite passes hold 24 bytes a posting (lists as read, then sorted: byBucket) and a page
 * holds fewer rewrite hashes than passage fingerprints (28 and 50 in bench's histories): they take
 * as many passes as postingsPerPass ÷ REWRITE_PASS_SHARE passage fingerprints a pass would.
 */
const REWRITE_PASS_SHARE = 0.5;
/**
 * Buckets changed a transaction. A write holds every store until it commits, and a popup's lookup
 * waits for it: 1,024 buckets a transaction kept popups waiting 450–870 ms at a million pages, 256
 * kept them 160–400 ms, organising as long (one run each, bench:browser --popups-while-organising).
 */
const BUCKETS_PER_WRITE = 256;
/**
 * Buckets read a transaction when looking for pairs: a read's values arrive at once, and a million
 * pages' 65,536 buckets hold some 50 million postings (a sixteenth of them a read at 4,096).
 */
const BUCKETS_PER_SCAN = 1024;
/**
 * Pairs of pages sharing passages compared at a time, their fingerprints read for them (each page's
 * decoded into three arrays of its own). With 4,096, the copy marking's most at a million pages
 * came while the pairs were compared (a run traced by step, at 34123fe).
 */
const PAIRS_PER_READ = 1024;
/**
 * Records rewritten a transaction when copies change (and lookups' pages joined to groups): each
 * is in a block of 64 of its own or nearly, read, inflated, rewritten and deflated, and the
 * transaction holds them all until it commits. With 500, the copy marking's most at a million
 * pages came in these writes (a run traced by step, at 3b926ad).
 */
const RECORDS_PER_WRITE = 128;
/** Pages whose marks are written a transaction (64 groups of marks): a million pages' in 245 transactions rather than 2,000. */
const MARKS_PER_WRITE = 4096;
/**
 * Organising looks the pending pages up in the store's rewrite index, as visits would, for an
 * import of at most this many pages' blocks: each lookup reads a few dozen buckets, so a million
 * would take hours. Past it, the whole index is read into memory once (PackedRewriteIndex: all
 * the pages' fingerprints, about 190 bytes a page with the postings at a million) and the lookups read nothing.
 */
export const MAX_REWRITE_LOOKUPS = 20_000;

/**
 * Step 1's passes ('passages'), then step 2 in its four parts ('copies': the index read for pairs,
 * the pairs compared, the rewrite lookups, the copies saved), then the pending list ('passages').
 */
export interface PassageProgress {
  phase: 'passages' | 'copies';
  done: number;
  total: number;
}

/** Step 2's parts, each reported as 'copies' progress done of COPY_PARTS. */
const COPY_PARTS = 4;

export interface PassageOrganised {
  /** Pages whose postings were added, and their fingerprints. */
  pages: number;
  fingerprints: number;
  passes: number;
  /** Pairs of pages compared, and the pages whose contentCopy changed. */
  pairs: number;
  copiesChanged: number;
  /** Pages looked up in the rewrite index, and whether in the index read into memory (more than MAX_REWRITE_LOOKUPS of them). */
  rewriteLookups: number;
  rewritesInMemory: boolean;
  /** Pages whose lookup the regroup had made (organise: RewriteLinks) and that found something: their records read, the lookup not made again. */
  rewritesHanded: number;
}

async function readPending(store: PageStore): Promise<PendingPassages> {
  const tx = store.db.transaction('meta', 'readonly');
  return within(tx, async () => parsePending(await tx.store.get('passagePending')));
}

/** Organises the passage index if an import left pages pending; null if none are. */
export async function indexPending(
  store: PageStore,
  {
    onProgress,
    postingsPerPass = POSTINGS_PER_PASS,
    maxRewriteLookups = MAX_REWRITE_LOOKUPS,
    links,
    onMemory,
  }: {
    onProgress?: (progress: PassageProgress) => void | Promise<void>;
    postingsPerPass?: number;
    maxRewriteLookups?: number;
    /** The whole-store regroup's rewrite lookups, made before this run (organise): used, not made again. */
    links?: RewriteLinks;
    /** Told what each pass holds in memory at its most (lib/organise/budget.ts). */
    onMemory?: (held: HeldMemory) => void;
  } = {},
): Promise<PassageOrganised | null> {
  const pending = await readPending(store);
  if (pending.blocks.length === 0) return null;
  const blocks = [...pendingBlocks(pending)];
  // a first read lists the pending pages and counts every bucket's postings; then each pass takes a
  // range of buckets of at most postingsPerPass postings (planned by the counts), put in their
  // places at once in one pair of buffers that every pass reuses (8 bytes a posting)
  const counts = new Uint32Array(POSTING_BUCKETS);
  const places = new PendingPlaces();
  // read, then a read and a write a pass; then the marks, the copies, the list
  let steps = 2 * Math.max(1, Math.ceil(pending.fingerprints / postingsPerPass)) + 4;
  await onProgress?.({ phase: 'passages', done: 0, total: steps });
  const { pages, fingerprints } = await countPending(store, blocks, places, counts);
  const ends = laterPasses(counts, 0, postingsPerPass);
  steps = 2 * ends.length + 4;
  let most = 0;
  for (let p = 0; p < ends.length; p++) most = Math.max(most, counts.subarray(p === 0 ? 0 : ends[p - 1], ends[p]).reduce((sum, c) => sum + c, 0));
  const buffers = postingBuffers(most);
  for (let pass = 0; pass < ends.length; pass++) {
    await onProgress?.({ phase: 'passages', done: 1 + 2 * pass, total: steps });
    const low = pass === 0 ? 0 : ends[pass - 1]!;
    const high = ends[pass]!;
    const postings = await readCountedPostings(store, blocks, places, counts, low, high, buffers);
    onMemory?.({ pass: 'passagePostings', bytes: postings.heldBytes() + counts.byteLength + places.heldBytes(), pages: places.ids.length });
    await onProgress?.({ phase: 'passages', done: 2 + 2 * pass, total: steps });
    await writePassPostings(store, postings, low, high, places);
    postings.release();
  }
  const passes = ends.length;
  release(buffers.keys, buffers.pages);
  await onProgress?.({ phase: 'passages', done: 1 + 2 * passes, total: steps });
  await writeMarks(store, places);
  await indexPendingRewrites(store, blocks, Math.max(1, Math.ceil(pending.fingerprints / (postingsPerPass * REWRITE_PASS_SHARE))), onMemory);
  await onProgress?.({ phase: 'passages', done: 2 + 2 * passes, total: steps });
  const { pairs, copiesChanged, rewriteLookups, rewritesHanded, rewritesInMemory } = await markCopies(store, pending, maxRewriteLookups, links, onMemory, onProgress);
  await onProgress?.({ phase: 'passages', done: 3 + 2 * passes, total: steps });
  // the blocks organised come off the list; blocks listed since (none while the writer runs this) stay
  await store.write(async ({ meta }) => {
    const now = parsePending(await meta.get('passagePending'));
    const left = [...pendingBlocks(now)].filter((b) => !inRanges(pending.blocks, b));
    if (left.length === 0) await meta.delete('passagePending');
    else {
      const ranges = addPendingBlocks([], left);
      await meta.put({ blocks: ranges, fingerprints: Math.max(0, now.fingerprints - pending.fingerprints), touched: now.touched.filter((id) => inRanges(ranges, Math.floor(id / PASSAGE_GROUP_PAGES))) }, 'passagePending');
    }
  });
  await onProgress?.({ phase: 'passages', done: steps, total: steps });
  return { pages, fingerprints, passes, pairs, copiesChanged, rewriteLookups, rewritesHanded, rewritesInMemory };
}

/**
 * Step 1, then: the pending pages' marks (lib/index/passage-marks.ts), as step 1's merges found
 * them, added to what visits marked meanwhile (PassageRows.markOrganised: a visit that makes a
 * hash shared marks it on the page that held it alone). Pages visited or forgotten since they were
 * listed keep what their visits left; the others hold the fingerprints listed, so their counts are
 * taken from the list (their fingerprints are not read again).
 */
async function writeMarks(store: PageStore, places: PendingPlaces): Promise<void> {
  const ids = places.ids.view();
  for (let from = 0; from < ids.length; from += MARKS_PER_WRITE) {
    await store.write(async ({ passages, meta }) => {
      const touched = new Set(parsePending(await meta.get('passagePending')).touched);
      const pages: { id: number; count: number; held: (i: number) => boolean }[] = [];
      for (let p = from; p < Math.min(ids.length, from + MARKS_PER_WRITE); p++) if (!touched.has(ids[p]!)) pages.push({ id: ids[p]!, count: places.countOf(p), held: places.heldOf(p) });
      await passages.markOrganised(pages);
    });
  }
}

/** Merges a pass's postings into buckets [low, high), BUCKETS_PER_WRITE a transaction, and marks in `places` the fingerprints another page holds. */
async function writePassPostings(store: PageStore, postings: PassPostings, low: number, high: number, places: PendingPlaces): Promise<void> {
  for (let from = low; from < high; from += BUCKETS_PER_WRITE) {
    const to = Math.min(high, from + BUCKETS_PER_WRITE);
    const adding = Array.from({ length: to - from }, (_, j) => postings.bucket(from - low + j));
    if (adding.every(({ pairs }) => pairs.length === 0)) continue;
    await store.write(async ({ rows, passages, meta }) => {
      const touched = new Set(parsePending(await meta.get('passagePending')).touched);
      const changes = new Map<number, BucketChange>();
      adding.forEach(({ pairs }, j) => {
        if (pairs.length > 0) changes.set(from + j, { add: touched.size === 0 ? pairs : withoutPages(pairs, touched), remove: [] });
      });
      await passages.applyChanges(changes, async (id) => (await rows.get(id))?.site);
      // each merged bucket tells which of the pending fingerprints in it another page holds
      for (const b of changes.keys()) places.markHeld(await passages.bucket(b), adding[b - from]!.pairs, adding[b - from]!.placed);
    });
  }
}

/**
 * Step 1 for the rewrite index: the postings of the pending pages' rewrite fingerprints (an
 * import's), in `passes` passes over ranges of buckets as for passages (a page holds fewer rewrite
 * hashes than passage hashes, so a pass holds fewer postings), each bucket changed once; pages
 * visited or forgotten since they were listed (touched) already have theirs as they should be.
 */
async function indexPendingRewrites(store: PageStore, pendingGroups: readonly number[], passes: number, onMemory: ((held: HeldMemory) => void) | undefined): Promise<void> {
  // only the groups that hold rewrite fingerprints are read, in each pass (an older export has none)
  const held = new Set(await store.db.getAllKeys('rewrites'));
  const groups = pendingGroups.filter((group) => held.has(group));
  for (let pass = 0; pass < passes; pass++) {
    const low = Math.floor((pass * POSTING_BUCKETS) / passes);
    const high = Math.floor(((pass + 1) * POSTING_BUCKETS) / passes);
    const keys = new Words();
    const ids = new Words();
    for (let start = 0; start < groups.length; start += BLOCKS_PER_READ) {
      const chunk = groups.slice(start, start + BLOCKS_PER_READ);
      const tx = store.db.transaction('rewrites', 'readonly');
      const values = await within(tx, () => Promise.all(chunk.map((group) => tx.store.get(group))));
      chunk.forEach((group, i) => {
        if (values[i] === undefined) return;
        decodeRewriteGroup(group, values[i]).forEach((bytes, slot) => {
          if (bytes === undefined) return;
          for (const h of rewriteIndexHashes(decodeRewriteBytes(bytes))) {
            const { bucket, high: top } = bucketAndHigh(h);
            if (bucket < low || bucket >= high) continue;
            keys.push(((bucket - low) << 16) | top);
            ids.push(group * PASSAGE_GROUP_PAGES + slot);
          }
        });
      });
    }
    const { starts, pairs } = byBucket(keys.view(), ids.view(), high - low);
    onMemory?.({ pass: 'rewritePostings', bytes: keys.data.byteLength + ids.data.byteLength + starts.byteLength + pairs.byteLength, pages: pendingGroups.length * PASSAGE_GROUP_PAGES });
    release(keys.data, ids.data);
    for (let from = low; from < high; from += BUCKETS_PER_WRITE) {
      const to = Math.min(high, from + BUCKETS_PER_WRITE);
      if (starts[to - low] === starts[from - low]) continue;
      await store.write(async ({ rewrites, meta }) => {
        const touched = new Set(parsePending(await meta.get('passagePending')).touched);
        const changes = new Map<number, BucketChange>();
        for (let b = from; b < to; b++) {
          const add = pairs.subarray(2 * starts[b - low]!, 2 * starts[b - low + 1]!);
          if (add.length > 0) changes.set(b, { add: touched.size === 0 ? add : withoutPages(add, touched), remove: [] });
        }
        await rewrites.applyChanges(changes);
      });
    }
    release(starts, pairs);
  }
}

/** Step 2 (see the top of the file); returns how many pairs were compared and how many records changed. */
async function markCopies(
  store: PageStore,
  pending: PendingPassages,
  maxRewriteLookups: number,
  links: RewriteLinks | undefined,
  onMemory: ((held: HeldMemory) => void) | undefined,
  onProgress: ((progress: PassageProgress) => void | Promise<void>) | undefined,
): Promise<Pick<PassageOrganised, 'pairs' | 'copiesChanged' | 'rewriteLookups' | 'rewritesHanded' | 'rewritesInMemory'>> {
  const part = async (done: number): Promise<void> => onProgress?.({ phase: 'copies', done, total: COPY_PARTS });
  await part(0);
  const isPending = (id: number): boolean => inRanges(pending.blocks, Math.floor(id / PASSAGE_GROUP_PAGES));
  // pairs [a < b] sharing a hash that is not boilerplate, one of them pending; and the boilerplate hashes
  const shared = new SharedPairs(isPending, BOILERPLATE.maxPages);
  // each bucket's bytes and decoded arrays let go at once (release): a million pages' scan makes
  // about 500 MB of them, which the collector left held until after the copies were marked
  await forEachValue(store, 'postings', BUCKETS_PER_SCAN, (b, value) => {
    const bucket = decodeBucket(value);
    shared.add(b, bucket);
    release(value, bucket.highs, bucket.ids, bucket.flagged);
  });
  const { boilerplate } = shared;
  const pairs = shared.sharingTwo();
  await part(1);

  // each pair compared from both sides, as a lookup of either page would (boilerplate judged on its
  // own hashes). The pairs' pages are read once, in id order (their claims, and whether they were
  // copies: a million-page import pairs tens of thousands of pages); the fingerprints of the pairs
  // that may be copies are read PAIRS_PER_READ pairs at a time, and let go
  const shareOf = (own: PassageFingerprints, other: PassageFingerprints): number => {
    // boilerplate only where own holds it: most pages hold none, and are compared with nothing ignored
    const ownBoilerplate = new Set(own.hashes.filter((h) => boilerplate.has(h)));
    return comparePassages(own, other, ownBoilerplate.size === 0 ? {} : { ignore: (h) => ownBoilerplate.has(h) }).share;
  };
  const copy = new Map<number, boolean>();
  const wasCopy = new Map<number, boolean>();
  const pairIds = [...new Set(pairs.flat())].sort((x, y) => x - y);
  const pairPages = await readPairPages(store, pairIds);
  for (const id of pairIds) if (isPending(id)) copy.set(id, false);
  for (const [id, page] of pairPages) wasCopy.set(id, page.contentCopy);
  const mayBe = pairs.filter(([x, y]) => {
    const [px, py] = [pairPages.get(x), pairPages.get(y)];
    return px !== undefined && py !== undefined && (mayCopy(px, py) || mayCopy(py, px));
  });
  for (let start = 0; start < mayBe.length; start += PAIRS_PER_READ) {
    const chunk = mayBe.slice(start, start + PAIRS_PER_READ);
    const fingerprints = await readFingerprints(store, [...new Set(chunk.flat())].sort((x, y) => x - y));
    for (const [x, y] of chunk) {
      const [fx, fy] = [fingerprints.get(x), fingerprints.get(y)];
      if (fx === undefined || fy === undefined) continue; // its text went since the pages were read
      for (const [page, other, own, others] of [[x, y, fx, fy], [y, x, fy, fx]] as const) {
        if (isPassageCopyOf(pairPages.get(page)!, pairPages.get(other)!, () => shareOf(own, others))) copy.set(page, true);
      }
    }
  }
  await part(2);
  // the rewrites: the pending pages' lookups, then those of the later pages they find that are not
  // pending (each pending page was looked up). The regroup's lookups (links) stand for those that no
  // change since can have reached; the others are made now.
  const pendingIds = [...pendingBlocks(pending)].flatMap((block) => Array.from({ length: PASSAGE_GROUP_PAGES }, (_, slot) => block * PASSAGE_GROUP_PAGES + slot));
  const reached = links === undefined || links.watch.everything ? undefined : await reachedByChanges(store, links);
  const toMake = (ids: readonly number[]): number[] => (reached === undefined ? [...ids] : ids.filter((id) => reached.has(id)));
  const inMemory = toMake(pendingIds).length > maxRewriteLookups ? await packedRewriteIndex(store) : undefined;
  onMemory?.({ pass: 'copies', bytes: shared.heldBytes() + (inMemory?.heldBytes() ?? 0), pages: await store.count() });
  const lookUp = async (ids: readonly number[]): Promise<{ found: Map<number, RewriteLookup>; count: number; handed: number }> => {
    const made = await rewriteLookups(store, toMake(ids), inMemory);
    if (reached === undefined || links === undefined) return { ...made, handed: 0 };
    const handed = await handedLookups(store, ids.filter((id) => !reached.has(id) && (links.found.has(id) || links.copies.has(id))), links.found);
    for (const [id, lookup] of handed) made.found.set(id, lookup);
    return { ...made, handed: handed.size };
  };
  const { found: looked, count: lookups, handed } = await lookUp(pendingIds);
  const later = new Set([...looked.values()].flatMap(({ makes }) => makes).filter((id) => !isPending(id)));
  const again = await lookUp([...later]);
  for (const [id, lookup] of again.found) looked.set(id, lookup);
  for (const [id, { isCopy }] of looked) copy.set(id, isCopy || copy.get(id) === true);
  await part(3);
  // pending pages get exactly what the pairs and lookups say; pages stored before only become copies here
  // in id order: a block's pages are rewritten in one transaction, its block deflated once
  const changed = [...copy]
    .filter(([id, isCopy]) => {
      const lookedUp = looked.get(id)?.record;
      const was = wasCopy.get(id) ?? (lookedUp === undefined ? undefined : lookedUp.contentCopy === true);
      return was !== undefined && isCopy !== was && (isPending(id) || isCopy);
    })
    .sort(([x], [y]) => x - y);
  for (let start = 0; start < changed.length; start += RECORDS_PER_WRITE) {
    const chunk = changed.slice(start, start + RECORDS_PER_WRITE);
    await store.write(async ({ rows, tally }) => {
      // read together (one wait for the transaction's blocks, not one each), then written in id order
      const records = await Promise.all(chunk.map(([id]) => rows.get(id)));
      const puts: Promise<void>[] = [];
      chunk.forEach(([, isCopy], at) => {
        const record = records[at];
        if (record === undefined || isCopy === (record.contentCopy === true)) return;
        const written = storedRecord(record);
        if (isCopy) written.contentCopy = true;
        else delete written.contentCopy;
        tally.change(record, written);
        puts.push(rows.put(written));
      });
      await Promise.all(puts);
    });
  }
  // the rewrites join their originals' groups, as on a visit (unless a whole regroup is due: it joins them)
  const unfolded = (await store.groupsState()).complete ? [...looked.values()].filter(({ folded }) => !folded) : [];
  for (let start = 0; start < unfolded.length; start += RECORDS_PER_WRITE) {
    await store.write(async ({ rows, tally, rewrites, groups, stored }) => {
      for (const { record: { id }, linked } of unfolded.slice(start, start + RECORDS_PER_WRITE)) {
        const [record, others] = await Promise.all([rows.get(id), Promise.all(linked.map((other) => rows.get(other)))]);
        const found = others.filter((other): other is PageRecord => other !== undefined);
        if (record !== undefined) await regroupAround({ rows, tally, rewrites }, storedRecord(record), record, [], found, Math.min(groups.k, tablesOf(stored).k));
      }
    });
  }
  return { pairs: pairs.length, copiesChanged: changed.length, rewriteLookups: lookups + again.count, rewritesHanded: handed + again.handed, rewritesInMemory: inMemory !== undefined };
}
